//! Work no caller waits for: a pool's handlers ([`Hooks`]: start, exit, and the panic
//! handler) and detached tasks ([`spawn_detached`]: `spawn`, `spawn_fifo` and
//! `ThreadPool::spawn`, rayon's, which nothing waits for).
//!
//! Invariants:
//! * A detached task enters its pool through the injector, boxed, and runs as the root of
//!   a finish of its own (a stop boundary): the tasks it `finish::spawn`s are joined there, and
//!   nothing waits for it. Injected jobs are run before a pool's workers exit, so a
//!   detached task always runs (the global pool lives as long as the process).
//! * A panic nobody can receive — of a detached task, or of a start or exit handler — goes
//!   to the pool's panic handler, and without one aborts the process (as in rayon).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::finish::{finish_root, Failure};
use crate::job::{JobHeader, JobRef, Mode};
use crate::pool::Registry;
use crate::unwind::Payload;
use crate::worker::Worker;

pub(crate) type Handler = Arc<dyn Fn(usize) + Send + Sync>;
pub(crate) type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// The handlers of one pool.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) start: Option<Handler>,
    pub(crate) exit: Option<Handler>,
    pub(crate) panic: Option<PanicHandler>,
}

impl Hooks {
    /// Runs the start handler on worker `i`'s thread, before it takes work.
    pub(crate) fn started(&self, i: usize) {
        if let Some(h) = &self.start {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(i))) {
                self.panicked(p);
            }
        }
    }

    /// Runs the exit handler on worker `i`'s thread, after its last work.
    pub(crate) fn exiting(&self, i: usize) {
        if let Some(h) = &self.exit {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| h(i))) {
                self.panicked(p);
            }
        }
    }

    /// A panic nobody waits for: to the panic handler, else (or if it panics too) abort.
    pub(crate) fn panicked(&self, p: Payload) {
        if let Some(h) = &self.panic {
            if catch_unwind(AssertUnwindSafe(|| h(p))).is_ok() {
                return;
            }
        }
        eprintln!(
            "offshoot: a panic that no caller waits for (a detached spawn, or a start or exit \
             handler) and no panic_handler to take it: aborting; set \
             ThreadPoolBuilder::panic_handler to keep the process alive"
        );
        std::process::abort();
    }
}

/// A task started with [`ThreadPool::spawn`]: boxed, its `execute` pointer first (every
/// job starts with one, see `job.rs`).
#[repr(C)]
struct DetachedJob<F> {
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    func: F,
}

impl<F: FnOnce() + Send> DetachedJob<F> {
    fn into_job(func: F) -> JobRef {
        let job = Box::new(DetachedJob {
            execute: Self::execute,
            func,
        });
        JobRef(Box::into_raw(job) as *const JobHeader)
    }

    /// # Safety
    /// `h` comes from `into_job` (a boxed `DetachedJob<F>`) and is executed exactly once, by
    /// the worker that popped it from the injector, which then owns the box.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        // SAFETY: `h` came from `into_job` and is executed once, by the worker that popped
        // it from the injector.
        let DetachedJob { func, .. } = *unsafe { Box::from_raw(h as *mut DetachedJob<F>) };
        if mode == Mode::Discard {
            return;
        }
        match finish_root(w, |_| func()) {
            Ok(()) | Err(Failure::Stopped | Failure::Resolved) => {}
            Err(Failure::Panic(p)) => w.registry().hooks.panicked(p),
            Err(Failure::Error(_)) => w.registry().hooks.panicked(Box::new(
                "offshoot: a task spawned with finish::try_spawn returned Err in a detached task; \
                 wrap it in offshoot::try_finish to receive the error",
            )),
        }
    }
}

/// Starts `f` in `registry`'s pool with nobody waiting for it.
pub(crate) fn spawn_detached<F>(registry: &Registry, f: F)
where
    F: FnOnce() + Send + 'static,
{
    crate::worker::Worker::check_not_isolated("spawn");
    registry.inject(DetachedJob::into_job(f));
}
