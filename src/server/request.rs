//! What the server makes of a request before it acts on it, apart from any
//! socket (so that a fuzz target can call it): the uploaded document of a
//! body or a multipart form, and the errors every endpoint answers with.
//! The name of a written document is checked by
//! [`document_path`](super::writer::document_path).

use axum::body::{Body, Bytes};
use axum::extract::multipart::{MultipartError, MultipartRejection};
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// An error answered as `{"error": message}` with its status.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    /// An error of `status` saying `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }

    /// Its HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What it says.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = json_response(self.status, &serde_json::json!({ "error": self.message }));
        match self.status {
            StatusCode::UNAUTHORIZED => {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            _ => {}
        }
        response
    }
}

/// `value` as a JSON response with `status`, ending with a line break (as
/// the command line's JSON does, so that answers read well in a terminal).
pub(crate) fn json_response(status: StatusCode, value: &serde_json::Value) -> Response {
    let text = value.to_string() + "\n";
    (status, [(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// A rejection of axum's extractors answered as JSON, with its status and
/// message, as every error of the API is.
macro_rules! api_error_from_rejections {
    ($($rejection:ty),+) => {$(
        impl From<$rejection> for ApiError {
            fn from(rejection: $rejection) -> ApiError {
                ApiError::new(rejection.status(), rejection.body_text())
            }
        }
    )+};
}

api_error_from_rejections!(BytesRejection, MultipartError, MultipartRejection, PathRejection, QueryRejection);

/// An uploaded document.
#[derive(Debug)]
pub struct Upload {
    /// The name it is reported under.
    pub name: String,
    /// Its content.
    pub bytes: Bytes,
}

/// The name of an upload that gives none.
pub const DEFAULT_UPLOAD_NAME: &str = "upload.txt";

/// The document uploaded in `body`, whole in memory: with a `content_type`
/// of `multipart/form-data`, the `file` field of the form (named by `name`,
/// else by its file name); otherwise the body (named by `name`). Unnamed:
/// [`DEFAULT_UPLOAD_NAME`]. A malformed form, or one without a `file`
/// field, is a 400.
pub async fn parse_upload(
    content_type: Option<&str>,
    name: Option<String>,
    body: impl Into<Bytes>,
) -> Result<Upload, ApiError> {
    let body = body.into();
    let multipart = content_type.is_some_and(|v| v.starts_with("multipart/form-data"));
    let named = |given: Option<String>| given.unwrap_or_else(|| DEFAULT_UPLOAD_NAME.to_string());
    if !multipart {
        return Ok(Upload { name: named(name), bytes: body });
    }
    let mut request = Request::new(Body::from(body));
    if let Some(value) = content_type.and_then(|v| HeaderValue::from_str(v).ok()) {
        request.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    let mut form = Multipart::from_request(request, &()).await?;
    while let Some(field) = form.next_field().await? {
        if field.name() == Some("file") {
            let file_name = field.file_name().map(str::to_string);
            let bytes = field.bytes().await?;
            return Ok(Upload { name: named(name.or(file_name)), bytes });
        }
    }
    Err(ApiError::new(StatusCode::BAD_REQUEST, "the form has no field named file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(content_type: Option<&str>, name: Option<&str>, body: &str) -> Result<(String, String), String> {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let upload =
            runtime.block_on(parse_upload(content_type, name.map(str::to_string), Bytes::from(body.to_string())));
        upload.map(|u| (u.name, String::from_utf8(u.bytes.to_vec()).unwrap())).map_err(|e| e.message)
    }

    const FORM: &str = "multipart/form-data; boundary=XX";

    #[test]
    fn a_body_or_the_file_field_of_a_form_is_the_upload() {
        assert_eq!(parsed(None, None, "text"), Ok(("upload.txt".into(), "text".into())));
        assert_eq!(parsed(Some("text/plain"), Some("a.txt"), "text"), Ok(("a.txt".into(), "text".into())));
        let form = "--XX\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nno\r\n\
                    --XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\n\r\nyes\r\n--XX--\r\n";
        assert_eq!(parsed(Some(FORM), None, form), Ok(("f.txt".into(), "yes".into())));
        assert_eq!(parsed(Some(FORM), Some("given.txt"), form), Ok(("given.txt".into(), "yes".into())));
    }

    #[test]
    fn a_form_without_a_file_or_cut_short_is_a_400() {
        let no_file = "--XX\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nno\r\n--XX--\r\n";
        assert_eq!(parsed(Some(FORM), None, no_file), Err("the form has no field named file".into()));
        let cut = "--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nyes";
        assert!(parsed(Some(FORM), None, cut).is_err());
        assert!(parsed(Some("multipart/form-data"), None, "x").is_err(), "no boundary");
    }
}
