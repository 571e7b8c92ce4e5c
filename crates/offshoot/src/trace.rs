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
//! Invariants:
//! * Each worker has its own log, a fixed array of events allocated when the pool is
//!   built. Only the worker's own thread writes it, and only at index `len`, then
//!   publishes the event by storing `len + 1` (release); a snapshot on any thread reads
//!   `len` (acquire) and copies the events below it, which are never written again. No
//!   lock, no allocation on the recording path.
//! * Times in a log never decrease (`push` holds a time that would step back at the
//!   previous one), so a slice never ends before it begins.
//! * Bounded memory: a full log keeps its oldest events and drops later ones, counting
//!   them ([`Trace::dropped`]); a slice whose end was dropped ends at the log's last
//!   event.
//! * Task segments nest on a worker's track: a task begins when its job starts and ends
//!   when the job returns; a task that parks ends its segment (and those of the tasks
//!   nested under it on the same fiber, innermost first) when its fiber suspends, and
//!   begins them again (outermost first) when the fiber resumes. The tasks open on the
//!   running fiber are kept in the log (`open`, owner only) and moved into the fiber
//!   while it is parked.
//! * Regions are recorded per task (begin and end carry the task's identity), so they
//!   nest within a task even when the task parks and other tasks run on its worker in
//!   between; the JSON shows them as async slices, one track per task.

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::segments::Segments;
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

/// How far apart the clocks of two threads may read for the same moment (a virtual
/// machine's clock can differ by a little across CPUs): a hand-out is matched with a start
/// on the thief that reads up to this much earlier.
const CLOCK_SKEW_NS: u64 = 10_000;

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
    ts: u64,
    kind: Kind,
    id: u64,
    arg: u64,
    name: &'static str,
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
    fn record(&self, w: usize, kind: Kind, id: u64, arg: u64, name: &'static str) {
        let ts = self.epoch.elapsed().as_nanos() as u64;
        self.logs[w].push(Event {
            ts,
            kind,
            id,
            arg,
            name,
        });
    }

    /// A snapshot of every log, with the workers' thread names.
    pub(crate) fn snapshot(&self, names: impl Fn(usize) -> String) -> Trace {
        Trace {
            workers: self
                .logs
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let (events, dropped) = l.snapshot();
                    WorkerLog {
                        name: names(i),
                        events,
                        dropped,
                    }
                })
                .collect(),
        }
    }
}

// ----- the recording points (each a null test when tracing is off) --------------------

impl Worker {
    #[inline]
    fn tracer(&self) -> Option<&Recorder> {
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

// ----- the snapshot -------------------------------------------------------------------

/// What a worker's log held when the snapshot was taken.
#[derive(Clone, Debug)]
struct WorkerLog {
    name: String,
    events: Vec<Event>,
    dropped: u64,
}

/// A snapshot of a traced pool's logs ([`ThreadPool::trace`](crate::ThreadPool::trace)):
/// the slices each worker's track shows, the hand-outs of work between workers, and the
/// trace-event JSON that Perfetto and chrome://tracing open.
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(2).trace(1 << 14).build().unwrap();
/// pool.run(|| offshoot::join(|| (), || ()));
/// let trace = pool.trace().unwrap();
/// assert_eq!(trace.workers(), 2);
/// let mut json = Vec::new();
/// trace.write_chrome_json(&mut json).unwrap();
/// assert!(json.starts_with(b"{\"traceEvents\":["));
/// ```
#[derive(Clone, Debug)]
pub struct Trace {
    workers: Vec<WorkerLog>,
}

/// What a [`Slice`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceKind {
    /// A task running on the worker (a segment between its start or resume and its end or
    /// park).
    Task,
    /// The worker asleep for lack of work.
    Sleep,
    /// A user region ([`region`]) of a task; on the worker where the region began.
    Region,
}

/// One slice of a worker's track.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The worker's index in its pool.
    pub worker: usize,
    /// What it shows.
    pub kind: SliceKind,
    /// When it began and ended, from the moment the pool was built.
    pub start: Duration,
    /// See `start`.
    pub end: Duration,
    /// The task it belongs to (0 for a sleep).
    pub task: u64,
    /// "task 42", "sleep", or the region's name.
    pub label: String,
    /// For a task segment that ended because the task parked: what it waited on.
    pub parked_on: Option<&'static str>,
    /// How deep it is nested in other slices of the same kind on its track (0: outermost).
    pub depth: usize,
}

/// Work handed from one worker to another (a thief's request answered with a job): the
/// victim handed it out at `at`, the thief started it at `started`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steal {
    /// The worker that handed the job out.
    pub victim: usize,
    /// The worker that ran it.
    pub thief: usize,
    /// When the victim handed it out.
    pub at: Duration,
    /// When the thief started it.
    pub started: Duration,
    /// The task it ran as.
    pub task: u64,
}

impl Trace {
    /// The number of workers (tracks).
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// How many events were dropped because a worker's log was full (its oldest events
    /// are kept).
    pub fn dropped(&self) -> u64 {
        self.workers.iter().map(|w| w.dropped).sum()
    }

    /// How many events were recorded (and kept).
    pub fn events(&self) -> usize {
        self.workers.iter().map(|w| w.events.len()).sum()
    }

    /// The span of the trace: from the pool's start to its last event.
    pub fn duration(&self) -> Duration {
        Duration::from_nanos(
            self.workers
                .iter()
                .filter_map(|w| w.events.last())
                .map(|e| e.ts)
                .max()
                .unwrap_or(0),
        )
    }

    /// The slices of every track, each worker's in the order they began. Slices of one
    /// kind nest properly on their track; a slice still open when the snapshot was taken
    /// (or whose end was dropped) ends at the worker's last event.
    pub fn slices(&self) -> Vec<Slice> {
        let mut out = Vec::new();
        for (w, log) in self.workers.iter().enumerate() {
            let last = log.events.last().map_or(0, |e| e.ts);
            // Open task segments (index into `out`), sleep, regions per task.
            let mut tasks: Vec<usize> = Vec::new();
            let mut sleep: Option<usize> = None;
            let mut regions: HashMap<u64, Vec<usize>> = HashMap::new();
            let mut parked: Option<&'static str> = None;
            let at = |ts: u64| Duration::from_nanos(ts);
            for e in &log.events {
                match e.kind {
                    Kind::TaskBegin | Kind::Resume => {
                        tasks.push(out.len());
                        out.push(Slice {
                            worker: w,
                            kind: SliceKind::Task,
                            start: at(e.ts),
                            end: at(e.ts),
                            task: e.id,
                            label: format!("task {}", e.id),
                            parked_on: None,
                            depth: tasks.len() - 1,
                        });
                    }
                    Kind::TaskEnd | Kind::Suspend => {
                        if let Some(i) = tasks.pop() {
                            out[i].end = at(e.ts);
                            if e.kind == Kind::Suspend {
                                out[i].parked_on = parked.take();
                            }
                        }
                    }
                    Kind::Park => parked = Some(e.name),
                    Kind::SleepBegin => {
                        sleep = Some(out.len());
                        out.push(Slice {
                            worker: w,
                            kind: SliceKind::Sleep,
                            start: at(e.ts),
                            end: at(e.ts),
                            task: 0,
                            label: "sleep".to_string(),
                            parked_on: None,
                            depth: 0,
                        });
                    }
                    Kind::SleepEnd => {
                        if let Some(i) = sleep.take() {
                            out[i].end = at(e.ts);
                        }
                    }
                    Kind::RegionBegin => {
                        let open = regions.entry(e.id).or_default();
                        open.push(out.len());
                        out.push(Slice {
                            worker: w,
                            kind: SliceKind::Region,
                            start: at(e.ts),
                            end: at(e.ts),
                            task: e.id,
                            label: e.name.to_string(),
                            parked_on: None,
                            depth: open.len() - 1,
                        });
                    }
                    Kind::RegionEnd => {
                        if let Some(i) = regions.get_mut(&e.id).and_then(Vec::pop) {
                            out[i].end = at(e.ts);
                        }
                    }
                    Kind::HandOut => {}
                }
            }
            // Still open: end at the last event.
            for i in tasks
                .into_iter()
                .chain(sleep)
                .chain(regions.into_values().flatten())
            {
                out[i].end = at(last);
            }
        }
        out
    }

    /// The hand-outs of work between workers, matched with the task each became on the
    /// thief, in the order they were handed out.
    pub fn steals(&self) -> Vec<Steal> {
        // Hand-outs by job address, in time order; a job's address is reused once it ends,
        // so each start takes the latest hand-out of its address before it.
        let mut outs: HashMap<u64, Vec<(u64, usize, usize)>> = HashMap::new();
        let mut all: Vec<(u64, usize, usize, u64)> = Vec::new();
        for (w, log) in self.workers.iter().enumerate() {
            for e in &log.events {
                if e.kind == Kind::HandOut {
                    all.push((e.ts, w, e.id as usize, e.arg));
                }
            }
        }
        all.sort_unstable();
        for &(ts, victim, thief, job) in &all {
            outs.entry(job).or_default().push((ts, victim, thief));
        }
        let mut steals = Vec::new();
        for (w, log) in self.workers.iter().enumerate() {
            for e in log.events.iter().filter(|e| e.kind == Kind::TaskBegin) {
                let Some(list) = outs.get_mut(&e.arg) else {
                    continue;
                };
                // Times of two threads: the clock may disagree by a little across CPUs.
                if let Some(pos) = list
                    .iter()
                    .rposition(|&(ts, _, thief)| thief == w && ts <= e.ts + CLOCK_SKEW_NS)
                {
                    let (ts, victim, _) = list.remove(pos);
                    steals.push(Steal {
                        victim,
                        thief: w,
                        at: Duration::from_nanos(ts),
                        started: Duration::from_nanos(e.ts.max(ts)),
                        task: e.id,
                    });
                }
            }
        }
        steals.sort_by_key(|s| s.at);
        steals
    }

    /// Writes the trace as Chrome/Perfetto trace-event JSON: one track (thread) per worker
    /// with its task segments and sleeps as complete slices, regions as async slices (one
    /// track per task), each hand-out as a short "hand out" slice on the victim's track
    /// with a flow arrow to the task it became on the thief's.
    pub fn write_chrome_json(&self, mut out: impl io::Write) -> io::Result<()> {
        out.write_all(self.to_chrome_json().as_bytes())
    }

    /// [`Trace::write_chrome_json`] into a string.
    pub fn to_chrome_json(&self) -> String {
        let us = |d: Duration| d.as_nanos() as f64 / 1000.0;
        let mut s = String::from("{\"traceEvents\":[");
        let mut first = true;
        let mut ev = |s: &mut String, body: String| {
            if !first {
                s.push(',');
            }
            first = false;
            s.push_str("\n{");
            s.push_str(&body);
            s.push('}');
        };
        ev(
            &mut s,
            "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"offshoot pool\"}".into(),
        );
        for (i, w) in self.workers.iter().enumerate() {
            ev(
                &mut s,
                format!(
                    "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{},\"args\":{{\"name\":{}}}",
                    i + 1,
                    json_str(&w.name)
                ),
            );
            ev(
                &mut s,
                format!(
                    "\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":{},\"args\":{{\"sort_index\":{i}}}",
                    i + 1
                ),
            );
        }
        for sl in self.slices() {
            let tid = sl.worker + 1;
            match sl.kind {
                SliceKind::Task | SliceKind::Sleep => {
                    let cat = if sl.kind == SliceKind::Task {
                        "task"
                    } else {
                        "idle"
                    };
                    let mut args = format!("\"task\":{}", sl.task);
                    if let Some(p) = sl.parked_on {
                        let _ = write!(args, ",\"parked on\":{}", json_str(p));
                    }
                    ev(
                        &mut s,
                        format!(
                            "\"name\":{},\"cat\":\"{cat}\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":1,\"tid\":{tid},\"args\":{{{args}}}",
                            json_str(&sl.label),
                            us(sl.start),
                            us(sl.end - sl.start),
                        ),
                    );
                }
                SliceKind::Region => {
                    for (ph, t) in [("b", sl.start), ("e", sl.end)] {
                        ev(
                            &mut s,
                            format!(
                                "\"name\":{},\"cat\":\"region\",\"ph\":\"{ph}\",\"id\":\"0x{:x}\",\"ts\":{:.3},\"pid\":1,\"tid\":{tid}",
                                json_str(&sl.label),
                                sl.task,
                                us(t),
                            ),
                        );
                    }
                }
            }
        }
        for (n, st) in self.steals().iter().enumerate() {
            ev(
                &mut s,
                format!(
                    "\"name\":\"hand out\",\"cat\":\"steal\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":0,\"pid\":1,\"tid\":{},\"args\":{{\"to worker\":{}}}",
                    us(st.at),
                    st.victim + 1,
                    st.thief
                ),
            );
            ev(
                &mut s,
                format!(
                    "\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"s\",\"id\":{n},\"ts\":{:.3},\"pid\":1,\"tid\":{}",
                    us(st.at),
                    st.victim + 1
                ),
            );
            ev(
                &mut s,
                format!(
                    "\"name\":\"steal\",\"cat\":\"steal\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{n},\"ts\":{:.3},\"pid\":1,\"tid\":{}",
                    us(st.started),
                    st.thief + 1
                ),
            );
        }
        let _ = write!(
            s,
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\"dropped events\":{}}}}}\n",
            self.dropped()
        );
        s
    }
}

/// `v` as a JSON string literal.
fn json_str(v: &str) -> String {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
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

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\nd"), "\"a\\\"b\\\\c\\u000ad\"");
    }
}
