//! The server's parsing of a request, apart from any socket: the name of a
//! written document (`server::writer::document_path`, what `PUT` and `DELETE
//! /documents/{name}` take after the URL's percent-decoding) and the upload
//! of `POST /check` (`server::request::parse_upload`: a body, or the `file`
//! field of a multipart form).
//!
//! Input: a first line (up to the first `\n`), taken both as a document name
//! and as the request's content type, then the body.
//!
//! Invariants: no panic; an accepted document path lies under the documents
//! directory, with only normal components that equal the name's parts, no
//! `..`, no absolute part, no NUL or other control character, no backslash,
//! no hidden part, within the length bounds; an upload is parsed in one pass
//! over the body (the future completes when polled on a runtime with nothing
//! else to wait for) and its bytes are no longer than the body.
#![no_main]

use std::path::{Component, Path};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pan_detect::server::request::parse_upload;
use pan_detect::server::writer::{MAX_NAME_BYTES, MAX_NAME_PART_BYTES, document_path};

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().build().expect("a runtime"))
}

fn check_document_path(name: &str) {
    let docs = Path::new("/archive/docs");
    let Ok(path) = document_path(docs, name) else { return };
    let relative = path.strip_prefix(docs).expect("a document path lies under the documents directory");
    assert!(name.len() <= MAX_NAME_BYTES, "{name:?}");
    let parts: Vec<&str> = name.split('/').collect();
    let components: Vec<Component> = relative.components().collect();
    assert_eq!(components.len(), parts.len(), "{name:?}");
    for (component, part) in components.iter().zip(&parts) {
        assert_eq!(*component, Component::Normal(part.as_ref()), "{name:?}");
        assert!(!part.is_empty() && *part != "." && *part != ".." && !part.starts_with('.'), "{name:?}");
        assert!(part.len() <= MAX_NAME_PART_BYTES, "{name:?}");
        assert!(!part.contains(|c: char| c.is_control() || c == '\\'), "{name:?}");
    }
}

fn check_upload(content_type: &str, body: &[u8]) {
    let parsed = runtime().block_on(parse_upload(Some(content_type), None, body.to_vec()));
    match parsed {
        Ok(upload) => assert!(upload.bytes.len() <= body.len(), "{} > {}", upload.bytes.len(), body.len()),
        Err(error) => assert!(error.status().is_client_error(), "{} {}", error.status(), error.message()),
    }
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (head, body) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let head = String::from_utf8_lossy(head);
    check_document_path(&head);
    check_upload(&head, body);
});
