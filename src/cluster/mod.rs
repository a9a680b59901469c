//! Runs over several worker threads and processes, on timely dataflow: the
//! design of the ITA'09 production system, which split the chunk-hash space
//! into ranges, one per node, and exchanged (document pair, common chunks)
//! between nodes.
//!
//! A [`Cluster`] says which process this is, how many worker threads each
//! process runs, and where the processes listen. [`Cluster::run`] connects the
//! processes ([`network`]), starts the workers and runs a body on each; what
//! the body computes is the business of the job: [`detect`]'s reports, or
//! [`similar`]'s table of an archive.
//!
//! A process that dies or loses its connection stops the others: timely's
//! communication threads panic with "timely communication error", and
//! [`report_lost_processes`] turns that into one line naming the process,
//! then ends this process with exit code 2. Reports are written whole or not
//! at all, so those already written stay valid and a rerun replaces them.

pub mod detect;
pub mod network;
pub mod similar;

use std::io;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{Allocator, AllocatorBuilder, ProcessBuilder};
use timely::communication::{Config as CommunicationConfig, Hooks};
use timely::worker::Worker;

use network::{Handshake, Traffic};

/// The first port of the processes when no hostfile is given: process `i`
/// listens on `127.0.0.1:2101 + i` (timely's convention).
pub const FIRST_PORT: u16 = 2101;

/// Seconds a process waits for the others to connect, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// A problem with the processes of a cluster run.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The options do not describe a cluster.
    #[error("{0}")]
    Options(String),
    /// The hostfile could not be read.
    #[error("{path}: cannot read the hostfile: {source}")]
    Hostfile {
        /// The hostfile.
        path: std::path::PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// This process cannot listen on its address.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// This process's address.
        address: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A lower process could not be reached in time.
    #[error("process {process} ({address}) could not be reached: {reason}")]
    Unreachable {
        /// Its number.
        process: usize,
        /// Its address.
        address: String,
        /// Why.
        reason: String,
    },
    /// A higher process did not connect in time.
    #[error("process {process} ({address}) did not connect within {} s; is it running?", waited.as_secs())]
    NoConnection {
        /// Its number.
        process: usize,
        /// Its address.
        address: String,
        /// How long this process waited.
        waited: Duration,
    },
    /// A connection did not start as a pan-detect process's does.
    #[error("{address}: a connection failed its handshake: {reason}")]
    Handshake {
        /// This process's address.
        address: String,
        /// Why.
        reason: String,
    },
    /// A process runs another job or has another shape.
    #[error("process {process} ({address}) does not match this one: {reason}")]
    Mismatch {
        /// Its number.
        process: usize,
        /// Its address.
        address: String,
        /// What differs.
        reason: String,
    },
    /// A worker of this process stopped with a panic.
    #[error("a worker stopped: {0}")]
    Worker(String),
}

/// Where this process stands in a run of one or more processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads per process.
    pub workers: usize,
    /// This process's number, below `addresses.len()`.
    pub process: usize,
    /// `host:port` of every process, in process order (one entry for a run in
    /// one process).
    pub addresses: Vec<String>,
    /// How long to wait for the other processes to connect.
    pub connect_timeout: Duration,
}

impl Cluster {
    /// A run of `workers` threads in this process alone.
    pub fn local(workers: usize) -> Self {
        Cluster { workers, process: 0, addresses: vec![local_address(0)], connect_timeout: DEFAULT_CONNECT_TIMEOUT }
    }

    /// Process `process` of `processes` listening on the loopback ports from
    /// [`FIRST_PORT`], or at the addresses of `hostfile` (its lines, in order;
    /// their number gives the processes when `processes` is `None`).
    pub fn new(
        workers: usize,
        processes: Option<usize>,
        process: usize,
        hostfile: Option<&std::path::Path>,
    ) -> Result<Self, ClusterError> {
        let options = |message: String| Err(ClusterError::Options(message));
        if workers == 0 {
            return options("--workers must be at least 1".to_string());
        }
        let addresses = match (hostfile, processes) {
            (Some(path), _) => read_hostfile(path)?,
            (None, Some(n)) => (0..n).map(local_address).collect(),
            (None, None) => vec![local_address(0)],
        };
        let processes = processes.unwrap_or(addresses.len());
        if processes == 0 {
            return options("--processes must be at least 1".to_string());
        }
        if addresses.len() != processes {
            let path = hostfile.map(|p| p.display().to_string()).unwrap_or_default();
            return options(format!("{path}: lists {} processes, but --processes is {processes}", addresses.len()));
        }
        if process >= processes {
            return options(format!(
                "--process {process} is not below --processes {processes} (processes count from 0)"
            ));
        }
        Ok(Cluster { workers, process, addresses, connect_timeout: DEFAULT_CONNECT_TIMEOUT })
    }

    /// Processes of the run.
    pub fn processes(&self) -> usize {
        self.addresses.len()
    }

    /// Workers of the whole run.
    pub fn peers(&self) -> usize {
        self.processes() * self.workers
    }

    /// The numbers of this process's workers among all the run's.
    pub fn my_workers(&self) -> std::ops::Range<usize> {
        self.process * self.workers..(self.process + 1) * self.workers
    }

    /// Connects this process with the others (`job` is a hash of what their
    /// commands must share), runs `body` on each of its worker threads and
    /// returns the bodies' results in worker order, with the bytes exchanged
    /// with other processes.
    pub fn run<R: Send>(
        &self,
        job: u64,
        body: impl Fn(&mut Worker) -> R + Sync,
    ) -> Result<(Vec<R>, u64), ClusterError> {
        let traffic = Arc::new(Traffic::default());
        let (builders, guard) = self.allocators(job, &traffic)?;
        let _ = ADDRESSES.set(self.addresses.clone());
        let results = std::thread::scope(|scope| {
            let workers: Vec<_> = builders
                .into_iter()
                .map(|builder| {
                    let body = &body;
                    scope.spawn(move || {
                        let mut worker = Worker::new(Default::default(), build_allocator(builder), None);
                        let result = body(&mut worker);
                        while worker.has_dataflows() {
                            worker.step_or_park(None);
                        }
                        result
                    })
                })
                .collect();
            workers.into_iter().map(|worker| worker.join().map_err(panic_message)).collect::<Result<Vec<R>, _>>()
        });
        // Joins the communication threads: they end when every process has sent its last.
        drop(guard);
        let results = results.map_err(ClusterError::Worker)?;
        Ok((results, traffic.sent()))
    }

    /// The communication of this process's workers: threads in one process,
    /// or TCP connections to the others.
    fn allocators(
        &self,
        job: u64,
        traffic: &Arc<Traffic>,
    ) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), ClusterError> {
        if self.processes() == 1 {
            return CommunicationConfig::Process(self.workers).try_build().map_err(ClusterError::Worker);
        }
        let me = Handshake {
            process: self.process as u64,
            processes: self.processes() as u64,
            workers: self.workers as u64,
            job,
        };
        let streams = network::connect_all(&self.addresses, me, self.connect_timeout, traffic)?;
        let hooks = Hooks::default();
        let local = ProcessBuilder::new_typed_vector(self.workers, hooks.refill.clone(), hooks.spill.clone());
        let address = &self.addresses[self.process];
        let (builders, guard) = initialize_networking_from_sockets(local, streams, self.process, self.workers, hooks)
            .map_err(|source| ClusterError::Listen { address: address.clone(), source })?;
        Ok((builders.into_iter().map(AllocatorBuilder::Tcp).collect(), Box::new(guard)))
    }
}

/// A worker's communication, built on its own thread (timely keeps the
/// builder trait to itself; this is what its builder does).
fn build_allocator(builder: AllocatorBuilder) -> Allocator {
    match builder {
        AllocatorBuilder::Thread(_) => Allocator::Thread(Default::default()),
        AllocatorBuilder::Process(process) => Allocator::Process(process.build()),
        AllocatorBuilder::Tcp(tcp) => Allocator::Tcp(tcp.build()),
    }
}

/// The loopback address of process `i` without a hostfile.
fn local_address(i: usize) -> String {
    format!("127.0.0.1:{}", usize::from(FIRST_PORT) + i)
}

/// The `host:port` lines of a hostfile (blank lines and `#` comments left out).
fn read_hostfile(path: &std::path::Path) -> Result<Vec<String>, ClusterError> {
    let text = crate::analysis::read::read_input_to_string(path)
        .map_err(|source| ClusterError::Hostfile { path: path.to_path_buf(), source })?;
    let lines: Vec<String> = text
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim().to_string())
        .filter(|line| !line.is_empty())
        .collect();
    if let Some(bad) =
        lines.iter().find(|line| line.rsplit_once(':').is_none_or(|(_, port)| port.parse::<u16>().is_err()))
    {
        let reason = format!("'{bad}' is not host:port");
        return Err(ClusterError::Hostfile {
            path: path.to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidData, reason),
        });
    }
    Ok(lines)
}

/// The addresses of the run, for the message about a lost process.
static ADDRESSES: OnceLock<Vec<String>> = OnceLock::new();

/// Turns the panic of a timely communication thread (a process died or its
/// connection broke) into one line naming the process, and ends this process
/// with exit code 2: the workers would otherwise wait for it for ever. Other
/// panics go to the hook that was installed before. Call once, before
/// [`Cluster::run`].
pub fn report_lost_processes() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current();
        let peer =
            thread.name().and_then(|name| name.strip_prefix("timely:recv-").or(name.strip_prefix("timely:send-")));
        let Some(peer) = peer.and_then(|p| p.parse::<usize>().ok()) else {
            previous(info);
            return;
        };
        let address = ADDRESSES.get().and_then(|all| all.get(peer)).cloned().unwrap_or_default();
        let cause = payload_message(info.payload());
        let cause = cause.strip_prefix("timely communication error: ").unwrap_or(&cause);
        eprintln!(
            "pan-detect: lost process {peer} ({address}): {cause}; this process stops too. Reports already written are \
             whole; run the command again on every process."
        );
        std::process::exit(2);
    }));
}

/// The message of a panic's payload.
fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".to_string())
}

/// The message of a joined thread's panic.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload_message(payload.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_come_from_the_hostfile_or_the_loopback_ports() {
        let dir = tempfile::tempdir().unwrap();
        let hostfile = dir.path().join("hosts");
        std::fs::write(&hostfile, "# three machines\nnode-a:2101\n\nnode-b:2101\nnode-c:2101 # spare\n").unwrap();
        let cluster = Cluster::new(2, None, 1, Some(&hostfile)).unwrap();
        assert_eq!(cluster.addresses, ["node-a:2101", "node-b:2101", "node-c:2101"]);
        assert_eq!((cluster.peers(), cluster.my_workers()), (6, 2..4));
        let local = Cluster::new(1, Some(2), 0, None).unwrap();
        assert_eq!(local.addresses, ["127.0.0.1:2101", "127.0.0.1:2102"]);
    }

    #[test]
    fn inconsistent_options_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let hostfile = dir.path().join("hosts");
        std::fs::write(&hostfile, "a:1\nb:2\n").unwrap();
        let error = |result: Result<Cluster, ClusterError>| result.unwrap_err().to_string();
        assert!(
            error(Cluster::new(1, Some(3), 0, Some(&hostfile))).ends_with("lists 2 processes, but --processes is 3")
        );
        assert!(error(Cluster::new(1, Some(2), 2, None)).contains("--process 2 is not below --processes 2"));
        assert!(error(Cluster::new(0, None, 0, None)).contains("--workers must be at least 1"));
        std::fs::write(&hostfile, "a:1\nb\n").unwrap();
        assert!(error(Cluster::new(1, None, 0, Some(&hostfile))).ends_with("'b' is not host:port"));
    }
}
