//! Thread pools: the registry of workers, the builder, the global pool, and `run`.
//!
//! Invariants:
//! * A registry owns its workers; worker threads hold an `Arc` of it, so it outlives every
//!   frame, job and finish state that points into it.
//! * Work enters a pool from outside only through the injector (`run` from a thread that is
//!   not one of the pool's workers); inside a pool, work moves only by request.
//! * `busy` counts workers running a job. A worker that sleeps for lack of work sleeps
//!   without a timeout only while `busy` is zero (an idle pool burns no CPU); the transition
//!   of a worker to busy, and every injection, wake one idle sleeper (a cascade that brings
//!   in as many thieves as find work).
//! * Dropping a `ThreadPool` lets running work finish and joins every worker thread.
//! * Every registry is known to the deadlock watch (`deadlock.rs`) from before its workers
//!   start; `has_news` tells the watch whether anything queued could still wake one of them.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{JoinHandle, Thread};

use crate::detached::Hooks;
use crate::fiber::{WaitOn, Waiter};
use crate::finish::{finish_core, finish_root};
use crate::job::{JobHeader, JobRef, Mode};
use crate::stats::Stats;
use crate::unwind::is_stopped;
use crate::worker::{SpareBlocks, Worker};

/// The most workers a pool may have.
pub const MAX_WORKERS: usize = 4096;

/// The largest fiber stack a pool accepts, in bytes (1 GiB): see [`Builder::stack_size`].
/// Every worker maps one stack at start-up and one more per task that waits at once, so a
/// bigger one would leave room for few waiting tasks in the address space.
///
/// ```
/// use offshoot::{BuildError, ThreadPool, MAX_STACK_SIZE};
///
/// let e = ThreadPool::builder().stack_size(MAX_STACK_SIZE + 1).build().unwrap_err();
/// assert!(matches!(e, BuildError::StackTooLarge { .. }));
/// assert!(e.to_string().contains("Builder::stack_size"));
/// ```
pub const MAX_STACK_SIZE: usize = 1 << 30;

/// The environment variable that sets the size of the global pool (and of pools built
/// without [`Builder::workers`]).
pub const WORKERS_ENV: &str = "OFFSHOOT_WORKERS";

pub(crate) struct Registry {
    workers: Box<[Worker]>,
    injector: Mutex<VecDeque<JobRef>>,
    injected: AtomicUsize,
    sleepers: AtomicIsize,
    busy: AtomicUsize,
    terminating: AtomicBool,
    /// Whether the deadlock watch may end the waits of this pool's tasks.
    deadlock_detection: bool,
    /// The trace logs, if the pool records a trace (`worker/trace_log.rs`).
    pub(crate) trace: Option<Box<crate::worker::trace_log::Recorder>>,
    /// The work/span rows, if the pool measures them (`metrics/`).
    pub(crate) metrics: Option<Box<crate::metrics::Collector>>,
    /// Batches of free task blocks passed between the workers' free lists.
    pub(crate) spare_blocks: SpareBlocks,
    /// The rayon-style handlers set through `ThreadPoolBuilder` (`compat.rs`; run by
    /// `detached.rs`).
    pub(crate) hooks: Hooks,
    /// Which workers have started, and the first that could not (`build` waits for it).
    start: Mutex<Start>,
    started: std::sync::Condvar,
}

/// The start-up reports of a pool's workers.
struct Start {
    reported: Vec<bool>,
    count: usize,
    failed: Option<(usize, String)>,
    /// Worker bodies ([`WorkerMain`]) that have ended: run to the end, or dropped unrun.
    exited: usize,
}

impl Registry {
    #[inline]
    pub(crate) fn worker(&self, i: usize) -> &Worker {
        &self.workers[i]
    }

    #[inline]
    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    /// Worker `i` has started (it can run tasks) or could not (`Err`, why); only its first
    /// report counts.
    pub(crate) fn report_start(&self, i: usize, r: Result<(), String>) {
        let mut st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        if std::mem::replace(&mut st.reported[i], true) {
            return;
        }
        st.count += 1;
        if let Err(why) = r {
            st.failed.get_or_insert((i, why));
        }
        drop(st);
        self.started.notify_all();
    }

    /// A worker body ended (see [`WorkerMain`]).
    fn report_exit(&self) {
        self.start.lock().unwrap_or_else(|e| e.into_inner()).exited += 1;
        self.started.notify_all();
    }

    /// Waits until `n` worker bodies have ended.
    fn wait_exited(&self, n: usize) {
        let mut st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        while st.exited < n {
            st = self.started.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits until every worker started, or one could not (its index and why).
    fn wait_started(&self) -> Result<(), (usize, String)> {
        let mut st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(f) = st.failed.take() {
                return Err(f);
            }
            if st.count == self.workers.len() {
                return Ok(());
            }
            st = self.started.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub(crate) fn inject(&self, job: JobRef) {
        let mut q = self.injector.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back(job);
        // SeqCst: news for a sleeper, published before `wake_one` reads `sleepers` (worker/sleep.rs, "The protocol").
        self.injected.fetch_add(1, Ordering::SeqCst);
        drop(q);
        self.wake_one(None);
    }

    pub(crate) fn pop_injected(&self) -> Option<JobRef> {
        if !self.has_injected() {
            return None;
        }
        let mut q = self.injector.lock().unwrap_or_else(|e| e.into_inner());
        let j = q.pop_front();
        if j.is_some() {
            self.injected.fetch_sub(1, Ordering::SeqCst);
        }
        j
    }

    pub(crate) fn has_injected(&self) -> bool {
        self.injected.load(Ordering::SeqCst) > 0
    }

    /// Runs `f` (a job worker `w` took) counted as busy; wakes an idle sleeper first, with a
    /// request to `w` already posted for it (`Worker::wake_if_idle`): the job's first join may
    /// come long before the sleeper is up and asking, and long before `w` polls again.
    pub(crate) fn busy(&self, w: &Worker, f: impl FnOnce()) {
        self.busy.fetch_add(1, Ordering::SeqCst);
        w.jobs_began();
        self.wake_one(Some(w));
        f();
        w.jobs_ended();
        self.busy.fetch_sub(1, Ordering::SeqCst);
    }

    pub(crate) fn busy_workers(&self) -> usize {
        self.busy.load(Ordering::SeqCst)
    }

    pub(crate) fn sleepers_add(&self, d: isize) {
        // SeqCst: the sleeper's side of the handshake (worker/sleep.rs, "The protocol").
        self.sleepers.fetch_add(d, Ordering::SeqCst);
    }

    /// Wakes one worker that sleeps for lack of work, if any, with a request to `poster`
    /// posted on its behalf when given (`Worker::wake_if_idle`).
    ///
    /// The check is inlined (every spawn calls it), the wake is not.
    #[inline]
    pub(crate) fn wake_one(&self, poster: Option<&Worker>) {
        // SeqCst: read after the news was published (worker/sleep.rs, "The protocol").
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.wake_one_sleeper(poster);
        }
    }

    #[cold]
    #[inline(never)]
    fn wake_one_sleeper(&self, poster: Option<&Worker>) {
        for w in self.workers.iter() {
            if w.wake_if_idle(poster) {
                return;
            }
        }
    }

    /// Asks every worker to scan its frames for a cancelled region.
    pub(crate) fn broadcast_stop(&self) {
        for w in self.workers.iter() {
            w.signal_stop();
        }
    }

    pub(crate) fn is_terminating(&self) -> bool {
        self.terminating.load(Ordering::SeqCst)
    }

    pub(crate) fn deadlock_detection(&self) -> bool {
        self.deadlock_detection
    }

    /// Whether something queued for this pool could still wake one of its workers: an
    /// injected job, a wake, kick or stop queued on a worker, or a job answering the
    /// request a sleeping worker left posted (its victim may have gone idle since it
    /// answered, before the sleeper runs again).
    pub(crate) fn has_news(&self) -> bool {
        self.has_injected()
            || self
                .workers
                .iter()
                .any(|w| w.remote().has_news() || w.stop_raised() || w.holds_answered_job())
    }

    fn terminate(&self) {
        // SeqCst: news for sleepers (worker/sleep.rs, "The protocol").
        self.terminating.store(true, Ordering::SeqCst);
        for w in self.workers.iter() {
            w.wake_if_idle(None);
            w.unpark_if_sleeping();
        }
    }

    fn stats(&self) -> Stats {
        let mut s = Stats::default();
        for w in self.workers.iter() {
            s.add(&w.stats);
        }
        s
    }

    /// The loose work of the pool's workers so far (nanoseconds, units; `metrics/`).
    fn loose_work(&self) -> (u64, u64) {
        self.workers.iter().fold((0, 0), |(n, u), w| {
            let (wn, wu) = w.meter().loose();
            (n + wn, u + wu)
        })
    }

    /// Runs `f` as the root of a finish on one of this pool's workers, from a thread that
    /// is not one of them, and waits for it.
    fn run_outside<F, R>(&self, f: F) -> R
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        let me = Worker::current();
        // SAFETY: a non-null current worker is run by this thread.
        let me = (!me.is_null()).then(|| unsafe { &*me });
        // A task of another pool's worker parks on its token while it waits (its worker
        // goes on with its own pool's work, and the deadlock watch sees the wait).
        let waiter = me.filter(|w| w.on_fiber()).map(|_| Waiter::prepare());
        let job = RootJob {
            header: JobHeader::new(RootJob::<F, R>::execute, ptr::null()),
            func: std::cell::UnsafeCell::new(Some(f)),
            result: std::cell::UnsafeCell::new(None),
            latch: AtomicBool::new(false),
            caller: match &waiter {
                Some(w) => Caller::Task(w.clone()),
                None => Caller::Thread(std::thread::current()),
            },
        };
        // The header is the first field (repr(C)); the pointer covers the whole job.
        self.inject(JobRef(&job as *const RootJob<F, R> as *const JobHeader));
        if let Some(waiter) = waiter {
            if job.latch.load(Ordering::Acquire) {
                waiter.abandon();
            } else {
                // Not interruptible: the job lives in this frame and runs in the other pool
                // until it ends; a deadlock there is ended there, and its panic comes back
                // through the job.
                let on = WaitOn::new("ThreadPool::run", &job.header).uninterruptible();
                let _ = waiter.park(on);
            }
            // The waker set the latch before its wake.
            assert!(
                job.latch.load(Ordering::Acquire),
                "offshoot: internal error: woken before the pool's job ended"
            );
        } else if let Some(me) = me {
            // A worker that cannot park (no fibers: Miri): keep answering requests of its own
            // pool while it waits (its older frames may hold work), and run jobs injected
            // into its own pool — the job this worker waits for may itself call back into
            // this worker's pool (A.run → B.run → A.run), and when every worker of that pool
            // waits here, nobody else could run it.
            let own = me.registry();
            while !job.latch.load(Ordering::Acquire) {
                if let Some(j) = own.pop_injected() {
                    // An injected job is owned by whoever pops it.
                    own.busy(me, || me.run_stolen(j));
                    continue;
                }
                me.answer_request();
                me.nap(
                    || job.latch.load(Ordering::SeqCst) || own.has_injected(),
                    std::time::Duration::from_micros(200),
                );
            }
        } else {
            // A lock this thread holds is released by nobody until the job ends (the
            // deadlock watch; the executing worker sets the latch before its unpark).
            let _blocked = crate::deadlock::blocked_outside(&job.latch);
            while !job.latch.load(Ordering::Acquire) {
                std::thread::park();
            }
        }
        // SAFETY: the latch (acquire) says the executing worker wrote the result and no
        // longer touches the job.
        match unsafe { (*job.result.get()).take() } {
            Some(Ok(v)) => v,
            Some(Err(p)) => resume_unwind(p),
            None => unreachable!("offshoot: a finished root job left no result"),
        }
    }
}

/// Stack size of a worker thread's own stack, which runs only the fiber driver.
const DRIVER_STACK: usize = 256 * 1024;

/// The stack size of a fiber when the builder sets none: `RUST_MIN_STACK` if set (as for
/// threads spawned by std), else 2 MiB. Stacks are mapped lazily: only touched pages cost
/// memory.
fn default_stack_size() -> usize {
    std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(2 << 20)
}

/// A closure injected by `run` from outside the pool; lives on the caller's stack, which
/// blocks until `latch` is set.
#[repr(C)]
struct RootJob<F, R> {
    header: JobHeader,
    func: std::cell::UnsafeCell<Option<F>>,
    result: std::cell::UnsafeCell<Option<std::thread::Result<R>>>,
    latch: AtomicBool,
    caller: Caller,
}

/// Who waits for a root job, and how the job's end wakes it.
enum Caller {
    /// A thread outside every pool, parked: unpark it.
    Thread(Thread),
    /// A task of another pool's worker, parked on its token: wake it.
    Task(Waiter),
}

impl<F: FnOnce() -> R + Send, R: Send> RootJob<F, R> {
    unsafe fn execute(h: *const JobHeader, w: &Worker, _mode: Mode) {
        // SAFETY: `h` is the header of a `RootJob<F, R>` whose caller waits for the latch.
        let job = unsafe { &*(h as *const Self) };
        // SAFETY: the job is executed once, by the worker that popped it.
        let f = unsafe { (*job.func.get()).take() }.expect("offshoot: root job run twice");
        // A pool that measures records the run as a row (`metrics/`): the root strand
        // starts after every span measured before (`Clock::run_start`); the loose work of
        // the pool's workers meanwhile is added.
        let metered = w.meter().on().then(|| {
            let loose = w.registry().loose_work();
            let start = crate::metrics::Clock::run_start();
            (loose, start, w.meter().begin(start))
        });
        let r = catch_unwind(AssertUnwindSafe(|| match finish_root(w, |_| f()) {
            Ok(v) => v,
            Err(failure) => crate::finish::resume_failure(failure),
        }));
        if let Some((loose0, start, saved)) = metered {
            // The root task's fiber resumes only on the worker that ran it.
            let end = w.meter().end(saved);
            end.finish_run();
            let mut end = end.since(&start);
            let reg = w.registry();
            let loose = reg.loose_work();
            end.work_t += loose.0.saturating_sub(loose0.0);
            end.work_units += loose.1.saturating_sub(loose0.1);
            if let Some(c) = reg.metrics.as_deref() {
                c.record("", end);
            }
        }
        let r = match r {
            Err(p) if is_stopped(&p) => {
                Err(Box::new("offshoot: internal error: a stop escaped to ThreadPool::run") as _)
            }
            r => r,
        };
        // SAFETY: as above; the caller reads the result only after the latch.
        unsafe { *job.result.get() = Some(r) };
        let caller = match &job.caller {
            Caller::Thread(t) => Caller::Thread(t.clone()),
            Caller::Task(w) => Caller::Task(w.clone()),
        };
        job.latch.store(true, Ordering::Release);
        // The job may be gone now.
        match caller {
            Caller::Thread(t) => t.unpark(),
            Caller::Task(w) => {
                w.wake();
            }
        }
    }
}

/// Why a pool could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// `workers(0)`: a pool needs at least one worker.
    ZeroWorkers,
    /// More workers than [`MAX_WORKERS`].
    TooManyWorkers {
        /// What was asked for.
        requested: usize,
    },
    /// `OFFSHOOT_WORKERS` is set but is not a worker count: not a whole number, `0` (except
    /// for [`ThreadPoolBuilder`](crate::ThreadPoolBuilder), which reads it as "every core"),
    /// or more than [`MAX_WORKERS`].
    InvalidEnv {
        /// The variable's value.
        value: String,
    },
    /// The operating system refused to start a worker thread.
    Spawn(std::io::Error),
    /// [`Builder::build_global`] was called after the global pool already existed.
    GlobalAlreadyInitialized,
    /// The fiber stack size ([`Builder::stack_size`], or `RUST_MIN_STACK`) is above
    /// [`MAX_STACK_SIZE`].
    StackTooLarge {
        /// What was asked for, in bytes.
        requested: usize,
        /// [`MAX_STACK_SIZE`].
        limit: usize,
    },
    /// [`Builder::trace`] asked for more events per worker than
    /// [`trace::MAX_EVENTS_PER_WORKER`](crate::trace::MAX_EVENTS_PER_WORKER), more than
    /// one log could ever hold in memory.
    TraceTooLarge {
        /// What was asked for, in events per worker.
        requested: usize,
        /// [`trace::MAX_EVENTS_PER_WORKER`](crate::trace::MAX_EVENTS_PER_WORKER).
        limit: usize,
    },
    /// A worker could not start, e.g. the system refused to map its first fiber stack.
    WorkerStart {
        /// The worker's index.
        worker: usize,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::ZeroWorkers => {
                write!(f, "a pool needs at least one worker, got workers(0)")
            }
            BuildError::TooManyWorkers { requested } => write!(
                f,
                "{requested} workers is more than the limit of {MAX_WORKERS}; \
                 use at most about one worker per core"
            ),
            BuildError::InvalidEnv { value } => write!(
                f,
                "{WORKERS_ENV}={value:?} is not a worker count: set it to a whole number \
                 from 1 to {MAX_WORKERS}, or unset it"
            ),
            BuildError::Spawn(e) => write!(f, "could not start a worker thread: {e}"),
            BuildError::StackTooLarge { requested, limit } => write!(
                f,
                "a fiber stack of {requested} bytes is more than the limit of {limit} bytes \
                 (1 GiB); lower Builder::stack_size (or RUST_MIN_STACK)"
            ),
            BuildError::TraceTooLarge { requested, limit } => write!(
                f,
                "a trace of {requested} events per worker is more than the limit of {limit}; \
                 lower Builder::trace (offshoot::trace::DEFAULT_EVENTS_PER_WORKER is a good start)"
            ),
            BuildError::WorkerStart { worker, reason } => {
                write!(f, "worker {worker} could not start: {reason}")
            }
            BuildError::GlobalAlreadyInitialized => {
                write!(
                    f,
                    "the global pool already exists; build_global must come before its first use"
                )
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Spawn(e) => Some(e),
            _ => None,
        }
    }
}

/// Configures and builds a [`ThreadPool`].
///
/// # Deadlocks
///
/// A pool watches for deadlocks (unless [`Builder::deadlock_detection`] turns it off): when
/// every worker of every pool is idle while tasks wait in [`sync`](crate::sync) — on a lock,
/// a promise, an event, a channel, a barrier, a monitor, a semaphore, a future — nothing in
/// the pools can end those waits. Each such wait then panics with a message that starts
/// `offshoot: deadlock:` and lists every waiting task: its [`TaskId`](crate::sync::TaskId)
/// number, the worker thread it waits on, what it waits on (the construct, the name it was
/// created with if any — [`Mutex::named`](crate::sync::Mutex::named),
/// [`Promise::named`](crate::sync::Promise::named) and their kin — and its address:
/// `Mutex 0x…`, or `Mutex "accounts" (0x…)`), for locks and monitors the task holding
/// it, and where the program called the wait (`; called at src/main.rs:12:5`). The panic
/// ends the tasks'
/// joins, scopes and finishes like any panic, and resumes in the caller of
/// [`ThreadPool::run`] (the panic hook prints the report once). Idle
/// [actors and selectors](crate::actor) that have not exited are listed too (nothing can
/// send to them any more, and their finish waits for them): each exits, and its finish
/// fails with the report.
///
/// Threads outside every pool are invisible to the watch. One that will still end such a
/// wait — it sets a value, signals, or starts work in a pool that does — must hold
/// an [`ExternalWaker`](crate::sync::ExternalWaker) meanwhile, or the wait may be declared
/// deadlocked before it comes. A caller blocked in [`ThreadPool::run`] (or in `join`,
/// `scope`, `finish` entered from outside) waits for the pool and wakes nothing: it needs
/// no guard. Nor does a thread that holds a lock tasks wait for: the watch reads a lock's
/// holder, and reports the waits only while the holding thread is itself blocked in
/// offshoot (a lock held across `run` of a job that waits for it).
///
/// ```
/// let pool = offshoot::ThreadPool::builder()
///     .workers(2)
///     .thread_name(|i| format!("compute-{i}"))
///     .build()?;
/// assert_eq!(pool.workers(), 2);
/// # Ok::<(), offshoot::BuildError>(())
/// ```
#[derive(Default)]
pub struct Builder {
    workers: Option<usize>,
    stack_size: Option<usize>,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    no_deadlock_detection: bool,
    /// Events per worker's trace log; 0: no trace (`worker/trace_log.rs`).
    trace_events: usize,
    /// Whether and how the pool measures work and span (`metrics/`).
    metrics: Option<crate::metrics::Mode>,
    /// Start, exit and panic handlers (set by `ThreadPoolBuilder`, `compat.rs`; see
    /// `detached.rs`).
    pub(crate) hooks: Hooks,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("workers", &self.workers)
            .field("stack_size", &self.stack_size)
            .field("deadlock_detection", &!self.no_deadlock_detection)
            .field("trace_events", &self.trace_events)
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// A builder with the defaults: as many workers as `OFFSHOOT_WORKERS` says, else as
    /// `std::thread::available_parallelism()`.
    ///
    /// ```
    /// let pool = offshoot::Builder::new().workers(2).build().unwrap();
    /// assert_eq!(pool.workers(), 2);
    /// ```
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The number of worker threads (at least 1, at most [`MAX_WORKERS`]).
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(3).build().unwrap();
    /// assert_eq!(pool.workers(), 3);
    /// // Zero workers is an error, not a pool that never runs anything.
    /// assert!(offshoot::ThreadPool::builder().workers(0).build().is_err());
    /// ```
    pub fn workers(mut self, n: usize) -> Builder {
        self.workers = Some(n);
        self
    }

    /// The size of each stack tasks run on, in bytes (default: `RUST_MIN_STACK` if set, else
    /// 2 MiB, as for threads std spawns). Tasks run on fibers, not on the worker threads'
    /// own stacks: every worker starts with one such stack and maps one more for each task
    /// that waits at once (only touched pages use memory). Deep recursion inside tasks needs
    /// a bigger one.
    ///
    /// A task that overflows its stack cannot be recovered. On Linux the process aborts
    /// (SIGABRT) after writing to stderr a line that names this setting and the size in
    /// force, such as "offshoot: a task overflowed its 2 MiB fiber stack; give tasks more
    /// with \`Builder::stack_size\` (or RUST_MIN_STACK)"; elsewhere it dies of a fault on
    /// the stack's guard page (SIGSEGV).
    ///
    /// [`build`](Builder::build) fails with [`BuildError::StackTooLarge`] for a size above
    /// [`MAX_STACK_SIZE`], and with [`BuildError::WorkerStart`] when the system cannot map
    /// a worker's first stack.
    ///
    /// ```
    /// // Tasks of this pool may recurse through about 16 MiB of stack.
    /// let pool = offshoot::ThreadPool::builder()
    ///     .workers(1)
    ///     .stack_size(16 << 20)
    ///     .build()?;
    /// assert_eq!(pool.run(|| 6 * 7), 42);
    /// # Ok::<(), offshoot::BuildError>(())
    /// ```
    pub fn stack_size(mut self, bytes: usize) -> Builder {
        self.stack_size = Some(bytes);
        self
    }

    /// Names worker `i` `name(i)` (default: `offshoot-{i}`).
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder()
    ///     .workers(1)
    ///     .thread_name(|i| format!("solver-{i}"))
    ///     .build()
    ///     .unwrap();
    /// let name = pool.run(|| std::thread::current().name().map(str::to_string));
    /// assert_eq!(name.as_deref(), Some("solver-0"));
    /// ```
    pub fn thread_name(mut self, name: impl FnMut(usize) -> String + 'static) -> Builder {
        self.thread_name = Some(Box::new(name));
        self
    }

    /// Whether the pool ends the waits of deadlocked tasks with a panic that reports them
    /// (default: `true`). Off, such tasks wait forever, as they would on plain threads; the
    /// pool still counts for the watch of other pools (its workers' activity may wake their
    /// tasks), but its own tasks are neither reported nor woken. See [Deadlocks](Builder#deadlocks).
    ///
    /// ```
    /// use offshoot::sync::Promise;
    /// use std::panic::AssertUnwindSafe;
    ///
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// let never = Promise::<u32>::new();
    /// let r = std::panic::catch_unwind(AssertUnwindSafe(|| pool.run(|| *never.get())));
    /// let msg = *r.unwrap_err().downcast::<String>().unwrap();
    /// assert!(msg.starts_with("offshoot: deadlock:") && msg.contains("Promise"));
    ///
    /// let quiet = offshoot::ThreadPool::builder().deadlock_detection(false).build().unwrap();
    /// # drop(quiet);
    /// ```
    pub fn deadlock_detection(mut self, on: bool) -> Builder {
        self.no_deadlock_detection = !on;
        self
    }

    /// Records a timeline trace of the pool (see [`trace`](crate::trace)): the tasks each
    /// worker runs, the work handed between workers, parks, resumes and sleeps, and the
    /// regions the program names ([`trace::region`](crate::trace::region)), in a log of
    /// at most `events_per_worker` events per worker (48 bytes per event;
    /// [`trace::DEFAULT_EVENTS_PER_WORKER`](crate::trace::DEFAULT_EVENTS_PER_WORKER) is a
    /// good start). A log is allocated as it fills, in segments of doubling size (at most
    /// about twice what it holds), not up front. A full log keeps its oldest events and
    /// counts the rest as dropped. 0 (the default) records nothing. Take the trace with
    /// [`ThreadPool::trace`]. More than
    /// [`trace::MAX_EVENTS_PER_WORKER`](crate::trace::MAX_EVENTS_PER_WORKER) fails the
    /// build with [`BuildError::TraceTooLarge`].
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder()
    ///     .workers(2)
    ///     .trace(offshoot::trace::DEFAULT_EVENTS_PER_WORKER)
    ///     .build()
    ///     .unwrap();
    /// pool.run(|| offshoot::par_for(0..1000, |_| ()));
    /// let json = pool.trace().unwrap().to_chrome_json(); // for ui.perfetto.dev
    /// assert!(json.contains("\"thread_name\""));
    /// ```
    pub fn trace(mut self, events_per_worker: usize) -> Builder {
        self.trace_events = events_per_worker;
        self
    }

    /// Measures work and span (see [`metrics`](crate::metrics)): in time as Cilkscale does
    /// ([`Mode::Measured`](crate::metrics::Mode::Measured)), or only in the units the
    /// program charges with [`metrics::do_work`](crate::metrics::do_work)
    /// ([`Mode::Abstract`](crate::metrics::Mode::Abstract)). Each `run` and each
    /// [`metrics::region`](crate::metrics::region) records a row; take them with
    /// [`ThreadPool::metrics`]. A pool built without it measures nothing and pays nothing.
    /// Measuring slows a program of tiny tasks several times (every `join` is timed).
    ///
    /// ```
    /// use offshoot::metrics::Mode;
    /// let pool = offshoot::ThreadPool::builder().workers(2).metrics(Mode::Measured).build().unwrap();
    /// let v: Vec<u64> = (0..10_000).collect();
    /// let sum = pool.run(|| {
    ///     use offshoot::prelude::*;
    ///     v.par_iter().map(|x| x * x).sum::<u64>()
    /// });
    /// assert_eq!(sum, v.iter().map(|x| x * x).sum::<u64>());
    /// let report = pool.metrics().unwrap();
    /// let run = &report.rows()[0];
    /// assert!(run.work >= run.span);
    /// println!("{report}");
    /// ```
    pub fn metrics(mut self, mode: crate::metrics::Mode) -> Builder {
        self.metrics = Some(mode);
        self
    }

    fn worker_count(&self) -> Result<usize, BuildError> {
        let n = match self.workers {
            Some(n) => n,
            None => env_workers(false)?,
        };
        if n == 0 {
            return Err(BuildError::ZeroWorkers);
        }
        if n > MAX_WORKERS {
            return Err(BuildError::TooManyWorkers { requested: n });
        }
        Ok(n)
    }

    /// Starts the pool's worker threads.
    ///
    /// ```
    /// match offshoot::ThreadPool::builder().workers(2).build() {
    ///     Ok(pool) => assert_eq!(pool.run(|| offshoot::join(|| 1, || 2)), (1, 2)),
    ///     Err(e) => panic!("no pool: {e}"),
    /// }
    /// ```
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        self.build_with(spawn_worker)
    }

    /// Builds the pool, starting each worker with `spawn(body, name)`: it must hand `body`
    /// to a new thread that calls [`WorkerMain::run`] (or drop it, which fails the build),
    /// and may return the thread's handle, which the pool joins when dropped. `name` is
    /// what [`thread_name`](Self::thread_name) gives, if set.
    pub(crate) fn build_with(
        mut self,
        mut spawn: impl FnMut(WorkerMain, Option<String>) -> std::io::Result<Option<JoinHandle<()>>>,
    ) -> Result<ThreadPool, BuildError> {
        let n = self.worker_count()?;
        let fiber_stack = self.stack_size.unwrap_or_else(default_stack_size);
        if fiber_stack > MAX_STACK_SIZE {
            return Err(BuildError::StackTooLarge {
                requested: fiber_stack,
                limit: MAX_STACK_SIZE,
            });
        }
        if self.trace_events > crate::trace::MAX_EVENTS_PER_WORKER {
            return Err(BuildError::TraceTooLarge {
                requested: self.trace_events,
                limit: crate::trace::MAX_EVENTS_PER_WORKER,
            });
        }
        let registry = Arc::new_cyclic(|weak: &std::sync::Weak<Registry>| {
            let me = weak.as_ptr();
            Registry {
                workers: (0..n).map(|i| Worker::new(i, me, self.metrics)).collect(),
                injector: Mutex::new(VecDeque::new()),
                injected: AtomicUsize::new(0),
                sleepers: AtomicIsize::new(0),
                busy: AtomicUsize::new(0),
                terminating: AtomicBool::new(false),
                deadlock_detection: !self.no_deadlock_detection,
                trace: (self.trace_events > 0).then(|| {
                    Box::new(crate::worker::trace_log::Recorder::new(
                        n,
                        self.trace_events,
                    ))
                }),
                metrics: self
                    .metrics
                    .map(|m| Box::new(crate::metrics::Collector::new(m))),
                spare_blocks: SpareBlocks::new(),
                start: Mutex::new(Start {
                    reported: vec![false; n],
                    count: 0,
                    failed: None,
                    exited: 0,
                }),
                started: std::sync::Condvar::new(),
                hooks: self.hooks.clone(),
            }
        });
        crate::deadlock::register(&registry);
        let mut pool = ThreadPool {
            registry,
            threads: Vec::with_capacity(n),
            bodies: 0,
        };
        for i in 0..n {
            // A panic of the name function or of a spawn handler: the pool's drop stops and
            // waits for the workers already started before it passes on.
            let name = self.thread_name.as_mut().map(|f| f(i));
            let main = WorkerMain {
                registry: pool.registry.clone(),
                index: i,
                fiber_stack,
                ran: false,
            };
            pool.bodies += 1;
            match spawn(main, name) {
                Ok(h) => pool.threads.extend(h),
                // Drops the pool: stops the threads already started.
                Err(e) => return Err(BuildError::Spawn(e)),
            }
        }
        // A worker that cannot run tasks (no stack for it, or a body dropped unrun) fails
        // the build; without this wait, the first `run` would wait forever for it.
        if let Err((worker, reason)) = pool.registry.wait_started() {
            return Err(BuildError::WorkerStart { worker, reason }); // stops the others
        }
        Ok(pool)
    }

    /// Builds the global pool with this configuration. Fails if the global pool already
    /// exists (it is created on first use by `join`, `scope`, `finish` outside a pool).
    ///
    /// ```
    /// // Before anything uses the global pool (a second call is an error).
    /// offshoot::ThreadPool::builder().workers(2).build_global().unwrap();
    /// assert_eq!(offshoot::ThreadPool::global().workers(), 2);
    /// assert!(offshoot::ThreadPool::builder().build_global().is_err());
    /// ```
    pub fn build_global(self) -> Result<(), BuildError> {
        set_global(self.build()?)
    }
}

/// Makes `pool` the global pool, unless there is one already (then `pool` is dropped).
pub(crate) fn set_global(pool: ThreadPool) -> Result<(), BuildError> {
    let mut fresh = false;
    GLOBAL.get_or_init(|| {
        fresh = true;
        pool
    });
    if fresh {
        Ok(())
    } else {
        Err(BuildError::GlobalAlreadyInitialized)
    }
}

/// The worker count of a pool that does not set one: `OFFSHOOT_WORKERS`, else every core.
/// With `zero_is_auto` (rayon's reading, for `ThreadPoolBuilder`), `OFFSHOOT_WORKERS=0`
/// also means every core.
/// A value the variable holds that is not a usable count (0 without `zero_is_auto`, more
/// than [`MAX_WORKERS`]) is [`BuildError::InvalidEnv`], so the message names the variable
/// the user set rather than a `workers(n)` call they never made.
pub(crate) fn env_workers(zero_is_auto: bool) -> Result<usize, BuildError> {
    match default_workers()? {
        0 if zero_is_auto => Ok(available_cores()),
        n @ 1..=MAX_WORKERS => Ok(n),
        _ => Err(BuildError::InvalidEnv {
            value: std::env::var(WORKERS_ENV).unwrap_or_default(),
        }),
    }
}

fn available_cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

fn default_workers() -> Result<usize, BuildError> {
    match std::env::var(WORKERS_ENV) {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) => Ok(n),
            Err(_) => Err(BuildError::InvalidEnv { value: v }),
        },
        Err(std::env::VarError::NotPresent) => Ok(available_cores()),
        Err(std::env::VarError::NotUnicode(v)) => Err(BuildError::InvalidEnv {
            value: v.to_string_lossy().into_owned(),
        }),
    }
}

static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();

/// A pool of worker threads that run parallel work with lazy task creation.
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let (a, b) = pool.run(|| offshoot::join(|| 1 + 1, || 2 + 2));
/// assert_eq!((a, b), (2, 4));
/// ```
pub struct ThreadPool {
    registry: Arc<Registry>,
    /// The handles of the workers' threads, where the spawner gave them.
    threads: Vec<JoinHandle<()>>,
    /// How many worker bodies were handed to spawners: each ends once (`WorkerMain`).
    bodies: usize,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("workers", &self.workers())
            .finish()
    }
}

impl ThreadPool {
    /// A builder for a pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// assert_eq!(pool.workers(), 2);
    /// ```
    pub fn builder() -> Builder {
        Builder::new()
    }

    /// The global pool, created on first use with [`Builder::new`]'s defaults
    /// (`OFFSHOOT_WORKERS`, else every core).
    ///
    /// # Panics
    ///
    /// When the pool cannot be created, for example because `OFFSHOOT_WORKERS` is not a
    /// whole number from 1 to [`MAX_WORKERS`]; the message says what to fix.
    ///
    /// ```
    /// // `join` outside every pool runs here; so can an explicit `run`.
    /// let sum = offshoot::ThreadPool::global().run(|| {
    ///     let (a, b) = offshoot::join(|| 1, || 2);
    ///     a + b
    /// });
    /// assert_eq!(sum, 3);
    /// ```
    pub fn global() -> &'static ThreadPool {
        GLOBAL.get_or_init(|| {
            Builder::new()
                .build()
                .unwrap_or_else(|e| panic!("offshoot: cannot start the global pool: {e}"))
        })
    }

    /// The number of worker threads.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// assert_eq!(pool.workers(), 2);
    /// ```
    pub fn workers(&self) -> usize {
        self.registry.num_workers()
    }

    /// Runs `f` inside the pool and returns its value; tasks spawned with
    /// [`spawn`](crate::spawn) outside any finish are joined before `run` returns. A panic in
    /// `f` resumes in the caller. Called from one of this pool's own workers, `f` simply
    /// runs there (no deadlock); from a task of another pool, that task parks until `f` is
    /// done while its worker goes on with its own pool's work, and the deadlock watch sees
    /// the wait (a deadlock across the two pools is reported like one inside a pool).
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let sum: u64 = pool.run(|| (1..=100).sum());
    /// assert_eq!(sum, 5050);
    /// ```
    pub fn run<F, R>(&self, f: F) -> R
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        let w = Worker::current();
        // SAFETY: a non-null current worker is live and run by this thread.
        if !w.is_null() && ptr::eq(unsafe { (*w).registry() }, &*self.registry) {
            // SAFETY: as above.
            return match finish_core(unsafe { &*w }, |_| f()) {
                Ok(v) => v,
                Err(failure) => crate::finish::resume_failure(failure),
            };
        }
        self.registry.run_outside(f)
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The scheduler's counters since the pool started.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let before = pool.stats();
    /// pool.run(|| offshoot::join(|| (), || ()));
    /// // The counters of this run (idle workers keep asking, so they are not exact).
    /// let run = pool.stats() - before;
    /// println!("{} seeds became tasks", run.tasks_materialized);
    /// ```
    pub fn stats(&self) -> Stats {
        self.registry.stats()
    }

    /// A snapshot of the pool's timeline trace, if it was built to record one
    /// ([`Builder::trace`]); `None` otherwise. The pool goes on recording: a later
    /// snapshot holds everything this one does and more.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).trace(1 << 14).build().unwrap();
    /// pool.run(|| offshoot::join(|| (), || ()));
    /// let trace = pool.trace().unwrap();
    /// assert!(trace.slices().iter().any(|s| s.kind == offshoot::trace::SliceKind::Task));
    /// assert!(offshoot::ThreadPool::builder().workers(1).build().unwrap().trace().is_none());
    /// ```
    pub fn trace(&self) -> Option<crate::trace::Trace> {
        let reg = &self.registry;
        reg.trace
            .as_ref()
            .map(|r| crate::trace::Trace::of(r, |i| reg.worker(i).thread_name()))
    }

    /// The work/span rows recorded so far, if the pool measures them
    /// ([`Builder::metrics`]); `None` otherwise. The pool goes on recording.
    ///
    /// ```
    /// use offshoot::metrics::Mode;
    /// let pool = offshoot::ThreadPool::builder().workers(2).metrics(Mode::Abstract).build().unwrap();
    /// pool.run(|| offshoot::metrics::do_work(3));
    /// assert_eq!(pool.metrics().unwrap().rows()[0].work_units, 3);
    /// pool.clear_metrics();
    /// assert!(pool.metrics().unwrap().rows().is_empty());
    /// assert!(offshoot::ThreadPool::builder().workers(1).build().unwrap().metrics().is_none());
    /// ```
    pub fn metrics(&self) -> Option<crate::metrics::Report> {
        self.registry.metrics.as_ref().map(|c| c.report())
    }

    /// Forgets the work/span rows recorded so far (see [`ThreadPool::metrics`]).
    pub fn clear_metrics(&self) {
        if let Some(c) = &self.registry.metrics {
            c.clear();
        }
    }

    /// The index of the current thread's worker if it belongs to this pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// assert_eq!(pool.current_worker_index(), None); // this thread is not one of its workers
    /// let i = pool.run(|| pool.current_worker_index());
    /// assert!(matches!(i, Some(0) | Some(1)));
    /// ```
    pub fn current_worker_index(&self) -> Option<usize> {
        let w = Worker::current();
        if w.is_null() {
            return None;
        }
        // SAFETY: a non-null current worker is live and run by this thread.
        let w = unsafe { &*w };
        ptr::eq(w.registry(), &*self.registry).then_some(w.index)
    }
}

/// The number of workers of the pool the calling thread works for; outside every pool,
/// that of the global pool (like rayon's `current_num_threads`). Useful to cut work into
/// one piece per worker.
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(3).build().unwrap();
/// assert_eq!(pool.run(offshoot::current_num_workers), 3);
/// ```
pub fn current_num_workers() -> usize {
    let w = Worker::current();
    if w.is_null() {
        return ThreadPool::global().workers();
    }
    // SAFETY: a non-null current worker is live and run by this thread.
    unsafe { (*w).registry().num_workers() }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.registry.terminate();
        let me = std::thread::current().id();
        for h in self.threads.drain(..) {
            if h.thread().id() == me {
                // Dropped from inside its own worker: that thread ends when it returns to
                // its loop; it cannot join itself.
                continue;
            }
            let _ = h.join();
        }
        // Workers started by a spawn handler left no handle: wait for their bodies to end
        // (with the exit handlers run), all but the calling worker's own.
        let w = Worker::current();
        // SAFETY: a non-null current worker is run by this thread.
        let own = !w.is_null() && ptr::eq(unsafe { (*w).registry() }, &*self.registry);
        self.registry.wait_exited(self.bodies - usize::from(own));
    }
}

/// Starts a worker's thread the pool's own way: named `name`, else `offshoot-{index}`, with
/// a stack for the fiber driver (tasks run on fibers, `fiber/`).
pub(crate) fn spawn_worker(
    main: WorkerMain,
    name: Option<String>,
) -> std::io::Result<Option<JoinHandle<()>>> {
    let name = name.unwrap_or_else(|| format!("offshoot-{}", main.index()));
    std::thread::Builder::new()
        .name(name)
        .stack_size(DRIVER_STACK)
        .spawn(move || main.run())
        .map(Some)
}

/// The body of one worker thread, handed to the function that starts the thread
/// ([`Builder::build_with`]; rayon's `ThreadBuilder` wraps it). It ends exactly once, run to
/// its end or dropped unrun, and says so to the registry, so that the pool's drop can wait
/// for threads it holds no handle of; dropped unrun, it fails the build.
pub(crate) struct WorkerMain {
    registry: Arc<Registry>,
    index: usize,
    fiber_stack: usize,
    ran: bool,
}

impl WorkerMain {
    /// The worker's index in its pool.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// Runs the worker on the calling thread until the pool is dropped: the start
    /// handler, the scheduler, the exit handler.
    ///
    /// # Panics
    ///
    /// On a thread that already runs a worker (of any pool).
    pub(crate) fn run(mut self) {
        if !Worker::current().is_null() {
            let why = "its body was run on a thread that already runs a worker (a spawn \
                       handler must run each body on a new thread)";
            self.registry.report_start(self.index, Err(why.to_string()));
            panic!(
                "offshoot: worker {} of a pool being built: {why}",
                self.index
            );
        }
        self.ran = true;
        let (reg, i) = (&self.registry, self.index);
        reg.hooks.started(i);
        reg.worker(i).thread_main(self.fiber_stack);
        reg.hooks.exiting(i);
    }
}

impl Drop for WorkerMain {
    fn drop(&mut self) {
        if !self.ran {
            self.registry.report_start(
                self.index,
                Err(
                    "its thread's body was dropped without being run (a spawn handler must \
                     run it on a new thread)"
                        .to_string(),
                ),
            );
        }
        self.registry.report_exit();
    }
}
