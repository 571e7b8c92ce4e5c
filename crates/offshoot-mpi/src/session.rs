//! [`Session`]: one rank's side of a cluster — its transport, and the distributed runs it
//! takes part in, one after another.
//!
//! A program may run several distributed computations on one MPI job (phases of an
//! iterative solver, a search per input). Ranks leave a run at different moments: rank 0
//! last, after every other rank said goodbye, so a rank that has started the next run may
//! already steal from rank 0 while rank 0 still waits for a slow goodbye; and a steal or a
//! heartbeat sent just before the end can still be in flight when its receiver has left.
//! So every message carries its run's number (the sender's count of runs), and:
//!
//! Invariants:
//! * Every rank numbers its runs 1, 2, 3, … in the order it calls [`Session::run`]; every
//!   rank takes part in every run (like an MPI collective).
//! * A message of the current run is handled in arrival order; one of a later run is kept
//!   (in arrival order) until that run starts; one of an earlier run is dropped — its run
//!   has ended, so it cannot matter (the root's completion means every result is in, and
//!   a steal of an ended run waits for no answer).
//! * The transport stays with the session between runs, so MPI is finalized only when the
//!   session (its `Mpi`) is dropped, never inside a run.

use std::collections::VecDeque;

use crate::transport::Transport;
use crate::wire::{decode, encode, Msg};

/// One rank's side of a cluster: its [`Transport`], and the distributed runs it takes part
/// in, in order. Make one per process (from `Mpi::init()` on a cluster, from
/// [`loopback::cluster`](crate::loopback::cluster) in tests) and call
/// [`run`](Session::run) once per distributed computation; every rank must call it the
/// same number of times, in the same order.
///
/// ```
/// // One rank on its own (a program started without `mpirun` is such a rank).
/// let mut rank = offshoot_mpi::Session::new(offshoot_mpi::loopback::cluster(1).remove(0));
/// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
/// let tasks = offshoot_mpi::Tasks::new();
/// let cfg = offshoot_mpi::Config::default();
/// let first = rank.run(&pool, &tasks, &cfg, || 6 * 7).unwrap();
/// let second = rank.run(&pool, &tasks, &cfg, || 7 * 8).unwrap();
/// assert_eq!((first.value, second.value), (Some(42), Some(56)));
/// assert_eq!(rank.runs(), 2);
/// ```
pub struct Session<X: Transport> {
    t: X,
    run: u64,
    /// Messages of later runs that arrived during this one: (sender, run, message).
    early: VecDeque<(usize, u64, Msg)>,
}

impl<X: Transport> std::fmt::Debug for Session<X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("rank", &self.t.rank())
            .field("size", &self.t.size())
            .field("runs", &self.run)
            .field("early", &self.early.len())
            .finish()
    }
}

impl<X: Transport> Session<X> {
    /// This rank's session on `transport`; no run has started.
    pub fn new(transport: X) -> Session<X> {
        Session {
            t: transport,
            run: 0,
            early: VecDeque::new(),
        }
    }

    /// This rank's number, from 0.
    ///
    /// ```
    /// let ranks = offshoot_mpi::loopback::cluster(3);
    /// let s = offshoot_mpi::Session::new(ranks.into_iter().nth(2).unwrap());
    /// assert_eq!((s.rank(), s.size()), (2, 3));
    /// ```
    pub fn rank(&self) -> usize {
        self.t.rank()
    }

    /// How many ranks take part.
    ///
    /// ```
    /// let s = offshoot_mpi::Session::new(offshoot_mpi::loopback::cluster(1).remove(0));
    /// assert_eq!(s.size(), 1);
    /// ```
    pub fn size(&self) -> usize {
        self.t.size()
    }

    /// How many ranks of the run share this rank's machine, this one included (see
    /// [`Transport::local_size`]).
    ///
    /// ```
    /// let ranks = offshoot_mpi::loopback::cluster(3);
    /// let s = offshoot_mpi::Session::new(ranks.into_iter().next().unwrap());
    /// assert_eq!(s.local_size(), 3);
    /// ```
    pub fn local_size(&self) -> usize {
        self.t.local_size()
    }

    /// How many runs this rank has started.
    ///
    /// ```
    /// let s = offshoot_mpi::Session::new(offshoot_mpi::loopback::cluster(1).remove(0));
    /// assert_eq!(s.runs(), 0);
    /// ```
    pub fn runs(&self) -> u64 {
        self.run
    }

    /// The transport back (for MPI: to finalize it when it drops, or to keep using the
    /// job after the distributed runs). Messages of a later run that came early are
    /// dropped with the session.
    ///
    /// ```
    /// use offshoot_mpi::Transport;
    /// let s = offshoot_mpi::Session::new(offshoot_mpi::loopback::cluster(1).remove(0));
    /// assert_eq!(s.into_transport().size(), 1);
    /// ```
    pub fn into_transport(self) -> X {
        self.t
    }

    /// Starts the next run: its number.
    pub(crate) fn begin(&mut self) -> u64 {
        self.run += 1;
        self.run
    }

    /// Sends `m` of the current run to `to`; the bytes it took.
    pub(crate) fn send(&mut self, to: usize, m: &Msg) -> usize {
        let bytes = encode(self.run, m);
        let n = bytes.len();
        self.t.send(to, bytes);
        n
    }

    /// The next message of the current run, with its sender, or `None` at once.
    pub(crate) fn recv(&mut self) -> Option<(usize, Msg)> {
        if let Some(i) = self.early.iter().position(|e| e.1 == self.run) {
            let (from, _, m) = self.early.remove(i).expect("the position is in range");
            return Some((from, m));
        }
        while let Some((from, bytes)) = self.t.try_recv() {
            let (run, m) = decode(from, &bytes);
            match run.cmp(&self.run) {
                std::cmp::Ordering::Equal => return Some((from, m)),
                std::cmp::Ordering::Greater => self.early.push_back((from, run, m)),
                std::cmp::Ordering::Less => {}
            }
        }
        None
    }

    /// Completes every send of this rank.
    pub(crate) fn flush(&mut self) {
        self.t.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn early_messages_wait_for_their_run_and_stale_ones_are_dropped() {
        let mut ranks = crate::loopback::cluster(2);
        let mut r1 = ranks.pop().unwrap();
        let mut s0 = Session::new(ranks.pop().unwrap());
        s0.begin(); // run 1
        r1.send(0, encode(2, &Msg::Alive));
        r1.send(0, encode(1, &Msg::Done));
        r1.send(0, encode(2, &Msg::Steal { lifeline: true }));
        assert!(matches!(s0.recv(), Some((1, Msg::Done))));
        assert!(s0.recv().is_none(), "run 2's messages wait");
        s0.begin(); // run 2
        r1.send(0, encode(1, &Msg::Resolve)); // late, of run 1
        r1.send(0, encode(2, &Msg::NoLoot { lifeline: false }));
        assert!(matches!(s0.recv(), Some((1, Msg::Alive))));
        assert!(matches!(
            s0.recv(),
            Some((1, Msg::Steal { lifeline: true }))
        ));
        assert!(matches!(
            s0.recv(),
            Some((1, Msg::NoLoot { lifeline: false }))
        ));
        assert!(s0.recv().is_none());
    }
}
