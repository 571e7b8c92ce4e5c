//! Package requests: how a layer that ships work between processes (such as `offshoot-mpi`)
//! asks a pool for work **lazily**, the way an idle worker asks a busy one.
//!
//! A thread outside the pool — typically the one thread of a process that owns the network
//! — calls [`ThreadPool::request_package`](crate::ThreadPool::request_package) when another
//! process asks for work. The request goes to a worker that runs a job; at its next poll
//! that worker asks the **oldest** block on its running chain that has an exporter
//! ([`State::handle_with_export`](crate::search::State::handle_with_export)), which takes
//! work away from its body and packages it as bytes; a worker with no such block passes the
//! request on to the next busy worker, and once every worker was asked the answer is
//! [`Answer::Nothing`]. Nothing is packaged while no process asks, so the cost in a run
//! that never distributes is one bit in the poll word that is never set.
//!
//! Invariants:
//! * Every request is answered exactly once, with a package or with nothing, however the
//!   workers are occupied (asleep, parked, waiting at a join); a worker answers at its next
//!   poll, so a body that runs long without poll points answers late, never wrongly.
//! * The asker never blocks a worker, and a request never runs user code off the thread
//!   that owns the block asked: the exporter runs on its owner, at a poll point, with the
//!   search state at rest.

use std::sync::Arc;
use std::time::Duration;

use crate::worker::PackageCell;

/// The answer to a package request.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// Work, packaged by an exporter.
    Package(Vec<u8>),
    /// No worker had a block that could package (or every exporter declined).
    Nothing,
    /// Not answered yet (from [`PackageRequest::try_answer`] or a [`PackageRequest::wait`]
    /// that timed out).
    Pending,
}

/// A package request in flight: made by
/// [`ThreadPool::request_package`](crate::ThreadPool::request_package), answered once.
///
/// Dropping it before the answer is allowed: the package, if one is made, is then
/// dropped, and the work it held is lost to its owner — a layer that ships work keeps its
/// requests until answered.
///
/// ```
/// use offshoot::export::Answer;
///
/// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
/// // Nothing runs on the pool: the answer is "nothing", at once.
/// let mut req = pool.request_package();
/// assert_eq!(req.wait(std::time::Duration::from_secs(10)), Answer::Nothing);
/// ```
pub struct PackageRequest {
    cell: Arc<PackageCell>,
    taken: bool,
}

impl std::fmt::Debug for PackageRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackageRequest")
            .field("taken", &self.taken)
            .finish()
    }
}

impl PackageRequest {
    pub(crate) fn new(cell: Arc<PackageCell>) -> PackageRequest {
        PackageRequest { cell, taken: false }
    }

    /// The answer if it has come, else [`Answer::Pending`]; never blocks.
    ///
    /// # Panics
    ///
    /// When called again after it (or [`wait`](PackageRequest::wait)) returned the answer.
    ///
    /// ```
    /// use offshoot::export::Answer;
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// let mut req = pool.request_package();
    /// let a = loop {
    ///     match req.try_answer() {
    ///         Answer::Pending => std::thread::yield_now(),
    ///         a => break a,
    ///     }
    /// };
    /// assert_eq!(a, Answer::Nothing);
    /// ```
    pub fn try_answer(&mut self) -> Answer {
        self.check_not_taken();
        self.finish(self.cell.try_take())
    }

    /// Waits up to `timeout` for the answer; [`Answer::Pending`] if it has not come by then.
    ///
    /// # Panics
    ///
    /// As [`try_answer`](PackageRequest::try_answer).
    ///
    /// ```
    /// use offshoot::export::Answer;
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let mut req = pool.request_package();
    /// assert_eq!(req.wait(std::time::Duration::from_secs(10)), Answer::Nothing);
    /// ```
    pub fn wait(&mut self, timeout: Duration) -> Answer {
        self.check_not_taken();
        self.finish(self.cell.wait_take(timeout))
    }

    fn check_not_taken(&self) {
        assert!(
            !self.taken,
            "offshoot: this package request's answer was already taken; make a new request"
        );
    }

    fn finish(&mut self, got: Option<Option<Vec<u8>>>) -> Answer {
        match got {
            None => Answer::Pending,
            Some(p) => {
                self.taken = true;
                match p {
                    Some(p) => Answer::Package(p),
                    None => Answer::Nothing,
                }
            }
        }
    }
}
