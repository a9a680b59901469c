//! The connections between the processes of a cluster run, made before timely
//! takes them over: with a deadline, a handshake that refuses a process running
//! another job, and errors that name the process at fault. Timely's own set-up
//! retries for ever and prints to standard output.
//!
//! Process `i` connects to every process below it and accepts every process
//! above it, as timely does, so no two processes wait on each other.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::stream::Stream;

use super::ClusterError;

/// The first bytes of a handshake: a pan-detect cluster, protocol version 1.
const MAGIC: &[u8; 16] = b"pan-detect/tdf/1";

/// How often a refused connection is tried again, and a listener polled.
const RETRY: Duration = Duration::from_millis(10);

/// What two processes must agree on before they work together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handshake {
    /// The sender's process number.
    pub process: u64,
    /// Processes of the run.
    pub processes: u64,
    /// Worker threads per process.
    pub workers: u64,
    /// A hash of everything that must be equal in every process's command
    /// (directories, parameters, output).
    pub job: u64,
}

impl Handshake {
    fn to_bytes(self) -> [u8; 48] {
        let mut bytes = [0u8; 48];
        bytes[..16].copy_from_slice(MAGIC);
        for (i, value) in [self.process, self.processes, self.workers, self.job].into_iter().enumerate() {
            bytes[16 + 8 * i..24 + 8 * i].copy_from_slice(&value.to_le_bytes());
        }
        bytes
    }

    fn from_bytes(bytes: &[u8; 48]) -> Option<Self> {
        if &bytes[..16] != MAGIC {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(bytes[16 + 8 * i..24 + 8 * i].try_into().unwrap_or_default());
        Some(Handshake { process: word(0), processes: word(1), workers: word(2), job: word(3) })
    }

    /// Why a peer's handshake does not fit this process's `self`, if it does not.
    fn mismatch(&self, peer: &Handshake) -> Option<String> {
        if peer.processes != self.processes {
            Some(format!("it was started with --processes {}, this one with {}", peer.processes, self.processes))
        } else if peer.workers != self.workers {
            Some(format!("it was started with --workers {}, this one with {}", peer.workers, self.workers))
        } else if peer.job != self.job {
            Some("it runs another job: its directories, options or output differ from this process's".to_string())
        } else {
            None
        }
    }
}

/// A connection that counts the bytes it carries, both ways.
#[derive(Debug)]
pub struct CountedStream {
    stream: TcpStream,
    traffic: Arc<Traffic>,
}

/// Bytes sent to and received from the other processes.
#[derive(Debug, Default)]
pub struct Traffic {
    sent: AtomicU64,
    received: AtomicU64,
}

impl Traffic {
    /// Bytes sent so far.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Bytes received so far.
    pub fn received(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }
}

impl Read for CountedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.stream.read(buf)?;
        self.traffic.received.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

impl Write for CountedStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.stream.write(buf)?;
        self.traffic.sent.fetch_add(written as u64, Ordering::Relaxed);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl Stream for CountedStream {
    fn try_clone(&self) -> io::Result<Self> {
        Ok(CountedStream { stream: self.stream.try_clone()?, traffic: Arc::clone(&self.traffic) })
    }

    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        self.stream.set_nonblocking(nonblocking)
    }

    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.stream.shutdown(how)
    }
}

/// Connects process `me.process` with every other process of `addresses`
/// (`host:port` in process order) within `timeout`: one stream per process,
/// `None` at this process's place, all counting into `traffic`.
pub fn connect_all(
    addresses: &[String],
    me: Handshake,
    timeout: Duration,
    traffic: &Arc<Traffic>,
) -> Result<Vec<Option<CountedStream>>, ClusterError> {
    let deadline = Instant::now() + timeout;
    let process = me.process as usize;
    let listener = TcpListener::bind(&addresses[process])
        .map_err(|source| ClusterError::Listen { address: addresses[process].clone(), source })?;
    let mut streams: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (peer, address) in addresses.iter().enumerate().take(process) {
        streams[peer] = Some(connect_to(peer, address, me, deadline)?);
    }
    accept_from(&listener, addresses, me, (deadline, timeout), &mut streams)?;
    let counted = |stream: TcpStream| CountedStream { stream, traffic: Arc::clone(traffic) };
    Ok(streams.into_iter().map(|stream| stream.map(counted)).collect())
}

/// Connects to process `peer` at `address`, retrying until `deadline`, and
/// exchanges handshakes.
fn connect_to(peer: usize, address: &str, me: Handshake, deadline: Instant) -> Result<TcpStream, ClusterError> {
    let unreachable =
        |reason: String| ClusterError::Unreachable { process: peer, address: address.to_string(), reason };
    let mut stream = loop {
        match TcpStream::connect(address) {
            Ok(stream) => break stream,
            Err(error) if Instant::now() >= deadline => return Err(unreachable(error.to_string())),
            Err(_) => sleep(RETRY),
        }
    };
    let failed = |error: io::Error| unreachable(handshake_failure(&error));
    stream.set_nodelay(true).map_err(failed)?;
    stream.write_all(&me.to_bytes()).map_err(failed)?;
    let peer_handshake = read_handshake(&mut stream, deadline).map_err(failed)?;
    check_peer(&me, &peer_handshake, Some(peer), address)?;
    Ok(stream)
}

/// Accepts the processes above `me` until each has connected or `deadline`
/// passes, and exchanges handshakes.
fn accept_from(
    listener: &TcpListener,
    addresses: &[String],
    me: Handshake,
    (deadline, timeout): (Instant, Duration),
    streams: &mut [Option<TcpStream>],
) -> Result<(), ClusterError> {
    let process = me.process as usize;
    let listen_error = |source| ClusterError::Listen { address: addresses[process].clone(), source };
    listener.set_nonblocking(true).map_err(listen_error)?;
    while let Some(missing) = (process + 1..addresses.len()).find(|&peer| streams[peer].is_none()) {
        let mut stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let address = addresses[missing].clone();
                    return Err(ClusterError::NoConnection { process: missing, address, waited: timeout });
                }
                sleep(RETRY);
                continue;
            }
            Err(error) => return Err(listen_error(error)),
        };
        let handshake_error = |error: io::Error| ClusterError::Handshake {
            address: addresses[process].clone(),
            reason: handshake_failure(&error),
        };
        stream.set_nonblocking(false).map_err(handshake_error)?;
        stream.set_nodelay(true).map_err(handshake_error)?;
        let peer = read_handshake(&mut stream, deadline).map_err(handshake_error)?;
        let number = peer.process as usize;
        if number <= process || number >= addresses.len() || streams[number].is_some() {
            let reason = format!(
                "a process calling itself process {number} connected; expected one of {}..{}",
                process + 1,
                addresses.len()
            );
            return Err(ClusterError::Handshake { address: addresses[process].clone(), reason });
        }
        check_peer(&me, &peer, None, &addresses[number])?;
        stream.write_all(&me.to_bytes()).map_err(handshake_error)?;
        streams[number] = Some(stream);
    }
    Ok(())
}

/// Why a handshake failed, in words: a peer that hangs up has usually
/// refused this process's handshake.
fn handshake_failure(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset => {
            "it closed the connection during the handshake; see its own message (its command may differ)".to_string()
        }
        _ => format!("handshake failed: {error}"),
    }
}

/// Reads a peer's handshake, waiting at most until `deadline`.
fn read_handshake(stream: &mut TcpStream, deadline: Instant) -> io::Result<Handshake> {
    let wait = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(1));
    stream.set_read_timeout(Some(wait))?;
    let mut bytes = [0u8; 48];
    stream.read_exact(&mut bytes)?;
    stream.set_read_timeout(None)?;
    Handshake::from_bytes(&bytes)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "the peer is not a pan-detect process"))
}

/// Refuses a peer whose handshake differs from `me`'s in what must be equal;
/// `expected` is the process number a connection was made to.
fn check_peer(me: &Handshake, peer: &Handshake, expected: Option<usize>, address: &str) -> Result<(), ClusterError> {
    let process = peer.process as usize;
    if let Some(expected) = expected.filter(|&e| e != process) {
        let reason = format!("it calls itself process {process}; is the hostfile the same on every machine?");
        return Err(ClusterError::Mismatch { process: expected, address: address.to_string(), reason });
    }
    match me.mismatch(peer) {
        Some(reason) => Err(ClusterError::Mismatch { process, address: address.to_string(), reason }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handshake_reads_back_and_other_bytes_are_refused() {
        let handshake = Handshake { process: 3, processes: 4, workers: 2, job: 0xdead_beef };
        assert_eq!(Handshake::from_bytes(&handshake.to_bytes()), Some(handshake));
        assert_eq!(Handshake::from_bytes(&[7u8; 48]), None);
    }

    #[test]
    fn peers_must_agree_on_the_job_and_its_shape() {
        let me = Handshake { process: 0, processes: 2, workers: 1, job: 1 };
        assert_eq!(me.mismatch(&Handshake { process: 1, ..me }), None);
        assert!(me.mismatch(&Handshake { job: 2, ..me }).unwrap().contains("another job"));
        assert!(me.mismatch(&Handshake { workers: 2, ..me }).unwrap().contains("--workers 2"));
        assert!(me.mismatch(&Handshake { processes: 3, ..me }).unwrap().contains("--processes 3"));
    }
}
