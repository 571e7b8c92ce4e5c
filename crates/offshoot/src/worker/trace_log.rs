//! The trace's recording side, in the core: one log per worker and the hooks the worker,
//! its steal path and the fiber driver call at their (cold) trace points. What a snapshot
//! makes of the events — slices, steals, the Chrome/Perfetto JSON — and the user's
//! `trace::region` are the `trace` module's, a client.
//!
//! Invariants:
//! * Each worker has its own log, allocated as it fills (`segments.rs`). Only the worker's
//!   own thread writes it, and only at index `len`, then publishes the event by storing
//!   `len + 1` (release); a snapshot on any thread reads `len` (acquire) and copies the
//!   events below it, which are never written again. No lock on the recording path; an
//!   allocation only when the log grows into a new segment.
//! * Times in a log never decrease (`push` holds a time that would step back at the
//!   previous one), so a slice never ends before it begins.
//! * Bounded memory: a full log keeps its oldest events and drops later ones, counting
//!   them.
//! * Task segments nest on a worker's track: a task begins when its job starts and ends
//!   when the job returns; a task that parks ends its segment (and those of the tasks
//!   nested under it on the same fiber, innermost first) when its fiber suspends, and
//!   begins them again (outermost first) when the fiber resumes. The tasks open on the
//!   running fiber are kept in the log (`open`, owner only) and moved into the fiber
//!   while it is parked.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::Worker;
use crate::segments::Segments;

/// What an event records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A job starts as a task: `id` the task, `arg` the job's address.
    TaskBegin,
    /// That job returned: `id` the task.
    TaskEnd,
    /// The fiber running task `id` suspends (the task or one nested above it parks).
    Suspend,
    /// The fiber resumes: task `id` runs again.
    Resume,
    /// Task `id` parks, waiting on `name`.
    Park,
    /// This worker hands the job at address `arg` to worker `id` (a thief's request).
    HandOut,
    /// The worker falls asleep for lack of work.
    SleepBegin,
    /// It wakes up.
    SleepEnd,
    /// Task `id` enters the user region `name`.
    RegionBegin,
    /// Task `id` leaves the user region `name`.
    RegionEnd,
}

/// One recorded event.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    /// Nanoseconds since the pool was built.
    pub(crate) ts: u64,
    pub(crate) kind: Kind,
    pub(crate) id: u64,
    pub(crate) arg: u64,
    pub(crate) name: &'static str,
}

/// One worker's log; see the module invariants.
pub(crate) struct Log {
    /// Allocated as the log fills (`segments.rs`), so a large capacity costs nothing
    /// until it is used.
    events: Segments<UnsafeCell<MaybeUninit<Event>>>,
    len: AtomicUsize,
    dropped: AtomicU64,
    /// The tasks open on the running fiber, outermost first (owner only).
    open: UnsafeCell<Vec<u64>>,
}

// SAFETY: `events` above `len` and `open` are touched only by the owning worker's thread;
// events below `len` are immutable once published (module invariants).
unsafe impl Sync for Log {}
// SAFETY: as above; the log owns its events, which are plain data.
unsafe impl Send for Log {}

impl Log {
    fn new(capacity: usize) -> Log {
        Log {
            events: Segments::new(capacity),
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
            open: UnsafeCell::new(Vec::new()),
        }
    }

    /// Appends an event (owner thread only). Its time is never before the previous
    /// event's: a clock that steps back a little (a virtual machine's, read on another
    /// CPU) must not make a slice end before it began.
    fn push(&self, mut e: Event) {
        // Relaxed: only this thread stores `len`.
        let n = self.len.load(Ordering::Relaxed);
        if let Some(prev) = n.checked_sub(1).and_then(|i| self.events.get(i)) {
            // SAFETY: events below `len` were written (by this thread) and are never
            // written again.
            e.ts = e.ts.max(unsafe { (*prev.get()).assume_init_ref() }.ts);
        }
        match self
            .events
            .get_or_make(n, || UnsafeCell::new(MaybeUninit::uninit()))
        {
            Some(slot) => {
                // SAFETY: slot `n` is at `len`, not yet published: no reader touches it,
                // and only this thread writes (module invariants).
                unsafe { (*slot.get()).write(e) };
                // Release: pairs with the acquire load in `snapshot`, publishing the event.
                self.len.store(n + 1, Ordering::Release);
            }
            None => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The published events, copied (any thread).
    fn snapshot(&self) -> (Vec<Event>, u64) {
        // Acquire: pairs with the release store in `push`.
        let n = self.len.load(Ordering::Acquire);
        let events = (0..n)
            // SAFETY: the events below `len` were written (their segments made) before it
            // was published, and are never written again.
            .map(|i| unsafe { (*self.events.get(i).expect("published").get()).assume_init() })
            .collect();
        (events, self.dropped.load(Ordering::Relaxed))
    }
}

/// A pool's trace logs: one per worker and the time they count from.
pub(crate) struct Recorder {
    epoch: Instant,
    logs: Box<[Log]>,
}

impl Recorder {
    pub(crate) fn new(workers: usize, events_per_worker: usize) -> Recorder {
        Recorder {
            epoch: Instant::now(),
            logs: (0..workers).map(|_| Log::new(events_per_worker)).collect(),
        }
    }

    /// Records an event on worker `w`'s log (the calling thread runs `w`).
    pub(crate) fn record(&self, w: usize, kind: Kind, id: u64, arg: u64, name: &'static str) {
        let ts = self.epoch.elapsed().as_nanos() as u64;
        self.logs[w].push(Event {
            ts,
            kind,
            id,
            arg,
            name,
        });
    }

    /// A copy of every worker's published events, with how many it dropped, in worker
    /// order (any thread).
    pub(crate) fn logs(&self) -> Vec<(Vec<Event>, u64)> {
        self.logs.iter().map(Log::snapshot).collect()
    }
}

// ----- the recording points (each a null test when tracing is off) --------------------

impl Worker {
    /// The pool's trace recorder, if it records one.
    #[inline]
    pub(crate) fn tracer(&self) -> Option<&Recorder> {
        self.registry().trace.as_deref()
    }

    /// A job starts as task `task` on this worker.
    pub(crate) fn trace_task_begin(&self, task: u64, job: u64) {
        if let Some(r) = self.tracer() {
            r.record(self.index, Kind::TaskBegin, task, job, "");
            // SAFETY: `open` is this worker's, touched only on its thread.
            unsafe { (*r.logs[self.index].open.get()).push(task) };
        }
    }

    /// The job of task `task` returned.
    pub(crate) fn trace_task_end(&self, task: u64) {
        if let Some(r) = self.tracer() {
            // SAFETY: as in `trace_task_begin`.
            unsafe { (*r.logs[self.index].open.get()).pop() };
            r.record(self.index, Kind::TaskEnd, task, 0, "");
        }
    }

    /// The running fiber suspends because its task parks on `what`: ends the segments of
    /// the tasks open on it and moves them into `stash` (the fiber's).
    pub(crate) fn trace_suspend(&self, what: &'static str, stash: &std::cell::Cell<Vec<u64>>) {
        if let Some(r) = self.tracer() {
            // SAFETY: as in `trace_task_begin`.
            let open = unsafe { &mut *r.logs[self.index].open.get() };
            if let Some(&task) = open.last() {
                r.record(self.index, Kind::Park, task, 0, what);
            }
            for &t in open.iter().rev() {
                r.record(self.index, Kind::Suspend, t, 0, "");
            }
            stash.set(std::mem::take(open));
        }
    }

    /// A parked fiber resumes: begins again the segments of the tasks in `stash`.
    pub(crate) fn trace_resume(&self, stash: &std::cell::Cell<Vec<u64>>) {
        if let Some(r) = self.tracer() {
            // SAFETY: as in `trace_task_begin`.
            let open = unsafe { &mut *r.logs[self.index].open.get() };
            debug_assert!(open.is_empty(), "a fiber resumed over open tasks");
            *open = stash.take();
            for &t in open.iter() {
                r.record(self.index, Kind::Resume, t, 0, "");
            }
        }
    }

    /// This worker hands the job at `job` to worker `thief`.
    pub(crate) fn trace_hand_out(&self, thief: usize, job: u64) {
        if let Some(r) = self.tracer() {
            r.record(self.index, Kind::HandOut, thief as u64, job, "");
        }
    }

    /// This worker falls asleep for lack of work (`true`) or wakes up (`false`).
    pub(crate) fn trace_sleep(&self, begins: bool) {
        if let Some(r) = self.tracer() {
            let kind = if begins {
                Kind::SleepBegin
            } else {
                Kind::SleepEnd
            };
            r.record(self.index, kind, 0, 0, "");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_log_keeps_its_oldest_events_and_counts_the_rest() {
        let log = Log::new(2);
        for i in 0..5 {
            log.push(Event {
                ts: i,
                kind: Kind::SleepBegin,
                id: 0,
                arg: 0,
                name: "",
            });
        }
        let (events, dropped) = log.snapshot();
        assert_eq!(events.iter().map(|e| e.ts).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(dropped, 3);
    }
}
