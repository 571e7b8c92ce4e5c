//! Futures: [`spawn_future`] and its handle [`TaskFuture`].
//!
//! A future is one block (a recycled task block of the worker's cache when it fits, else a
//! box) holding a small header, then the closure — replaced by its value once it ran. The
//! block *is* the task: `spawn_future` appends it to the calling worker's frame of the
//! innermost finish, exactly like `spawn`, and thieves take it from there like any task. A
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
//! * `refs` counts the handles, plus one for the task while it is pending or running. The
//!   block is freed by whoever drops the last of them. A `get` that ran the task itself
//!   while its handle was the only one does not decrement: it sets `absorbed`, which says
//!   the task's count now counts with the handles: the last handle to go frees the block.
//!   That keeps read-modify-writes off the call-order path. (A clone made meanwhile through
//!   a shared `&TaskFuture` only adds a handle, which the rule covers.)

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU8, Ordering};
use std::task::{Context, Poll};

use super::completion::{Completion, DONE, FAILED, PENDING};
use super::Event;
use crate::finish::{
    innermost_frame, run_stolen_task, run_task, FinishState, LinkedJob, INSIDE_ANY_FINISH,
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
    refs: AtomicU32,
    /// How the computation ended (see `completion.rs`).
    phase: AtomicU8,
    absorbed: AtomicBool,
}

/// The operations that depend on the closure's type.
struct Ops {
    /// Runs the closure, which the caller removed from its pending list; writes the value
    /// and `phase`.
    run: unsafe fn(*const Header),
    /// Where the value sits, in bytes from the block's start (valid once `phase` is
    /// `DONE`).
    value_offset: usize,
    /// The block is a recycled task block (else a box).
    in_block: bool,
    /// Drops what the block holds and frees it.
    destroy: unsafe fn(*const Header),
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
    /// Drops one count; frees the block if it was the last.
    ///
    /// # Safety
    /// The caller holds a count and does not touch the block afterwards.
    unsafe fn release(this: *const Header) {
        // SAFETY: the caller's count keeps the block alive until the decrement.
        let h = unsafe { &*this };
        let after = h.refs.fetch_sub(1, Ordering::AcqRel) - 1;
        if after == 0 || (after == 1 && h.absorbed.load(Ordering::Acquire)) {
            // SAFETY: nobody else holds a count (the absorbed one is the handle's that
            // already dropped it).
            unsafe { (h.ops.destroy)(this) };
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
    };

    /// Whether the block fits a recycled task block.
    const IN_BLOCK: bool = crate::worker::fits_block(
        std::mem::size_of::<Block<F, T>>(),
        std::mem::align_of::<Block<F, T>>(),
    );

    unsafe fn run(h: *const Header) {
        let b = h as *const Self;
        struct FailOnUnwind<'a>(&'a Header);
        impl Drop for FailOnUnwind<'_> {
            fn drop(&mut self) {
                self.0.complete(FAILED);
            }
        }
        // SAFETY: the caller took the block off its pending list, so this is the one run:
        // the closure is there and nobody else reads the payload until `phase` changes.
        unsafe {
            let f = ManuallyDrop::take(&mut (*(*b).payload.get()).func);
            let guard = FailOnUnwind(&(*b).header);
            let v = f();
            std::mem::forget(guard);
            (*(*b).payload.get()).value = ManuallyDrop::new(v);
            (*b).header.complete(DONE);
        }
    }

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
    unsafe fn execute(j: *const JobHeader, w: &Worker, mode: Mode) {
        let h = j as *const Header;
        // SAFETY: the job is a live block holding the task's count (see the invariants).
        unsafe {
            let state = &*(*h).finish;
            match mode {
                Mode::Discard => {}
                Mode::Inline => run_task(w, state, || Self::run(h)),
                Mode::Stolen => run_stolen_task(w, state, || Self::run(h)),
            }
            if (*h).phase_relaxed() == PENDING {
                // Discarded, or stopped before it started (its finish failed): the closure
                // is dropped unrun and getters learn that it failed.
                let b = h as *const Self;
                let f = ManuallyDrop::take(&mut (*(*b).payload.get()).func);
                (*h).complete(FAILED);
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| drop(f))) {
                    state.fail_with(p);
                }
            }
            Header::release(h);
        }
    }
}

/// The handle of a computation started with [`spawn_future`].
///
/// [`TaskFuture::get`] parks until the value is ready — or, if the computation has not
/// started and waits on this worker, runs it right there, like the untaken branch of a
/// `join`. The handle is also a [`std::future::Future`], so async code can `.await` it.
///
/// Handles can be cloned and shared: any number of tasks or threads may `get` the value.
pub struct TaskFuture<T> {
    header: NonNull<Header>,
    _value: PhantomData<T>,
}

// SAFETY: the block's shared parts are atomics; the value is shared by reference between
// the handles (hence `T: Sync`) and built on whatever thread ran the task (`T: Send`).
unsafe impl<T: Send + Sync> Send for TaskFuture<T> {}
// SAFETY: as above; `get` through a shared handle on several threads at once is what the
// event and the counts are for (see the module invariants).
unsafe impl<T: Send + Sync> Sync for TaskFuture<T> {}

impl<T> Clone for TaskFuture<T> {
    fn clone(&self) -> Self {
        self.header().refs.fetch_add(1, Ordering::Relaxed);
        TaskFuture {
            header: self.header,
            _value: PhantomData,
        }
    }
}

impl<T> Drop for TaskFuture<T> {
    fn drop(&mut self) {
        let h = self.header();
        let r = h.refs.load(Ordering::Acquire);
        // The only count left: no other handle exists and the task's count was dropped or
        // absorbed by this handle's `get` — nobody can take a count concurrently.
        if r == 1 || (r == 2 && h.absorbed.load(Ordering::Acquire)) {
            if h.ops.in_block && h.phase_relaxed() == DONE && !h.has_event() {
                // The call-order path: drop the value and recycle the block here, without
                // the call through `destroy`.
                // SAFETY: this handle holds the last count; the value is there (DONE) and
                // dropped once; the block came from `alloc_block`.
                unsafe {
                    std::ptr::drop_in_place(self.value() as *const T as *mut T);
                    recycle(self.header.as_ptr() as *mut u8);
                }
                return;
            }
            // SAFETY: as just said, this handle holds the last count.
            unsafe { (h.ops.destroy)(self.header.as_ptr()) };
            return;
        }
        // SAFETY: this handle holds a count and is not used afterwards.
        unsafe { Header::release(self.header.as_ptr()) };
    }
}

impl<T> std::fmt::Debug for TaskFuture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskFuture")
            .field("ready", &self.is_ready())
            .finish()
    }
}

/// Starts `f` as a task of the innermost finish and returns a handle to its value.
///
/// The task is created lazily: it waits on this worker until a thief takes it, the finish
/// runs it at its end, or someone calls [`TaskFuture::get`]. A `get` on this worker that
/// finds it not started runs it inline, so futures used in call order cost about what
/// `join` costs. A panic in `f` goes to whoever ran it (the finish, or the caller of that
/// `get`); other getters then panic with a message saying the future failed.
///
/// # Panics
/// Outside every pool, like [`crate::spawn`].
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
    let (w, frame) = innermost_frame("offshoot::sync::spawn_future", INSIDE_ANY_FINISH);
    // SAFETY: `innermost_frame` returns this thread's worker and its live current frame.
    let (w, frame) = unsafe { (&*w, &*frame) };
    let block = Block {
        header: Header {
            job: LinkedJob {
                execute: Block::<F, T>::execute,
                below: std::cell::Cell::new(ptr::null()),
            },
            finish: frame.state(),
            ops: &Block::<F, T>::OPS,
            event: AtomicPtr::new(ptr::null_mut()),
            refs: AtomicU32::new(2),
            phase: AtomicU8::new(PENDING),
            absorbed: AtomicBool::new(false),
        },
        payload: UnsafeCell::new(Payload {
            func: ManuallyDrop::new(f),
        }),
    };
    let p: *mut Block<F, T> = if Block::<F, T>::IN_BLOCK {
        let b = crate::worker::alloc_block(Some(w)) as *mut Block<F, T>;
        // SAFETY: a task block is big and aligned enough (IN_BLOCK) and unused.
        unsafe { b.write(block) };
        b
    } else {
        Box::into_raw(Box::new(block))
    };
    frame.push_linked(p as *const LinkedJob);
    w.poll();
    TaskFuture {
        // SAFETY: `p` is a fresh, non-null allocation.
        header: unsafe { NonNull::new_unchecked(p as *mut Header) },
        _value: PhantomData,
    }
}

impl<T> TaskFuture<T> {
    fn header(&self) -> &Header {
        // SAFETY: a handle holds a count, so the block is alive.
        unsafe { self.header.as_ref() }
    }

    fn value(&self) -> &T {
        let at = (self.header.as_ptr() as *const u8).wrapping_add(self.header().ops.value_offset);
        // SAFETY: called once `phase` is DONE (acquire): the value is written there (the
        // payload union starts with it) and stays until the block is freed, which this
        // handle prevents.
        unsafe { &*(at as *const T) }
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
        let h = self.header();
        // Decided after the run: the closure could have cloned this handle.
        struct Settle<'a>(&'a Header);
        impl Drop for Settle<'_> {
            fn drop(&mut self) {
                let h = self.0;
                if h.refs.load(Ordering::Acquire) == 2 {
                    // Only this handle besides the task's count: keep that count.
                    h.absorbed.store(true, Ordering::Release);
                } else {
                    // Other handles exist; ours keeps the block alive.
                    h.refs.fetch_sub(1, Ordering::AcqRel);
                }
            }
        }
        let _settle = Settle(h);
        // SAFETY: `run_here` took the block off its pending list: this is the one run.
        unsafe { (h.ops.run)(self.header.as_ptr()) };
    }

    /// The value: runs the computation here if it has not started and waits on this
    /// worker, else parks until it is ready.
    ///
    /// # Panics
    /// If the computation panicked (the panic itself went to whoever ran it; if that is
    /// this call, it propagates from here), or was dropped unrun because its finish failed.
    pub fn get(&self) -> &T {
        let h = self.header();
        if h.phase() == PENDING {
            self.run_here();
        }
        match h.wait(crate::fiber::WaitOn::new("TaskFuture", h)) {
            DONE => self.value(),
            _ => panic!("offshoot: the future's computation panicked or was cancelled"),
        }
    }

    /// The value, if it is ready.
    pub fn try_get(&self) -> Option<&T> {
        (self.header().phase() == DONE).then(|| self.value())
    }

    /// Whether the computation has ended (with a value or a failure).
    pub fn is_ready(&self) -> bool {
        self.header().phase() != PENDING
    }
}

impl<T: Clone + Send + Sync + 'static> std::future::Future for TaskFuture<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match self.header().wake_on_complete(cx.waker()) {
            PENDING => Poll::Pending,
            DONE => Poll::Ready(self.value().clone()),
            _ => panic!("offshoot: the future's computation panicked or was cancelled"),
        }
    }
}
