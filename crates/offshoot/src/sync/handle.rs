//! The owned handle of a detached computation: [`spawn_async`], [`ThreadPool::spawn_async`]
//! and [`Handle`], the way async code (a tokio task, any executor, a plain thread) gets a
//! value computed in a pool.
//!
//! One allocation, an [`Arc`] of a [`Job`]: the job word first (so the `Arc`'s data *is*
//! the injected job, see `job.rs`), the completion words (`completion.rs`), a claim flag,
//! the closure and, once it ran, its result. The job enters the pool through the injector
//! at once (eager, detached: no finish of the caller waits for it), holding one count of
//! the `Arc`; the handle holds the other.
//!
//! Invariants:
//! * The closure runs at most once: whoever swaps `claimed` from false runs it (the
//!   injected job's `execute`, or a wait on a worker of the job's own pool that found it
//!   unclaimed: it runs it as a call, no finish of its own, like a `TaskFuture`'s `get`) or,
//!   for a discarded job, drops it unrun. Nobody else touches `func`.
//! * `result` is written once, by the claimer, before the completion's phase leaves
//!   `PENDING` (always to `DONE`: a panic, a stop or a discard is an `Err` result); after
//!   that only the handle reads it (it takes it once, then marks itself `taken`), or the
//!   `Arc`'s last owner drops it.
//! * No wake-up is lost: a poll registers its waker in the completion's event and re-reads
//!   the phase; the claimer writes the phase and then reads the event (the Dekker pair of
//!   `completion.rs`, both sides sequentially consistent).
//! * A poll on a pool worker never returns `Pending`: it waits as [`Handle::wait`] does
//!   (runs the unclaimed closure inline in the job's own pool, else parks the task). An
//!   executor that blocks a worker's thread (`futures::executor::block_on` in a task)
//!   therefore cannot hold the worker the computation needs.
//! * Dropping the handle never waits: it clears its waker and gives its count back; the
//!   computation runs on and its result is dropped by whoever holds the last count.

use std::any::Any;
use std::cell::UnsafeCell;
use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use super::completion::{Completion, PENDING};
use super::event::NO_WAKER_SLOT;
use super::Event;
use crate::finish::{finish_root, Failure};
use crate::job::{JobHeader, JobRef, Mode};
use crate::pool::{Registry, ThreadPool};
use crate::worker::Worker;

type Outcome<T> = Result<T, Box<dyn Any + Send>>;

/// What a handle sees of its job, whatever the closure's type.
struct Core<T> {
    /// Installed by the first waiter that has to wait (see `completion.rs`).
    event: AtomicPtr<Event<()>>,
    /// `PENDING` until `result` is written, then `DONE`.
    phase: AtomicU8,
    /// Set by whoever runs (or drops) the closure.
    claimed: AtomicBool,
    /// The pool the job was injected into: its registry's address, compared only (a wait
    /// on one of its workers may run the closure inline).
    pool: usize,
    result: UnsafeCell<Option<Outcome<T>>>,
}

impl<T> Completion for Core<T> {
    fn phase_word(&self) -> &AtomicU8 {
        &self.phase
    }
    fn event_word(&self) -> &AtomicPtr<Event<()>> {
        &self.event
    }
}

impl<T> Core<T> {
    /// Whether the caller now owns the closure.
    fn claim(&self) -> bool {
        // Relaxed: the swap's total order on `claimed` alone decides the one claimer; the
        // closure was written before the job was shared (the injector's lock and the
        // handle's creation order it), so the claim publishes nothing.
        !self.claimed.swap(true, Ordering::Relaxed)
    }

    /// Writes the result and wakes the waiters. Called once, by the claimer.
    fn finish(&self, r: Outcome<T>) {
        // SAFETY: only the claimer writes `result`, once, before the phase leaves
        // PENDING; nobody reads it before that (module invariants).
        unsafe { *self.result.get() = Some(r) };
        // Releases the result (SeqCst store in `complete`): pairs with the handle's
        // acquire (or SeqCst) read of the phase before it takes the result.
        self.complete(super::completion::DONE);
    }
}

impl<T> Drop for Core<T> {
    fn drop(&mut self) {
        // SAFETY: the last count is gone: nobody waits on or completes this any more.
        unsafe { self.free_event() };
    }
}

/// The job and the handle's shared state in one allocation.
#[repr(C)]
struct Job<F, T> {
    /// First, so that a pointer to the `Job` is a job (see `job.rs`).
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    core: Core<T>,
    func: UnsafeCell<Option<F>>,
}

// SAFETY: `func` is touched only by the one claimer, `result` by the claimer before the
// phase is DONE and by the handle (or the last owner) after: `F: Send` and `T: Send` are
// what moving them between those threads needs; the rest is atomics.
unsafe impl<F: Send, T: Send> Sync for Job<F, T> {}
// SAFETY: as above.
unsafe impl<F: Send, T: Send> Send for Job<F, T> {}

/// What a [`Handle`] calls on its job, erasing the closure's type.
trait Run<T>: Send + Sync {
    fn core(&self) -> &Core<T>;
    /// Runs the closure on `w` as the root of a finish of its own; the caller claimed it.
    fn run_claimed(&self, w: &Worker);
    /// Runs the closure right here, as part of the calling task; the caller claimed it.
    fn run_inline(&self);
}

impl<F, T> Run<T> for Job<F, T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    fn core(&self) -> &Core<T> {
        &self.core
    }

    fn run_claimed(&self, w: &Worker) {
        // SAFETY: the caller claimed the closure: only it touches `func` (invariants).
        let f = unsafe { (*self.func.get()).take() }.expect("offshoot: a claimed job runs once");
        // A stop boundary: the computation belongs to no region of the code that runs it
        // (a worker's loop, or a wait in some task), so a stop there does not reach it.
        let r = match finish_root(w, |_| f()) {
            Ok(v) => Ok(v),
            Err(Failure::Panic(p)) => Err(p),
            Err(Failure::Stopped | Failure::Resolved) => Err(Box::new(
                "offshoot: the computation of a Handle was stopped",
            ) as Box<dyn Any + Send>),
            Err(Failure::Error(_)) => Err(Box::new(
                "offshoot: a task spawned with try_spawn returned Err in the computation of \
                 a Handle; wrap it in offshoot::try_finish to receive the error",
            ) as Box<dyn Any + Send>),
        };
        self.core.finish(r);
    }

    fn run_inline(&self) {
        // SAFETY: the caller claimed the closure: only it touches `func` (invariants).
        let f = unsafe { (*self.func.get()).take() }.expect("offshoot: a claimed job runs once");
        // No finish of its own (as a `TaskFuture` run by its `get`): the waiting task runs
        // it as a call, so what it spawns joins the waiter's innermost finish and a stop of
        // the waiter's region stops it; either way its unwind is caught here and resumes
        // in the waiter (`take`).
        self.core.finish(catch_unwind(AssertUnwindSafe(f)));
    }
}

impl<F, T> Job<F, T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    /// # Safety
    /// `h` came from `Arc::into_raw` of an `Arc<Self>` (one count, which this call takes
    /// over) and is executed exactly once, by the worker that popped it from the injector.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        // SAFETY: per the contract.
        let job = unsafe { Arc::from_raw(h as *const Self) };
        if job.core.claim() {
            if mode == Mode::Discard {
                // SAFETY: claimed: only this call touches `func`.
                let f = unsafe { (*job.func.get()).take() };
                let dropped = catch_unwind(AssertUnwindSafe(|| drop(f)));
                job.core.finish(Err(Box::new(
                    "offshoot: the computation of a Handle was dropped unrun",
                )));
                if let Err(p) = dropped {
                    w.registry().hooks.panicked(p);
                }
            } else {
                job.run_claimed(w);
            }
        }
        // The last count may be this one (the handle is gone): the result, or the closure's
        // leftovers, drop here; a panic there has nobody to go to but the pool's handler.
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| drop(job))) {
            w.registry().hooks.panicked(p);
        }
    }
}

/// The owned handle of a computation started with [`spawn_async`] or
/// [`ThreadPool::spawn_async`]: a [`Future`] of its value, or [`Handle::wait`] for it.
///
/// * **Any thread, any executor.** `.await` it in a tokio task, poll it with
///   `futures::executor::block_on` on a plain thread, or [`wait`](Handle::wait) for it. The
///   poll stores the waker and the computation's end wakes it: nothing spins.
/// * **`T: Send` only.** The value is moved out once, to the one owner; it needs neither
///   `Clone` nor `Sync` (for a value shared by many readers, see
///   [`spawn_future`](super::spawn_future)).
/// * **Panics resume in the awaiter.** A panic in the computation (or in a task it
///   spawned and joined) is caught and resumes, with its payload, where the handle is
///   awaited or waited for — as `std::thread::JoinHandle::join().unwrap()` would. Under
///   tokio the awaiting task then ends in a panic, which its own `JoinHandle` reports as an
///   `Err`. A stopped computation (its pool's region cancelled) resumes as a panic whose
///   message says so.
/// * **Dropping never blocks.** The computation runs on to its end, detached, and its
///   value (or panic) is dropped by whoever ends last; it is not cancelled.
/// * **In a pool, never a hang.** Polled on a pool worker — an executor like
///   `futures::executor::block_on` running inside a task, which blocks that worker's
///   thread — the poll does not return `Pending`: it waits as [`Handle::wait`] does. If
///   the computation has not started and belongs to this worker's pool, it runs right
///   there; else the task parks and the worker runs other work. So even a 1-worker pool
///   completes `block_on(handle)` from a task. The price: on a worker, a combinator that
///   polls the handle beside other futures (`select`, `join`) waits for the handle first;
///   if the computation needs one of those to progress, nothing can wake it, and the
///   pool's deadlock watch reports it once the pool has nothing else to run. Prefer `wait`
///   in pool code (an executor's per-thread state, such as `futures`' "cannot execute
///   `LocalPool` executor from within another executor" guard, does not know that the
///   worker runs other tasks while one parks).
///
/// It is `Send`, `Sync` and `Unpin`.
///
/// ```
/// struct Report {
///     lines: Vec<String>, // not Clone: a Handle needs only Send
/// }
/// let h = offshoot::sync::spawn_async(|| Report {
///     lines: (0..3).map(|i| format!("line {i}")).collect(),
/// });
/// let r = futures::executor::block_on(h); // a plain thread: the global pool computes it
/// assert_eq!(r.lines.len(), 3);
/// ```
#[must_use = "dropping a Handle detaches its computation: its value is dropped"]
pub struct Handle<T> {
    job: Arc<dyn Run<T>>,
    /// The waker slot of the completion's event this handle registered in, or
    /// [`NO_WAKER_SLOT`].
    waker_slot: u32,
    /// The value was moved out (a poll returned `Ready`).
    taken: bool,
}

impl<T> Handle<T> {
    fn core(&self) -> &Core<T> {
        self.job.core()
    }

    /// Whether the computation has ended (with a value or a panic): a poll, or
    /// [`wait`](Handle::wait), would not wait.
    ///
    /// ```
    /// let h = offshoot::sync::spawn_async(|| 6 * 7);
    /// while !h.is_finished() {
    ///     std::thread::yield_now();
    /// }
    /// assert_eq!(h.wait(), 42);
    /// ```
    pub fn is_finished(&self) -> bool {
        self.core().phase() != PENDING
    }

    /// Waits for the value: in a pool task, runs the computation right here if it has not
    /// started and belongs to this pool, else parks the task (its worker runs other work);
    /// on any other thread, blocks it.
    ///
    /// Run here, the computation is a call of the waiting task (as a `TaskFuture` run by
    /// its `get`): tasks it starts with [`finish::spawn`](crate::finish::spawn()) join the
    /// waiter's innermost finish, and a stop of the waiter's region stops it. Run by a
    /// worker, it is the root of a finish of its own.
    ///
    /// # Panics
    /// With the computation's panic, if it panicked; if the handle was polled to
    /// completion already.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// let v = pool.run(|| {
    ///     let h = offshoot::sync::spawn_async(|| vec![1, 2, 3]);
    ///     h.wait() // one worker: it runs the computation itself
    /// });
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    #[track_caller]
    pub fn wait(mut self) -> T {
        self.wait_here(std::panic::Location::caller())
    }

    /// The wait of `wait`, and of a poll on a pool worker.
    fn wait_here(&mut self, at: &'static std::panic::Location<'static>) -> T {
        assert!(
            !self.taken,
            "offshoot: a Handle was waited for after it returned its value"
        );
        let core = self.job.core();
        if core.phase() == PENDING {
            let w = Worker::current();
            // SAFETY: a non-null current worker is run by this thread.
            let w = (!w.is_null()).then(|| unsafe { &*w });
            match w {
                Some(w) if ptr::from_ref(w.registry()) as usize == core.pool && core.claim() => {
                    self.job.run_inline()
                }
                _ => {
                    core.wait(|| crate::fiber::WaitOn::new("Handle", ptr::from_ref(core)).at(at));
                }
            }
        }
        self.take()
    }

    /// Moves the value out (or resumes the panic). The phase is `DONE`.
    fn take(&mut self) -> T {
        // Acquire (or stronger) read of the phase came first: the result is visible.
        debug_assert_ne!(self.core().phase(), PENDING);
        self.taken = true;
        // SAFETY: the phase is DONE, so the claimer wrote the result and touches it no
        // more; only this handle reads it, once (`taken`).
        let r = unsafe { (*self.core().result.get()).take() }
            .expect("offshoot: a Handle's result is taken once");
        match r {
            Ok(v) => v,
            Err(p) => resume_unwind(p),
        }
    }
}

impl<T> Future for Handle<T> {
    type Output = T;

    #[track_caller]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = &mut *self;
        assert!(
            !this.taken,
            "offshoot: a Handle was polled after it returned its value"
        );
        if this.core().phase() == PENDING {
            if !Worker::current().is_null() {
                // On a pool worker: never `Pending` (module invariants).
                return Poll::Ready(this.wait_here(std::panic::Location::caller()));
            }
            let core = this.job.core();
            if core.wake_on_complete(cx.waker(), &mut this.waker_slot) == PENDING {
                return Poll::Pending;
            }
        }
        Poll::Ready(this.take())
    }
}

impl<T> Drop for Handle<T> {
    fn drop(&mut self) {
        if self.waker_slot != NO_WAKER_SLOT {
            // The event lives as long as the job, which this handle still keeps.
            self.core().forget_waker(self.waker_slot);
        }
        // The `Arc` gives its count back; nothing here waits for the computation.
    }
}

impl<T> std::fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// Makes the job, injects it into `registry`'s pool and returns its handle.
fn start<F, T>(registry: &Registry, f: F) -> Handle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Worker::check_not_isolated("spawn_async");
    let job = Arc::new(Job {
        execute: Job::<F, T>::execute,
        core: Core {
            event: AtomicPtr::new(ptr::null_mut()),
            phase: AtomicU8::new(PENDING),
            claimed: AtomicBool::new(false),
            pool: ptr::from_ref(registry) as usize,
            result: UnsafeCell::new(None),
        },
        func: UnsafeCell::new(Some(f)),
    });
    let raw = Arc::into_raw(Arc::clone(&job));
    // The job's count travels with the raw pointer; `execute` takes it back.
    registry.inject(JobRef(raw as *const JobHeader));
    Handle {
        job,
        waker_slot: NO_WAKER_SLOT,
        taken: false,
    }
}

/// Starts `f` in the current pool — the pool of the calling worker, or the global pool
/// ([`ThreadPool::global`]) from any other thread — detached, and returns the owned
/// [`Handle`] of its value.
///
/// The computation is queued for the pool's workers at once (no finish of the caller waits
/// for it), and runs as the root of a finish of its own: tasks it spawns are joined there.
/// Await the handle from async code, or [`wait`](Handle::wait) for it; see [`Handle`] for
/// panics, drops and waits on a pool worker.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
/// }
/// # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
/// # async fn main() {
/// // In a tokio task: the pool computes, the tokio worker only awaits.
/// let a = offshoot::sync::spawn_async(|| fib(20));
/// let b = offshoot::sync::spawn_async(|| fib(21));
/// assert_eq!(a.await + b.await, 17711);
/// # }
/// ```
///
/// # Panics
/// Inside an `isolated` section (as `spawn` does).
pub fn spawn_async<F, T>(f: F) -> Handle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let w = Worker::current();
    if w.is_null() {
        start(ThreadPool::global().registry(), f)
    } else {
        // SAFETY: a non-null current worker is run by this thread; its registry owns it.
        start(unsafe { (*w).registry() }, f)
    }
}

impl ThreadPool {
    /// Starts `f` in this pool, detached, and returns the owned [`Handle`] of its value: see
    /// [`spawn_async`](crate::sync::spawn_async), which uses the current pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let h = pool.spawn_async(|| (1..=100u32).sum::<u32>());
    /// assert_eq!(futures::executor::block_on(h), 5050);
    /// ```
    ///
    /// # Panics
    /// Inside an `isolated` section (as `spawn` does).
    pub fn spawn_async<F, T>(&self, f: F) -> Handle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        start(self.registry(), f)
    }
}
