//! Scheduler counters. Each worker owns its counters and is their only writer (a relaxed
//! load and store, no read-modify-write), so they cost next to nothing and stay on in
//! release builds; all of them are bumped on slow paths only (requests, steals), never on
//! the join fast path. `ThreadPool::stats` sums them.

use std::fmt;
use std::ops::Sub;
use std::sync::atomic::{AtomicU64, Ordering};

/// A counter written by one thread only.
#[derive(Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    #[inline]
    pub(crate) fn bump(&self) {
        self.0
            .store(self.0.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

#[derive(Default)]
pub(crate) struct WorkerStats {
    pub(crate) materialized: Counter,
    pub(crate) requests_sent: Counter,
    pub(crate) answered_work: Counter,
    pub(crate) answered_empty: Counter,
    pub(crate) steal_backs: Counter,
    pub(crate) withdrawn: Counter,
}

/// What a pool's scheduler has done since the pool started, summed over its workers.
///
/// Counters are read without stopping the workers, so a snapshot taken while work runs is
/// approximate; one taken between `run` calls is exact. Subtract two snapshots to see what
/// one computation did.
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let before = pool.stats();
/// pool.run(|| offshoot::join(|| 1, || 2));
/// let delta = pool.stats() - before;
/// // Most joins never create a task: at most one per answered request.
/// assert!(delta.tasks_materialized <= delta.requests_answered_work);
/// println!("{delta}");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Join seeds turned into tasks because a thief asked for them.
    pub tasks_materialized: u64,
    /// Requests sent by idle or waiting workers.
    pub requests_sent: u64,
    /// Requests answered with work (a seed or a spawned task).
    pub requests_answered_work: u64,
    /// Requests answered with "nothing here".
    pub requests_answered_empty: u64,
    /// Jobs a waiting worker took back from the worker it waits for (leapfrogging), or from
    /// a worker holding work of the finish it waits for.
    pub steal_backs: u64,
    /// Requests their thief withdrew because the victim did not poll in time (it ran long
    /// code without a poll point, or was not scheduled).
    pub requests_withdrawn: u64,
}

impl Stats {
    pub(crate) fn add(&mut self, w: &WorkerStats) {
        self.tasks_materialized += w.materialized.get();
        self.requests_sent += w.requests_sent.get();
        self.requests_answered_work += w.answered_work.get();
        self.requests_answered_empty += w.answered_empty.get();
        self.steal_backs += w.steal_backs.get();
        self.requests_withdrawn += w.withdrawn.get();
    }
}

impl Sub for Stats {
    type Output = Stats;
    fn sub(self, o: Stats) -> Stats {
        Stats {
            tasks_materialized: self.tasks_materialized.saturating_sub(o.tasks_materialized),
            requests_sent: self.requests_sent.saturating_sub(o.requests_sent),
            requests_answered_work: self
                .requests_answered_work
                .saturating_sub(o.requests_answered_work),
            requests_answered_empty: self
                .requests_answered_empty
                .saturating_sub(o.requests_answered_empty),
            steal_backs: self.steal_backs.saturating_sub(o.steal_backs),
            requests_withdrawn: self.requests_withdrawn.saturating_sub(o.requests_withdrawn),
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tasks materialized {}, requests sent {}, answered with work {}, answered empty {}, \
             withdrawn {}, steal-backs {}",
            self.tasks_materialized,
            self.requests_sent,
            self.requests_answered_work,
            self.requests_answered_empty,
            self.requests_withdrawn,
            self.steal_backs
        )
    }
}
