//! A spawned task: its block (recycled from the worker's cache, or boxed), and how a task
//! runs — inline by its frame's owner, stolen under a proxy, measured for work and span.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::job::{JobHeader, JobRef, Mode};
use crate::worker::Worker;

use super::{FinishFrame, FinishState};

/// The start of a job that sits on a frame's intrusive list of pending futures: its
/// `execute` pointer first, like every job (see `job.rs`).
#[repr(C)]
pub(crate) struct LinkedJob {
    pub(crate) execute: unsafe fn(*const JobHeader, &Worker, Mode),
    /// The next older job on the list (owner worker only).
    pub(crate) below: Cell<*const LinkedJob>,
}

/// A spawned task: its `execute` pointer first (every job starts with one, see `job.rs`),
/// then its finish and its closure. Small tasks live in recycled blocks of the workers'
/// block caches (`Worker::alloc_block`), big ones in a plain `Box`.
#[repr(C)]
pub(super) struct HeapJob<F> {
    pub(super) execute: unsafe fn(*const JobHeader, &Worker, Mode),
    pub(super) finish: *const FinishState,
    pub(super) func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Whether this task fits a recycled block.
    const IN_BLOCK: bool = crate::worker::fits_block(
        std::mem::size_of::<HeapJob<F>>(),
        std::mem::align_of::<HeapJob<F>>(),
    );

    /// A task for `func` in `state`. `w` is the calling thread's worker, if any (its block
    /// cache is used; from outside a pool blocks come from the allocator).
    pub(super) fn into_job(func: F, w: Option<&Worker>, state: *const FinishState) -> JobRef {
        // In a pool that measures work and span the task begins a strand of its own, from
        // the spawner's clock if the spawner runs on a worker of that pool (from zero if
        // not: its work still counts).
        // SAFETY: the state is live (the caller holds a count or runs in its extent); its
        // owner worker lives as long as its registry.
        let owner = unsafe { &*(*state).owner };
        if owner.meter().on() {
            let here = w.map_or_else(Worker::current, |w| w as *const Worker);
            // SAFETY: a non-null current worker is run by this thread.
            let start = match unsafe { here.as_ref() } {
                Some(h) if ptr::eq(h.registry(), owner.registry()) => h.meter().checkpoint(),
                _ => crate::metrics::Clock::ZERO,
            };
            return HeapJob::into_job_raw(metered_task(start, state, func), w, state);
        }
        Self::into_job_raw(func, w, state)
    }

    pub(super) fn into_job_raw(func: F, w: Option<&Worker>, state: *const FinishState) -> JobRef {
        let job = HeapJob {
            execute: Self::execute,
            finish: state,
            func,
        };
        let p: *mut HeapJob<F> = if Self::IN_BLOCK {
            let b = crate::worker::alloc_block(w) as *mut HeapJob<F>;
            // SAFETY: a block is big and aligned enough for `HeapJob<F>` (IN_BLOCK) and
            // unused.
            unsafe { b.write(job) };
            b
        } else {
            Box::into_raw(Box::new(job))
        };
        JobRef(p as *const JobHeader)
    }

    /// # Safety
    /// `h` comes from `into_job` (a `HeapJob<F>` in a recycled block or a box, as `IN_BLOCK`
    /// says) and is executed exactly once, by the worker that owns it (a pending list or the
    /// inbox hands each task to one owner); the task's finish is still waiting for it.
    pub(super) unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        let p = h as *mut HeapJob<F>;
        // SAFETY: `h` came from `into_job` and is executed exactly once (pending lists and
        // the inbox hand each job to one owner): move the task out and free its memory.
        let HeapJob { finish, func, .. } = unsafe {
            let job = p.read();
            if Self::IN_BLOCK {
                crate::worker::free_block(Some(w), p as *mut u8);
            } else {
                drop(Box::from_raw(p as *mut std::mem::ManuallyDrop<HeapJob<F>>));
            }
            job
        };
        // SAFETY: the finish waits for this task (it holds a count, or sits in the frame of
        // the running owner), so the state is alive until the task ends.
        let state = unsafe { &*finish };
        match mode {
            Mode::Discard => {
                // The finish has failed already; a panic of the closure's destructor is a
                // later failure, so it is dropped (first failure wins) — but it must not
                // unwind out of the drain that discards the task.
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| drop(func))) {
                    state.fail_with(p);
                }
            }
            Mode::Inline => run_task(w, state, func),
            // SAFETY: handed out, so its count was taken (see `run_stolen_task`).
            Mode::Stolen => unsafe { run_stolen_task(w, finish, func, |_| {}) },
        }
    }
}

/// A task of the finish `state` as a strand of its own that begins at `start` and reports
/// its work and span to the finish when it ends (`metrics/`).
pub(super) fn metered_task<F: FnOnce() + Send>(
    start: crate::metrics::Clock,
    state: *const FinishState,
    f: F,
) -> impl FnOnce() + Send {
    let state = state as usize;
    move || {
        // SAFETY: the finish waits for this task, so its state is live while it runs.
        unsafe { run_metered(start, state as *const FinishState, f) };
    }
}

/// Runs `f`, a task of the finish `state`, as a strand that begins at `start`; reports its
/// work and span to the finish and returns its value and the clock it ended at (a future's
/// task stamps its value with it).
///
/// # Safety
/// `state` is live until this returns (the finish waits for the task).
pub(crate) unsafe fn run_metered<R>(
    start: crate::metrics::Clock,
    state: *const FinishState,
    f: impl FnOnce() -> R,
) -> (R, crate::metrics::Clock) {
    // SAFETY: a task runs on a worker, which is current on its thread.
    let saved = unsafe { (*Worker::current()).meter() }.begin(start);
    let r = f();
    // SAFETY: as above (a parked task resumes on the worker that ran it).
    let end = unsafe { (*Worker::current()).meter() }.end(saved);
    // SAFETY: per the contract.
    unsafe { (*state).meter.child(&start, &end) };
    (r, end)
}

/// Runs a task that a thief received from a frame of the finish `state`: under a proxy
/// frame of that finish, which takes over the count the frame took when it handed the task
/// out. `then` runs after the task, still inside the proxy's extent, so it may use the
/// state. `state` is a raw pointer because the proxy's `leave` gives that count back, after
/// which the state may vanish while this function still runs (a `&FinishState` argument
/// would have to stay valid until it returns).
///
/// # Safety
/// `state` is live, and its count for the task was taken when the task was handed out.
pub(crate) unsafe fn run_stolen_task(
    w: &Worker,
    state: *const FinishState,
    func: impl FnOnce(),
    then: impl FnOnce(&FinishState),
) {
    let proxy = FinishFrame::new(w, state, false);
    proxy.registered.set(true);
    proxy.enter(w);
    {
        // SAFETY: the proxy's count keeps the state alive until `leave` below.
        let state = unsafe { &*state };
        run_task(w, state, func);
        then(state);
    }
    proxy.leave(w);
}

/// Tasks handed out together. Unpacked on the thief into its frame of the same finish
/// (where further thieves can take half again); if the batch is dropped unrun (its finish
/// failed), every task in it is discarded.
pub(super) struct Batch(pub(super) Vec<JobRef>);

impl Batch {
    pub(super) fn unpack(mut self) {
        let w = Worker::current();
        assert!(!w.is_null(), "offshoot: a task batch ran outside a worker");
        // SAFETY: the current worker is run by this thread; a batch runs as a task of its
        // finish, under that worker's frame for it.
        let frame = unsafe { &*(*w).current_finish() };
        for job in std::mem::take(&mut self.0) {
            let _ = frame.push_task(job);
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let w = Worker::current();
        assert!(
            !w.is_null(),
            "offshoot: a task batch was dropped outside a worker"
        );
        for job in self.0.drain(..) {
            // SAFETY: the batch owns these jobs; discarding runs no user code but drops.
            unsafe { job.execute(&*w, Mode::Discard) };
        }
    }
}

/// Runs a task of the finish `state` on `w` as a new task; its panic fails the finish.
pub(crate) fn run_task(w: &Worker, state: &FinishState, func: impl FnOnce()) {
    if let Err(p) = w.as_new_task(|| {
        catch_unwind(AssertUnwindSafe(|| {
            w.poll();
            func()
        }))
    }) {
        state.fail_with(p);
    }
}
