//! rayon's names for the pool and its free functions, so that rayon code ports by changing
//! the import: [`ThreadPoolBuilder`], [`ThreadPool::install`], [`current_num_threads`],
//! [`current_thread_index`], fire-and-forget [`spawn`], [`spawn_fifo`] and
//! [`ThreadPool::spawn`], [`yield_now`], [`join_context`], [`in_place_scope`],
//! [`in_place_scope_fifo`]. Each is a thin layer
//! over offshoot's own API (`pool.rs`, `finish.rs`, `scope.rs`); where offshoot's
//! semantics differ, the item says so (and the crate docs' "Coming from rayon" table).
//!
//! Detached tasks and the pool's handlers live in `detached.rs` (the core uses them too).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::detached::spawn_detached;
use crate::pool::{env_workers, BuildError, Builder, ThreadPool, MAX_WORKERS};
use crate::scope::{Scope, ScopeFifo};
use crate::thread_builder::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use crate::worker::Worker;

/// rayon's name for [`BuildError`].
pub type ThreadPoolBuildError = BuildError;

/// rayon's name for [`Builder`]: the same settings under rayon's names, and rayon's
/// handlers; where the two differ it behaves as rayon's. `num_threads(0)` (the default)
/// means "pick automatically", as in rayon:
/// `OFFSHOOT_WORKERS` if set to a positive count, else `RAYON_NUM_THREADS` read as rayon
/// reads it (a positive count; `0` or anything else is every core), else one worker per
/// core — where offshoot's own [`Builder::workers`]`(0)` is an error
/// ([`BuildError::ZeroWorkers`]), and `OFFSHOOT_WORKERS=0` is an error for [`Builder`] but
/// "automatic" here (as rayon's `RAYON_NUM_THREADS=0`).
///
/// ```
/// use offshoot::ThreadPoolBuilder;
///
/// let pool = ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("sorter-{i}"))
///     .build()
///     .unwrap();
/// assert_eq!(pool.install(offshoot::current_num_threads), 2);
/// ```
///
/// The type parameter says how threads start: [`DefaultSpawn`], or a spawn handler's
/// [`CustomSpawn`] ([`spawn_handler`](Self::spawn_handler)).
#[must_use = "a builder does nothing until it is built (build, build_global)"]
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    num_threads: usize,
    /// What `stack_size` set, for [`ThreadBuilder::stack_size`].
    stack_size: Option<usize>,
    builder: Builder,
    spawn: S,
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            num_threads: 0,
            stack_size: None,
            builder: Builder::default(),
            spawn: DefaultSpawn,
        }
    }
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("builder", &self.builder)
            .finish()
    }
}

impl ThreadPoolBuilder {
    /// A builder with the defaults (an automatic number of threads, no handlers).
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().build().unwrap();
    /// assert!(pool.current_num_threads() >= 1);
    /// ```
    pub fn new() -> ThreadPoolBuilder {
        ThreadPoolBuilder::default()
    }

    /// Builds a pool whose threads are scoped threads of the calling thread, each running
    /// `wrapper(thread)`, which must call [`ThreadBuilder::run`] (so a worker can borrow
    /// from the caller's stack or set up thread-local state around its run); calls
    /// `with_pool` with the pool, then drops the pool and waits for the threads. Returns
    /// what `with_pool` returns.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); also when `wrapper` returns without running the worker
    /// ([`BuildError::WorkerStart`]).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// let started = AtomicUsize::new(0); // borrowed by every worker thread
    /// let sum = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             started.fetch_add(1, Ordering::SeqCst);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| offshoot::join(|| 1, || 2)),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, (1, 2));
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|s| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut b = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        b = b.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        b = b.stack_size(size);
                    }
                    b.spawn_scoped(s, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            // The pool's drop (after `with_pool`, or while it unwinds) stops the workers;
            // the scope then joins their threads.
            Ok(with_pool(&pool))
        })
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// Starts each thread with `spawn` instead of the builder's own way: it gets a
    /// [`ThreadBuilder`] per worker and must call [`ThreadBuilder::run`] on a new thread
    /// (a thread of another library, a thread with a given affinity or priority), or
    /// return the error that prevented it. Dropping the `ThreadBuilder` unrun fails the
    /// build ([`BuildError::WorkerStart`]); a handler that keeps it, never run nor
    /// dropped, leaves the build waiting. [`ThreadPool::shutdown`] waits for these threads
    /// to leave the pool, as it joins its own threads (a drop waits for neither).
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    ///
    /// let handles = Arc::new(Mutex::new(Vec::new()));
    /// let h = handles.clone();
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(move |thread| {
    ///         let handle = std::thread::Builder::new()
    ///             .name(format!("custom-{}", thread.index()))
    ///             .spawn(|| thread.run())?;
    ///         h.lock().unwrap().push(handle);
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    /// assert!(name.unwrap().starts_with("custom-"));
    /// drop(pool);
    /// for handle in handles.lock().unwrap().drain(..) {
    ///     handle.join().unwrap(); // the workers have left
    /// }
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> std::io::Result<()>,
    {
        ThreadPoolBuilder {
            num_threads: self.num_threads,
            stack_size: self.stack_size,
            builder: self.builder,
            spawn: CustomSpawn(spawn),
        }
    }

    /// rayon's name for [`Builder::workers`]: the number of worker threads; unlike there,
    /// 0 picks automatically, as in rayon (see the type's docs).
    ///
    /// ```
    /// let auto = offshoot::ThreadPoolBuilder::new().num_threads(0).build().unwrap();
    /// assert!(auto.current_num_threads() >= 1);
    /// let three = offshoot::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(three.current_num_threads(), 3);
    /// ```
    pub fn num_threads(mut self, n: usize) -> Self {
        self.num_threads = n;
        self
    }

    /// Names worker `i` `name(i)`, as [`Builder::thread_name`].
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("w{i}"))
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(str::to_string));
    /// assert_eq!(name.as_deref(), Some("w0"));
    /// ```
    pub fn thread_name<F>(mut self, name: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.builder = self.builder.thread_name(name);
        self
    }

    /// The stack size of tasks, as [`Builder::stack_size`]. In offshoot tasks run on fiber
    /// stacks of this size, not on the worker threads' own stacks. A size below
    /// [`MIN_STACK_SIZE`](crate::MIN_STACK_SIZE) (such as 0) fails [`build`](Self::build)
    /// with [`BuildError::StackTooSmall`], one above
    /// [`MAX_STACK_SIZE`](crate::MAX_STACK_SIZE) with [`BuildError::StackTooLarge`].
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .stack_size(8 << 20)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 1 + 1), 2);
    /// ```
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self.builder = self.builder.stack_size(bytes);
        self
    }

    /// Called with the worker's index on each worker thread when it starts, before it runs
    /// any work. A panic in it goes to the panic handler.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let s = started.clone();
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .start_handler(move |_i| {
    ///         s.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(pool); // both started before `build` returned
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn start_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.builder.hooks.start = Some(Arc::new(handler));
        self
    }

    /// Called with the worker's index on each worker thread when it exits (after the pool
    /// is dropped). A panic in it goes to the panic handler.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let e = exited.clone();
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .exit_handler(move |_i| {
    ///         e.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.shutdown(); // waits for the workers (a drop does not)
    /// assert_eq!(exited.load(Ordering::SeqCst), 2);
    /// ```
    pub fn exit_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.builder.hooks.exit = Some(Arc::new(handler));
        self
    }

    /// Receives the panics nobody waits for: of tasks started with [`ThreadPool::spawn`],
    /// [`spawn`](crate::spawn()) or [`spawn_fifo`](crate::spawn_fifo) in this pool, and of
    /// the start and exit handlers. Without one, such a panic aborts the process, as in rayon. Panics of
    /// `install`, `join`, `scope` and the iterators resume in their caller instead.
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// let (tx, rx) = mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .panic_handler(move |p| {
    ///         let msg = p.downcast_ref::<&str>().copied().unwrap_or("?");
    ///         tx.lock().unwrap().send(msg.to_string()).unwrap();
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.spawn(|| panic!("lost"));
    /// assert_eq!(rx.recv().unwrap(), "lost");
    /// ```
    pub fn panic_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.builder.hooks.panic = Some(Arc::new(handler));
        self
    }

    /// The offshoot builder with the thread count resolved, and the spawn strategy.
    fn resolved(self) -> Result<(Builder, Option<usize>, S), BuildError> {
        let n = match self.num_threads {
            0 => env_workers(true)?,
            n => n,
        };
        Ok((self.builder.workers(n), self.stack_size, self.spawn))
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Starts the pool.
    ///
    /// # Errors
    ///
    /// More threads than [`MAX_WORKERS`], a bad `OFFSHOOT_WORKERS` (with `num_threads(0)`),
    /// a [`stack_size`](Self::stack_size) out of bounds, or a thread the system would not
    /// start.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build()?;
    /// assert_eq!(pool.install(|| offshoot::join(|| 1, || 2)), (1, 2));
    /// # Ok::<(), offshoot::ThreadPoolBuildError>(())
    /// ```
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let (builder, stack_size, mut spawn) = self.resolved()?;
        builder.build_with(|main, name| spawn.spawn(ThreadBuilder::new(main, name, stack_size)))
    }

    /// Makes this configuration the global pool's: fails if the global pool exists
    /// already (it is created on first use).
    ///
    /// ```
    /// // In a program's `main`, before any parallel call:
    /// let first = offshoot::ThreadPoolBuilder::new().num_threads(2).build_global();
    /// // Only the first configuration can win.
    /// let again = offshoot::ThreadPoolBuilder::new().num_threads(3).build_global();
    /// assert!(again.is_err());
    /// # let _ = first;
    /// ```
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        crate::pool::set_global(self.build()?)
    }
}

/// rayon's name for [`current_num_workers`](crate::current_num_workers): the number of
/// worker threads of the pool the caller works for; outside every pool, of the global pool.
///
/// ```
/// let pool = offshoot::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// assert_eq!(pool.install(offshoot::current_num_threads), 3);
/// assert_eq!(offshoot::current_num_threads(), offshoot::ThreadPool::global().workers());
/// ```
pub fn current_num_threads() -> usize {
    crate::current_num_workers()
}

/// rayon's name for [`current_worker_index`](crate::current_worker_index): the index (from 0)
/// of the calling worker thread in its pool, or `None` on a thread that belongs to no pool.
///
/// ```
/// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let i = pool.install(offshoot::current_thread_index);
/// assert!(matches!(i, Some(0 | 1)));
/// assert_eq!(offshoot::current_thread_index(), None);
/// ```
pub fn current_thread_index() -> Option<usize> {
    crate::current_worker_index()
}

/// rayon's name for [`MAX_WORKERS`]: the most threads a pool may have.
///
/// ```
/// assert!(offshoot::max_num_threads() >= offshoot::current_num_threads());
/// ```
pub fn max_num_threads() -> usize {
    MAX_WORKERS
}

/// What [`yield_now`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// It ran a piece of the pool's pending work.
    Executed,
    /// There was none to run.
    Idle,
}

/// Lets the calling worker run one piece of its pool's pending work: it answers a pending
/// request for work (a poll) and runs one task waiting to enter the pool (`install`/`run`
/// calls from outside, detached spawns). `None` outside every pool.
///
/// offshoot differs from rayon in what "pending work" is: work that stays inside a pool
/// moves only when an idle worker asks for it, so `yield_now` never takes the seeds of
/// other workers' joins.
///
/// ```
/// assert_eq!(offshoot::yield_now(), None);
/// let pool = offshoot::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let y = pool.install(offshoot::yield_now);
/// assert!(matches!(y, Some(offshoot::Yield::Executed | offshoot::Yield::Idle)));
/// ```
pub fn yield_now() -> Option<Yield> {
    let w = Worker::current();
    if w.is_null() {
        return None;
    }
    // SAFETY: a non-null current worker is live and run by this thread.
    let w = unsafe { &*w };
    w.poll();
    let reg = w.registry();
    match reg.pop_injected() {
        Some(job) => {
            // An injected job is owned by whoever pops it.
            reg.busy(w, || w.run_stolen(job));
            Some(Yield::Executed)
        }
        None => Some(Yield::Idle),
    }
}

/// What a closure of [`join_context`] learns about how it runs.
#[derive(Clone, Copy, Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// Whether the closure runs on another thread than the one that called
    /// [`join_context`]: the second closure when a thief took it, both when the call came
    /// from outside every pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let (a, b) = pool.install(|| offshoot::join_context(|c| c.migrated(), |c| c.migrated()));
    /// assert!(!a && !b); // one worker: nobody can take `b`
    /// ```
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// [`join`](crate::join) whose closures are told whether they migrated to another thread
/// ([`FnContext::migrated`]), as rayon's `join_context`.
///
/// ```
/// let (a, b) = offshoot::join_context(|c| c.migrated(), |_| 2);
/// assert!(a); // called from outside every pool: runs in the global pool
/// assert_eq!(b, 2);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let caller = Worker::current() as usize;
    let context = move || FnContext {
        migrated: Worker::current() as usize != caller,
    };
    crate::join(move || a(context()), move || b(context()))
}

/// rayon's `in_place_scope`: a [`scope`](crate::scope()) whose body runs on the calling
/// thread when that thread is a worker. Unlike rayon, outside every pool the body runs on
/// a worker of the global pool (an offshoot scope needs a worker to own it), which is why
/// `op` must be `Send`.
///
/// ```
/// let mut v = vec![1, 2, 3];
/// offshoot::in_place_scope(|s| {
///     for x in v.iter_mut() {
///         s.spawn(move |_| *x *= 2);
///     }
/// });
/// assert_eq!(v, [2, 4, 6]);
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    crate::scope(op)
}

/// rayon's `in_place_scope_fifo`: a [`scope_fifo`](crate::scope_fifo) (tasks run oldest
/// first) whose body runs on the calling thread when that thread is a worker; as with
/// [`in_place_scope`], outside every pool it runs on a worker of the global pool, so `op`
/// must be `Send`.
///
/// ```
/// let mut v = vec![1, 2, 3];
/// offshoot::in_place_scope_fifo(|s| {
///     for x in v.iter_mut() {
///         s.spawn_fifo(move |_| *x *= 2);
///     }
/// });
/// assert_eq!(v, [2, 4, 6]);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    crate::scope_fifo(op)
}

/// rayon's `spawn`: starts `f` in the current pool — the pool of the worker that calls it,
/// or the global pool outside every pool — and returns at once; nothing waits for it,
/// neither the caller nor an enclosing [`install`](ThreadPool::install),
/// [`finish`](crate::finish()) or [`scope`](crate::scope()). A panic goes to the pool's
/// [panic handler](ThreadPoolBuilder::panic_handler), and aborts the process without one.
/// A dropped pool runs the detached tasks already started before its workers exit.
///
/// offshoot's own spawn, the one a [`finish`](crate::finish()) waits for, is
/// [`finish::spawn`](crate::finish::spawn()).
///
/// ```
/// use std::sync::mpsc;
///
/// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (tx, rx) = mpsc::channel();
/// // `install` returns without waiting for the task (it waits for `rx`, below).
/// pool.install(|| {
///     offshoot::spawn(move || tx.send(offshoot::current_thread_index()).unwrap());
/// });
/// // It ran on a worker of `pool`, the pool it was spawned in.
/// assert!(matches!(rx.recv().unwrap(), Some(0 | 1)));
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    crate::broadcast::in_current_pool(|registry| spawn_detached(registry, f));
}

/// rayon's `spawn_fifo`: [`spawn`], whose detached tasks already start in the order they
/// were spawned. It starts `f` in the current pool (the global pool outside every pool) and
/// returns at once; nothing waits for it. Detached tasks enter their pool through one
/// queue and start in the order they were spawned (from any thread), which is rayon's
/// promise for the tasks of one thread. A panic goes to the pool's
/// [panic handler](ThreadPoolBuilder::panic_handler), and aborts the process without one.
///
/// ```
/// use std::sync::mpsc;
/// let (tx, rx) = mpsc::channel();
/// offshoot::spawn_fifo(move || tx.send(7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 7);
/// ```
pub fn spawn_fifo<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    crate::broadcast::in_current_pool(|registry| spawn_detached(registry, f));
}
