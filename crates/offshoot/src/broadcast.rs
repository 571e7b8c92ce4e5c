//! rayon's `broadcast` and `spawn_broadcast`: run a closure once on every worker of a pool.
//!
//! offshoot's pools have one shared queue for work entering from outside (the injector,
//! `pool.rs`), no queue per worker, so a broadcast cannot address a worker directly.
//! Instead it puts one job per share into the injector; whichever worker pops a job runs
//! the share *of its own index* if nobody has run it yet, and otherwise puts the job back
//! (and yields its thread) so that a worker whose share is still open gets it.
//!
//! Invariants:
//! * Every worker index is claimed at most once (`claimed[i]`, a swap), so the closure runs
//!   exactly once per worker, on that worker's thread.
//! * The jobs in flight always number the unclaimed shares: a job that claims a share is
//!   consumed, a job that finds its popper's share claimed is re-injected. So once every
//!   share has run, no job of the broadcast is left anywhere. The one exception: in a pool
//!   being dropped, a `spawn_broadcast` job that finds its popper's share claimed is
//!   dropped (its worker may have exited, and a re-injected job would then circulate
//!   among the remaining workers for ever).
//! * A share's last touch of the broadcast's state is its `finished` decrement (release,
//!   paired with the waiter's acquire load): the results it wrote before are visible to
//!   the waiter, and the state itself is kept alive by an `Arc` each job holds, so a
//!   waiter may return while the last job still drops its `Arc`.
//! * [`broadcast`] borrows its closure: it returns only once every share has finished,
//!   also when its own share or another one panicked (the first panic then resumes in the
//!   caller). A caller inside a worker of the same pool runs its own share at once and,
//!   while the others finish, runs the work waiting in the injector (other broadcasts'
//!   shares among it), so two broadcasts waiting on each other's workers both progress.

use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::finish::{finish_root, Failure};
use crate::job::{JobHeader, JobRef, Mode};
use crate::pool::{Registry, ThreadPool};
use crate::unwind::Payload;
use crate::worker::Worker;

/// What a closure run by [`broadcast`] learns about where it runs.
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    marker: PhantomData<&'a mut ()>,
}

impl BroadcastContext<'_> {
    /// The index of the worker running this share (from 0), the same as
    /// [`current_thread_index`](crate::current_thread_index).
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers of the pool, hence of shares.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.broadcast(|ctx| ctx.num_threads()), [3, 3, 3]);
    /// ```
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// The closure of a broadcast: borrowed from the waiting caller ([`broadcast`]) or owned
/// (`spawn_broadcast`).
enum Op<OP> {
    Borrowed(*const OP),
    Owned(OP),
}

impl<OP> Op<OP> {
    fn get(&self) -> &OP {
        match self {
            // SAFETY: a borrowed closure belongs to a `broadcast` caller that returns only
            // once every share has finished (module invariant), so it outlives every use.
            Op::Borrowed(p) => unsafe { &**p },
            Op::Owned(op) => op,
        }
    }
}

/// The state one broadcast's shares share.
struct Shares<OP, R> {
    op: Op<OP>,
    claimed: Box<[AtomicBool]>,
    results: Box<[Mutex<Option<R>>]>,
    /// The first panic of a share (for `broadcast`; `spawn_broadcast` hands panics to the
    /// pool's panic handler).
    panic: Mutex<Option<Payload>>,
    /// Shares not yet finished.
    unfinished: AtomicUsize,
    /// Wakes a caller outside the pool when `unfinished` reaches 0.
    all_done: (Mutex<()>, Condvar),
}

// SAFETY: the workers use the closure only through `&OP` (`OP: Sync`); an `Owned` closure
// is dropped with the state, on whichever thread drops the last `Arc`, and is made only by
// `spawn_broadcast_in`, whose bound has `OP: Send`. Results move from the share's worker
// to the caller under a mutex (`R: Send`).
unsafe impl<OP: Sync, R: Send> Send for Shares<OP, R> {}
// SAFETY: as above; every field shared between threads is an atomic or behind a mutex.
unsafe impl<OP: Sync, R: Send> Sync for Shares<OP, R> {}

impl<OP, R> Shares<OP, R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    fn new(op: Op<OP>, n: usize) -> Arc<Self> {
        Arc::new(Shares {
            op,
            claimed: (0..n).map(|_| AtomicBool::new(false)).collect(),
            results: (0..n).map(|_| Mutex::new(None)).collect(),
            panic: Mutex::new(None),
            unfinished: AtomicUsize::new(n),
            all_done: (Mutex::new(()), Condvar::new()),
        })
    }

    fn claim(&self, i: usize) -> bool {
        // Relaxed: the swap only decides who runs share `i`; nothing is published by it.
        !self.claimed[i].swap(true, Ordering::Relaxed)
    }

    fn done(&self) -> bool {
        // Acquire: pairs with the release decrement in `finish_share`, so the results
        // written before it are visible.
        self.unfinished.load(Ordering::Acquire) == 0
    }

    /// Runs share `i` (claimed by the caller) here, storing its result or its panic; a
    /// `spawn_broadcast` share's panic is returned instead (nobody waits for it).
    fn run_share(
        &self,
        i: usize,
        run: impl FnOnce(&dyn Fn() -> R) -> Result<R, Payload>,
    ) -> Option<Payload> {
        let ctx = || {
            (self.op.get())(BroadcastContext {
                index: i,
                num_threads: self.claimed.len(),
                marker: PhantomData,
            })
        };
        match run(&ctx) {
            Ok(r) => *self.results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r),
            Err(p) if matches!(self.op, Op::Owned(_)) => {
                self.finish_share();
                return Some(p);
            }
            Err(p) => {
                let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(p);
            }
        }
        self.finish_share();
        None
    }

    fn finish_share(&self) {
        // Release: pairs with the acquire load in `done` (the result is written above).
        if self.unfinished.fetch_sub(1, Ordering::Release) == 1 {
            let _g = self.all_done.0.lock().unwrap_or_else(|e| e.into_inner());
            self.all_done.1.notify_all();
        }
    }

    /// Injects one job per share not claimed yet. The shares are counted before the first
    /// job goes out: a job claims the share of whichever worker pops it, so once one is out
    /// the flags no longer say how many jobs are still owed.
    fn inject_open(self: &Arc<Self>, registry: &Registry) {
        let open = self
            .claimed
            .iter()
            // Relaxed: only the injecting thread has claimed anything so far.
            .filter(|c| !c.load(Ordering::Relaxed))
            .count();
        for _ in 0..open {
            registry.inject(ShareJob::into_job(self.clone()));
        }
    }

    /// Waits until every share has finished; see the module invariants for how.
    fn wait(&self, registry: &Registry) {
        let w = Worker::current();
        // SAFETY: a non-null current worker is live and run by this thread.
        let here = (!w.is_null()).then(|| unsafe { &*w });
        match here {
            Some(w) if std::ptr::eq(w.registry(), registry) => {
                while !self.done() {
                    match registry.pop_injected() {
                        // An injected job is owned by whoever pops it.
                        Some(job) => registry.busy(w, || w.run_stolen(job)),
                        None => std::thread::yield_now(),
                    }
                }
            }
            _ => {
                let mut g = self.all_done.0.lock().unwrap_or_else(|e| e.into_inner());
                while !self.done() {
                    g = self.all_done.1.wait(g).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }
}

/// A job of one share: `#[repr(C)]` with its `execute` pointer first (see `job.rs`).
#[repr(C)]
struct ShareJob<OP, R> {
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    shares: Arc<Shares<OP, R>>,
}

impl<OP, R> ShareJob<OP, R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    fn into_job(shares: Arc<Shares<OP, R>>) -> JobRef {
        let job = Box::new(ShareJob {
            execute: Self::execute,
            shares,
        });
        JobRef(Box::into_raw(job) as *const JobHeader)
    }

    /// # Safety
    /// `h` comes from `into_job` (a boxed `ShareJob<OP, R>`) and is executed exactly once, by
    /// the worker that popped it from the injector, which then owns the box; `mode` is not
    /// `Discard`.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        // SAFETY: `h` came from `into_job` and is executed once, by the worker that popped
        // it from the injector.
        let job = unsafe { Box::from_raw(h as *mut ShareJob<OP, R>) };
        debug_assert!(mode != Mode::Discard, "injected jobs are never discarded");
        let shares = &job.shares;
        if !shares.claim(w.index) {
            if matches!(shares.op, Op::Owned(_)) && w.registry().is_terminating() {
                // A `spawn_broadcast` in a pool being dropped: the worker this job waits
                // for may have exited already, and nobody would ever take it back out.
                return;
            }
            // This worker ran its share already: the job goes back for another worker. (A
            // `broadcast` borrows its pool, so that pool is not being dropped meanwhile.)
            w.registry().inject(ShareJob::into_job(job.shares.clone()));
            std::thread::yield_now();
            return;
        }
        let detached_panic = shares.run_share(w.index, |op| match finish_root(w, |_| op()) {
            Ok(r) => Ok(r),
            Err(Failure::Panic(p)) => Err(p),
            Err(Failure::Error(_) | Failure::Stopped | Failure::Resolved) => Err(Box::new(
                "offshoot: a broadcast share was stopped by an error of a task it spawned",
            )),
        });
        if let Some(p) = detached_panic {
            w.registry().hooks.panicked(p);
        }
    }
}

/// Runs `f` with the pool a free function works in: the current worker's, else the global
/// pool.
pub(crate) fn in_current_pool<T>(f: impl FnOnce(&Registry) -> T) -> T {
    let w = Worker::current();
    if w.is_null() {
        f(ThreadPool::global().registry())
    } else {
        // SAFETY: a non-null current worker is live and run by this thread, and its
        // registry outlives it.
        f(unsafe { &*w }.registry())
    }
}

/// Runs `op` once on every worker of `registry` and returns the results by worker index.
pub(crate) fn broadcast_in<OP, R>(registry: &Registry, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = registry.num_workers();
    let shares = Shares::new(Op::Borrowed(&op), n);
    let w = Worker::current();
    // SAFETY: a non-null current worker is live and run by this thread.
    let own = (!w.is_null())
        .then(|| unsafe { &*w })
        .filter(|w| std::ptr::eq(w.registry(), registry))
        .map(|w| w.index);
    if let Some(i) = own {
        let first = shares.claim(i);
        debug_assert!(first, "nobody else knows the broadcast yet");
    }
    shares.inject_open(registry);
    if let Some(i) = own {
        let detached = shares.run_share(i, |op| catch_unwind(AssertUnwindSafe(op)));
        debug_assert!(detached.is_none(), "a broadcast's closure is borrowed");
    }
    shares.wait(registry);
    let panic = shares
        .panic
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(p) = panic {
        resume_unwind(p);
    }
    shares
        .results
        .iter()
        .map(|r| {
            let r = r.lock().unwrap_or_else(|e| e.into_inner()).take();
            r.expect("every share finished with a result")
        })
        .collect()
}

/// Runs `op` once on every worker of the current pool (the global pool outside every
/// pool) and returns the results in worker-index order (rayon's `broadcast`).
///
/// Called from a worker, it runs that worker's share at once and, while the other workers
/// get to theirs, runs work waiting to enter the pool, so it does not deadlock, also when
/// two workers broadcast at the same time. Each worker runs `op` once, when it next looks
/// for work: a worker busy with a long task delays the broadcast until it finishes. A
/// panic of a share resumes here once every share has ended.
///
/// ```
/// let pool = offshoot::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let v = pool.install(|| offshoot::broadcast(|ctx| ctx.index() * 10));
/// assert_eq!(v, [0, 10, 20]);
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    crate::worker::Worker::check_not_isolated("broadcast");
    in_current_pool(|reg| broadcast_in(reg, op))
}

/// Starts `op` once on every worker of the current pool (the global pool outside every
/// pool) and returns at once (rayon's `spawn_broadcast`). A share's panic goes to the
/// pool's [panic handler](crate::ThreadPoolBuilder::panic_handler) (without one, the
/// process aborts), as for a detached [`ThreadPool::spawn`]. When the pool is dropped
/// before every worker got to its share, the shares of workers that exited first do not
/// run (offshoot has no per-worker queue to keep them in).
///
/// ```
/// use std::sync::mpsc;
///
/// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (tx, rx) = mpsc::channel();
/// let tx = std::sync::Mutex::new(tx);
/// pool.install(|| offshoot::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap()));
/// let mut got: Vec<usize> = rx.iter().take(2).collect();
/// got.sort();
/// assert_eq!(got, [0, 1]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    crate::worker::Worker::check_not_isolated("spawn");
    in_current_pool(|reg| spawn_broadcast_in(reg, op));
}

pub(crate) fn spawn_broadcast_in<OP>(registry: &Registry, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    Shares::new(Op::Owned(op), registry.num_workers()).inject_open(registry);
}
