//! A snapshot of a traced pool's logs: the slices each worker's track shows and the
//! hand-outs of work between workers, paired from the events the core recorded.

use std::collections::HashMap;
use std::time::Duration;

use crate::worker::trace_log::{Event, Kind, Recorder};

/// How far apart the clocks of two threads may read for the same moment (a virtual
/// machine's clock can differ by a little across CPUs): a hand-out is matched with a start
/// on the thief that reads up to this much earlier.
const CLOCK_SKEW_NS: u64 = 10_000;

/// What a worker's log held when the snapshot was taken.
#[derive(Clone, Debug)]
pub(super) struct WorkerLog {
    pub(super) name: String,
    pub(super) events: Vec<Event>,
    pub(super) dropped: u64,
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
    pub(super) workers: Vec<WorkerLog>,
}

/// What a [`Slice`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceKind {
    /// A task running on the worker (a segment between its start or resume and its end or
    /// park).
    Task,
    /// The worker asleep for lack of work.
    Sleep,
    /// A user region ([`region`](super::region)) of a task; on the worker where the region began.
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
    /// A snapshot of `r`'s logs, with the workers' thread names.
    pub(crate) fn of(r: &Recorder, names: impl Fn(usize) -> String) -> Trace {
        Trace {
            workers: r
                .logs()
                .into_iter()
                .enumerate()
                .map(|(i, (events, dropped))| WorkerLog {
                    name: names(i),
                    events,
                    dropped,
                })
                .collect(),
        }
    }

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
}
