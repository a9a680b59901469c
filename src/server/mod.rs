//! `pan-detect serve`: the archive over HTTP, for web information systems and
//! for people (an upload page), on axum and tokio.
//!
//! - `POST /check`: a document in any supported format (the body, or the
//!   `file` field of a multipart form); the answer is `check`'s JSON, or its
//!   HTML report with `?format=html`.
//! - `PUT /documents/{name}`, `DELETE /documents/{name}`: add, replace or
//!   remove an archive document. The writer ([`writer`]) batches the changes
//!   that arrive together into one incremental `index update` and answers
//!   each request once the generation holding it is committed.
//! - `GET /documents/{name}/similar?top=N`: the document's rows of the
//!   similarity table.
//! - `GET /healthz`, `GET /metrics` (Prometheus text format), `GET /` (the
//!   upload page).
//!
//! Reads never wait for a write: each request takes the live generation's
//! [`ArchiveIndex`] (an `Arc` swapped by the writer after each commit, or by
//! the first request that finds `CURRENT` naming a generation committed from
//! outside, by the command line's `index update`) and keeps it to the end, so
//! a read always sees one committed generation.
//! Writes need a bearer token (`--token-file`); reads need one only with
//! `--read-token-file`; the token is checked before any of the body is read.
//! Bodies above the size limit get 413, bodies slower than the body timeout
//! 408, checks beyond the queue 429, a write onto a file, a directory or a
//! symbolic link 409, a check that runs out of time (it is then stopped) or a
//! server that cannot write 503.
//!
//! Connections are bounded in time: one waiting for a request's headers (a
//! new one, or an idle one kept alive) is closed after the header timeout; a
//! stop waits at most the shutdown grace for the requests under way.
//!
//! Durability: a written document is stored in the documents directory
//! (written whole, synced, then renamed into place) before the update that
//! indexes it, and a request is acknowledged only after the commit. A server
//! killed at any point loses no acknowledged write: on start it runs an update
//! of the documents directory, which indexes what a killed batch had stored.

mod metrics;
mod page;
pub mod request;
mod routes;
pub mod writer;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;

use crate::archive::check::CheckParams;
use crate::archive::format::current_generation;
use crate::archive::{ArchiveError, ArchiveIndex, SettingsOverride, UpdateOptions};
use crate::progress::Silent;

/// How a server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The index served.
    pub index: PathBuf,
    /// The documents directory the index is updated from.
    pub docs: PathBuf,
    /// Where to listen.
    pub listen: SocketAddr,
    /// The bearer token of writes; `None`: writes are refused (403).
    pub write_token: Option<String>,
    /// The bearer token of reads; `None`: reads are open.
    pub read_token: Option<String>,
    /// The largest request body, in bytes (413 above).
    pub max_body_bytes: usize,
    /// Checks waiting or running at most (429 beyond).
    pub max_queued_checks: usize,
    /// Checks running at once.
    pub check_workers: usize,
    /// Changes waiting for the writer at most (429 beyond).
    pub max_queued_writes: usize,
    /// How long a check may take, waiting included (503 beyond, and the
    /// check is stopped).
    pub timeout: Duration,
    /// How long a connection may wait for a request's headers to arrive
    /// whole: a new connection, or an idle one kept alive (closed beyond).
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive whole (408 beyond).
    pub body_timeout: Duration,
    /// How long a stop waits for the requests under way.
    pub shutdown_grace: Duration,
    /// How long the writer waits for more changes to batch with the first.
    pub batch_window: Duration,
    /// The parameters of every check.
    pub check: CheckParams,
}

/// What every request handler shares.
pub(crate) struct AppState {
    config: ServerConfig,
    index: RwLock<Arc<ArchiveIndex>>,
    checks: Arc<tokio::sync::Semaphore>,
    queued_checks: std::sync::atomic::AtomicUsize,
    writes: std::sync::mpsc::SyncSender<writer::WriteRequest>,
    metrics: metrics::Metrics,
}

impl AppState {
    /// The live generation, kept by the caller for its whole request: the
    /// one `CURRENT` names, opened anew when an update from outside the
    /// server has committed another since (a generation that cannot be
    /// opened leaves the one held live).
    fn index(&self) -> Arc<ArchiveIndex> {
        let held = self.held_index();
        match current_generation(&self.config.index) {
            Ok(current) if current != held.header().generation => {
                ArchiveIndex::open(&self.config.index).map_or(held, |index| self.publish(index))
            }
            _ => held,
        }
    }

    /// The generation held live, without looking at `CURRENT`.
    fn held_index(&self) -> Arc<ArchiveIndex> {
        // A poisoned lock still holds a committed generation.
        self.index.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// Makes `index` the live generation (the writer after a commit, or a
    /// reader that found a newer one) unless a newer one already is; returns
    /// the live one.
    fn publish(&self, index: ArchiveIndex) -> Arc<ArchiveIndex> {
        let mut live = self.index.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        if index.header().generation > live.header().generation {
            self.metrics.set_index(&index);
            *live = Arc::new(index);
        }
        Arc::clone(&live)
    }
}

/// A server ready to answer: its index up to date and opened, its address
/// bound. Every error of a start is [`Server::bind`]'s, so that a caller can
/// report it before saying that it serves.
pub struct Server {
    state: Arc<AppState>,
    queue: Receiver<writer::WriteRequest>,
    listener: std::net::TcpListener,
}

impl Server {
    /// Brings the index up to date with the documents directory (what a
    /// killed server had stored but not committed), opens it, and binds
    /// `config.listen`.
    pub fn bind(config: ServerConfig) -> Result<Server, ArchiveError> {
        crate::archive::update(
            &config.docs,
            &config.index,
            &SettingsOverride::default(),
            &UpdateOptions::default(),
            &Silent,
        )?;
        let index = ArchiveIndex::open(&config.index)?;
        let listener = listen(config.listen)?;
        let (writes, queue) = std::sync::mpsc::sync_channel(config.max_queued_writes);
        let state = Arc::new(AppState {
            checks: Arc::new(tokio::sync::Semaphore::new(config.check_workers.max(1))),
            queued_checks: Default::default(),
            index: RwLock::new(Arc::new(index)),
            metrics: metrics::Metrics::new(),
            writes,
            config,
        });
        state.metrics.set_index(&state.held_index());
        Ok(Server { state, queue, listener })
    }

    /// How it serves.
    pub fn config(&self) -> &ServerConfig {
        &self.state.config
    }

    /// The address served (the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().unwrap_or(self.state.config.listen)
    }

    /// Serves until SIGINT or SIGTERM, then waits at most the shutdown grace
    /// for the requests under way; the changes queued for the writer are
    /// committed before it returns.
    pub fn run(self) -> Result<(), ArchiveError> {
        let Server { state, queue, listener } = self;
        let writer = writer::spawn(Arc::clone(&state), queue);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(ArchiveError::io(&state.config.index))?;
        let served = runtime.block_on(serve(listener, Arc::clone(&state)));
        // Requests still under way are dropped, which cancels their checks;
        // those checks get what is left of the grace to stop.
        let left =
            served.as_ref().map_or(Duration::ZERO, |stop| state.config.shutdown_grace.saturating_sub(stop.elapsed()));
        runtime.shutdown_timeout(left);
        // The writer commits what is queued before the sentinel, then ends.
        let _ = state.writes.send(writer::WriteRequest::Stop);
        let _ = writer.join();
        served.map(drop).map_err(ArchiveError::io(&state.config.index))
    }
}

/// Accepts connections until SIGINT or SIGTERM, each served by hyper with
/// the header timeout, then waits for the connections under way, at most the
/// shutdown grace; returns when the stop began. (`axum::serve` sets no header
/// timeout and waits for ever.)
async fn serve(listener: std::net::TcpListener, state: Arc<AppState>) -> std::io::Result<std::time::Instant> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let service = TowerToHyperService::new(routes::router(Arc::clone(&state)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(state.config.header_timeout);
    let connections = GracefulShutdown::new();
    let mut stop = std::pin::pin!(shutdown_signal());
    let stopped = loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, or a connection reset before it was taken: wait, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break std::time::Instant::now(),
        };
        let connection = connections.watch(http.serve_connection(TokioIo::new(stream), service.clone()));
        tokio::spawn(connection);
    };
    drop(listener);
    let _ = tokio::time::timeout(state.config.shutdown_grace, connections.shutdown()).await;
    Ok(stopped)
}

/// A non-blocking listener on `address` (an error naming the address).
fn listen(address: SocketAddr) -> Result<std::net::TcpListener, ArchiveError> {
    let listener = std::net::TcpListener::bind(address).and_then(|listener| {
        listener.set_nonblocking(true)?;
        Ok(listener)
    });
    listener.map_err(|e| {
        let source = std::io::Error::new(e.kind(), format!("cannot listen: {e}"));
        ArchiveError::Io { path: PathBuf::from(address.to_string()), source }
    })
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_address_is_named_in_the_error() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = taken.local_addr().unwrap();
        let error = listen(address).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{address}: cannot listen: ")), "{error}");
    }
}
