//! Thread pools: the registry of workers (`registry.rs`, in the core), the builder and its
//! errors (`build.rs`), the `ThreadPool` handle, the global pool and `run` (`handle.rs`),
//! rayon's names for the same handle (`rayon_names.rs`), and each worker thread's body
//! (`thread.rs`).
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
//! * Dropping a built `ThreadPool` terminates it and returns without waiting: each worker
//!   runs the injected work left, finishes its own task and exits in the background, and
//!   its `WorkerMain` holds the registry alive until then (the last one frees it, on that
//!   worker's own thread stack, after its fibers are done). `ThreadPool::shutdown`, and the
//!   drop of a pool whose build failed, join every worker thread instead.
//! * Every registry is known to the deadlock watch (`deadlock.rs`) from before its workers
//!   start; `has_news` tells the watch whether anything queued could still wake one of them.

mod build;
mod handle;
mod rayon_names;
mod registry;
mod thread;

pub(crate) use build::env_workers;
pub use build::{BuildError, Builder};
pub use handle::{current_num_workers, ThreadPool};
pub(crate) use handle::{in_worker, set_global};
pub(crate) use registry::Registry;
pub(crate) use thread::{spawn_worker, WorkerMain};

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

/// The smallest fiber stack a pool accepts from [`Builder::stack_size`], in bytes
/// (64 KiB): each worker's scheduler runs on such a stack too, and below this a task's
/// first frames in a debug build do not fit (a `par_iter().sum()` of a range, unoptimized,
/// overflowed 16 KiB). A smaller `RUST_MIN_STACK`, which is meant
/// for threads, is raised to it.
///
/// ```
/// use offshoot::{BuildError, ThreadPool, MIN_STACK_SIZE};
///
/// let e = ThreadPool::builder().stack_size(0).build().unwrap_err();
/// assert!(matches!(e, BuildError::StackTooSmall { requested: 0, .. }));
/// let pool = ThreadPool::builder().workers(1).stack_size(MIN_STACK_SIZE).build().unwrap();
/// assert_eq!(pool.run(|| offshoot::join(|| 1, || 2)), (1, 2));
/// ```
pub const MIN_STACK_SIZE: usize = 64 << 10;

/// The environment variable that sets the size of the global pool (and of pools built
/// without [`Builder::workers`]). When it is unset, rayon's `RAYON_NUM_THREADS` is read as
/// rayon reads it (a positive count; `0` or anything else is every core).
pub const WORKERS_ENV: &str = "OFFSHOOT_WORKERS";
