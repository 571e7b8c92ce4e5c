//! Futures: [`spawn_future`] and its handle [`TaskFuture`], shared by reference (for the
//! owned handle of async code, see `handle.rs`).
//!
//! Outside every pool the block is instead a detached job of the global pool, injected at
//! once, with no finish (`finish` is null; `execute_detached` runs it as a root finish).
//!
//! A future is one block (a recycled task block of the worker's cache when it fits, else a
//! box) holding a small header, then the closure — replaced by its value once it ran. The
//! block *is* the task: `spawn_future` appends it to the calling worker's frame of the
//! innermost finish, exactly like `finish::spawn`, and thieves take it from there like any task. A
//! `get` on the worker that holds it still pending takes it back from that frame (the
//! newest pending task is looked at first) and runs it right there, like the untaken side
//! of a `join`. A future got in the order futures were made therefore costs: a block from
//! the cache, a push and a pop on the frame's pending list, the call, and the block back to
//! the cache — one sequentially consistent store (the completion), no atomic
//! read-modify-write, no other allocation.
//!
//! Invariants:
//! * The closure runs at most once: only whoever removed the block from a pending list (a
//!   `get` on the owner worker, the frame's drain, a thief's request) runs it, and that
//!   happens once because the block is in one pending list once.
//! * The block's [`Completion`] leaves `PENDING` exactly once, to `DONE` (the value is
//!   written first) or `FAILED` (the closure panicked, or was dropped unrun because its
//!   finish failed); it also carries the waiters (see `completion.rs`: no wake-up is lost).
//! * `refs` counts the handles, plus one for the task while it is pending or running. A
//!   `get` that took the task back and ran it itself keeps the task's count *in its own
//!   handle* (`TaskFuture::holds_task`), so that handle holds two counts; every other handle
//!   holds one. Whoever takes `refs` to zero frees the block, and a release reads nothing of
//!   the block after its decrement: the decrement's result alone says whether it was the
//!   last (`Header::release`), because once a count is given back another holder may free
//!   the block at once. That keeps read-modify-writes off the call-order path (the `get`
//!   only marks its handle) without a flag that a release would have to read afterwards.
//! * A handle that sees `refs` equal to the counts it holds is the only holder: nobody can
//!   add a count (clones need a handle), so it frees the block without a decrement.
//! * A handle polled as a `std::future::Future` on a pool worker first takes the task back
//!   from that worker's frames and runs it, as `get` does (an executor may block the
//!   worker's thread on `Pending`, and the task may wait on that very worker's frame).
//! * A handle polled as a `std::future::Future` owns one waker slot of the block's event;
//!   each poll replaces the waker in it (see `Event::set_waker`), and dropping the handle
//!   clears it.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::{self, NonNull};
use std::sync::atomic::AtomicBool;
use std::task::{Context, Poll};

use super::completion::{Completion, DONE, FAILED, PENDING};
use super::event::NO_WAKER_SLOT;
use super::refcount::RefCount;
use super::Event;
use crate::atomics::{AtomicPtr, AtomicU8, Ordering};
use crate::finish::{
    finish_root, innermost_frame, run_stolen_task, run_task, FinishState, LinkedJob,
    INSIDE_ANY_FINISH,
};
use crate::job::{JobHeader, Mode};
use crate::worker::Worker;

/// What every future block starts with, whatever its closure and value. `#[repr(C)]` with
/// `execute` first: the block is a job (see `job.rs`).
#[repr(C)]
struct Header {
    job: LinkedJob,
    finish: *const FinishState,
    ops: &'static Ops,
    /// Installed by the first waiter that parks (see `completion.rs`).
    event: AtomicPtr<Event<()>>,
    refs: RefCount,
    /// How the computation ended (see `completion.rs`).
    phase: AtomicU8,
}

/// Who runs a future's closure: its finish, as a task (drained, or stolen), or a `get`
/// that took it back.
#[derive(Clone, Copy)]
enum Runner {
    Task,
    Getter,
}

/// The operations that depend on the closure's type.
struct Ops {
    /// Runs the closure, which the caller removed from its pending list; writes the value
    /// and `phase`.
    run: unsafe fn(*const Header, Runner),
    /// Where the value sits, in bytes from the block's start (valid once `phase` is
    /// `DONE`).
    value_offset: usize,
    /// The block is a recycled task block (else a box).
    in_block: bool,
    /// Drops what the block holds and frees it.
    destroy: unsafe fn(*const Header),
    /// The value is a [`Stamped`] (made in a pool that measures work and span).
    stamped: bool,
}

/// The value of a future made in a pool that measures work and span (`metrics/`): the
/// user's value first (so the value's offset is the same), then the span at which the
/// task ended, which a `get` absorbs.
#[repr(C)]
struct Stamped<T> {
    value: T,
    span: crate::metrics::Span,
}

union Payload<F, T> {
    func: ManuallyDrop<F>,
    value: ManuallyDrop<T>,
}

#[repr(C)]
struct Block<F, T> {
    header: Header,
    payload: UnsafeCell<Payload<F, T>>,
}

impl Completion for Header {
    fn phase_word(&self) -> &AtomicU8 {
        &self.phase
    }
    fn event_word(&self) -> &AtomicPtr<Event<()>> {
        &self.event
    }
}

impl Header {
    /// Gives back `n` counts; frees the block if they were the last.
    ///
    /// # Safety
    /// The caller holds `n` counts and does not touch the block afterwards.
    unsafe fn release(this: *const Header, n: u32) {
        // Read before the decrement: once it is done, another holder may free the block.
        // SAFETY: the caller's counts keep the block alive until the decrement.
        let destroy = unsafe { (*this).ops.destroy };
        // SAFETY: as above; `release` touches nothing of the block after its decrement.
        if unsafe { RefCount::release(ptr::addr_of!((*this).refs), n) } {
            // SAFETY: that was the last count: nobody else can reach the block.
            unsafe { destroy(this) };
        }
    }
}

/// Gives a future's task block back: to the calling worker's cache, or to the allocator
/// from outside every pool.
///
/// # Safety
/// `b` came from `alloc_block`, its contents are dropped, and it is not used afterwards.
unsafe fn recycle(b: *mut u8) {
    let w = Worker::current();
    // SAFETY: a non-null current worker is run by this thread; the block per the contract.
    unsafe { crate::worker::free_block((!w.is_null()).then(|| &*w), b) }
}

impl<F, T> Block<F, T>
where
    F: FnOnce() -> T + Send,
    T: Send + Sync,
{
    const OPS: Ops = Ops {
        run: Self::run,
        value_offset: std::mem::offset_of!(Self, payload),
        in_block: Self::IN_BLOCK,
        destroy: Self::destroy,
        stamped: false,
    };

    /// `OPS` for a block whose value is a `Stamped`.
    const OPS_STAMPED: Ops = Ops {
        stamped: true,
        ..Self::OPS
    };

    /// Whether the block fits a recycled task block.
    const IN_BLOCK: bool = crate::worker::fits_block(
        std::mem::size_of::<Block<F, T>>(),
        std::mem::align_of::<Block<F, T>>(),
    );

    /// Runs the closure and completes the handle.
    ///
    /// Run as a task (`Runner::Task`), a panic (or stop) of the closure is recorded as its
    /// finish's failure *before* the handle is completed as failed, and the task then
    /// returns normally: a getter that sees the failure and panics in turn ("the future's
    /// computation panicked") can never be the finish's first failure in place of the
    /// closure's own panic. Run by a `get` (`Runner::Getter`), the panic propagates out of
    /// that `get`, as documented there.
    ///
    /// # Safety
    /// `h` is the header of a live block of this type, still `PENDING`, which the caller took
    /// off its pending list (its task's `execute`, or a `get` in `run_taken`): this is the
    /// block's one run. The block's finish outlives the run.
    unsafe fn run(h: *const Header, runner: Runner) {
        let b = h as *const Self;
        // SAFETY: the caller took the block off its pending list, so this is the one run:
        // the closure is there and nobody else reads the payload until `phase` changes.
        // The finish outlives its running tasks.
        unsafe {
            let f = ManuallyDrop::take(&mut (*(*b).payload.get()).func);
            match catch_unwind(AssertUnwindSafe(f)) {
                Ok(v) => {
                    (*(*b).payload.get()).value = ManuallyDrop::new(v);
                    (*b).header.complete(DONE);
                }
                Err(p) => match runner {
                    Runner::Task => {
                        (*(*b).header.finish).fail_with(p);
                        (*b).header.complete(FAILED);
                    }
                    Runner::Getter => {
                        (*b).header.complete(FAILED);
                        std::panic::resume_unwind(p)
                    }
                },
            }
        }
    }

    /// # Safety
    /// `h` is the header of a block of this type whose last count was just dropped: nobody else
    /// can touch it, and it is not used after this call.
    unsafe fn destroy(h: *const Header) {
        let b = h as *mut Self;
        // SAFETY: the last count is gone: nobody else touches the block. The payload holds
        // the closure while pending, the value once done, nothing after a failure.
        unsafe {
            match (*b).header.phase() {
                PENDING => ManuallyDrop::drop(&mut (*(*b).payload.get()).func),
                DONE => ManuallyDrop::drop(&mut (*(*b).payload.get()).value),
                _ => {}
            }
            (*b).header.free_event();
            if Self::IN_BLOCK {
                recycle(b as *mut u8);
            } else {
                drop(Box::from_raw(b as *mut ManuallyDrop<Self>));
            }
        }
    }

    /// The block as a task of its finish: run by the frame's drain (`Inline`), by a thief
    /// (`Stolen`), or dropped unrun (`Discard`). Then the task's count is dropped.
    ///
    /// # Safety
    /// `j` is the header of a live block of this type that holds its task's count, executed
    /// exactly once as a task (`Inline` by the frame's drain, `Stolen` by a thief, or
    /// `Discard`); its finish is alive while the task is pending or runs.
    unsafe fn execute(j: *const JobHeader, w: &Worker, mode: Mode) {
        let h = j as *const Header;
        // SAFETY: the job is a live block holding the task's count (see the invariants);
        // the finish is alive while the task is pending or runs (for a stolen one: until
        // its proxy leaves, so `settle_unrun` runs before that).
        unsafe {
            let finish = (*h).finish;
            match mode {
                Mode::Discard => {
                    Self::settle_unrun(h, &*finish);
                    Self::release_task(h, &*finish);
                }
                Mode::Inline => {
                    run_task(w, &*finish, || Self::run(h, Runner::Task));
                    Self::settle_unrun(h, &*finish);
                    Self::release_task(h, &*finish);
                }
                // Inside the proxy: the count goes back before the finish learns that the
                // task ended.
                Mode::Stolen => run_stolen_task(
                    w,
                    finish,
                    || Self::run(h, Runner::Task),
                    |st| {
                        Self::settle_unrun(h, st);
                        Self::release_task(h, st);
                    },
                ),
            }
        }
    }

    /// The block as a detached job of the global pool (`spawn_future` outside every pool):
    /// run as the root of a finish of its own on the worker that took it from the injector.
    /// A panic of the closure fails the handle (getters panic saying so; the panic hook
    /// reported the panic itself) and goes nowhere else. Then the task's count is dropped.
    ///
    /// # Safety
    /// `j` is the header of a live block of this type, made by `detached_future` (no
    /// finish), that holds its task's count, executed exactly once by the worker that
    /// popped it from the injector.
    unsafe fn execute_detached(j: *const JobHeader, w: &Worker, mode: Mode) {
        let h = j as *const Header;
        if mode != Mode::Discard {
            // `Runner::Getter`: the panic unwinds into `finish_root`, after the handle is
            // completed as failed. The payload is dropped: nobody waits for it.
            // SAFETY: the job is executed once: this is the block's one run.
            let _ = finish_root(w, |_| unsafe { Self::run(h, Runner::Getter) });
        }
        // SAFETY: the block is live (the task's count); its closure is there only if it
        // did not run, and only this taker reads it.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe {
            if (*h).phase_relaxed() == PENDING {
                let b = h as *const Self;
                let f = ManuallyDrop::take(&mut (*(*b).payload.get()).func);
                (*h).complete(FAILED);
                drop(f);
            }
            Header::release(h, 1);
        }));
        if let Err(p) = r {
            w.registry().hooks.panicked(p);
        }
    }

    /// Gives back the task's count while its finish still waits for the task: when the
    /// handles are gone, the last count drops the value (or the closure) here, so a value
    /// nobody can get is dropped before the finish that ran its task returns (as a scope
    /// drops what its tasks captured); a panic of that drop fails the finish.
    ///
    /// # Safety
    /// `h` is a live block holding the task's count; `state` is its finish, alive.
    unsafe fn release_task(h: *const Header, state: &FinishState) {
        // SAFETY: per the contract; nothing reads the block after this.
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| unsafe { Header::release(h, 1) })) {
            state.fail_with(p);
        }
    }

    /// If the task did not run (discarded, or stopped before it started because its finish
    /// failed), drops the closure unrun and tells getters that it failed.
    ///
    /// # Safety
    /// `h` is a live block whose task was taken off its pending list; `state` is its finish.
    unsafe fn settle_unrun(h: *const Header, state: &FinishState) {
        // SAFETY: per the contract; the task did not run, so the closure is still there,
        // and only this taker reads it.
        unsafe {
            if (*h).phase_relaxed() == PENDING {
                let b = h as *const Self;
                let f = ManuallyDrop::take(&mut (*(*b).payload.get()).func);
                (*h).complete(FAILED);
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| drop(f))) {
                    state.fail_with(p);
                }
            }
        }
    }
}

/// The handle of a computation started with [`spawn_future`].
///
/// [`TaskFuture::get`] parks until the value is ready — or, if the computation has not
/// started and waits on this worker, runs it right there, like the untaken branch of a
/// `join`. The handle is also a [`std::future::Future`], so async code can `.await` it.
///
/// Handles can be cloned and shared: any number of tasks or threads may `get` the value
/// (a `&T`); `.await` gives a clone of it (hence `T: Clone`). For a value moved out once,
/// with `T: Send` only, see [`Handle`](super::Handle).
///
/// Polled on a pool worker, the handle first takes the computation back and runs it right
/// there if it has not started and waits on this worker, as `get` does: an executor such
/// as `futures::executor::block_on` running in a task, which blocks its worker's thread
/// while a future is `Pending`, would otherwise hold the very worker the task waits on. A
/// computation already started elsewhere is awaited as usual (`Pending`, then a wake); if
/// it needs the blocked worker (on 1 worker: it started here and parked), `block_on`
/// cannot return. In pool code prefer `get`, which parks instead of blocking; for a handle
/// whose polls never block a worker, see [`Handle`](super::Handle).
///
/// ```
/// // Outside every pool the computation runs in the global pool.
/// let f = offshoot::sync::spawn_future(|| 6 * 7);
/// let g = f.clone();
/// assert_eq!(futures::executor::block_on(g), 42);
/// assert_eq!(*f.get(), 42);
/// ```
pub struct TaskFuture<T> {
    header: NonNull<Header>,
    /// This handle's `get` ran the task itself and kept the task's count: the handle holds
    /// two counts (see the module invariants). Written once, by that `get` (on the thread
    /// that owns the task's frame); read when the handle drops.
    holds_task: AtomicBool,
    /// The waker slot of the block's event this handle registered in as a `Future`, or
    /// [`NO_WAKER_SLOT`].
    waker_slot: u32,
    _value: PhantomData<T>,
}

// SAFETY: the block's shared parts are atomics; the value is shared by reference between
// the handles (hence `T: Sync`) and built on whatever thread ran the task (`T: Send`).
unsafe impl<T: Send + Sync> Send for TaskFuture<T> {}
// SAFETY: as above; `get` through a shared handle on several threads at once is what the
// event and the counts are for (see the module invariants).
unsafe impl<T: Send + Sync> Sync for TaskFuture<T> {}

// The value lives in the block, not in the handle: moving a handle moves no `T`.
impl<T> Unpin for TaskFuture<T> {}

impl<T> Clone for TaskFuture<T> {
    fn clone(&self) -> Self {
        self.header().refs.add_one();
        TaskFuture {
            header: self.header,
            holds_task: AtomicBool::new(false),
            waker_slot: NO_WAKER_SLOT,
            _value: PhantomData,
        }
    }
}

impl<T> Drop for TaskFuture<T> {
    fn drop(&mut self) {
        let held = 1 + u32::from(*self.holds_task.get_mut());
        let header = self.header.as_ptr();
        if self.waker_slot != NO_WAKER_SLOT {
            // An installed event lives as long as the block, which this handle keeps.
            self.header().forget_waker(self.waker_slot);
        }
        // SAFETY: this handle holds `held` counts; it touches the block again only if they
        // were the last (see the module invariants).
        if !unsafe { RefCount::drop_handle(ptr::addr_of!((*header).refs), held) } {
            return;
        }
        // SAFETY: nobody else holds a count: the block is this handle's alone.
        let h = unsafe { &*header };
        if h.ops.in_block && h.phase_relaxed() == DONE && !h.has_event() {
            // The call-order path: drop the value and recycle the block here, without the
            // call through `destroy`.
            // SAFETY: the block is this handle's alone; the value is there (DONE) and
            // dropped once, through a pointer with the block's own provenance (never one
            // cast from a shared reference); the block came from `alloc_block`.
            unsafe {
                ptr::drop_in_place(Self::value_ptr(header));
                recycle(header as *mut u8);
            }
            return;
        }
        // SAFETY: as above.
        unsafe { (h.ops.destroy)(header) };
    }
}

impl<T> std::fmt::Debug for TaskFuture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskFuture")
            .field("ready", &self.is_ready())
            .finish()
    }
}

/// Starts `f` and returns a shareable handle to its value; in a pool, as a task of the
/// innermost finish.
///
/// In a pool, the task is created lazily: it waits on this worker until a thief takes it,
/// the finish runs it at its end, or someone calls [`TaskFuture::get`]. A `get` on this
/// worker that finds it not started runs it inline, so futures used in call order cost
/// about what `join` costs. The finish waits for the task, as for a task of
/// [`finish::spawn`](crate::finish::spawn()). A panic in `f` goes to whoever ran it (the finish, or the caller of
/// that `get`); other getters then panic with a message saying the future failed.
///
/// Outside every pool (a plain thread, a tokio worker), `f` starts in the global pool
/// ([`crate::ThreadPool::global`]) at once, detached, as the root of a finish of its own;
/// a panic in it fails the handle (getters panic saying so), and goes nowhere else.
///
/// For a value that is moved to one owner (`T: Send` only, not `Clone`), awaited from
/// async code or dropped without waiting, use [`spawn_async`](super::spawn_async) and its
/// [`Handle`](super::Handle).
///
/// # Panics
/// Inside an `isolated` section (as [`finish::spawn`](crate::finish::spawn()) does).
///
/// ```
/// use offshoot::sync::spawn_future;
///
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let a = spawn_future(move || fib(n - 1));
///     let b = fib(n - 2);
///     *a.get() + b
/// }
/// assert_eq!(offshoot::finish(|| fib(15)), 610);
/// ```
pub fn spawn_future<T, F>(f: F) -> TaskFuture<T>
where
    T: Send + Sync + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    crate::worker::Worker::check_not_isolated("spawn");
    if Worker::current().is_null() {
        return detached_future(f);
    }
    let (w, frame) = innermost_frame("offshoot::sync::spawn_future", INSIDE_ANY_FINISH);
    // SAFETY: `innermost_frame` returns this thread's worker and its live current frame.
    let (w, frame) = unsafe { (&*w, &*frame) };
    if w.meter().on() {
        // Work/span (`metrics/`): the task begins a strand at the spawner's clock, reports
        // to its finish, and stamps its value with the span it ended at.
        let start = w.meter().checkpoint();
        let state = frame.state() as usize;
        let g = move || {
            // SAFETY: the finish waits for the task, so its state is live while it runs.
            let (value, end) = unsafe {
                crate::finish::run_metered(start, state as *const crate::finish::FinishState, f)
            };
            Stamped {
                value,
                span: end.span(),
            }
        };
        return new_future::<T, _, Stamped<T>>(w, frame, g, true);
    }
    new_future::<T, F, T>(w, frame, f, false)
}

/// Makes the block of a future whose closure `f` gives a `V` (the user's `T`, or a
/// `Stamped<T>` if `stamped`) and pends it on `frame`.
fn new_future<T, F, V>(
    w: &Worker,
    frame: &crate::finish::FinishFrame,
    f: F,
    stamped: bool,
) -> TaskFuture<T>
where
    T: Send + Sync + 'static,
    V: Send + Sync + 'static,
    F: FnOnce() -> V + Send + 'static,
{
    let p = make_block(
        Some(w),
        f,
        Block::<F, V>::execute,
        frame.state(),
        if stamped {
            &Block::<F, V>::OPS_STAMPED
        } else {
            &Block::<F, V>::OPS
        },
    );
    frame.push_linked(p as *const LinkedJob);
    w.poll();
    handle_of(p)
}

/// `spawn_future` outside every pool: the block is a detached job of the global pool
/// ([`crate::ThreadPool::global`]), injected at once, of no finish (its `finish` is null).
fn detached_future<T, F>(f: F) -> TaskFuture<T>
where
    T: Send + Sync + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let p = make_block(
        None,
        f,
        Block::<F, T>::execute_detached,
        ptr::null(),
        &Block::<F, T>::OPS,
    );
    // The task's count travels with the job; `execute_detached` gives it back.
    crate::pool::ThreadPool::global()
        .registry()
        .inject(crate::job::JobRef(p as *const JobHeader));
    handle_of(p)
}

/// A fresh block holding `f` and two counts (the handle's and the task's), from `w`'s cache
/// (or a slot of its own without a worker) when it fits, else a box.
fn make_block<F, V>(
    w: Option<&Worker>,
    f: F,
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    finish: *const FinishState,
    ops: &'static Ops,
) -> *mut Block<F, V>
where
    V: Send + Sync + 'static,
    F: FnOnce() -> V + Send + 'static,
{
    let block = Block {
        header: Header {
            job: LinkedJob {
                execute,
                below: std::cell::Cell::new(ptr::null()),
            },
            finish,
            ops,
            event: AtomicPtr::new(ptr::null_mut()),
            refs: RefCount::new(2),
            phase: AtomicU8::new(PENDING),
        },
        payload: UnsafeCell::new(Payload {
            func: ManuallyDrop::new(f),
        }),
    };
    if Block::<F, V>::IN_BLOCK {
        let b = crate::worker::alloc_block(w) as *mut Block<F, V>;
        // SAFETY: a task block is big and aligned enough (IN_BLOCK) and unused.
        unsafe { b.write(block) };
        b
    } else {
        Box::into_raw(Box::new(block))
    }
}

/// The first handle of the fresh block `p` (it holds the handle's count).
fn handle_of<T, B>(p: *mut B) -> TaskFuture<T> {
    TaskFuture {
        // SAFETY: `p` is a fresh, non-null allocation.
        header: unsafe { NonNull::new_unchecked(p as *mut Header) },
        holds_task: AtomicBool::new(false),
        waker_slot: NO_WAKER_SLOT,
        _value: PhantomData,
    }
}

impl<T> TaskFuture<T> {
    fn header(&self) -> &Header {
        // SAFETY: a handle holds a count, so the block is alive.
        unsafe { self.header.as_ref() }
    }

    /// Where the value sits in the block at `header`, with the block's own provenance.
    fn value_ptr(header: *mut Header) -> *mut T {
        // SAFETY: `ops` is written once, before the block is shared; the caller's handle
        // keeps the block alive.
        let offset = unsafe { (*header).ops.value_offset };
        (header as *mut u8).wrapping_add(offset) as *mut T
    }

    fn value(&self) -> &T {
        // SAFETY: called once `phase` is DONE (acquire): the value is written there (the
        // payload union starts with it) and stays until the block is freed, which this
        // handle prevents.
        unsafe { &*Self::value_ptr(self.header.as_ptr()) }
    }

    /// Work/span (`metrics/`): the getter's strand waits for the task's end. Called once
    /// `phase` is DONE.
    fn absorb_stamp(&self) {
        if self.header().ops.stamped {
            // SAFETY: a stamped block's value is a `Stamped<T>` (its `ops` says so), written
            // once the phase is DONE and kept until the block is freed, which this handle
            // prevents.
            let span =
                unsafe { (*(Self::value_ptr(self.header.as_ptr()) as *const Stamped<T>)).span };
            crate::metrics::absorb_span(span);
        }
    }

    /// Takes the task back from this worker's pending lists and runs it here, if it waits
    /// there. Returns whether it did.
    #[inline]
    fn run_here(&self) -> bool {
        let w = Worker::current();
        if w.is_null() {
            return false;
        }
        let job = self.header.as_ptr() as *const LinkedJob;
        // SAFETY: the current worker is run by this thread; frames on its current-finish
        // list are live (they are popped in LIFO order with the chain).
        let mut fr = unsafe { (*w).current_finish() };
        while !fr.is_null() {
            // SAFETY: as above.
            let frame = unsafe { &*fr };
            if frame.take_linked(job) {
                self.run_taken();
                return true;
            }
            fr = frame.parent();
        }
        false
    }

    /// Runs the task this `get` took off a pending list; its count passes to this handle.
    fn run_taken(&self) {
        // Marked first: if the run unwinds, the count still belongs to this handle. Relaxed:
        // only this handle's drop reads it, and whatever hands the handle over to be
        // dropped orders the two.
        self.holds_task.store(true, Ordering::Relaxed);
        // SAFETY: `run_here` took the block off its pending list: this is the one run.
        unsafe { (self.header().ops.run)(self.header.as_ptr(), Runner::Getter) };
    }

    /// The value: runs the computation here if it has not started and waits on this
    /// worker, else parks until it is ready.
    ///
    /// # Panics
    /// If the computation panicked (the panic itself went to whoever ran it; if that is
    /// this call, it propagates from here), or was dropped unrun because its finish failed.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let v = pool.run(|| {
    ///     let f = offshoot::sync::spawn_future(|| (1..=10).sum::<u32>());
    ///     *f.get() // parks until the task has run (or runs it here)
    /// });
    /// assert_eq!(v, 55);
    /// ```
    #[track_caller]
    pub fn get(&self) -> &T {
        let at = std::panic::Location::caller();
        let h = self.header();
        if h.phase() == PENDING {
            self.run_here();
        }
        match crate::metrics::waiting(|| {
            h.wait(|| crate::fiber::WaitOn::new("TaskFuture", h).at(at))
        }) {
            DONE => {
                self.absorb_stamp();
                self.value()
            }
            _ => panic!("offshoot: the future's computation panicked or was cancelled"),
        }
    }

    /// The value, if it is ready.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// pool.run(|| {
    ///     let f = offshoot::sync::spawn_future(|| 7);
    ///     f.get();
    ///     assert_eq!(f.try_get(), Some(&7));
    /// });
    /// ```
    pub fn try_get(&self) -> Option<&T> {
        (self.header().phase() == DONE).then(|| {
            self.absorb_stamp();
            self.value()
        })
    }

    /// Whether the computation has ended (with a value or a failure).
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// pool.run(|| {
    ///     let f = offshoot::sync::spawn_future(|| 7);
    ///     f.get();
    ///     assert!(f.is_ready());
    /// });
    /// ```
    pub fn is_ready(&self) -> bool {
        self.header().phase() != PENDING
    }
}

impl<T: Clone + Send + Sync + 'static> std::future::Future for TaskFuture<T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = &mut *self;
        // SAFETY: a handle holds a count, so the block is alive.
        let h = unsafe { this.header.as_ref() };
        if h.phase() == PENDING {
            // On a pool worker, an executor that sees `Pending` may block the worker's
            // thread (`futures::executor::block_on` in a task): a task still pending on
            // this very worker would then never be handed out. Take it back and run it
            // here, as `get` does (its panic, if any, propagates from this poll).
            this.run_here();
        }
        match h.wake_on_complete(cx.waker(), &mut this.waker_slot) {
            PENDING => Poll::Pending,
            DONE => Poll::Ready(this.value().clone()),
            _ => panic!("offshoot: the future's computation panicked or was cancelled"),
        }
    }
}
