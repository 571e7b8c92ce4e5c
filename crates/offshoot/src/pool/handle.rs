//! `ThreadPool`, the handle of a pool: `run` (entering from outside or nesting), the global
//! pool, the pool's counters, trace and metrics, and its drop (which stops the workers
//! without waiting for them) or `shutdown` (which joins them).

use std::fmt;
use std::ptr;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use crate::finish::finish_core;
use crate::stats::Stats;
use crate::worker::Worker;

use super::{BuildError, Builder, Registry};

static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();

/// A pool of worker threads that run parallel work with lazy task creation.
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let (a, b) = pool.run(|| offshoot::join(|| 1 + 1, || 2 + 2));
/// assert_eq!((a, b), (2, 4));
/// ```
///
/// # Dropping a pool
///
/// Dropping a pool stops it and returns at once, without waiting for its threads, as
/// rayon's does: work already queued (detached tasks started with
/// [`spawn`](ThreadPool::spawn) and not yet begun) still runs, each worker exits once it
/// has no more of it and its own task has ended, and its exit handler runs then, on that
/// thread. A task that never ends keeps its worker (and nothing else) alive, and the drop
/// still returns. The pool's memory lives until its last worker exits. To wait for the
/// workers instead, call [`shutdown`](ThreadPool::shutdown).
///
/// ```
/// use std::sync::mpsc;
///
/// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
/// let (release, wait) = mpsc::channel::<()>();
/// pool.spawn(move || {
///     let _ = wait.recv(); // blocks its worker until released
/// });
/// drop(pool); // returns although the task has not ended
/// release.send(()).unwrap(); // the task ends, then its worker exits
/// ```
pub struct ThreadPool {
    pub(super) registry: Arc<Registry>,
    /// The handles of the workers' threads, where the spawner gave them.
    pub(super) threads: Vec<JoinHandle<()>>,
    /// How many worker bodies were handed to spawners: each ends once (`WorkerMain`).
    pub(super) bodies: usize,
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
    /// (`OFFSHOOT_WORKERS`, else `RAYON_NUM_THREADS`, else every core).
    ///
    /// # Panics
    ///
    /// When the pool cannot be created, for example because `OFFSHOOT_WORKERS` is not a
    /// whole number from 1 to [`MAX_WORKERS`](crate::MAX_WORKERS); the message says what to fix.
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

    /// Runs `f` inside the pool and returns its value; `run` is a
    /// [`finish`](crate::finish()): tasks spawned with
    /// [`finish::spawn`](crate::finish::spawn()) outside any inner finish are joined before
    /// it returns, while detached tasks ([`spawn`](crate::spawn()), rayon's) are not waited
    /// for. rayon's name for it is [`install`](ThreadPool::install). A panic in `f` resumes
    /// in the caller. Called from one of this pool's own workers, `f` simply
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

    /// Asks this pool for a **package**: work that an exporter
    /// ([`State::handle_with_export`](crate::search::State::handle_with_export)) takes away
    /// from its block and packages as bytes, for another process. For layers that ship
    /// work between processes; see [`export`](crate::export).
    ///
    /// The request goes to a worker that runs a job and is answered at its next poll, from
    /// the oldest block with an exporter on its running chain, or passed on to the next busy
    /// worker; [`Answer::Nothing`](crate::export::Answer::Nothing) once all were asked
    /// (at once when no worker runs a job). It does not block: the caller polls or waits on
    /// the [`PackageRequest`](crate::export::PackageRequest).
    ///
    /// ```
    /// use offshoot::export::Answer;
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let mut req = pool.request_package();
    /// assert_eq!(req.wait(std::time::Duration::from_secs(10)), Answer::Nothing);
    /// ```
    pub fn request_package(&self) -> crate::export::PackageRequest {
        let reg = &self.registry;
        let n = reg.num_workers();
        let cell = crate::worker::PackageCell::new(n);
        // Start at a rotating worker, so that requests spread over the busy ones.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        // Relaxed: only a starting point.
        let start = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % n;
        match (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| reg.worker(i).runs_jobs())
        {
            Some(i) => reg.worker(i).ask_package(cell.clone()),
            None => cell.answer_nothing(),
        }
        crate::export::PackageRequest::new(cell)
    }

    /// How many of this pool's workers sleep now because they found nothing to do (a hint:
    /// it changes at any time). A worker that waits at a join for its thief, or whose tasks
    /// are parked, counts only once it has looked for other work and found none. A layer
    /// that ships work between processes asks another process for work while this is above
    /// zero, that is once its own workers found nothing locally.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// assert!(pool.idle_workers() <= 2);
    /// ```
    pub fn idle_workers(&self) -> usize {
        self.registry.idle_sleepers()
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

impl ThreadPool {
    /// Stops the pool and waits until every worker thread has ended, with its exit handler
    /// run: what a drop does without waiting (see [`ThreadPool`]'s "Dropping a pool").
    /// Work already queued still runs first, so a task that never ends makes this wait for
    /// ever. Called from one of the pool's own workers, it waits for the others only.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let e = exited.clone();
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .exit_handler(move |_| {
    ///         e.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.shutdown();
    /// assert_eq!(exited.load(Ordering::SeqCst), 2);
    /// ```
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    /// Terminates the pool and joins its worker threads (all but the calling worker's own).
    fn stop_and_join(&mut self) {
        self.registry.terminate();
        let me = std::thread::current().id();
        for h in self.threads.drain(..) {
            if h.thread().id() == me {
                // Called from inside its own worker: that thread ends when it returns to
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
        self.bodies = 0;
    }
}

impl Drop for ThreadPool {
    /// Terminates the pool and returns at once (as rayon's drop does): each worker exits
    /// once the work queued before the drop has run and its own task has ended, and the
    /// registry lives on, owned by the worker threads (`WorkerMain`'s `Arc`), until the
    /// last one exits. A pool whose build failed is still joined: its started workers run
    /// no task and leave at once, and the build's error comes after them.
    fn drop(&mut self) {
        if self.bodies == 0 {
            // Shut down already (`shutdown`), or no worker body was handed out.
            return;
        }
        if !self.registry.all_started() {
            self.stop_and_join();
            return;
        }
        self.registry.terminate();
        // Dropping the handles detaches the threads.
        self.threads.clear();
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

/// Runs `f` on the current worker, or in the global pool from outside every pool.
pub(crate) fn in_worker<R: Send>(f: impl FnOnce(&Worker) -> R + Send) -> R {
    Worker::check_not_isolated("a finish, scope or a parallel loop");
    let w = Worker::current();
    if w.is_null() {
        return crate::pool::ThreadPool::global().run(|| {
            // SAFETY: `run` executes on a worker of the global pool.
            f(unsafe { &*Worker::current() })
        });
    }
    // SAFETY: the current worker is run by this thread.
    f(unsafe { &*w })
}
