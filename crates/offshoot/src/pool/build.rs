//! `Builder` and `BuildError`: what a pool is built from, checked before any thread starts.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::detached::Hooks;
use crate::worker::{SpareBlocks, Worker};

use super::registry::Start;
use super::{
    set_global, spawn_worker, Registry, ThreadPool, WorkerMain, MAX_STACK_SIZE, MAX_WORKERS,
    MIN_STACK_SIZE, WORKERS_ENV,
};

/// Why a pool could not be built. rayon's name for it is
/// [`ThreadPoolBuildError`](crate::ThreadPoolBuildError) (the same type).
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
    /// [`Builder::build_global`] was called after the global pool already existed (it was
    /// built, or first used, before): call `build_global` once, before anything runs on the
    /// global pool. Its text is rayon's, "The global thread pool has already been
    /// initialized."
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
    /// [`Builder::stack_size`] (or
    /// [`ThreadPoolBuilder::stack_size`](crate::ThreadPoolBuilder::stack_size)) is below
    /// [`MIN_STACK_SIZE`] — 0 and 1 included: the first task would overflow its stack.
    StackTooSmall {
        /// What was asked for, in bytes.
        requested: usize,
        /// [`MIN_STACK_SIZE`].
        minimum: usize,
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
            BuildError::StackTooSmall { requested, minimum } => write!(
                f,
                "a fiber stack of {requested} bytes is less than the minimum of {minimum} bytes \
                 (64 KiB) a task needs to start; raise stack_size (Builder::stack_size or \
                 ThreadPoolBuilder::stack_size) to at least {minimum}"
            ),
            BuildError::TraceTooLarge { requested, limit } => write!(
                f,
                "a trace of {requested} events per worker is more than the limit of {limit}; \
                 lower Builder::trace (offshoot::trace::DEFAULT_EVENTS_PER_WORKER is a good start)"
            ),
            BuildError::WorkerStart { worker, reason } => {
                write!(f, "worker {worker} could not start: {reason}")
            }
            // rayon's text, word for word: rayon users' tests compare it.
            BuildError::GlobalAlreadyInitialized => {
                write!(f, "The global thread pool has already been initialized.")
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

/// Configures and builds a [`ThreadPool`]: offshoot's builder, whose rayon name is
/// [`ThreadPoolBuilder`](crate::ThreadPoolBuilder) (a separate type with rayon's setting
/// names, `num_threads` for [`workers`](Builder::workers), and rayon's readings where the
/// two differ: `num_threads(0)` is "automatic" there, `workers(0)` an error here).
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
/// # Blocked workers
///
/// A task that blocks its thread in the operating system — `std::sync::mpsc::Receiver::recv`,
/// `std::sync::Mutex::lock`, `Condvar::wait` or `Barrier::wait` from `std::sync`,
/// `std::thread::sleep`, blocking I/O — holds its worker meanwhile: the tasks queued behind
/// it on that worker do not run, and if it waits for one of them, it waits for ever (the
/// deadlock watch cannot see this: the worker counts as running). So the pool watches for
/// it (unless [`Builder::blocked_report`] turns it off): when a worker has been blocked for
/// the report's delay (10 seconds by default) inside one task while other work waits for it
/// (a thief asks it for work, work started from outside waits, a woken task of its own
/// waits) or no other worker of the pool runs anything, a line on stderr says which worker
/// (its index and thread name), for how long, and what to use instead: the waits of
/// [`sync`](crate::sync), which park the task and free the worker. Once per episode. On
/// Linux the thread's state in `/proc` tells a blocked thread from one that computes, and a
/// task that computes is never reported; elsewhere a worker is reported only while a
/// thief's request waits at it unanswered, and the line says it computes without a poll
/// point or is blocked.
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
#[must_use = "a builder does nothing until it is built (build, build_global)"]
pub struct Builder {
    pub(super) workers: Option<usize>,
    pub(super) stack_size: Option<usize>,
    pub(super) thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    pub(super) no_deadlock_detection: bool,
    /// The blocked-worker report's delay (`deadlock/blocked.rs`).
    pub(super) blocked_report: crate::deadlock::ReportAfter,
    /// Events per worker's trace log; 0: no trace (`worker/trace_log.rs`).
    pub(super) trace_events: usize,
    /// Whether and how the pool measures work and span (`metrics/`).
    pub(super) metrics: Option<crate::metrics::Mode>,
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
            .field("blocked_report", &self.blocked_report.0)
            .field("trace_events", &self.trace_events)
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// A builder with the defaults: as many workers as `OFFSHOOT_WORKERS` says, else as
    /// `RAYON_NUM_THREADS` says (read as rayon reads it: `0` or a value that is not a count
    /// is every core), else as `std::thread::available_parallelism()`.
    ///
    /// ```
    /// let pool = offshoot::Builder::new().workers(2).build().unwrap();
    /// assert_eq!(pool.workers(), 2);
    /// ```
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The number of worker threads (at least 1, at most [`MAX_WORKERS`]). `workers(0)` fails
    /// [`build`](Self::build) with [`BuildError::ZeroWorkers`]: offshoot's builder has no
    /// "automatic" count to ask for with 0 (leave `workers` unset for that), where rayon's
    /// [`ThreadPoolBuilder::num_threads`](crate::ThreadPoolBuilder::num_threads)`(0)` picks
    /// automatically.
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
    /// [`MAX_STACK_SIZE`], with [`BuildError::StackTooSmall`] for one below
    /// [`MIN_STACK_SIZE`], and with [`BuildError::WorkerStart`] when the system cannot map
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

    /// How long a worker may stay blocked in the operating system inside one task before
    /// the pool says so on stderr (default 10 seconds; `None`, or zero, turns the report
    /// off). See [Blocked workers](Builder#blocked-workers).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let pool = offshoot::ThreadPool::builder()
    ///     .workers(2)
    ///     .blocked_report(Some(Duration::from_secs(30)))
    ///     .build()
    ///     .unwrap();
    /// # drop(pool);
    /// let quiet = offshoot::ThreadPool::builder().blocked_report(None).build().unwrap();
    /// # drop(quiet);
    /// ```
    pub fn blocked_report(mut self, after: Option<Duration>) -> Builder {
        self.blocked_report = crate::deadlock::ReportAfter(after);
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
    /// [`metrics::measure`](crate::metrics::measure) records a row; take them with
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
        let fiber_stack = match self.stack_size {
            Some(s) if s < MIN_STACK_SIZE => {
                return Err(BuildError::StackTooSmall {
                    requested: s,
                    minimum: MIN_STACK_SIZE,
                })
            }
            Some(s) => s,
            None => default_stack_size(),
        };
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
                blocked: crate::deadlock::BlockedWatch::new(self.blocked_report, n),
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

/// The stack size of a fiber when the builder sets none: `RUST_MIN_STACK` if set (as for
/// threads spawned by std) but at least [`MIN_STACK_SIZE`], else 2 MiB. Stacks are mapped
/// lazily: only touched pages cost memory.
fn default_stack_size() -> usize {
    std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&s| s > 0)
        .map_or(2 << 20, |s| s.max(MIN_STACK_SIZE))
}

/// The worker count of a pool that does not set one: `OFFSHOOT_WORKERS`, else
/// `RAYON_NUM_THREADS` read as rayon reads it ([`rayon_env_workers`]), else every core.
/// With `zero_is_auto` (rayon's reading, for `ThreadPoolBuilder`), `OFFSHOOT_WORKERS=0`
/// also means every core.
/// A value `OFFSHOOT_WORKERS` holds that is not a usable count (0 without `zero_is_auto`,
/// more than [`MAX_WORKERS`]) is [`BuildError::InvalidEnv`], so the message names the
/// variable the user set rather than a `workers(n)` call they never made.
pub(crate) fn env_workers(zero_is_auto: bool) -> Result<usize, BuildError> {
    let v = match std::env::var(WORKERS_ENV) {
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => {
            return Ok(rayon_env_workers(std::env::var(RAYON_ENV).ok().as_deref()))
        }
        Err(std::env::VarError::NotUnicode(v)) => {
            return Err(BuildError::InvalidEnv {
                value: v.to_string_lossy().into_owned(),
            })
        }
    };
    match v.trim().parse::<usize>() {
        Ok(0) if zero_is_auto => Ok(available_cores()),
        Ok(n @ 1..=MAX_WORKERS) => Ok(n),
        _ => Err(BuildError::InvalidEnv { value: v }),
    }
}

/// rayon's variable for the size of its pools, read when `OFFSHOOT_WORKERS` is unset.
const RAYON_ENV: &str = "RAYON_NUM_THREADS";

/// The worker count `RAYON_NUM_THREADS` (`value`, `None` if unset) gives, as rayon reads
/// it: a positive count (capped at [`MAX_WORKERS`], as rayon caps at its
/// `max_num_threads()`), else — unset, `0`, or not a count — every core. Never an error.
fn rayon_env_workers(value: Option<&str>) -> usize {
    match value.and_then(|v| v.parse::<usize>().ok()) {
        Some(n @ 1..) => n.min(MAX_WORKERS),
        _ => available_cores(),
    }
}

fn available_cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rayon_num_threads_is_read_as_rayon_reads_it() {
        let cores = available_cores();
        assert_eq!(rayon_env_workers(Some("3")), 3);
        assert_eq!(
            rayon_env_workers(Some(&(MAX_WORKERS + 1).to_string())),
            MAX_WORKERS
        );
        for auto in [None, Some("0"), Some(""), Some("x"), Some("-2"), Some(" 2")] {
            assert_eq!(rayon_env_workers(auto), cores, "{auto:?}");
        }
    }
}
