//! The server's metrics, in the Prometheus text format (`GET /metrics`),
//! kept with the official Rust client (prometheus-client).

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::archive::ArchiveIndex;

/// The labels of a request count.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    endpoint: &'static str,
    status: u16,
}

/// Every metric the server exports.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Family<RequestLabels, Histogram>,
    queued_checks: Gauge,
    commits: Family<CommitLabels, Counter>,
    commit_seconds: Histogram,
    batched_changes: Counter,
    generation: Gauge,
    documents: Gauge,
}

/// The labels of a commit count.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CommitLabels {
    ok: bool,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("pan_detect");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("http_requests", "HTTP requests answered, by endpoint and status", requests.clone());
        let request_seconds = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.005, 2.0, 14))
        });
        registry.register(
            "http_request_seconds",
            "Time to answer a request, waiting included, by endpoint and status",
            request_seconds.clone(),
        );
        let queued_checks = Gauge::default();
        registry.register("queued_checks", "Checks waiting or running", queued_checks.clone());
        let commits = Family::<CommitLabels, Counter>::default();
        registry.register("commits", "Batches of changes indexed by an update, by outcome", commits.clone());
        let commit_seconds = Histogram::new(exponential_buckets(0.05, 2.0, 12));
        registry.register("commit_seconds", "Time to index a batch of changes and commit it", commit_seconds.clone());
        let batched_changes = Counter::default();
        registry.register("batched_changes", "Document changes indexed in batches", batched_changes.clone());
        let generation = Gauge::default();
        registry.register("index_generation", "The live generation of the index", generation.clone());
        let documents = Gauge::default();
        registry.register("index_documents", "Documents in the live generation", documents.clone());
        Metrics {
            registry,
            requests,
            request_seconds,
            queued_checks,
            commits,
            commit_seconds,
            batched_changes,
            generation,
            documents,
        }
    }

    /// Counts a request answered with `status` after `elapsed`.
    pub(crate) fn observe_request(&self, endpoint: &'static str, status: u16, elapsed: Duration) {
        let labels = RequestLabels { endpoint, status };
        self.requests.get_or_create(&labels).inc();
        self.request_seconds.get_or_create(&labels).observe(elapsed.as_secs_f64());
    }

    /// Sets the number of checks waiting or running.
    pub(crate) fn set_queued_checks(&self, queued: usize) {
        self.queued_checks.set(i64::try_from(queued).unwrap_or(i64::MAX));
    }

    /// Counts a commit of `changes` changes.
    pub(crate) fn observe_commit(&self, changes: usize, elapsed: Duration, ok: bool) {
        self.commits.get_or_create(&CommitLabels { ok }).inc();
        self.commit_seconds.observe(elapsed.as_secs_f64());
        self.batched_changes.inc_by(changes as u64);
    }

    /// Records the live generation.
    pub(crate) fn set_index(&self, index: &ArchiveIndex) {
        let header = index.header();
        self.generation.set(i64::try_from(header.generation).unwrap_or(i64::MAX));
        self.documents.set(i64::try_from(header.documents).unwrap_or(i64::MAX));
    }

    /// The metrics in the Prometheus text format.
    pub(crate) fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}
