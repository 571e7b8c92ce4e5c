//! A worker's queue of its own detached jobs: the computations of owned handles
//! (`sync/handle.rs`) started on this worker for its own pool. Lazy task creation for work
//! that no finish waits for: such a job is not pushed to the pool's injector (a lock and a
//! wake-up each), but queued here, where a thief finds it when it asks and the handle's
//! waiter takes it back and runs it as a call, as a join takes back its seed.
//!
//! Invariants:
//! * The queue is touched only by the thread that runs the worker (as the worker's `Cell`
//!   fields are), so every operation is a plain deque operation, no atomics.
//! * An entry is a job that only this worker can reach: it leaves the queue exactly once —
//!   handed to a thief whose request allows any work (`find_work` with `Target::Any`,
//!   oldest first), run by the scheduler loop (oldest first, before injected work, before
//!   the worker sleeps and before it exits: so a queued job always runs, though no handle
//!   waits for it), or taken back by its handle's wait from either end of the queue
//!   (`take_back_local_job`), which then owns it.
//! * The queue is empty whenever the worker sleeps or its thread ends: the scheduler loop
//!   runs every entry first, and an entry counts as offerable work (`has_offerable_work`),
//!   so a worker that naps at a join or a finish only yields while it holds one.

use super::Worker;
use crate::job::JobRef;

/// Front entries left behind by takes from the front beyond which the queue is compacted
/// (when they are also half of it): a sliding window of waits (start one, wait for the
/// oldest) keeps the queue's memory bounded.
const COMPACT_AFTER: usize = 64;

/// See the module docs.
pub(crate) struct LocalJobs(std::cell::UnsafeCell<Queue>);

/// The entries are `jobs[oldest..]`, oldest first; `oldest` is 0 whenever `jobs` is empty.
/// A vector and an index rather than a ring: a push and a take at either end are a bound
/// check and a store or a load, no wrap-around.
struct Queue {
    jobs: Vec<JobRef>,
    oldest: usize,
}

impl Queue {
    /// Takes the oldest entry (there is one).
    fn take_oldest(&mut self) -> JobRef {
        let job = self.jobs[self.oldest];
        self.oldest += 1;
        if !self.reset_if_drained()
            && self.oldest >= COMPACT_AFTER
            && self.oldest * 2 >= self.jobs.len()
        {
            self.jobs.drain(..self.oldest);
            self.oldest = 0;
        }
        job
    }

    /// Removes the newest entry (there is one; the caller took it).
    fn remove_newest(&mut self) {
        self.jobs.pop();
        self.reset_if_drained();
    }

    /// Keeps `oldest` at 0 while the queue is empty: true if it is.
    fn reset_if_drained(&mut self) -> bool {
        let drained = self.oldest == self.jobs.len();
        if drained {
            self.jobs.clear();
            self.oldest = 0;
        }
        drained
    }
}

impl LocalJobs {
    pub(crate) const fn new() -> LocalJobs {
        LocalJobs(std::cell::UnsafeCell::new(Queue {
            jobs: Vec::new(),
            oldest: 0,
        }))
    }
}

impl Worker {
    /// The queue, on the thread that runs this worker.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    fn local_jobs(&self) -> &mut Queue {
        debug_assert!(
            std::ptr::eq(self, Worker::current()),
            "a worker's local jobs touched off its thread"
        );
        // SAFETY: only the thread that runs this worker calls this (module invariants), and
        // no caller keeps the reference across another call that takes it.
        unsafe { &mut *self.local_jobs.0.get() }
    }

    /// Queues `job`, a detached job of this worker's pool that nobody else can reach yet.
    #[inline]
    pub(crate) fn push_local_job(&self, job: JobRef) {
        self.local_jobs().jobs.push(job);
    }

    /// Takes `job` back out of the queue if it is the newest or the oldest entry (the order
    /// of a recursion's waits, or of a loop's): true if it was there, and the caller now
    /// owns the job (nobody else ever sees it); false if it is not at either end (handed
    /// out, run already, queued elsewhere, or deeper in this queue).
    #[inline]
    pub(crate) fn take_back_local_job(&self, job: JobRef) -> bool {
        let q = self.local_jobs();
        if q.jobs.last() == Some(&job) {
            q.remove_newest();
            true
        } else if q.jobs.get(q.oldest) == Some(&job) {
            q.take_oldest();
            true
        } else {
            false
        }
    }

    /// The oldest queued job, which the caller now owns.
    pub(super) fn pop_local_job(&self) -> Option<JobRef> {
        let q = self.local_jobs();
        (q.oldest < q.jobs.len()).then(|| q.take_oldest())
    }

    /// Whether a job is queued.
    #[inline]
    pub(super) fn has_local_jobs(&self) -> bool {
        !self.local_jobs().jobs.is_empty()
    }
}
