//! The timeline trace: an opt-in recorder of what each worker of a pool did and when —
//! the tasks it ran (stolen or injected jobs; a join whose second closure nobody took runs
//! it inline, as a call, and shows nothing), the hand-outs of work to thieves (a flow from
//! victim to thief), parks and resumes of waiting tasks, idle sleeps, and named user
//! regions ([`region`]) — written as Chrome/Perfetto trace-event JSON
//! ([`Trace::write_chrome_json`]; it opens in ui.perfetto.dev and chrome://tracing).
//!
//! Turn it on with [`Builder::trace`](crate::Builder::trace) and take a snapshot with
//! [`ThreadPool::trace`](crate::ThreadPool::trace). A pool built without it records
//! nothing and pays one test of a null pointer at each of those (rare) points — never on
//! a join's path.
//!
//! The recording itself is the core's (`worker/trace_log.rs`: one log per worker, written
//! only by its thread, allocated as it fills, its oldest events kept when full); this
//! module makes a snapshot of it ([`Trace`], `snapshot.rs`), writes the JSON
//! (`chrome.rs`), and gives the program [`region`].
//!
//! Invariant: regions are recorded per task (begin and end carry the task's identity), so
//! they nest within a task even when the task parks and other tasks run on its worker in
//! between; the JSON shows them as async slices, one track per task.

mod chrome;
mod snapshot;

pub use snapshot::{Slice, SliceKind, Steal, Trace};

use crate::worker::trace_log::{Event, Kind, Recorder};
use crate::worker::Worker;

/// The default number of events a worker's log holds when tracing is on (48 bytes each:
/// 12 MiB per worker once full; a log is allocated as it fills).
pub const DEFAULT_EVENTS_PER_WORKER: usize = 1 << 18;

/// The most events per worker [`Builder::trace`](crate::Builder::trace) accepts: as many
/// as one log could hold in the address space (a larger request fails the build with
/// [`BuildError::TraceTooLarge`](crate::BuildError::TraceTooLarge)).
///
/// ```
/// let e = offshoot::ThreadPool::builder()
///     .trace(offshoot::trace::MAX_EVENTS_PER_WORKER + 1)
///     .build()
///     .unwrap_err();
/// assert!(matches!(e, offshoot::BuildError::TraceTooLarge { .. }));
/// ```
pub const MAX_EVENTS_PER_WORKER: usize = isize::MAX as usize / std::mem::size_of::<Event>();

/// Runs `f` as a region named `name` of the calling task: in a traced pool
/// ([`Builder::trace`](crate::Builder::trace)) the trace shows it as a slice on the task's
/// track; anywhere else it just calls `f`. Regions nest; a region ends when `f` returns
/// or unwinds.
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(2).trace(1 << 12).build().unwrap();
/// let sum = pool.run(|| {
///     offshoot::trace::region("sum", || (0..1000u64).sum::<u64>())
/// });
/// assert_eq!(sum, 499_500);
/// let trace = pool.trace().expect("the pool records a trace");
/// assert!(trace.slices().iter().any(|s| s.label == "sum"));
/// ```
pub fn region<R>(name: &'static str, f: impl FnOnce() -> R) -> R {
    let w = Worker::current();
    if w.is_null() {
        return f();
    }
    // SAFETY: the worker the calling thread runs outlives the call.
    let w = unsafe { &*w };
    let Some(r) = w.tracer() else {
        return f();
    };
    let task = w.task_id();
    r.record(w.index, Kind::RegionBegin, task, 0, name);
    struct End<'a> {
        r: &'a Recorder,
        w: &'a Worker,
        task: u64,
        name: &'static str,
    }
    impl Drop for End<'_> {
        fn drop(&mut self) {
            // The task may have parked and resumed in between, on this same worker
            // (a parked task resumes where it parked).
            self.r
                .record(self.w.index, Kind::RegionEnd, self.task, 0, self.name);
        }
    }
    let _end = End { r, w, task, name };
    f()
}
