//! rayon's custom thread spawning: [`ThreadBuilder`], the body of one worker thread that a
//! spawn handler ([`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler))
//! or [`ThreadPoolBuilder::build_scoped`](crate::ThreadPoolBuilder::build_scoped) runs on a
//! thread of its own making, and the builder's spawn strategies ([`DefaultSpawn`],
//! [`CustomSpawn`]).
//!
//! Invariants:
//! * Each `ThreadBuilder` wraps one `pool::WorkerMain`, which ends exactly once: run to the
//!   end of the worker (the pool was dropped), or dropped unrun, which fails the pool's
//!   build with [`BuildError::WorkerStart`](crate::BuildError::WorkerStart) instead of
//!   leaving it waiting for a worker that never comes. `ThreadPool::shutdown` (and the drop
//!   of a pool whose build failed) waits for every body to end, so it also waits for
//!   threads it holds no handle of.
//! * A spawn handler that returns `Ok` has handed the body to a thread (or dropped it);
//!   `Err` fails the build with [`BuildError::Spawn`](crate::BuildError::Spawn), after the
//!   workers already started are stopped.

use std::fmt;
use std::io;
use std::thread::JoinHandle;

use crate::pool::{spawn_worker, WorkerMain};

/// One worker thread of a pool being built, handed to a spawn handler, which must call
/// [`run`](Self::run) on a new thread (rayon's `ThreadBuilder`).
///
/// ```
/// let pool = offshoot::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .spawn_handler(|thread| {
///         let mut b = std::thread::Builder::new();
///         if let Some(name) = thread.name() {
///             b = b.name(name.to_owned());
///         }
///         if let Some(size) = thread.stack_size() {
///             b = b.stack_size(size);
///         }
///         b.spawn(|| thread.run())?;
///         Ok(())
///     })
///     .build()
///     .unwrap();
/// assert_eq!(pool.install(|| offshoot::join(|| 1, || 2)), (1, 2));
/// ```
pub struct ThreadBuilder {
    main: WorkerMain,
    name: Option<String>,
    stack_size: Option<usize>,
}

impl ThreadBuilder {
    pub(crate) fn new(main: WorkerMain, name: Option<String>, stack_size: Option<usize>) -> Self {
        ThreadBuilder {
            main,
            name,
            stack_size,
        }
    }

    /// The index of this worker in its pool, from 0.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         assert!(thread.index() < 2);
    ///         std::thread::spawn(|| thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(pool);
    /// ```
    pub fn index(&self) -> usize {
        self.main.index()
    }

    /// The name set with [`ThreadPoolBuilder::thread_name`](crate::ThreadPoolBuilder::thread_name),
    /// if any.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .thread_name(|i| format!("io-{i}"))
    ///     .spawn_handler(|thread| {
    ///         assert_eq!(thread.name(), Some("io-0"));
    ///         std::thread::spawn(|| thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(pool);
    /// ```
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size set with [`ThreadPoolBuilder::stack_size`](crate::ThreadPoolBuilder::stack_size),
    /// if any. offshoot runs tasks on fiber stacks of that size, not on the thread's own
    /// stack, which runs only the scheduler (offshoot's own threads get 256 KiB); passing it
    /// on to the thread, as rayon code does, is harmless.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .stack_size(4 << 20)
    ///     .spawn_handler(|thread| {
    ///         assert_eq!(thread.stack_size(), Some(4 << 20));
    ///         std::thread::spawn(|| thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// # drop(pool);
    /// ```
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the calling thread until the pool is dropped (the start handler,
    /// the worker's scheduling loop, the exit handler). Call it on a new thread: the pool's
    /// build waits for every worker to start, so a handler that runs it on the building
    /// thread never returns.
    ///
    /// # Panics
    ///
    /// On a thread that already runs a worker of a pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new()
    ///     .num_threads(1)
    ///     .spawn_handler(|thread| {
    ///         std::thread::spawn(move || {
    ///             // Set up what the worker needs on its thread, then:
    ///             thread.run();
    ///             // The pool was dropped.
    ///         });
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// ```
    pub fn run(self) {
        self.main.run()
    }
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index())
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish()
    }
}

/// How a [`ThreadPoolBuilder`](crate::ThreadPoolBuilder) starts its threads: its own way
/// (the default, [`DefaultSpawn`]) or through a spawn handler ([`CustomSpawn`]). Sealed.
pub trait ThreadSpawn: sealed::Sealed {
    /// Starts the thread; returns its handle if the pool can join it.
    #[doc(hidden)]
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::DefaultSpawn {}
    impl<F> Sealed for super::CustomSpawn<F> {}
}

/// The builder's own way of starting threads (the default type parameter of
/// [`ThreadPoolBuilder`](crate::ThreadPoolBuilder)): named threads with a stack for the
/// scheduler.
///
/// ```
/// let b: offshoot::ThreadPoolBuilder<offshoot::DefaultSpawn> = offshoot::ThreadPoolBuilder::new();
/// # let _ = b;
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        spawn_worker(thread.main, thread.name)
    }
}

/// A spawn handler given to [`ThreadPoolBuilder::spawn_handler`](crate::ThreadPoolBuilder::spawn_handler).
///
/// ```
/// let b = offshoot::ThreadPoolBuilder::new().spawn_handler(|t| {
///     std::thread::spawn(|| t.run());
///     Ok(())
/// });
/// let pool = b.num_threads(1).build().unwrap();
/// # drop(pool);
/// ```
pub struct CustomSpawn<F>(pub(crate) F);

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn(..)")
    }
}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        (self.0)(thread).map(|()| None)
    }
}
