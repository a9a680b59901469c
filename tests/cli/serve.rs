//! `pan-detect serve`: every endpoint over real HTTP on loopback, bad uploads,
//! credentials, limits, and acknowledged writes surviving `kill -9`.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::archive::{fails_with, ok, s};
use crate::{fixtures, pan_detect, prose, run};

const WRITE_TOKEN: &str = "write-s3cret";
const READ_TOKEN: &str = "read-s3cret";

/// A running server on a free loopback port, killed when dropped.
struct Server {
    child: Child,
    base: String,
    log: PathBuf,
}

impl Server {
    /// Starts `pan-detect serve --index index` with `extra` flags and waits
    /// until `/healthz` answers.
    fn start(dir: &Path, index: &Path, extra: &[&str]) -> Server {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let listen = format!("127.0.0.1:{port}");
        let log = dir.join(format!("serve-{port}.log"));
        let child = pan_detect()
            .args([&["serve", "--index", s(index), "--listen", &listen][..], extra].concat())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let server = Server { child, base: format!("http://{listen}"), log };
        let started = Instant::now();
        while get(&server.url("/healthz"), None).0 != 200 {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no answer: {}",
                fs::read_to_string(&server.log).unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Kills the server at once (SIGKILL).
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Stops the server with SIGTERM and waits for it.
    fn terminate(mut self) -> String {
        send_sigterm(self.child.id());
        let status = self.child.wait().unwrap();
        let log = fs::read_to_string(&self.log).unwrap();
        assert!(status.success(), "{log}");
        log
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback address with a port free at the time.
fn free_address() -> String {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("127.0.0.1:{port}")
}

/// Runs `pan-detect serve --index index --listen listen` with `extra` flags,
/// expecting it to refuse to start: its output, or a failed test when it is
/// still running after 30 s.
fn refused_start(index: &Path, listen: &str, extra: &[&str]) -> Output {
    let mut child = pan_detect()
        .args([&["serve", "--index", s(index), "--listen", listen][..], extra].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!("serve {extra:?} started: {}", String::from_utf8_lossy(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Sends SIGTERM to `pid` with the `kill` command.
fn send_sigterm(pid: u32) {
    let status = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status().unwrap();
    assert!(status.success());
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

/// Status and body of a response.
fn answer(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, String) {
    match response {
        Ok(mut response) => {
            let status = response.status().as_u16();
            (status, response.body_mut().with_config().limit(64 << 20).read_to_string().unwrap_or_default())
        }
        Err(_) => (0, String::new()),
    }
}

fn bearer(token: Option<&str>) -> Option<String> {
    token.map(|t| format!("Bearer {t}"))
}

fn get(url: &str, token: Option<&str>) -> (u16, String) {
    let mut request = agent().get(url);
    if let Some(value) = bearer(token) {
        request = request.header("Authorization", &value);
    }
    answer(request.call())
}

fn post(url: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let mut request = agent().post(url);
    if let Some(value) = bearer(token) {
        request = request.header("Authorization", &value);
    }
    answer(request.send(body))
}

fn put(url: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let mut request = agent().put(url);
    if let Some(value) = bearer(token) {
        request = request.header("Authorization", &value);
    }
    answer(request.send(body))
}

fn delete(url: &str, token: Option<&str>) -> (u16, String) {
    let mut request = agent().delete(url);
    if let Some(value) = bearer(token) {
        request = request.header("Authorization", &value);
    }
    answer(request.call())
}

/// An archive of the fixture sources, its index, and token files.
struct Served {
    dir: tempfile::TempDir,
    docs: PathBuf,
    index: PathBuf,
}

impl Served {
    fn new() -> Served {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        fs::create_dir_all(&docs).unwrap();
        for entry in fs::read_dir(fixtures().join("pan/source-documents")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "txt") {
                fs::copy(&path, docs.join(path.file_name().unwrap())).unwrap();
            }
        }
        let index = dir.path().join("idx");
        ok(run(&["index", "create", "--docs", s(&docs), "--index", s(&index), "--quiet"]));
        fs::write(dir.path().join("write.token"), format!("{WRITE_TOKEN}\n")).unwrap();
        fs::write(dir.path().join("read.token"), READ_TOKEN).unwrap();
        Served { dir, docs, index }
    }

    fn token_file(&self, name: &str) -> String {
        s(&self.dir.path().join(name)).to_string()
    }

    fn start(&self, extra: &[&str]) -> Server {
        let token = self.token_file("write.token");
        Server::start(self.dir.path(), &self.index, &[&["--token-file", &token][..], extra].concat())
    }
}

fn suspicious(name: &str) -> Vec<u8> {
    fs::read(fixtures().join("pan/suspicious-documents").join(name)).unwrap()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn every_endpoint_answers_as_the_command_line_does() {
    let served = Served::new();
    let server = served.start(&[]);
    let (status, health) = get(&server.url("/healthz"), None);
    assert_eq!((status, json(&health)["generation"].as_u64()), (200, Some(1)));
    let (status, page) = get(&server.url("/"), None);
    assert!(status == 200 && page.contains("<form") && !page.contains("http"), "the page loads nothing from outside");

    // POST /check gives check --format json's report.
    let probe = fixtures().join("pan/suspicious-documents/suspicious-document00006.txt");
    let (status, checked) = post(
        &server.url("/check?name=suspicious-document00006.txt"),
        None,
        &suspicious("suspicious-document00006.txt"),
    );
    assert_eq!(status, 200, "{checked}");
    let mut expected = json(&ok(run(&["check", "--index", s(&served.index), "--format", "json", s(&probe)])));
    let mut got = json(&checked);
    for report in [&mut expected, &mut got] {
        report["documents"][0]["path"] = serde_json::Value::Null;
    }
    assert_eq!(got, expected);
    assert!(!got["documents"][0]["sources"].as_array().unwrap().is_empty());
    let (status, page) = post(&server.url("/check?format=html"), None, &suspicious("suspicious-document00006.txt"));
    assert!(status == 200 && page.contains("source-document00004.txt") && page.contains("<mark"), "{page:.300}");

    // Writes: a token, then the change is indexed when answered.
    let document = suspicious("suspicious-document00001.txt");
    let url = server.url("/documents/2026/thesis.txt");
    assert_eq!(put(&url, None, &document).0, 401);
    assert_eq!(put(&url, Some("wrong"), &document).0, 401);
    let (status, body) = put(&url, Some(WRITE_TOKEN), &document);
    assert_eq!((status, json(&body)["generation"].as_u64()), (201, Some(2)), "{body}");
    assert_eq!(fs::read(served.docs.join("2026/thesis.txt")).unwrap(), document);
    let replacement = [&document[..], b"\nA closing paragraph added later.\n"].concat();
    let (status, body) = put(&url, Some(WRITE_TOKEN), &replacement);
    assert_eq!((status, json(&body)["generation"].as_u64()), (200, Some(3)), "a replacement: {body}");
    let (status, similar) = get(&server.url("/documents/2026/thesis.txt/similar?top=1"), None);
    let rows = json(&similar)["similar"].as_array().unwrap().clone();
    assert_eq!((status, rows.len()), (200, 1), "{similar}");
    assert_eq!(rows[0]["other"], "source-document00001.txt");
    assert_eq!(get(&server.url("/documents/nothing.txt/similar"), None).0, 404);
    let (status, body) = delete(&url, Some(WRITE_TOKEN));
    assert_eq!(status, 200, "{body}");
    assert!(!served.docs.join("2026/thesis.txt").exists());
    assert_eq!(get(&server.url("/documents/2026/thesis.txt/similar"), None).0, 404);
    assert_eq!(delete(&url, Some(WRITE_TOKEN)).0, 404);

    let (status, metrics) = get(&server.url("/metrics"), None);
    assert_eq!(status, 200);
    for line in [
        "pan_detect_http_requests_total{endpoint=\"check\",status=\"200\"} 2",
        "pan_detect_http_requests_total{endpoint=\"put\",status=\"401\"} 2",
        "pan_detect_index_generation 4",
    ] {
        assert!(metrics.contains(line), "{line} in {metrics}");
    }
    let log = server.terminate();
    assert!(log.contains("stopped"), "{log}");
}

#[test]
fn bad_uploads_names_and_credentials_get_a_clear_status_and_change_nothing() {
    let served = Served::new();
    let read_token = served.token_file("read.token");
    let server = served.start(&["--read-token-file", &read_token, "--max-body-mb", "1"]);
    let bad = fixtures().join("documents/bad");
    let cases: [(&str, Vec<u8>, u16, &str); 4] = [
        ("bomb.docx", fs::read(bad.join("bomb.docx")).unwrap(), 422, "zip bomb"),
        ("truncated.pdf", fs::read(bad.join("truncated.pdf")).unwrap(), 422, "not a readable PDF"),
        ("binary.txt", [0u8, 159, 146, 150, 0, 1, 2, 3].repeat(100), 422, "binary"),
        // Just over the 1 MB limit, so that the client has sent it all when the answer comes.
        ("big.txt", vec![b'a'; (1 << 20) + 1000], 413, "length limit exceeded"),
    ];
    for (name, bytes, status, message) in &cases {
        let (got, body) = post(&server.url(&format!("/check?name={name}")), Some(READ_TOKEN), bytes);
        assert_eq!(got, *status, "check {name}: {body}");
        assert!(json(&body)["error"].as_str().unwrap().contains(message), "check {name}: {body}");
        let (got, body) = put(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN), bytes);
        assert_eq!(got, *status, "put {name}: {body}");
        assert!(!served.docs.join(name).exists(), "{name} was not stored");
    }
    let text = b"a short document".to_vec();
    assert_eq!(post(&server.url("/check"), None, &text).0, 401, "reads need the read token");
    assert_eq!(post(&server.url("/check"), Some(WRITE_TOKEN), &text).0, 401);
    assert_eq!(post(&server.url("/check?format=xml"), Some(READ_TOKEN), &text).0, 400);
    for name in ["..%2Fescape.txt", ".hidden.txt", "notes.exe", "a//b.txt"] {
        let (status, body) = put(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN), &text);
        assert_eq!(status, 400, "{name}: {body}");
    }
    assert_eq!(put(&server.url("/documents/a.txt"), Some(READ_TOKEN), &text).0, 401, "writes need the write token");
    let (status, health) = get(&server.url("/healthz"), None);
    assert_eq!((status, json(&health)["generation"].as_u64()), (200, Some(1)), "nothing was written");
    let listed = fs::read_dir(&served.docs).unwrap().count();
    assert_eq!(listed, 8, "the documents directory is as it was");
}

#[test]
fn writes_without_a_token_file_are_refused() {
    let served = Served::new();
    let server = Server::start(served.dir.path(), &served.index, &[]);
    let (status, body) = put(&server.url("/documents/a.txt"), Some(WRITE_TOKEN), b"text");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("--token-file"), "{body}");
}

#[test]
fn acknowledged_writes_survive_kill_9() {
    let served = Served::new();
    let server = served.start(&["--batch-ms", "50"]);
    let base = server.base.clone();
    let count = Arc::new(AtomicUsize::new(0));
    // Eight writers, each adding documents until the server dies.
    let writers: Vec<_> = (0..8u64)
        .map(|w| {
            let (base, count) = (base.clone(), Arc::clone(&count));
            std::thread::spawn(move || {
                let mut acknowledged = Vec::new();
                for i in 0..200u64 {
                    let name = format!("w{w}/doc-{i}.txt");
                    let (status, _) =
                        put(&format!("{base}/documents/{name}"), Some(WRITE_TOKEN), prose(100 * w + i, 120).as_bytes());
                    match status {
                        200 | 201 => acknowledged.push(name),
                        _ => break,
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                }
                acknowledged
            })
        })
        .collect();
    // Killed once writes are acknowledged (however slow the machine), while
    // others are in flight.
    let deadline = Instant::now() + Duration::from_secs(60);
    while count.load(Ordering::Relaxed) < 16 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    server.kill();
    let acknowledged: Vec<String> = writers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    assert!(acknowledged.len() >= 8, "some writes were acknowledged before the kill: {}", acknowledged.len());
    // The restarted server indexes what the killed batch had stored, and
    // every acknowledged document is there.
    let server = served.start(&[]);
    for name in &acknowledged {
        let (status, body) = get(&server.url(&format!("/documents/{name}/similar")), None);
        assert_eq!(status, 200, "{name} was acknowledged and is lost: {body}");
    }
    ok(run(&["index", "stats", "--index", s(&served.index), "--verify"]));
}

#[test]
fn a_full_check_queue_gets_429_and_a_check_past_its_time_503() {
    let served = Served::new();
    // Long enough (about 1.6 MB) that the checks sent at once overlap.
    let document = prose(3, 200_000).into_bytes();
    // One check at a time, one waiting at most: of eight sent at once, some are refused.
    let server = served.start(&["--workers", "1", "--max-queued-checks", "1"]);
    let url = server.url("/check");
    let senders: Vec<_> = (0..8)
        .map(|_| {
            let (url, document) = (url.clone(), document.clone());
            std::thread::spawn(move || post(&url, None, &document))
        })
        .collect();
    let answers: Vec<(u16, String)> = senders.into_iter().map(|s| s.join().unwrap()).collect();
    let refused: Vec<&(u16, String)> = answers.iter().filter(|(status, _)| *status == 429).collect();
    assert!(answers.iter().all(|(status, _)| *status == 200 || *status == 429), "{answers:?}");
    assert!(!refused.is_empty() && refused.len() < 8, "{answers:?}");
    assert!(refused[0].1.contains("retry later"), "{}", refused[0].1);
    drop(server);
    let server = served.start(&["--timeout", "0.000001"]);
    let (status, body) = post(&server.url("/check"), None, &document);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("took longer than"), "{body}");
}

#[test]
fn settings_out_of_range_are_refused_at_startup() {
    let served = Served::new();
    for (flags, error) in [
        (["--workers", "0"], "--workers 0 is out of range (expected 1 or more)"),
        (["--max-queued-checks", "0"], "--max-queued-checks 0 is out of range (expected 1..=65536)"),
        (["--max-body-mb", "0"], "--max-body-mb 0 is out of range (expected 1..=4096)"),
        (["--batch-ms", "99999999999"], "--batch-ms 99999999999 is out of range (expected 0..=60000)"),
        (["--timeout", "1e300"], "--timeout 1e300 is out of range (expected seconds above 0, at most 3600)"),
    ] {
        fails_with(refused_start(&served.index, &free_address(), &flags), error);
    }
}

#[test]
fn a_server_that_cannot_start_says_why_in_one_line_before_serving() {
    let served = Served::new();
    let missing = served.dir.path().join("missing");
    fails_with(refused_start(&served.index, &free_address(), &["--docs", s(&missing)]), "missing: no such directory");
    // Documents inside the index: its start-up update refuses them.
    let inside = served.index.join("gen-theses");
    std::fs::create_dir(&inside).unwrap();
    std::fs::write(inside.join("a.txt"), "a thesis").unwrap();
    let overlap = "the index directory contains the documents directory";
    fails_with(refused_start(&served.index, &free_address(), &["--docs", s(&inside)]), overlap);
    assert!(inside.join("a.txt").exists());
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    fails_with(refused_start(&served.index, &address, &[]), &format!("{address}: cannot listen: "));
}

#[test]
fn every_error_is_json_with_unknown_paths_methods_and_queries_too() {
    let served = Served::new();
    let server = served.start(&[]);
    let document = "/documents/source-document00001.txt";
    let cases = [
        (get(&server.url(&format!("{document}/similar?top=-1")), None), 400, "top: invalid digit"),
        (get(&server.url("/nothing"), None), 404, "no endpoint GET /nothing"),
        (put(&server.url("/documents/"), Some(WRITE_TOKEN), b"text"), 404, "no endpoint PUT /documents/"),
        (post(&server.url("/healthz"), None, b"text"), 405, "POST is not allowed on /healthz"),
        (get(&server.url("/check"), None), 405, "GET is not allowed on /check"),
        (put(&server.url("/documents/%FF.txt"), Some(WRITE_TOKEN), b"text"), 400, "UTF-8"),
    ];
    for ((status, body), expected, message) in cases {
        assert_eq!(status, expected, "{body}");
        assert!(json(&body)["error"].as_str().unwrap().contains(message), "{message:?} in {body}");
    }
    let (status, body) = get(&server.url(&format!("{document}/similar?top=1")), None);
    assert_eq!(status, 200, "the route still answers: {body}");
}

#[test]
fn a_document_name_too_long_to_store_is_a_400() {
    let served = Served::new();
    let server = served.start(&[]);
    let text = b"a short document";
    let longest = format!("{}.txt", "x".repeat(238));
    for name in [format!("{}.txt", "x".repeat(296)), format!("x{longest}"), format!("{}/a.txt", "d".repeat(300))] {
        let (status, body) = put(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN), text);
        assert_eq!(status, 400, "{body}");
        assert!(json(&body)["error"].as_str().unwrap().contains("longer than"), "{body}");
        assert_eq!(delete(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN)).0, 400);
    }
    let (status, body) = put(&server.url(&format!("/documents/{longest}")), Some(WRITE_TOKEN), text);
    assert_eq!(status, 201, "the longest name is stored: {body}");
    assert_eq!(fs::read(served.docs.join(&longest)).unwrap(), text);
}

#[test]
fn documents_with_upper_case_extensions_are_stored_and_indexed() {
    let served = Served::new();
    let server = served.start(&[]);
    let pdf = fs::read(fixtures().join("documents/suspicious-document00007.pdf")).unwrap();
    let (status, body) = put(&server.url("/documents/2026/Thesis.PDF"), Some(WRITE_TOKEN), &pdf);
    assert_eq!(status, 201, "{body}");
    assert_eq!(fs::read(served.docs.join("2026/Thesis.PDF")).unwrap(), pdf);
    let (status, similar) = get(&server.url("/documents/2026/Thesis.PDF/similar?top=1"), None);
    assert_eq!(status, 200, "{similar}");
}

#[test]
fn a_document_name_holding_a_control_character_is_a_400() {
    let served = Served::new();
    let server = served.start(&[]);
    let (status, body) = put(&server.url("/documents/ctl%01.txt"), Some(WRITE_TOKEN), b"a short document");
    assert_eq!(status, 400, "{body}");
    assert!(json(&body)["error"].as_str().unwrap().contains("control character"), "{body}");
    assert!(!served.docs.join("ctl\u{1}.txt").exists());
}

/// A raw connection to `server`, for requests no HTTP client sends: a body
/// announced and never sent, headers cut short, nothing at all.
fn connect(server: &Server) -> std::net::TcpStream {
    let stream = std::net::TcpStream::connect(server.base.trim_start_matches("http://")).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream
}

/// What the server sent on `stream` until it closed it (or 20 s passed),
/// with how long that took.
fn read_until_closed(stream: &mut std::net::TcpStream) -> (String, Duration) {
    use std::io::Read;
    let started = Instant::now();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => received.extend_from_slice(&buffer[..n]),
        }
    }
    (String::from_utf8_lossy(&received).into_owned(), started.elapsed())
}

#[test]
fn a_request_without_its_token_is_refused_before_its_body_is_read() {
    use std::io::Write;
    let served = Served::new();
    let read_token = served.token_file("read.token");
    let server = served.start(&["--read-token-file", &read_token]);
    // 60 MB announced, none sent: the 401 comes without waiting for it.
    for (method, path) in [("PUT", "/documents/big.txt"), ("POST", "/check"), ("PUT", "/documents/a/b.txt")] {
        let mut stream = connect(&server);
        let head = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 60000000\r\n\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        let (answer, took) = read_until_closed(&mut stream);
        assert!(answer.starts_with("HTTP/1.1 401"), "{method} {path}: {answer:?} after {took:?}");
        assert!(took < Duration::from_secs(5), "{method} {path}: answered after {took:?}");
    }
}

#[test]
fn an_index_update_from_the_command_line_is_served_at_once() {
    let served = Served::new();
    let server = served.start(&[]);
    fs::write(served.docs.join("added.txt"), suspicious("suspicious-document00001.txt")).unwrap();
    fs::remove_file(served.docs.join("source-document00002.txt")).unwrap();
    ok(run(&["index", "update", "--docs", s(&served.docs), "--index", s(&served.index), "--quiet"]));
    let (status, health) = get(&server.url("/healthz"), None);
    assert_eq!((status, json(&health)["generation"].as_u64()), (200, Some(2)), "{health}");
    for (document, expected) in
        [("added.txt", 200), ("source-document00001.txt", 200), ("source-document00002.txt", 404)]
    {
        let (status, body) = get(&server.url(&format!("/documents/{document}/similar")), None);
        assert_eq!(status, expected, "{document}: {body}");
    }
    let (status, body) = post(&server.url("/check"), None, &suspicious("suspicious-document00001.txt"));
    assert!(status == 200 && body.contains("added.txt"), "{body:.300}");
}

#[test]
fn writes_never_follow_a_symbolic_link_out_of_the_documents_directory() {
    let served = Served::new();
    let outside = served.dir.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("victim.txt"), "not the archive's").unwrap();
    std::os::unix::fs::symlink(&outside, served.docs.join("shared")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.txt"), served.docs.join("linked.txt")).unwrap();
    let server = served.start(&[]);
    let text = b"a document planted through a link";
    for name in ["shared/victim.txt", "shared/planted.txt", "shared/deeper/planted.txt", "linked.txt"] {
        let (status, body) = put(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN), text);
        assert_eq!(status, 409, "PUT {name}: {body}");
        assert!(json(&body)["error"].as_str().unwrap().contains("symbolic link"), "{body}");
        let (status, body) = delete(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN));
        assert_eq!(status, 409, "DELETE {name}: {body}");
    }
    assert_eq!(fs::read_to_string(outside.join("victim.txt")).unwrap(), "not the archive's");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 1, "nothing was planted outside");
}

#[test]
fn a_write_onto_a_file_or_a_directory_is_a_409_not_a_503() {
    let served = Served::new();
    fs::create_dir_all(served.docs.join("folder.txt")).unwrap();
    let server = served.start(&[]);
    let text = b"a short document";
    assert_eq!(put(&server.url("/documents/good.txt"), Some(WRITE_TOKEN), text).0, 201);
    for name in ["good.txt/x.txt", "good.txt/deeper/x.txt", "folder.txt"] {
        let (status, body) = put(&server.url(&format!("/documents/{name}")), Some(WRITE_TOKEN), text);
        assert_eq!(status, 409, "{name}: {body}");
        assert!(json(&body)["error"].as_str().unwrap().contains(name.split('/').next().unwrap()), "{body}");
    }
    assert_eq!(fs::read(served.docs.join("good.txt")).unwrap(), text);
}

#[test]
fn idle_and_slow_connections_are_closed_and_a_stop_waits_only_the_grace() {
    use std::io::Write;
    let served = Served::new();
    let server = served.start(&["--header-timeout", "1", "--body-timeout", "1", "--shutdown-grace", "1"]);
    // Nothing sent; half the headers; a body cut short.
    let mut silent = connect(&server);
    let mut half = connect(&server);
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut short = connect(&server);
    let head = format!(
        "PUT /documents/slow.txt HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {WRITE_TOKEN}\r\nContent-Length: 1000\r\n\r\nsome"
    );
    short.write_all(head.as_bytes()).unwrap();
    for (what, stream) in [("silent", &mut silent), ("half headers", &mut half), ("short body", &mut short)] {
        let (answer, took) = read_until_closed(stream);
        assert!(took < Duration::from_secs(5), "{what}: open {took:?}: {answer:?}");
        if what == "short body" {
            assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
        }
    }
    assert!(!served.docs.join("slow.txt").exists());
    // A request left hanging does not hold the stop past the grace.
    let mut hanging = connect(&server);
    hanging.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let log = server.terminate();
    assert!(started.elapsed() < Duration::from_secs(5), "stopped after {:?}: {log}", started.elapsed());
}

#[test]
fn a_check_past_its_time_is_stopped_and_frees_its_worker() {
    let served = Served::new();
    // Every archive document twenty times over (about 1.1 MB): its report
    // takes seconds (most of them after the analysis of the text, between
    // the stages a check stops at), far longer than the timeout.
    let mut long = Vec::new();
    let mut names: Vec<PathBuf> = fs::read_dir(&served.docs).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for _ in 0..20 {
        for name in &names {
            long.extend(fs::read(name).unwrap());
        }
    }
    let server = served.start(&["--workers", "1", "--timeout", "2"]);
    let (status, body) = post(&server.url("/check"), None, &long);
    assert_eq!(status, 503, "{body}");
    // The one worker is free again within the timeout, for the next check.
    let (status, body) = post(&server.url("/check"), None, &suspicious("suspicious-document00001.txt"));
    assert_eq!(status, 200, "{body}");
}
