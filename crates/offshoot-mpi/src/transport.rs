//! [`Transport`]: what the distributed layer needs from the network — numbered ranks,
//! messages of bytes between them, and a receive that never blocks.
//!
//! Invariants every transport keeps:
//! * Messages from one rank to another arrive in the order they were sent, each once.
//! * `send` never waits for the receiver to receive (it may copy, or queue the send and
//!   complete it later; `flush` completes every queued send).
//! * Only the rank's agent thread calls a transport (MPI's `Funneled` level is enough).

/// The message layer of one rank. The product's transport is `Mpi` (feature
/// `mpi`); [`loopback`](crate::loopback) runs ranks as threads of one process for tests.
pub trait Transport {
    /// This rank's number, from 0.
    fn rank(&self) -> usize;
    /// How many ranks take part.
    fn size(&self) -> usize;
    /// Sends `bytes` to rank `to` (never to itself); returns without waiting for the
    /// receiver.
    fn send(&mut self, to: usize, bytes: Vec<u8>);
    /// The next message that has arrived, with its sender, or `None` at once.
    fn try_recv(&mut self) -> Option<(usize, Vec<u8>)>;
    /// Completes every send this rank has queued (before the run ends).
    fn flush(&mut self) {}
    /// How many ranks of this run share this rank's machine (its memory and cores), this
    /// one included. The agent compares their threads with the cores it may use to tell
    /// whether its wakes take CPU from workers. A transport that cannot tell says 1.
    fn local_size(&self) -> usize {
        1
    }
}
