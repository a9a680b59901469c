//! The server's endpoints ([`super`] lists them) and their errors: every
//! error is a JSON body `{"error": "..."}` with its status.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, MatchedPath, Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::request::{ApiError, Upload, json_response, parse_upload};
use super::writer::{WriteError, WriteRequest, WriteResult, document_path, refuse_links_and_clashes};
use super::{AppState, page};
use crate::analysis::read::{DocumentFile, Loaded, TextReader};
use crate::archive::ArchiveError;
use crate::archive::check::Checker;
use crate::archive::similar::SimilarRow;
use crate::archive::table::SimilarityTable;
use crate::report::model::{DocumentReport, DocumentTexts};
use crate::report::{html, json};

/// The routes, with the body limit, the token check of every request before
/// its body is read, and the metrics of every request (those of no route
/// too: an unknown path is a JSON 404, a method a route does not take a JSON
/// 405).
pub(crate) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(upload_page))
        .route("/check", post(check))
        .route("/documents/{*path}", get(similar).put(put_document).delete(delete_document))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&state), authorize_first))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), observe))
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes))
        .with_state(state)
}

/// The answer to a path no route takes.
async fn no_route(method: Method, uri: Uri) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, format!("no endpoint {method} {}", uri.path()))
}

/// The answer to a method that the path's route does not take (its `Allow`
/// header lists those it does).
async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, format!("{method} is not allowed on {}", uri.path()))
}

/// Counts and times every request by endpoint and status.
async fn observe(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let endpoint = endpoint(request.extensions().get::<MatchedPath>().map(MatchedPath::as_str), request.method());
    let response = next.run(request).await;
    state.metrics.observe_request(endpoint, response.status().as_u16(), started.elapsed());
    response
}

/// The metrics label of a request.
fn endpoint(route: Option<&str>, method: &Method) -> &'static str {
    match (route, method.as_str()) {
        (Some("/"), _) => "page",
        (Some("/check"), _) => "check",
        (Some("/documents/{*path}"), "PUT") => "put",
        (Some("/documents/{*path}"), "DELETE") => "delete",
        (Some("/documents/{*path}"), _) => "similar",
        (Some("/healthz"), _) => "healthz",
        (Some("/metrics"), _) => "metrics",
        _ => "other",
    }
}

/// Who may do what.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Access {
    Read,
    Write,
}

/// The access an endpoint (a metrics label of [`endpoint`]) needs, if any.
fn access_of(endpoint: &str) -> Option<Access> {
    match endpoint {
        "check" | "similar" => Some(Access::Read),
        "put" | "delete" => Some(Access::Write),
        _ => None,
    }
}

/// Refuses a request without the token its endpoint needs before anything
/// of its body is read, so that no unauthorised body is ever taken in.
async fn authorize_first(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let endpoint = endpoint(request.extensions().get::<MatchedPath>().map(MatchedPath::as_str), request.method());
    if let Some(Err(refused)) = access_of(endpoint).map(|access| authorize(&state, request.headers(), access)) {
        return refused.into_response();
    }
    next.run(request).await
}

/// Refuses a request without the bearer token `access` needs.
fn authorize(state: &AppState, headers: &HeaderMap, access: Access) -> Result<(), ApiError> {
    let token = match access {
        Access::Read => match &state.config.read_token {
            Some(token) => token,
            None => return Ok(()),
        },
        Access::Write => state.config.write_token.as_ref().ok_or_else(|| {
            ApiError::new(StatusCode::FORBIDDEN, "writes are disabled: the server runs without --token-file")
        })?,
    };
    let given =
        headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(given) if same_secret(given.as_bytes(), token.as_bytes()) => Ok(()),
        Some(_) => Err(ApiError::new(StatusCode::UNAUTHORIZED, "wrong bearer token")),
        None => Err(ApiError::new(StatusCode::UNAUTHORIZED, "an Authorization: Bearer token is needed")),
    }
}

/// Compares two secrets in time independent of where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn upload_page() -> Html<&'static str> {
    Html(page::UPLOAD)
}

async fn healthz(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    // Opening a generation committed from outside reads files: not on the runtime's threads.
    let index = tokio::task::spawn_blocking(move || state.index())
        .await
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "opening the index failed"))?;
    let header = index.header();
    let body = serde_json::json!({ "status": "ok", "generation": header.generation, "documents": header.documents });
    Ok(json_response(StatusCode::OK, &body))
}

async fn metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], state.metrics.encode())
}

/// The query of `POST /check`.
#[derive(Deserialize)]
struct CheckQuery {
    /// The name the document is reported under (its type is told by content,
    /// and by this name's extension for plain text and HTML).
    name: Option<String>,
    /// `json` (the default): the JSON report of `check --format json`;
    /// `html`: the HTML report of `check --format html`.
    format: Option<String>,
}

async fn check(
    State(state): State<Arc<AppState>>,
    query: Result<Query<CheckQuery>, QueryRejection>,
    request: Request,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let html = match query.format.as_deref() {
        None | Some("json") => false,
        Some("html") => true,
        Some(other) => return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("format {other:?}: json or html"))),
    };
    let Upload { name, bytes } = upload(&state, query.name, request).await?;
    let _queued = QueuedCheck::admit(&state)?;
    let permits = Arc::clone(&state.checks);
    let work_state = Arc::clone(&state);
    // Set when the request ends, answered or not (timed out, or its client
    // gone): the check stops at its next stage.
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
    let cancelled = Arc::clone(&cancel.0);
    let work = async move {
        let permit = permits.acquire_owned().await.map_err(|_| unavailable("the server is stopping"))?;
        // The permit goes with the work: a check that outlives its request
        // still holds it (until it sees its cancellation), so no more checks
        // run than there are workers.
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            check_document(&work_state, &name, bytes, cancelled)
        })
        .await
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the check failed"))?
    };
    let timeout = state.config.timeout;
    let (report, texts) = match tokio::time::timeout(timeout, work).await {
        Ok(answer) => answer?,
        Err(_) => return Err(unavailable(format!("the check took longer than {} s", timeout.as_secs_f64()))),
    };
    Ok(if html {
        Html(html::render_document(&report, &texts, false)).into_response()
    } else {
        ([(header::CONTENT_TYPE, "application/json")], json::Report::new(vec![report]).to_json()).into_response()
    })
}

/// A cancellation flag raised when dropped.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn unavailable(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
}

/// One check counted as waiting or running, from its admission to its end.
struct QueuedCheck<'a> {
    state: &'a AppState,
}

impl<'a> QueuedCheck<'a> {
    /// Admits a check, or refuses it (429) when the queue is full.
    fn admit(state: &'a AppState) -> Result<QueuedCheck<'a>, ApiError> {
        let queued = state.queued_checks.fetch_add(1, Ordering::SeqCst) + 1;
        let admitted = QueuedCheck { state };
        state.metrics.set_queued_checks(queued);
        if queued > state.config.max_queued_checks {
            let limit = state.config.max_queued_checks;
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("{limit} checks are waiting; retry later"),
            ));
        }
        Ok(admitted)
    }
}

impl Drop for QueuedCheck<'_> {
    fn drop(&mut self) {
        let queued = self.state.queued_checks.fetch_sub(1, Ordering::SeqCst) - 1;
        self.state.metrics.set_queued_checks(queued);
    }
}

/// The whole body of `request`, within the size limit (413) and the body
/// timeout (408).
async fn read_body(state: &Arc<AppState>, request: Request) -> Result<Bytes, ApiError> {
    let timeout = state.config.body_timeout;
    match tokio::time::timeout(timeout, Bytes::from_request(request, state)).await {
        Ok(bytes) => Ok(bytes?),
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not arrive within {} s", timeout.as_secs_f64()),
        )),
    }
}

/// The uploaded document of a request ([`parse_upload`]).
async fn upload(state: &Arc<AppState>, name: Option<String>, request: Request) -> Result<Upload, ApiError> {
    let content_type = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
    let body = read_body(state, request).await?;
    parse_upload(content_type.as_deref(), name, body).await
}

/// The text of an uploaded document, told by content (422 when it is not a
/// document this tool reads: binary, a corrupt PDF, a ZIP bomb).
fn document_text(name: &str, bytes: Bytes) -> Result<String, ApiError> {
    let file = DocumentFile { name: name.to_string(), path: PathBuf::from(name), bytes: bytes.len() as u64 };
    match TextReader::default().decode(&file, bytes.into()) {
        Loaded::Text(text, _) => Ok(text),
        Loaded::Skipped(warning) => Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, warning.to_string())),
    }
}

/// Reads and checks an uploaded document against the live generation: its
/// report, and the texts an HTML report shows. Stops between its stages once
/// `cancelled` is set.
fn check_document(
    state: &AppState,
    name: &str,
    bytes: Bytes,
    cancelled: Arc<AtomicBool>,
) -> Result<(DocumentReport, DocumentTexts), ApiError> {
    let text = document_text(name, bytes)?;
    let index = state.index();
    let internal = |e: ArchiveError| match e {
        ArchiveError::Cancelled => unavailable("the check was stopped"),
        e => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    };
    let mut checker = Checker::new(&index, state.config.check).map_err(internal)?.cancelled_by(Arc::clone(&cancelled));
    let report = checker.check_text(name, &text).map_err(internal)?;
    if cancelled.load(Ordering::Relaxed) {
        return Err(internal(ArchiveError::Cancelled));
    }
    Ok(checker.document_report(name, &report, text))
}

/// The path of a document named in a write's URL: 400 for a name outside
/// the documents directory, too long to store, or of a type the index does
/// not read; 409 for one that reaches through a symbolic link or a file, or
/// names a directory.
fn writable_path(state: &AppState, name: &str) -> Result<PathBuf, ApiError> {
    let path = document_path(&state.config.docs, name).map_err(|reason| {
        ApiError::new(StatusCode::BAD_REQUEST, format!("{name:?} is not a document name: {reason}"))
    })?;
    refuse_links_and_clashes(&state.config.docs, name).map_err(write_refused)?;
    Ok(path)
}

/// The answer to a change the writer refused: 409 for what the client must
/// change, 503 for the server's own trouble.
fn write_refused(error: WriteError) -> ApiError {
    match error {
        WriteError::Conflict(message) => ApiError::new(StatusCode::CONFLICT, message),
        WriteError::Failed(message) => unavailable(format!("not indexed: {message}")),
    }
}

async fn put_document(
    State(state): State<Arc<AppState>>,
    name: Result<Path<String>, PathRejection>,
    request: Request,
) -> Result<Response, ApiError> {
    let Path(name) = name?;
    let path = writable_path(&state, &name)?;
    let bytes = read_body(&state, request).await?;
    // Refused before it reaches the archive: what the index could not read.
    let (checked_name, checked_bytes) = (name.clone(), bytes.clone());
    tokio::task::spawn_blocking(move || document_text(&checked_name, checked_bytes))
        .await
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "reading the document failed"))??;
    let existed = path.exists();
    let (reply, answer) = tokio::sync::oneshot::channel();
    send(&state, WriteRequest::Put { name: name.clone(), bytes: bytes.into(), reply })?;
    let generation = committed(answer).await?;
    let status = if existed { StatusCode::OK } else { StatusCode::CREATED };
    let body = serde_json::json!({ "document": name, "generation": generation, "status": "indexed" });
    Ok(json_response(status, &body))
}

async fn delete_document(
    State(state): State<Arc<AppState>>,
    name: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(name) = name?;
    let path = writable_path(&state, &name)?;
    if !path.is_file() {
        return Err(ApiError::new(StatusCode::NOT_FOUND, format!("no document {name:?}")));
    }
    let (reply, answer) = tokio::sync::oneshot::channel();
    send(&state, WriteRequest::Delete { name: name.clone(), reply })?;
    let generation = committed(answer).await?;
    Ok(json_response(
        StatusCode::OK,
        &serde_json::json!({ "document": name, "generation": generation, "status": "deleted" }),
    ))
}

/// Queues a change for the writer (429 when its queue is full).
fn send(state: &AppState, request: WriteRequest) -> Result<(), ApiError> {
    state.writes.try_send(request).map_err(|error| match error {
        std::sync::mpsc::TrySendError::Full(_) => {
            ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too many changes are waiting; retry later")
        }
        std::sync::mpsc::TrySendError::Disconnected(_) => unavailable("the server is stopping"),
    })
}

/// The generation that committed a change, or why it did not.
async fn committed(answer: tokio::sync::oneshot::Receiver<WriteResult>) -> Result<u64, ApiError> {
    match answer.await {
        Ok(Ok(generation)) => Ok(generation),
        Ok(Err(error)) => Err(write_refused(error)),
        Err(_) => Err(unavailable("the server stopped before indexing the change")),
    }
}

/// The query of `GET /documents/{name}/similar`.
#[derive(Deserialize)]
struct SimilarQuery {
    /// Rows at most (default 10, at most 1000).
    top: Option<usize>,
}

async fn similar(
    State(state): State<Arc<AppState>>,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<SimilarQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let (Path(path), Query(query)) = (path?, query?);
    let Some(name) = path.strip_suffix("/similar").map(str::to_string) else {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "GET /documents/{name}/similar?top=N"));
    };
    let top = query.top.unwrap_or(10).min(1000);
    let reader = Arc::clone(&state);
    let rows = tokio::task::spawn_blocking(move || {
        // The table is a file of the generation: one that an update removed
        // since this request took it is read from the new live generation.
        let index = reader.index();
        match similar_rows(&index, &name, top) {
            Err(_) if reader.index().header().generation != index.header().generation => {
                let index = reader.index();
                similar_rows(&index, &name, top).map(|rows| (name, index, rows))
            }
            result => result.map(|rows| (name, index, rows)),
        }
    })
    .await
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "reading the table failed"))?;
    let (name, index, rows) = rows?;
    let body = serde_json::json!({ "document": name, "generation": index.header().generation, "similar": rows });
    Ok(json_response(StatusCode::OK, &body))
}

/// The `top` rows of document `name` in `index`'s similarity table (404 for
/// a document that is not in the index).
fn similar_rows(index: &crate::archive::ArchiveIndex, name: &str, top: usize) -> Result<Vec<SimilarRow>, ApiError> {
    if !index.live_ids().any(|id| index.name(id) == name) {
        return Err(ApiError::new(StatusCode::NOT_FOUND, format!("no document {name:?} in the index")));
    }
    let internal = |e: ArchiveError| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string());
    let table = SimilarityTable::of(index).map_err(internal)?;
    let mut rows = Vec::new();
    table
        .for_each_row_of(name, &mut |row| {
            if rows.len() < top {
                rows.push(row);
            }
            Ok(())
        })
        .map_err(internal)?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_equal_only_when_every_byte_is() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3cret", b"s3creT"));
        assert!(!same_secret(b"s3cret", b"s3cret!"));
        assert!(!same_secret(b"", b"x"));
    }

    #[test]
    fn requests_are_labelled_by_route_and_method() {
        assert_eq!(endpoint(Some("/documents/{*path}"), &Method::PUT), "put");
        assert_eq!(endpoint(Some("/documents/{*path}"), &Method::GET), "similar");
        assert_eq!(endpoint(Some("/check"), &Method::POST), "check");
        assert_eq!(endpoint(None, &Method::GET), "other");
    }

    #[test]
    fn reads_and_writes_need_their_tokens_and_nothing_else_does() {
        assert_eq!(access_of("check"), Some(Access::Read));
        assert_eq!(access_of("similar"), Some(Access::Read));
        assert_eq!(access_of("put"), Some(Access::Write));
        assert_eq!(access_of("delete"), Some(Access::Write));
        for open in ["page", "healthz", "metrics", "other"] {
            assert_eq!(access_of(open), None, "{open}");
        }
    }
}
