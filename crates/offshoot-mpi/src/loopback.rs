//! Ranks as threads of one process: a [`Transport`] for tests and examples that need no
//! MPI. It carries the same messages as the MPI transport, through shared queues. It is a
//! test double — use `Mpi` to run on a cluster.
//!
//! It can also make a rank **crash-stop** at the protocol level ([`Loopback::crash_stop_after`]):
//! after a given number of received messages, everything the rank sends is dropped, so it
//! never answers or returns a result again — how the fault tests model a lost thief.
//!
//! Invariants:
//! * Messages from one rank to another arrive in order, each once (one FIFO per receiver,
//!   pushed under its lock).
//! * A crash-stopped rank keeps receiving (its agent still ends with the run), but no
//!   message of its reaches anyone.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::transport::Transport;

type Queue = Mutex<VecDeque<(usize, Vec<u8>)>>;

/// One rank of a loopback cluster.
pub struct Loopback {
    rank: usize,
    queues: Arc<Vec<Queue>>,
    received: usize,
    crash_after: Option<usize>,
    packages: usize,
    crash_after_packages: Option<usize>,
}

impl std::fmt::Debug for Loopback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loopback")
            .field("rank", &self.rank)
            .field("size", &self.queues.len())
            .finish()
    }
}

/// `n` connected ranks, numbered 0 to `n - 1`; give each to its own thread.
///
/// # Panics
///
/// If `n` is 0.
///
/// ```
/// use offshoot_mpi::Transport;
/// let mut ranks = offshoot_mpi::loopback::cluster(2);
/// ranks[0].send(1, b"hi".to_vec());
/// assert_eq!(ranks[1].try_recv(), Some((0, b"hi".to_vec())));
/// assert_eq!(ranks[1].try_recv(), None);
/// ```
pub fn cluster(n: usize) -> Vec<Loopback> {
    assert!(n > 0, "offshoot-mpi: a cluster needs at least one rank");
    let queues: Arc<Vec<Queue>> = Arc::new((0..n).map(|_| Mutex::new(VecDeque::new())).collect());
    (0..n)
        .map(|rank| Loopback {
            rank,
            queues: queues.clone(),
            received: 0,
            crash_after: None,
            packages: 0,
            crash_after_packages: None,
        })
        .collect()
}

impl Loopback {
    /// Makes this rank crash-stop once it has received `n` messages: from then on nothing
    /// it sends arrives anywhere.
    ///
    /// ```
    /// use offshoot_mpi::Transport;
    /// let mut ranks = offshoot_mpi::loopback::cluster(2);
    /// let mut r1 = ranks.pop().unwrap().crash_stop_after(0);
    /// r1.send(0, vec![1]);
    /// assert_eq!(ranks[0].try_recv(), None);
    /// ```
    pub fn crash_stop_after(mut self, n: usize) -> Loopback {
        self.crash_after = Some(n);
        self
    }

    /// Makes this rank crash-stop once it has received `n` packages (work from another
    /// rank), whatever other messages came before: a thief lost while it holds work.
    pub fn crash_stop_after_packages(mut self, n: usize) -> Loopback {
        self.crash_after_packages = Some(n);
        self
    }

    fn crashed(&self) -> bool {
        self.crash_after.is_some_and(|n| self.received >= n)
            || self
                .crash_after_packages
                .is_some_and(|n| self.packages >= n)
    }
}

impl Transport for Loopback {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.queues.len()
    }

    /// Every rank is a thread of this process.
    fn local_size(&self) -> usize {
        self.queues.len()
    }

    fn send(&mut self, to: usize, bytes: Vec<u8>) {
        assert!(
            to < self.queues.len() && to != self.rank,
            "offshoot-mpi: rank {} sent to rank {to} of {}",
            self.rank,
            self.queues.len()
        );
        if self.crashed() {
            return;
        }
        self.queues[to]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back((self.rank, bytes));
    }

    fn try_recv(&mut self) -> Option<(usize, Vec<u8>)> {
        let m = self.queues[self.rank]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front();
        if let Some((from, bytes)) = &m {
            self.received += 1;
            if self.crash_after_packages.is_some()
                && matches!(
                    crate::wire::decode(*from, bytes),
                    (_, crate::wire::Msg::Loot { .. })
                )
            {
                self.packages += 1;
            }
        }
        m
    }
}
