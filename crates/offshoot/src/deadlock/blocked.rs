//! The blocked-worker report: a worker whose thread is blocked in the operating system
//! inside a task (`std::sync::mpsc::Receiver::recv`, `std::sync::Barrier::wait`, a std
//! `Mutex` or `Condvar`, a sleep, blocking I/O) runs nothing else meanwhile: the tasks
//! queued behind it on its chain, and a thief's request, wait for it. The deadlock check
//! cannot see this (the worker counts as awake, so no check is ever made), and the program
//! hangs silently. A watch thread looks at every pool's workers now and then and says so on
//! stderr, once per episode: which worker, for how long, and what to use instead.
//!
//! How a worker is seen stuck, without any cost to it:
//! * It is awake (not asleep in its scheduler or at a join) and runs a job
//!   (`Worker::awake_in_job`): a worker in its scheduler loop naps and wakes often.
//! * On Linux, its thread sleeps in the kernel with the same count of context switches
//!   at every look (`thread_state.rs`): it has not run at all since the first look. A task
//!   that computes is running (`R`) and is never reported, however long it runs.
//! * Elsewhere (nothing known of the thread): a thief's request has waited at it at every
//!   look with no request answered since (`Worker::answered`): it has reached no poll
//!   point. The report then says that it computes without a poll point *or* is blocked.
//! * The worker itself writes nothing for this: the answers are the counters its request
//!   slow path already bumps, and the rest is read from the OS and from words other
//!   threads already read (its sleep state, its job count, its mailbox).
//!
//! When it is reported: stuck for the pool's `Builder::blocked_report` delay (default
//! [`DEFAULT_AFTER`]) while other work waits for it (a request at it, a job injected into
//! the pool, a woken task of its own) or no other worker of the pool runs anything (each is
//! idle or stuck too: the tasks left, if any, can only be behind a stuck one; a pool of one
//! worker is always in this case). A worker blocked while the others compute is reported
//! once they stop.
//!
//! Not done: making such programs complete, as they do under rayon (whose other threads
//! steal the queued tasks from a blocked thread's deque), e.g. by starting a temporary
//! extra worker while one is blocked (Go's sysmon hands a blocked thread's processor to
//! another thread). Here it would not reach the work that matters: the tasks queued behind
//! a blocked worker are seeds and task lists in its own frames, handed out only by that
//! worker at its polls (lazy task creation), so no other thread can take them while it
//! blocks. An extra thread could run only injected work and the work of other workers; the
//! rest would need a steal that does not need the victim (reading its chain from another
//! thread), which the request protocol rules out by design, and a registry whose worker
//! count can grow (mailbox indices, trace logs, export cells and the deadlock watch's awake
//! count are all sized at build).
//!
//! Invariants:
//! * One watch thread per process (`offshoot-watch`), started with the first pool whose
//!   report is on and kept for the process's life (it parks, without a timeout, while no
//!   such pool lives; `register` unparks it). It knows only the pools whose report is on
//!   (`WATCHED`, weakly), holds one only during a look, and drops a pool it was the last
//!   to hold after the look, outside every lock.
//! * A pool's episodes are touched by the watch thread only (under their own lock, which
//!   nothing else takes while the watch looks); an episode is reported at most once, and a
//!   new one starts whenever the worker is seen not stuck or its thread has run.

use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::thread::Thread;
use std::time::{Duration, Instant};

use crate::pool::Registry;
use crate::worker::Worker;

use super::thread_state::{os_view, OsView};

/// How long a worker is blocked, by default, before it is reported.
pub(crate) const DEFAULT_AFTER: Duration = Duration::from_secs(10);

/// The slowest the watch looks; it looks four times per report delay when that is shorter.
const MAX_TICK: Duration = Duration::from_secs(1);
/// The fastest it looks.
const MIN_TICK: Duration = Duration::from_millis(10);

/// A pool's report delay, as the builder keeps it: [`DEFAULT_AFTER`] unless set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReportAfter(pub(crate) Option<Duration>);

impl Default for ReportAfter {
    fn default() -> Self {
        ReportAfter(Some(DEFAULT_AFTER))
    }
}

/// What one pool keeps for the blocked-worker watch: its delay, and one episode per worker.
pub(crate) struct BlockedWatch {
    after: Option<Duration>,
    episodes: Mutex<Vec<Option<Episode>>>,
}

/// A worker seen stuck, from `since`, with the same `mark` at every look.
#[derive(Clone, Copy)]
struct Episode {
    since: Instant,
    mark: Mark,
    reported: bool,
}

/// What must stay the same for a worker to stay stuck.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Mark {
    /// Requests answered so far.
    answered: u64,
    /// The OS's view of the thread, where it has one (always sleeping then).
    os: Option<OsView>,
}

impl BlockedWatch {
    pub(crate) fn new(after: ReportAfter, workers: usize) -> BlockedWatch {
        BlockedWatch {
            after: after.0.filter(|d| !d.is_zero()),
            episodes: Mutex::new(vec![None; workers]),
        }
    }

    /// Whether the pool reports blocked workers.
    pub(super) fn on(&self) -> bool {
        self.after.is_some()
    }
}

/// The watch thread, once started.
static WATCH: OnceLock<Option<Thread>> = OnceLock::new();
/// The pools whose report is on (a pool with it off is never held by the watch thread).
static WATCHED: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// Pool `reg`, whose report is on, was built: start the watch thread if it is not running,
/// else wake it (it may be parked for lack of pools).
pub(super) fn pool_added(reg: &Arc<Registry>) {
    if cfg!(miri) || cfg!(loom) {
        return;
    }
    {
        let mut pools = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
        pools.retain(|w| w.strong_count() > 0);
        pools.push(Arc::downgrade(reg));
    }
    let t = WATCH.get_or_init(|| {
        std::thread::Builder::new()
            .name("offshoot-watch".into())
            .stack_size(256 << 10)
            .spawn(watch_main)
            .ok()
            .map(|h| h.thread().clone())
    });
    if let Some(t) = t {
        t.unpark();
    }
}

/// The watch thread's body: looks at every pool whose report is on, then sleeps.
fn watch_main() {
    loop {
        let pools: Vec<Arc<Registry>> = {
            let mut pools = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
            pools.retain(|w| w.strong_count() > 0);
            pools.iter().filter_map(Weak::upgrade).collect()
        };
        let Some(tick) = pools.iter().filter_map(|r| r.blocked.after).min() else {
            // No pool to watch: wait for one (`pool_added`).
            std::thread::park();
            continue;
        };
        let now = Instant::now();
        for r in &pools {
            look(r, now);
        }
        // The last handle of a pool may go here: outside every lock.
        drop(pools);
        std::thread::park_timeout((tick / 4).clamp(MIN_TICK, MAX_TICK));
    }
}

/// One look at pool `r`'s workers at `now`: updates their episodes and reports those stuck
/// for longer than the pool's delay while work waits for them.
fn look(r: &Registry, now: Instant) {
    let Some(after) = r.blocked.after else { return };
    let mut episodes = r.blocked.episodes.lock().unwrap_or_else(|e| e.into_inner());
    for (i, e) in episodes.iter_mut().enumerate() {
        *e = match (stuck_mark(r.worker(i)), *e) {
            (None, _) => None,
            (Some(mark), Some(old)) if old.mark == mark => Some(old),
            (Some(mark), _) => Some(Episode {
                since: now,
                mark,
                reported: false,
            }),
        };
    }
    for i in 0..episodes.len() {
        let Some(e) = episodes[i] else { continue };
        let stuck_for = now.saturating_duration_since(e.since);
        if e.reported || stuck_for < after {
            continue;
        }
        let Some(why) = waiting_for(r, i, &episodes) else {
            continue;
        };
        if let Some(e) = &mut episodes[i] {
            e.reported = true;
        }
        super::report::emit(&text(r.worker(i), r.num_workers(), stuck_for, &e.mark, why));
    }
}

/// The mark of worker `w` if it looks stuck now (module docs), else `None`.
fn stuck_mark(w: &Worker) -> Option<Mark> {
    if !w.awake_in_job() {
        return None;
    }
    let answered = w.answered();
    match os_view(w.os_thread()) {
        Some(os) if os.sleeping => Some(Mark {
            answered,
            os: Some(os),
        }),
        // Running: it computes.
        Some(_) => None,
        // Unknown: stuck only while a request waits at it unanswered.
        None => w.asked().then_some(Mark { answered, os: None }),
    }
}

/// What waits for stuck worker `i` of `r`, if anything (module docs), as the report says it.
fn waiting_for(r: &Registry, i: usize, episodes: &[Option<Episode>]) -> Option<&'static str> {
    let w = r.worker(i);
    if w.asked() {
        return Some("another worker asks it for work");
    }
    if r.has_injected() {
        return Some("work started in the pool from outside waits for a worker");
    }
    if w.remote().has_news() {
        return Some("tasks of its own that were woken wait for it");
    }
    let others_stopped = (0..r.num_workers())
        .all(|j| j == i || episodes[j].is_some() || !r.worker(j).awake_in_job());
    if !others_stopped {
        None
    } else if r.num_workers() == 1 {
        Some("the pool has no other worker")
    } else {
        Some("no other worker of the pool runs anything")
    }
}

/// The report for worker `w` of a pool of `n`, stuck for `stuck_for` with `mark`.
fn text(w: &Worker, n: usize, stuck_for: Duration, mark: &Mark, why: &str) -> String {
    let head = format!(
        "offshoot: worker {} (thread {:?}) of a pool of {n}",
        w.index,
        w.thread_name()
    );
    let secs = stuck_for.as_secs_f64();
    let what = if mark.os.is_some() {
        format!(
            "{head} has been blocked in the operating system for {secs:.1} s inside one \
             task, while {why}."
        )
    } else {
        format!(
            "{head} has run one task for {secs:.1} s without a poll point, while {why}: it \
             computes without reaching a join, spawn or loop block, or it is blocked in the \
             operating system."
        )
    };
    format!(
        "{what}\nA task that blocks its thread — std::sync::mpsc::Receiver::recv, \
         std::sync::Mutex::lock, std::sync::Condvar::wait, std::sync::Barrier::wait, \
         std::thread::sleep, blocking I/O — holds its worker: the tasks queued behind it on \
         that worker cannot run, and if it waits for one of them, or for a task that no free \
         worker is left to run, it waits for ever. Wait with offshoot::sync instead \
         (offshoot::sync::unbounded or bounded channels, Mutex, RwLock, Condvar, Barrier, \
         Semaphore, Promise, spawn_future): these park the task and free its worker for \
         other tasks. Blocking I/O belongs on a thread of its own (std::thread::spawn), \
         whose result a task can wait for with an offshoot::sync wait. \
         Builder::blocked_report sets this delay (None turns the report off)."
    )
}
