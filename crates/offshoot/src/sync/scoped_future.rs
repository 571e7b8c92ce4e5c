//! Scoped futures: [`with_future`] and its handle [`ScopedFuture`].
//!
//! `with_future(f, body)` plants `f` as a seed in its own stack frame — the same seed as
//! the untaken branch of a `join` (`join.rs`): a frame on the worker's chain that an idle
//! worker may ask for — and calls `body` with a handle. [`ScopedFuture::get`]:
//! * by the task that called `with_future`, while nobody took the seed: marks the seed used
//!   (one store to its table), runs `f` right there and keeps the value in the frame;
//! * by any other task or thread (the handle is `Sync`; `body` may lend it to the tasks it
//!   starts), or by the creator after a thief took the seed: parks until whoever runs `f`
//!   ends it.
//!
//! If `body` returns and nobody got the value, `f` runs then (or the thief is waited for),
//! so a future always runs. The path of a future got by its creator is therefore: the seed's
//! stores and push (as a join's), a poll, a compare of the task identity and of the table,
//! one store to the table, the call of `f`, the value, one completion store, the pop. No
//! allocation, no read-modify-write.
//!
//! Invariants:
//! * The seed's frame is pushed before `body` runs and popped after it returns or unwinds,
//!   in LIFO order with the chain (what `body` pushes it pops, also while unwinding).
//! * The seed's table says who has `f`: [`FutureSeed::VTABLE`] — still planted; only the
//!   creating task takes it back, on this worker's thread; `None` — handed out by `offer`:
//!   the thief runs it under the join protocol (`job.rs`) and sets the header's `done`
//!   last; [`USED`] — the creating task took it (and runs or ran it). So `f` runs at most
//!   once, and only its runner writes the value and completes the handle (`completion.rs`).
//! * Nothing touches the frame once `with_future` has returned or unwound: it leaves only
//!   after `f` ended or was dropped unrun, and after a thief set `done`. Getters other than
//!   the creator borrow the handle from `body`, so they are gone before `body` returns.
//! * Failure is `join`'s: the first of `f` and `body` to fail wins; the other is stopped at
//!   its next poll, or — `f` not started — never runs; the winner's panic resumes from
//!   `with_future` (a creator's `get` of a failed stolen `f` unwinds `body` as stopped).
//! * The creator waits for a thief as a join does (`wait_for_job`, taking work back from
//!   the thief) only at the end, after `body`: a job run there must have no unstolen seed
//!   below it, which holds after `body` as after a join's `a` (requests take the oldest
//!   seed). In the middle of `body` younger seeds may be below the wait, so there it parks.

use crate::atomics::{AtomicPtr, AtomicU8};
use std::cell::{Cell, UnsafeCell};
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;

use super::completion::{Completion, DONE, FAILED, PENDING};
use super::Event;
use crate::finish::FinishState;
use crate::frame::{always, never, SeedHead};
use crate::frame::{never_offer, no_work, Frame, FrameKind, FrameVTable};
use crate::job::{run_as_thief_with, thief_done, thief_proxy, JobHeader, JobRef, Mode};
use crate::join::{hand_out_seed, join_stolen_seed};
use crate::unwind::raise_stopped;
use crate::worker::Worker;

/// The handle [`with_future`] lends to its body: [`ScopedFuture::get`] returns the value of
/// the future's closure, running it right there when the creating task asks first.
///
/// The handle is `Sync`: tasks that `body` starts (in a `scope`, a `join`, ...) may get the
/// value too; they park until it is ready.
pub struct ScopedFuture<T> {
    phase: AtomicU8,
    event: AtomicPtr<Event<()>>,
    value: UnsafeCell<MaybeUninit<T>>,
    /// The seed this handle belongs to (a pointer derived from the whole seed).
    seed: Cell<*const Frame>,
    /// Takes the seed back for the creating task (the seed's type is erased here).
    take: unsafe fn(*const Frame) -> Taken,
    /// The creating task: the only one that may take the seed back (task identities are
    /// unique in the process, and a task runs on one worker).
    task: u64,
}

// SAFETY: the value is written once, by the runner of `f` (which may be another worker:
// `T: Send`), before the release-or-stronger completion, and only read (shared: `T: Sync`)
// after an acquire read of it. The `Cell`s are touched only by the creating task, which
// is checked (task identity) before each use.
unsafe impl<T: Send + Sync> Sync for ScopedFuture<T> {}

impl<T> Completion for ScopedFuture<T> {
    fn phase_word(&self) -> &AtomicU8 {
        &self.phase
    }
    fn event_word(&self) -> &AtomicPtr<Event<()>> {
        &self.event
    }
}

impl<T> Drop for ScopedFuture<T> {
    fn drop(&mut self) {
        if self.phase_relaxed() == DONE {
            // SAFETY: DONE says the value was written; this is its one drop.
            unsafe { (*self.value.get()).assume_init_drop() };
        }
        // SAFETY: the handle is being dropped: nobody waits on or completes it any more.
        unsafe { self.free_event() };
    }
}

impl<T> std::fmt::Debug for ScopedFuture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopedFuture")
            .field("ready", &self.is_ready())
            .finish()
    }
}

/// What the creator's attempt to take the seed back found.
enum Taken {
    /// It ran `f`, which returned: the value is there (a panic of `f` unwinds instead).
    Ran,
    /// A thief has it: wait for the thief.
    Stolen,
    /// Already used by the creator (running, or ran).
    Used,
}

impl<T> ScopedFuture<T> {
    /// The value, once the future's closure has returned: run right here if the creating
    /// task asks while nobody has started it, else waited for (parking this task; blocking,
    /// outside every pool).
    ///
    /// # Panics
    /// If the closure panicked or was stopped: in the creating task with the closure's own
    /// panic (when it was the first failure of the two sides), elsewhere with a message.
    ///
    /// ```
    /// let v = offshoot::sync::with_future(|| 6 * 7, |fut| *fut.get() + 1);
    /// assert_eq!(v, 43);
    /// ```
    #[track_caller]
    pub fn get(&self) -> &T {
        let at = std::panic::Location::caller();
        let mut phase = self.phase();
        let mut stolen = false;
        if phase == PENDING && self.is_creator() {
            // SAFETY: `seed` was set when the handle was lent and the seed outlives it; the
            // caller is the creating task on its worker's thread (just checked).
            match unsafe { (self.take)(self.seed.get()) } {
                // SAFETY: `f` returned here and its value was written (the call-order path:
                // no need to read back the phase just completed).
                Taken::Ran => return unsafe { (*self.value.get()).assume_init_ref() },
                Taken::Used => {}
                Taken::Stolen => stolen = true,
            }
        }
        if phase == PENDING {
            // The creator too parks here rather than wait as a join does (`wait_for_job`):
            // younger seeds of `body` may sit on the chain below this call, and a job run
            // while waiting at a join must have none below it (their counts would go to the
            // job's). Parked, those seeds stay offerable from the parked chain.
            phase = self.wait(|| crate::fiber::WaitOn::new("ScopedFuture", self).at(at));
        }
        match phase {
            // SAFETY: DONE (acquire) says the value was written; it stays until the handle
            // is dropped, which this borrow prevents.
            DONE => unsafe { (*self.value.get()).assume_init_ref() },
            // The creator's closure, run by a thief, failed: `body` unwinds as stopped and
            // the closure's own panic (if it failed first) comes out of `with_future`.
            _ if stolen => raise_stopped(),
            _ => panic!("offshoot: the future's computation panicked or was stopped"),
        }
    }

    /// Writes the closure's value and completes the handle. Called once, by whoever ran
    /// the closure (the creator, or the thief before it sets `done`).
    fn put(&self, v: T) {
        // SAFETY: only the runner of the closure writes the value, once, before completing;
        // nobody reads it before `complete(DONE)`.
        unsafe { (*self.value.get()).write(v) };
        self.complete(DONE);
    }

    /// The value, if it is ready (never runs the closure nor waits).
    ///
    /// ```
    /// offshoot::sync::with_future(|| 1, |fut| {
    ///     assert_eq!(fut.try_get(), None); // not started: it waits for a get or a thief
    ///     fut.get();
    ///     assert_eq!(fut.try_get(), Some(&1));
    /// });
    /// ```
    pub fn try_get(&self) -> Option<&T> {
        // SAFETY: as in `get`.
        (self.phase() == DONE).then(|| unsafe { (*self.value.get()).assume_init_ref() })
    }

    /// Whether the closure has ended (with a value or a failure).
    ///
    /// ```
    /// offshoot::sync::with_future(|| 6 * 7, |fut| {
    ///     assert_eq!(*fut.get(), 42);
    ///     assert!(fut.is_ready());
    /// });
    /// ```
    pub fn is_ready(&self) -> bool {
        self.phase() != PENDING
    }

    #[inline]
    fn is_creator(&self) -> bool {
        let w = Worker::current();
        // SAFETY: a non-null current worker is run by this thread.
        !w.is_null() && unsafe { (*w).task_id() } == self.task
    }
}

/// The seed [`with_future`] plants. `#[repr(C)]` with the frame first and the job header
/// second, like a join seed: the chain casts `*const Frame` back to it, and a handed-out
/// seed (table `None`) is read as a stolen join seed, whose header sits at that offset.
#[repr(C)]
struct FutureSeed<F, T> {
    frame: Frame,
    /// Initialised by `offer`, only if the seed is handed out.
    header: UnsafeCell<MaybeUninit<JobHeader>>,
    f: UnsafeCell<ManuallyDrop<F>>,
    fut: ScopedFuture<T>,
}

// Read as a join seed once handed out: its header must sit where `SeedHead` says.
const _: () = assert!(
    std::mem::offset_of!(FutureSeed<(), ()>, header) == std::mem::offset_of!(SeedHead, header)
);

/// The table of a seed its creator took back: no work, never cancelled.
static USED: FrameVTable = FrameVTable {
    kind: FrameKind::Seed,
    has_work: no_work,
    offer: never_offer,
    cancelled: never,
    answer: None,
    export: None,
};

/// Marks the handle failed if the closure unwinds (a panic, or a stop).
struct FailOnUnwind<'a, T>(&'a ScopedFuture<T>);

impl<T> Drop for FailOnUnwind<'_, T> {
    fn drop(&mut self) {
        self.0.complete(FAILED);
    }
}

impl<F, T> FutureSeed<F, T>
where
    F: FnOnce() -> T + Send,
    T: Send + Sync,
{
    const VTABLE: FrameVTable = FrameVTable {
        kind: FrameKind::Seed,
        has_work: always,
        offer: Self::offer,
        cancelled: never,
        answer: None,
        export: None,
    };

    /// Runs `f` and ends the handle with its value, or as failed if it unwinds.
    fn run(fut: &ScopedFuture<T>, f: F) {
        let guard = FailOnUnwind(fut);
        let v = f();
        std::mem::forget(guard);
        fut.put(v);
    }

    /// Hands the seed out to `thief`. Runs on the owner, at a poll.
    ///
    /// # Safety
    /// `f` is the frame of this live `FutureSeed<F, T>`, not handed out yet, on the calling
    /// worker's chain (running or parked); called by that owner at a poll after `has_work`,
    /// once per seed.
    unsafe fn offer(f: *const Frame, w: &Worker, thief: usize, ctx: *const FinishState) -> JobRef {
        // SAFETY: this table is installed only on `FutureSeed<F, T>`s, which are laid out
        // as `hand_out_seed` requires (frame, then header cell).
        unsafe {
            let seed = &*(f as *const Self);
            hand_out_seed(f, &seed.header, Self::execute, w, thief, ctx)
        }
    }

    /// Runs `f` on the thief.
    ///
    /// # Safety
    /// `h` is the header of a live `FutureSeed<F, T>` that `offer` handed to the calling thief
    /// `w`, in `Mode::Stolen`, executed once; its creator does not leave `with_future` before
    /// `done` is set.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        debug_assert_eq!(mode, Mode::Stolen, "a future seed is only run by a thief");
        let seed = (h as *const u8).wrapping_sub(std::mem::offset_of!(Self, header)) as *const Self;
        // SAFETY: `h` is the header of a live, handed-out seed; its creator does not leave
        // `with_future` before the thief set `done`, and `f` is the thief's to take.
        unsafe {
            let seed = &*seed;
            let f = ManuallyDrop::take(&mut *seed.f.get());
            let fut = &seed.fut;
            // Not `run`: its completion on unwinding would come before `run_as_thief`
            // records `f`'s failure, and a creator that saw it could fail first with its
            // own panic ("the future's computation panicked") and win over `f`'s.
            let proxy = thief_proxy(h, w);
            proxy.enter(w);
            run_as_thief_with(h, w, f, |v| fut.put(v), || fut.complete(FAILED));
            thief_done(h, w, &proxy);
        }
    }

    /// Takes a still planted seed back for its creator on `w` (its worker): marks it used,
    /// uncounts it and returns `f`, now the caller's to run or drop.
    fn claim(&self, w: &Worker) -> F {
        debug_assert!(matches!(self.frame.vtable.get(), Some(t) if !ptr::eq(t, &USED)));
        self.frame.vtable.set(Some(&USED));
        w.count_seed(-1);
        // SAFETY: the seed was planted (not handed out, not used), so `f` is there; marking
        // it used makes this the one take.
        unsafe { ManuallyDrop::take(&mut *self.f.get()) }
    }

    /// The creator's `get`: takes the seed back if it is still planted and runs `f`.
    ///
    /// # Safety
    /// `f` is this seed's frame; the caller is its creating task on its worker's thread.
    unsafe fn take(f: *const Frame) -> Taken {
        // SAFETY: per the contract.
        let seed = unsafe { &*(f as *const Self) };
        match seed.frame.vtable.get() {
            None => Taken::Stolen,
            Some(t) if ptr::eq(t, &USED) => Taken::Used,
            Some(_) => {
                // SAFETY: the creator runs on its worker's thread (per the contract).
                let f = seed.claim(unsafe { &*Worker::current() });
                Self::run(&seed.fut, f);
                Taken::Ran
            }
        }
    }

    /// The end of `with_future`, on the creator: make sure `f` ended (or drop it unrun if
    /// `body` failed first) and decide what comes out.
    fn end<R>(&self, w: &Worker, r: std::thread::Result<R>) -> R {
        match self.frame.vtable.get() {
            None => self.finish_stolen(w, r),
            Some(t) if ptr::eq(t, &USED) => r.unwrap_or_else(|p| resume_unwind(p)),
            Some(_) => {
                let f = self.claim(w);
                match r {
                    Ok(r) => {
                        // Nobody got it: it runs now. A panic of `f` drops `r` and goes on.
                        Self::run(&self.fut, f);
                        r
                    }
                    Err(p) => {
                        // `body` failed before anyone took `f`: it never starts. A panic of
                        // its destructor comes second.
                        self.fut.complete(FAILED);
                        let _ = catch_unwind(AssertUnwindSafe(|| drop(f)));
                        resume_unwind(p)
                    }
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn finish_stolen<R>(&self, w: &Worker, r: std::thread::Result<R>) -> R {
        // SAFETY: handed out: `offer` initialised the header.
        let hdr = unsafe { (*self.header.get()).assume_init_ref() };
        // The value stays in the handle (its phase says it is there); nothing to read.
        join_stolen_seed(w, hdr, r, || ()).0
    }
}

/// Runs `body` with a future of `f`: `f` may run in parallel with `body` (an idle worker
/// may take it), and [`ScopedFuture::get`] returns its value. When `body`'s own task gets
/// the value before anyone took `f`, `f` runs right there, like the untaken branch of a
/// `join` — so a future used in call order costs about what a join costs, with no
/// allocation. `f` always runs: if nobody got the value when `body` returns, it runs (or is
/// waited for) then.
///
/// Unlike [`spawn_future`](super::spawn_future), the future cannot outlive `body` — which
/// is why it is cheap, and why `f` may borrow from the caller. The handle is `Sync`: tasks
/// started in `body` may get the value as well (they park until it is ready).
///
/// Failure is `join`'s: if `f` or `body` panics, the other is stopped at its next poll
/// point (or `f` never starts), and the first panic resumes from `with_future` — or from
/// the creator's `get`, which unwinds `body`. Other getters panic with a message.
///
/// Outside every pool, it enters the global pool, like [`join`](crate::join).
///
/// ```
/// use offshoot::sync::with_future;
///
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     with_future(|| fib(n - 1), |a| {
///         let b = fib(n - 2);
///         *a.get() + b
///     })
/// }
/// assert_eq!(offshoot::ThreadPool::builder().workers(2).build().unwrap().run(|| fib(20)), 6765);
/// ```
#[inline]
pub fn with_future<F, T, B, R>(f: F, body: B) -> R
where
    F: FnOnce() -> T + Send,
    T: Send + Sync,
    B: FnOnce(&ScopedFuture<T>) -> R + Send,
    R: Send,
{
    Worker::check_not_isolated("with_future");
    let w = Worker::current();
    if w.is_null() {
        return with_future_outside(f, body);
    }
    // SAFETY: a non-null current worker belongs to a live registry and is run by this thread.
    let w = unsafe { &*w };
    w.count_seed(1);
    let seed = FutureSeed::<F, T> {
        frame: Frame {
            prev: w.head(),
            vtable: Cell::new(Some(&FutureSeed::<F, T>::VTABLE)),
        },
        header: UnsafeCell::new(MaybeUninit::uninit()),
        f: UnsafeCell::new(ManuallyDrop::new(f)),
        fut: ScopedFuture {
            phase: AtomicU8::new(PENDING),
            event: AtomicPtr::new(ptr::null_mut()),
            value: UnsafeCell::new(MaybeUninit::uninit()),
            seed: Cell::new(ptr::null()),
            take: FutureSeed::<F, T>::take,
            // Code on a worker always runs as some task; should it not, no `get` takes the
            // seed back (they wait for a thief or the end instead).
            task: match w.task_id() {
                0 => u64::MAX,
                id => id,
            },
        },
    };
    // Derived from the whole seed (repr(C), frame first), so the chain's `*const Frame` and
    // the handle's `seed` may be cast back to it.
    let fp = &seed as *const FutureSeed<F, T> as *const Frame;
    seed.fut.seed.set(fp);
    w.push(fp);
    let r = catch_unwind(AssertUnwindSafe(|| {
        w.poll();
        body(&seed.fut)
    }));
    w.pop(fp);
    seed.end(w, r)
}

#[cold]
fn with_future_outside<F, T, B, R>(f: F, body: B) -> R
where
    F: FnOnce() -> T + Send,
    T: Send + Sync,
    B: FnOnce(&ScopedFuture<T>) -> R + Send,
    R: Send,
{
    crate::pool::ThreadPool::global().run(|| with_future(f, body))
}
