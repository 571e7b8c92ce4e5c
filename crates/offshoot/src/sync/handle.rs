//! The owned handle of a detached computation: [`spawn_async`], [`ThreadPool::spawn_async`]
//! and [`Handle`], the way async code (a tokio task, any executor, a plain thread) gets a
//! value computed in a pool.
//!
//! One allocation (a recycled task block when it fits, else a box): a header — the job word
//! first (so a pointer to the header *is* the job, see `job.rs`), the count of its two owners
//! (the handle and the job, `refcount.rs`), a claim flag, the completion words
//! (`completion.rs`), the result — then the closure. Where the job goes:
//! * **Started on a worker of its own pool**: queued on that worker, as lazily as a join's
//!   seed (`worker/local_jobs.rs`): a thief that asks takes it, the worker runs it before it
//!   sleeps or exits, and the handle's wait on that worker takes it back from either end of
//!   the queue and calls the closure. The handle then owns the whole allocation: a
//!   recursion that waits for what it started takes no lock, wakes nobody and does no
//!   read-modify-write.
//! * **Started anywhere else** (a plain thread, a tokio worker, a worker of another pool):
//!   injected into the pool at once.
//!
//! Either way no finish of the caller waits for it (detached), and it always runs.
//!
//! Invariants (the handshakes between the job, the handle and its waker are model-checked
//! by the loom tests at the bottom of this file):
//! * The closure runs at most once. A handle that takes its job back out of its worker's
//!   queue owns it (nobody else can reach it). Otherwise whoever swaps `claimed` from 0 runs
//!   it (the job's `execute`, or a wait on a worker of the job's own pool that found it
//!   unclaimed) or, for a discarded job, drops it unrun. Nobody else touches `func`.
//! * `result` is written once, by the claimer, before the completion's phase leaves
//!   `PENDING` (always to `DONE`: a panic, a stop or a discard is an `Err` result); after
//!   that only the handle reads it (it takes it once), or the last owner drops it.
//! * No wake-up is lost: a poll registers its waker in the completion's event and re-reads
//!   the phase; the claimer writes the phase and then swaps on the event word (the
//!   handshake of `completion.rs`: read-modify-writes of one word, totally ordered).
//! * Each owner gives its count back once — the job after it ran (or found it claimed), the
//!   handle once it took the value or is dropped — and reads nothing of the allocation after;
//!   the one that gives the last count back frees it, dropping what is left (a result nobody
//!   took). A handle that took its job back holds both counts and frees it at once.
//! * A poll on a pool worker never returns `Pending`: it waits as [`Handle::wait`] does
//!   (takes the job back, or runs the unclaimed closure inline in the job's own pool, else
//!   parks the task). An executor that blocks a worker's thread
//!   (`futures::executor::block_on` in a task) therefore cannot hold the worker the
//!   computation needs.
//! * Dropping the handle never waits: it clears its waker and gives its count back; the
//!   computation runs on and its result is dropped by whoever holds the last count.

use std::any::Any;
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::ptr;
use std::task::{Context, Poll, Waker};

use super::completion::{Completion, DONE, PENDING};
use super::event::NO_WAKER_SLOT;
use super::refcount::RefCount;
use super::Event;
use crate::atomics::{AtomicPtr, AtomicU8, Ordering, UnsafeCell};
use crate::finish::{finish_root, Failure};
use crate::job::{JobHeader, JobRef, Mode};
use crate::pool::{Registry, ThreadPool};
use crate::worker::Worker;

type Payload = Box<dyn Any + Send>;
type Outcome<T> = Result<T, Payload>;

/// What every owner sees of a job, whatever the closure's type.
#[repr(C)]
struct Header<T> {
    /// First, so that a pointer to the header is a job (see `job.rs`).
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    /// The handle's count and the job's.
    refs: RefCount,
    /// 1 once a claimer owns the closure (see the invariants).
    claimed: AtomicU8,
    /// `PENDING` until `result` is written, then `DONE`.
    phase: AtomicU8,
    /// Installed by the first waiter that has to wait (see `completion.rs`).
    event: AtomicPtr<Event<()>>,
    /// The pool the job belongs to: its registry's address, compared only (a wait on one of
    /// its workers may run the closure inline).
    pool: usize,
    result: UnsafeCell<Option<Outcome<T>>>,
}

impl<T> Completion for Header<T> {
    fn phase_word(&self) -> &AtomicU8 {
        &self.phase
    }
    fn event_word(&self) -> &AtomicPtr<Event<()>> {
        &self.event
    }
}

impl<T> Header<T> {
    /// A header holding both counts, of a job of the pool `pool` (a registry's address).
    fn new(execute: unsafe fn(*const JobHeader, &Worker, Mode), pool: usize) -> Header<T> {
        Header {
            execute,
            refs: RefCount::new(2),
            claimed: AtomicU8::new(0),
            phase: AtomicU8::new(PENDING),
            event: AtomicPtr::new(ptr::null_mut()),
            pool,
            result: UnsafeCell::new(None),
        }
    }

    /// Whether the caller now owns the closure.
    fn claim(&self) -> bool {
        // Relaxed: the swap's total order on `claimed` alone decides the one claimer. The
        // closure was written before the job was shared (the injector's lock, the answer of a
        // request, or whatever moved the handle to the claiming thread orders it), and the
        // loser reads nothing the winner writes until the phase says so.
        self.claimed.swap(1, Ordering::Relaxed) == 0
    }

    /// Writes the result and wakes the waiters. Called once, by the claimer.
    fn finish(&self, r: Outcome<T>) {
        // SAFETY: only the claimer writes `result`, once, before the phase leaves PENDING;
        // nobody reads it before that (module invariants).
        self.result.with_mut(|p| unsafe { *p = Some(r) });
        // Releases the result (the release store of the phase in `complete`): pairs with the
        // handle's acquire read of the phase before it takes the result.
        self.complete(DONE);
    }

    /// For a poll off every pool: true if the computation has ended; else `waker` is woken
    /// when it does (registered in the waker slot `*slot`; a later poll replaces it).
    fn ready_or_wake(&self, waker: &Waker, slot: &mut u32) -> bool {
        self.wake_on_complete(waker, slot) != PENDING
    }

    /// Moves the result out.
    ///
    /// # Safety
    /// The caller is the handle, which read the phase `DONE` (acquire or stronger), once.
    unsafe fn take_result(&self) -> Outcome<T> {
        // SAFETY: the phase is DONE, so the claimer wrote the result and touches it no more;
        // only the handle reads it, once (per the contract).
        self.result
            .with_mut(|p| unsafe { (*p).take() })
            .expect("offshoot: a Handle's result is taken once")
    }

    /// The job's side gives its count back. True if it was the last: the caller frees.
    ///
    /// # Safety
    /// `this` is live and the caller holds the job's count; it reads nothing after this.
    unsafe fn job_done(this: *const Self) -> bool {
        // SAFETY: per the contract.
        unsafe { RefCount::release(&(*this).refs, 1) }
    }

    /// The handle's side gives its count back, forgetting the waker it left in `slot` (or
    /// [`NO_WAKER_SLOT`]). True if it was the last: the caller frees.
    ///
    /// # Safety
    /// `this` is live and the caller holds the handle's count; it reads nothing after this.
    unsafe fn handle_done(this: *const Self, slot: u32) -> bool {
        // SAFETY: the handle's count keeps the header alive until it is given back.
        unsafe {
            if slot != NO_WAKER_SLOT {
                (*this).forget_waker(slot);
            }
            RefCount::drop_handle(&(*this).refs, 1)
        }
    }

    /// Drops what the header holds: a result nobody took and the event.
    ///
    /// # Safety
    /// Nobody else uses the header any more (the caller gave the last count back, or holds
    /// them all).
    unsafe fn drop_contents(this: *const Self) {
        // SAFETY: per the contract, nobody else touches the cell or the event.
        unsafe {
            drop((*this).result.with_mut(|p| (*p).take()));
            (*this).free_event();
        }
    }
}

/// What a [`Handle`] calls on its job, whatever the closure's type.
struct Ops<T> {
    /// Frees a job the caller took back out of its worker's queue (running on that worker),
    /// and calls its closure.
    call_and_free: unsafe fn(*const Header<T>, &Worker) -> T,
    /// Runs the closure the caller claimed right here, as part of the calling task.
    run_inline: unsafe fn(*const Header<T>),
    /// Frees the job; the caller gave the last count back.
    free: unsafe fn(*const Header<T>),
}

/// The header and the closure in one allocation.
#[repr(C)]
struct Job<F, T> {
    /// First, so that a pointer to the `Job` is a pointer to its header.
    header: Header<T>,
    func: UnsafeCell<ManuallyDrop<F>>,
}

impl<F, T> Job<F, T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    const OPS: Ops<T> = Ops {
        call_and_free: Self::call_and_free,
        run_inline: Self::run_inline,
        free: Self::free,
    };

    /// Whether the job fits a recycled task block.
    const IN_BLOCK: bool =
        crate::worker::fits_block(std::mem::size_of::<Self>(), std::mem::align_of::<Self>());

    /// A fresh job of the pool `pool` (a registry's address) holding both counts: a block of `w`'s cache (the
    /// current worker, if any) when it fits, else a box.
    #[inline(always)]
    fn make(w: Option<&Worker>, pool: usize, f: F) -> *const Header<T> {
        let job = |f| Job {
            header: Header::new(Self::execute, pool),
            func: UnsafeCell::new(ManuallyDrop::new(f)),
        };
        if Self::IN_BLOCK {
            // The block first, then the job built right in it (built first, it would be
            // built on the stack and copied).
            let b = crate::worker::alloc_block(w) as *mut Self;
            // SAFETY: a task block is big and aligned enough (IN_BLOCK) and unused.
            unsafe { b.write(job(f)) };
            b as *const Header<T>
        } else {
            Box::into_raw(Box::new(job(f))) as *const Header<T>
        }
    }

    /// Gives the memory back, its fields dropped or moved out already.
    ///
    /// # Safety
    /// `j` came from `make` and nobody uses it any more; `w` is the calling thread's worker.
    unsafe fn dealloc(j: *const Header<T>, w: Option<&Worker>) {
        if Self::IN_BLOCK {
            // SAFETY: per the contract; the block came from `alloc_block`.
            unsafe { crate::worker::free_block(w, j as *mut u8) };
        } else {
            // SAFETY: per the contract; the fields were dropped, so only the box is freed.
            drop(unsafe { Box::from_raw(j as *mut ManuallyDrop<Self>) });
        }
    }

    /// Moves the closure out.
    ///
    /// # Safety
    /// The caller owns the closure (module invariants), and takes it once.
    unsafe fn take_func(j: *const Header<T>) -> F {
        // SAFETY: per the contract; `j` is the header of a `Self`.
        unsafe {
            (*(j as *const Self))
                .func
                .with_mut(|p| ManuallyDrop::take(&mut *p))
        }
    }

    /// # Safety
    /// `j` is a job of this type taken back out of `w`'s queue by its handle, which holds
    /// every count; `w` is the calling thread's worker.
    unsafe fn call_and_free(j: *const Header<T>, w: &Worker) -> T {
        // SAFETY: nobody else ever saw the job (module invariants): its closure is the
        // caller's, and so is the rest (an event a poll off every pool installed, no result).
        let f = unsafe {
            let f = Self::take_func(j);
            // The result is empty (nobody ran the closure): only an event may be there.
            if (*j).has_event() {
                (*j).free_event();
            }
            Self::dealloc(j, Some(w));
            f
        };
        // As a call of the waiting task (as `run_inline`), its panic unwinding from here.
        f()
    }

    /// # Safety
    /// `j` is a live job of this type whose closure the caller claimed.
    unsafe fn run_inline(j: *const Header<T>) {
        // SAFETY: the caller claimed the closure.
        let f = unsafe { Self::take_func(j) };
        // No finish of its own (as a `TaskFuture` run by its `get`): the waiting task runs
        // it as a call, so what it spawns joins the waiter's innermost finish and a stop of
        // the waiter's region stops it; either way its unwind is caught here and resumes in
        // the waiter (`Handle::take`).
        // SAFETY: the caller's count keeps the job alive.
        unsafe { (*j).finish(catch_unwind(AssertUnwindSafe(f))) };
    }

    /// # Safety
    /// `j` is a job of this type whose last count the caller gave back.
    unsafe fn free(j: *const Header<T>) {
        // SAFETY: nobody uses the job any more (per the contract).
        unsafe {
            // Every job's `execute` claims it (or finds it claimed) before it gives its
            // count back, so the closure is gone.
            debug_assert_eq!((*j).claimed.load(Ordering::Relaxed), 1);
            Header::drop_contents(j);
            let w = Worker::current();
            Self::dealloc(j, w.as_ref());
        }
    }

    /// Runs the claimed closure on `w` as the root of a finish of its own, and completes.
    ///
    /// # Safety
    /// `j` is a live job of this type whose closure the caller claimed.
    unsafe fn run_claimed(j: *const Header<T>, w: &Worker) {
        // SAFETY: the caller claimed the closure.
        let f = unsafe { Self::take_func(j) };
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
        // SAFETY: the caller's count keeps the job alive.
        unsafe { (*j).finish(r) };
    }

    /// # Safety
    /// `h` came from `make` (one count, which this call gives back) and is executed exactly
    /// once, by the worker that took it from its queue, the injector or a reply.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        let j = h as *const Header<T>;
        let panicked = |p| w.registry().hooks.panicked(p);
        let run = || {
            if mode == Mode::Discard {
                // SAFETY: `job_side` runs this only for the claimer.
                let f = unsafe { Self::take_func(j) };
                let dropped = catch_unwind(AssertUnwindSafe(|| drop(f)));
                // SAFETY: the job's count keeps it alive.
                unsafe {
                    (*j).finish(Err(Box::new(
                        "offshoot: the computation of a Handle was dropped unrun",
                    )))
                };
                if let Err(p) = dropped {
                    panicked(p);
                }
            } else {
                // SAFETY: as above.
                unsafe { Self::run_claimed(j, w) };
            }
        };
        // SAFETY: per the contract, the job is live and this call holds its count.
        unsafe { Self::job_side(j, run, panicked) };
    }

    /// The job's side of the handshake: claims the closure and, if that won, has `run` run
    /// it (and complete); then gives the job's count back and, if it was the last (the
    /// handle is gone), frees the job, the result nobody took with it — a panic there has
    /// nobody to go to but `panicked`.
    ///
    /// # Safety
    /// `j` is a live job of this type and the caller holds its count, which this gives back.
    unsafe fn job_side(j: *const Header<T>, run: impl FnOnce(), panicked: impl FnOnce(Payload)) {
        // SAFETY: per the contract the job is live until its count is given back.
        if unsafe { (*j).claim() } {
            run();
        }
        // SAFETY: as above; nothing is read after the count unless it was the last.
        if unsafe { Header::job_done(j) } {
            // SAFETY: the last count: nobody else uses the job.
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| unsafe { Self::free(j) })) {
                panicked(p);
            }
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
/// * **Started lazily on a worker.** Started from a task of the pool, the computation waits
///   in that worker's queue until an idle worker asks for work (at the task's next poll
///   point: a `join`, a spawn, a loop's split), the task ends or parks, or the handle is
///   waited for there, which then runs it as a call — so code that waits for what it
///   started pays about a call and a recycled task block (no lock, no wake-up). A task
///   that blocks its thread outside offshoot right after starting one (a `std::sync`
///   wait) may hold it back until it is released.
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
    /// The job, or null once this handle gave its count back (it returned the value).
    job: *const Header<T>,
    /// The job's operations (a promoted constant: `'static`).
    ops: *const Ops<T>,
    /// The waker slot of the completion's event this handle registered in, or
    /// [`NO_WAKER_SLOT`].
    waker_slot: u32,
    /// The value this handle may drop (through the job it frees).
    _value: PhantomData<T>,
}

// SAFETY: the handle moves its value out (or drops it) on whatever thread it is on, which
// `T: Send` allows; everything else it touches is the job's atomics and, once the phase is
// DONE, the result cell no one else reads (module invariants).
unsafe impl<T: Send> Send for Handle<T> {}
// SAFETY: through `&Handle` only the phase is read (`is_finished`, `Debug`).
unsafe impl<T: Send> Sync for Handle<T> {}
// Nothing of a handle is pinned: the value lives in the job, never in the handle.
impl<T> Unpin for Handle<T> {}

impl<T> Handle<T> {
    /// The handle of the fresh job `j` of closure type `F` (it takes the handle's count).
    fn of<F>(j: *const Header<T>) -> Handle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        Handle {
            job: j,
            ops: &Job::<F, T>::OPS,
            waker_slot: NO_WAKER_SLOT,
            _value: PhantomData,
        }
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
        // SAFETY: a non-null job is kept alive by this handle's count.
        self.job.is_null() || unsafe { (*self.job).phase() } != PENDING
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
    #[inline]
    pub fn wait(mut self) -> T {
        // The common case first, compiled into the caller: the job is still queued on this
        // thread's worker, at an end of its queue.
        if let Some(v) = self.take_back() {
            return v;
        }
        self.wait_slow(std::panic::Location::caller())
    }

    /// [`claim_or_park`](Handle::claim_or_park) for a handle passed by value, so that the
    /// waiting caller's handle never has its address taken (the compiler then keeps it in
    /// registers and sees which job type it holds).
    #[inline(never)]
    fn wait_slow(mut self, at: &'static std::panic::Location<'static>) -> T {
        self.claim_or_park(at)
    }

    /// If the job is still queued on the calling thread's worker, at an end of its queue:
    /// takes it back and calls its closure right here, returning its value. Nobody else ever
    /// saw the job, so this handle holds both counts and frees it.
    #[inline(always)]
    fn take_back(&mut self) -> Option<T> {
        let j = self.job;
        // SAFETY: a non-null current worker is run by this thread.
        let w = unsafe { Worker::current().as_ref() }?;
        if j.is_null() || !w.take_back_local_job(JobRef(j as *const JobHeader)) {
            return None;
        }
        self.job = ptr::null();
        // SAFETY: taken back from the calling thread's worker (module invariants).
        Some(unsafe { ((*self.ops).call_and_free)(j, w) })
    }

    /// The rest of a wait, once the job was not found at an end of this worker's queue: runs
    /// the closure inline if it is unclaimed and of this worker's pool, else waits for it.
    fn claim_or_park(&mut self, at: &'static std::panic::Location<'static>) -> T {
        assert!(
            !self.job.is_null(),
            "offshoot: a Handle was waited for after it returned its value"
        );
        let j = self.job;
        let w = Worker::current();
        if !w.is_null() {
            // SAFETY: a non-null current worker is run by this thread.
            let w = unsafe { &*w };
            // SAFETY: this handle's count keeps the job alive.
            let h = unsafe { &*j };
            if h.phase() == PENDING && ptr::from_ref(w.registry()) as usize == h.pool && h.claim() {
                // SAFETY: claimed just now; the count keeps the job alive.
                unsafe { ((*self.ops).run_inline)(j) };
            }
        }
        // SAFETY: as above.
        let h = unsafe { &*j };
        h.wait(|| crate::fiber::WaitOn::new("Handle", j).at(at));
        self.take()
    }

    /// Moves the value out (or resumes the panic) and gives this handle's count back. The
    /// phase is `DONE` (read with acquire or stronger).
    fn take(&mut self) -> T {
        let j = self.job;
        // SAFETY: this handle's count keeps the job alive; the phase is DONE and only this
        // handle takes the result, once (it gives its count back right after).
        let r = unsafe {
            debug_assert_ne!((*j).phase(), PENDING);
            (*j).take_result()
        };
        self.give_back();
        match r {
            Ok(v) => v,
            Err(p) => resume_unwind(p),
        }
    }

    /// Gives this handle's count back (if it still holds it), freeing the job if that was
    /// the last.
    #[inline(always)]
    fn give_back(&mut self) {
        let j = std::mem::replace(&mut self.job, ptr::null());
        // SAFETY: a non-null job holds this handle's count, given back here once; nothing
        // of the job is read after, unless it was the last count.
        if !j.is_null() && unsafe { Header::handle_done(j, self.waker_slot) } {
            // SAFETY: the last count: nobody else uses the job.
            unsafe { ((*self.ops).free)(j) };
        }
    }
}

impl<T> Future for Handle<T> {
    type Output = T;

    #[track_caller]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = &mut *self;
        assert!(
            !this.job.is_null(),
            "offshoot: a Handle was polled after it returned its value"
        );
        if !Worker::current().is_null() {
            // On a pool worker: never `Pending` (module invariants); it waits as `wait` does.
            let v = match this.take_back() {
                Some(v) => v,
                None => this.claim_or_park(std::panic::Location::caller()),
            };
            return Poll::Ready(v);
        }
        // SAFETY: this handle's count keeps the job alive.
        if unsafe { (*this.job).ready_or_wake(cx.waker(), &mut this.waker_slot) } {
            Poll::Ready(this.take())
        } else {
            Poll::Pending
        }
    }
}

impl<T> Drop for Handle<T> {
    #[inline(always)]
    fn drop(&mut self) {
        // Clears the waker and gives the count back; nothing here waits for the computation.
        self.give_back();
    }
}

impl<T> std::fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// Makes the job of `f` for `registry`'s pool and returns its handle: the job is queued on
/// the calling worker `w` if it is one of that pool's, else injected. Always inlined: the
/// call itself would be a fifth of a handle's cost.
#[inline(always)]
fn start<F, T>(registry: &Registry, w: *const Worker, f: F) -> Handle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Worker::check_not_isolated("spawn_async");
    // SAFETY: a non-null current worker is run by this thread.
    let w = unsafe { w.as_ref() };
    let j = Job::<F, T>::make(w, ptr::from_ref(registry) as usize, f);
    let handle = Handle::of::<F>(j);
    // The job's count travels with the job pointer; `execute` gives it back.
    let job = JobRef(j as *const JobHeader);
    match w {
        Some(w) if ptr::eq(w.registry(), registry) => {
            w.push_local_job(job);
            // A spawn is a poll point: a thief waiting for work gets the oldest queued job.
            w.poll();
        }
        _ => registry.inject(job),
    }
    handle
}

/// Starts `f` in the current pool — the pool of the calling worker, or the global pool
/// ([`ThreadPool::global`]) from any other thread — detached, and returns the owned
/// [`Handle`] of its value.
///
/// The computation is detached (no finish of the caller waits for it) and always runs: from
/// outside the pool it is queued for the pool's workers at once; from one of the pool's
/// workers it is queued on that worker, where an idle worker that asks for work takes it and
/// the worker runs it before it looks for other work, or the handle's wait takes it back and
/// runs it right there (as a join's second half). Run by a worker, it is the root of a
/// finish of its own: tasks it spawns are joined there. Await the handle from async code, or
/// [`wait`](Handle::wait) for it; see [`Handle`] for panics, drops and waits on a pool
/// worker.
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
#[inline]
pub fn spawn_async<F, T>(f: F) -> Handle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let w = Worker::current();
    if w.is_null() {
        start(ThreadPool::global().registry(), w, f)
    } else {
        // SAFETY: a non-null current worker is run by this thread; its registry owns it.
        start(unsafe { (*w).registry() }, w, f)
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
        start(self.registry(), Worker::current(), f)
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the handshakes between a handle's job and its handle (run with
    //! `scripts/loom.sh`): the claim (the job against a wait that runs the closure inline),
    //! the completion's phase write against the waker registration of a poll off every pool,
    //! the handle's drop against the completion, and the last owner's drop of the result.
    //! The job's side is `Job::job_side`, the very sequence `execute` runs (its closure run
    //! as `run_inline` runs it: a worker's `finish_root` is not modelled); the handle's side
    //! is the real `Handle` (its poll off every pool, its drop). Values count their drops and
    //! closures their runs, so a double run, a lost or double drop, or an unsynchronised
    //! access of the result cell (loom checks the cell) fails the model, and a lost wake-up
    //! deadlocks it, which loom reports.
    use super::{Handle, Header, Job, Payload};
    use loom::sync::atomic::AtomicUsize;
    use loom::sync::Arc;
    use loom::thread;
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::atomic::Ordering;
    use std::task::{Context, Poll, Waker};

    /// A value that counts its drops.
    struct Counted(u64, Arc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    type F = Box<dyn FnOnce() -> Counted + Send>;

    /// The job's address, shared with a model thread as the runtime shares it.
    #[derive(Clone, Copy)]
    struct JobPtr(*const Header<Counted>);
    // SAFETY: the protocol under test (the counts) keeps the job alive.
    unsafe impl Send for JobPtr {}

    /// A job whose closure counts its runs and returns a value that counts its drops, and
    /// its handle (no pool: its address is 0, nobody compares it here).
    fn job(runs: &Arc<AtomicUsize>, drops: &Arc<AtomicUsize>) -> (JobPtr, Handle<Counted>) {
        let (r, d) = (runs.clone(), drops.clone());
        let f: F = Box::new(move || {
            r.fetch_add(1, Ordering::SeqCst);
            Counted(7, d)
        });
        let j = Job::<F, Counted>::make(None, 0, f);
        (JobPtr(j), Handle::of::<F>(j))
    }

    /// Wakes a model thread parked in `block_on`.
    struct Unpark(thread::Thread);

    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }

    /// Polls `f` on this model thread until it is ready, parking between polls: a wake-up
    /// that never comes leaves the thread parked, a deadlock loom reports.
    fn block_on<Fut: Future + Unpin>(mut f: Fut) -> Fut::Output {
        let waker = Waker::from(std::sync::Arc::new(Unpark(thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(v) = Pin::new(&mut f).poll(&mut cx) {
                return v;
            }
            thread::park();
        }
    }

    /// The job's side, as a worker that took it runs it (`execute`).
    fn run_job(j: JobPtr) {
        // SAFETY: `j` holds the job's count, given back here once.
        unsafe {
            Job::<F, Counted>::job_side(
                j.0,
                || Job::<F, Counted>::run_inline(j.0),
                |_: Payload| panic!("a drop panicked"),
            )
        };
    }

    /// Models a job run by another thread (`run_job`) against `handle_side`, this thread's
    /// use of the handle (it ends with the handle gone, the value taken or not): the
    /// closure runs once and its value is dropped once, whoever drops it.
    fn model(handle_side: fn(JobPtr, Handle<Counted>)) {
        loom::model(move || {
            let (runs, drops) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
            let (j, h) = job(&runs, &drops);
            let t = thread::spawn(move || run_job(j));
            handle_side(j, h);
            t.join().unwrap();
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            assert_eq!(drops.load(Ordering::SeqCst), 1);
        });
    }

    /// The job runs on another thread while the handle is awaited off every pool: its
    /// completion races the poll's registration of the waker; the value arrives.
    #[test]
    fn completion_races_the_awaiting_poll() {
        model(|_, h| assert_eq!(block_on(h).0, 7));
    }

    /// A wait on a worker of the job's pool claims the closure to run it inline while a
    /// worker that took the job runs it: exactly one of them runs it, and the handle gets
    /// the value either way (from its own run, or by waiting for the job's).
    #[test]
    fn the_inline_claim_races_the_job() {
        model(|j, h| {
            // SAFETY: the handle's count keeps the job alive; the claim decides the runner.
            unsafe {
                if (*j.0).claim() {
                    Job::<F, Counted>::run_inline(j.0);
                }
            }
            assert_eq!(block_on(h).0, 7);
        });
    }

    /// The handle is polled once (leaving its waker) and dropped while the job completes:
    /// whichever gives the last count back drops the value, and the job's wake of a
    /// forgotten waker is harmless.
    #[test]
    fn a_dropped_handle_races_the_completion() {
        model(|_, mut h| {
            let mut cx = Context::from_waker(Waker::noop());
            if let Poll::Ready(v) = Pin::new(&mut h).poll(&mut cx) {
                drop(v);
            }
            drop(h);
        });
    }
}
