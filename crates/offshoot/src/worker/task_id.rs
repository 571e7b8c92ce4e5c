//! Task identity: which task is running, stable while the task is parked and resumed. A
//! worker concept (the worker knows which task it runs); `sync` re-exports the public part
//! and its locks record holders by it, and the deadlock watch reads it.
//!
//! Invariants:
//! * A task is what a worker takes as a unit: the closure of `ThreadPool::run`, a stolen
//!   branch of a join, a spawned task, a piece of a loop. Code a task runs inline (the
//!   branch of a join nobody stole, a loop block it runs itself) is part of that task and
//!   has its identity.
//! * Identities are unique in the process; a thread outside every pool has one of its own.
//!   None has bit 62 set (`sync::Mutex` keeps a flag there next to its holder's identity).

use super::Worker;

/// The identity of a task (or of a thread outside every pool).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct TaskId(pub(crate) u64);

impl TaskId {
    /// The number behind the identity (unique in the process).
    ///
    /// ```
    /// let me = offshoot::sync::task_id();
    /// // Stable for as long as the task runs (also across parking).
    /// assert_eq!(offshoot::sync::task_id().as_u64(), me.as_u64());
    /// ```
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

/// The bit that marks the identity of a thread outside every pool (task identities never
/// have it).
pub(crate) const OUTSIDE_THREAD: u64 = 1 << 63;

thread_local! {
    static THREAD_ID: u64 = {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        // Outside-thread identities have the top bit set: task identities never do.
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) | OUTSIDE_THREAD
    };
}

/// The identity of the calling task. It stays the same while the task parks and resumes,
/// and differs between tasks that run at the same time. Code that a task runs inline (the
/// branch of a `join` that no one stole) shares the task's identity; a stolen branch or a
/// spawned task has its own. Outside every pool, the calling thread's identity.
///
/// ```
/// let (a, b) = offshoot::join(offshoot::sync::task_id, offshoot::sync::task_id);
/// let _ = (a, b); // equal if `b` ran inline, different if it was stolen
/// let t = offshoot::sync::task_id();
/// assert_eq!(t, offshoot::sync::task_id());
/// ```
#[inline]
pub fn task_id() -> TaskId {
    let w = Worker::current();
    if !w.is_null() {
        // SAFETY: the current worker is run by this thread.
        let id = unsafe { (*w).task_id() };
        if id != 0 {
            return TaskId(id);
        }
    }
    TaskId(THREAD_ID.with(|t| *t))
}

/// The identity of the calling task as a number, for the holder of a lock (see
/// `sync::wait_for`).
#[inline]
pub(crate) fn holder_id() -> u64 {
    task_id().as_u64()
}
