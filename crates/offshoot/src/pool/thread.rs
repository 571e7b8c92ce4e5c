//! The body of a worker thread (`WorkerMain`), which ends exactly once, and the pool's own
//! way of starting one.

use std::sync::Arc;
use std::thread::JoinHandle;

use crate::worker::Worker;

use super::Registry;

/// Stack size of a worker thread's own stack, which runs only the fiber driver.
const DRIVER_STACK: usize = 256 * 1024;

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
    pub(super) registry: Arc<Registry>,
    pub(super) index: usize,
    pub(super) fiber_stack: usize,
    pub(super) ran: bool,
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
