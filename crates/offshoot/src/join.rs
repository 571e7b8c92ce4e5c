//! `join`: a fork that costs about a call.
//!
//! `join(a, b)` builds a [`JoinSeed`] for `b` in its own stack frame, links it at the head
//! of the worker's frame chain, polls once, runs `a`, unlinks the seed and — if nobody took
//! it — calls `b` inline. That path is: four thread-local loads (the seed count, the limit
//! word, the worker, the chain's head), the count's two tests, a null test of the worker,
//! the count's increment, three stores (the seed's link, its table, the chain head), `b`'s
//! captures, one relaxed load of the mailbox, the call of `a`, one load and one store
//! (unlink, in the thread-local: the worker's address is not needed after `a`), one null
//! test of the seed's table (was the seed handed out?), the count's decrement and the call
//! of `b`. No allocation, no atomic read-modify-write, no fence.
//!
//! Joins deep in a recursion take a shorter path still: when the worker already holds
//! `SEED_LIMIT` (`worker/mod.rs`) unstolen seeds, the join plants none and does not poll
//! either — two thread-local loads (the seed count and the limit word), one compare, and
//! two plain calls. The limit word (`limit_word.rs`) is `SEED_LIMIT` while nothing was sent
//! to the worker; a thief's request or a stop raises it above every count, so the next
//! join takes `join_raised`, which re-arms it and polls: the poll is where it always was,
//! at the next join, but paid only when there is something to read. Requests always take
//! the *oldest* seed, so the seeds a worker already has go before any younger one could; as
//! soon as one is taken or popped, the next join plants again. How many joins that spares
//! depends on the shape of the recursion: the count at a join is the number of enclosing
//! joins whose first side is still running, so in fib most joins plant none, while in
//! n-queens, whose first branches are often shallow dead ends, many do
//! (`docs/DESIGN-NOTES.md` has the shares measured).
//!
//! Where that body is compiled depends on the closures' size, nothing else (`join`'s first,
//! compile-time, test). Two narrow closures (at most two words each, so passed in registers:
//! `fib`'s `|| fib(n - 1)`, a tree walk's `|| sum(left)`) go to `join_narrow`, an out-of-line
//! copy of the body: the caller's function, then only a leaf test and that call, is inlined
//! into the closures, so `join_narrow` is the recursive function and a leaf (`fib(1)`, an
//! empty subtree) is a test at the call site instead of a call with its prologue; callgrind,
//! user-shaped kernels, 1 worker: fib(27) 48.3 → 37.8 instructions per fork (serial 20.2),
//! tree-sum 78.0 → 59.5 (serial 35.0). Wider closures (`nqueens`' six captured references,
//! `knapsack`'s five) get the body inlined into the caller: passed to a call they would go
//! through memory, and out of line the same kernels cost 40–50% more per fork (measured in
//! issue 43).
//!
//! All of this is compiled into the caller's crate however that crate is built (no LTO, 16
//! codegen units): `join` and the path it takes are generic or `#[inline(always)]`, the
//! thread-locals are `const`-initialised (a plain `%fs`-relative load, no lazy-init test),
//! and everything that is not on the path (`join_outside`, `join_raised`, a stolen seed's
//! end, the poll's slow side) is a `#[cold]` out-of-line call. The closures are moved into
//! memory only on the paths that need them there (the seed, `join_outside`,
//! `join_raised`), so on the shorter path their captures stay in registers.
//!
//! When a thief asks, the victim (at a poll) hands out its **oldest** seed: it initialises
//! the seed's job header and clears the seed's table (`None`: now it behaves as
//! `STOLEN_SEED`). The thief runs `b`
//! in place and writes the result into the victim's frame; the victim, at the join, waits by
//! taking work back from that thief only (`Worker::wait_for_job`).
//!
//! Invariants:
//! * The seed's storage lives in `join_in_worker`'s frame, which is not left — by return or
//!   by unwinding — while a thief may still touch it: every path out of a stolen join goes
//!   through `wait_for_job`, which returns only after the thief set `done`.
//! * `b` is run at most once: inline by the owner if the seed is still unstolen when `a`
//!   ends, or by the thief; it is dropped unrun if `a` failed before it was taken. The
//!   owner keeps a bitwise copy of `b` beside the seed's (so that a wide `b`'s captures need
//!   not be read back from the seed); of the two copies exactly one is ever run or dropped,
//!   the other is forgotten.
//! * Failure: the first side to fail wins (`failed` compare-and-swap); the other side is
//!   stopped at its next poll; the winner's payload resumes in the caller once both sides
//!   are finished.

use std::cell::{Cell, UnsafeCell};
use std::mem::{ManuallyDrop, MaybeUninit};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::Ordering;

use crate::caught::Caught;
use crate::finish::FinishState;
use crate::frame::{always, header_of_frame, never, Frame, FrameKind, FrameVTable, SeedHead};
use crate::job::{
    cancel_job, run_as_thief, settle_job, thief_done, thief_proxy, JobHeader, JobRef, Mode,
    Settled, FAILED_A,
};
use crate::unwind::{raise_stopped, ErrMarker};
use crate::worker::Worker;

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// `b` is not turned into a task when `join` is called: it is planted as a *seed* that an
/// idle worker may ask for while `a` runs. If nobody asks, `b` runs right after `a` on the
/// same thread, like a plain call. Inside a pool `join` runs on the current worker; outside
/// every pool it enters the global pool (see [`ThreadPool::global`](crate::ThreadPool::global)).
///
/// # Waiting between the two sides
///
/// `b` is not guaranteed to start before `a` has returned, as in the serial program: when the worker
/// already offers enough older work to idle workers, `join` plants no seed and simply calls
/// `a`, then `b` (that is what keeps a fork as cheap as a call). So `a` must not wait for
/// something that only `b` does — a consumer waiting for its producer — or it waits for
/// ever (the deadlock watch then reports it, pointing here). Either side may wait for work
/// started elsewhere; to have one side wait for the other, start the side that is waited
/// for as a task, which is always offered:
///
/// ```
/// use offshoot::sync::Promise;
/// let p = Promise::new();
/// let got = offshoot::scope(|s| {
///     s.spawn(|_| p.put(7).unwrap()); // the producer, a task
///     *p.get() // the consumer parks until the task has run
/// });
/// assert_eq!(got, 7);
/// ```
///
/// # Panics
///
/// If `a` or `b` panics, the first panic wins: the other closure is stopped at its next
/// poll point (or never started), and once both are finished the winning panic resumes
/// in the caller with its own payload.
///
/// # Example
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (x, y) = offshoot::join(|| fib(n - 1), || fib(n - 2));
///     x + y
/// }
/// assert_eq!(fib(20), 6765);
/// ```
// Always inlined: it is only the choice of where the body goes, and for wide closures the
// body must be inlined into the caller (`#[inline]` alone left knapsack's `join` out of line
// in the bench crate, its closures passed through memory: 106.9 -> 119.6 instructions per
// fork).
#[inline(always)]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if narrow::<A>() && narrow::<B>() {
        join_narrow(a, b)
    } else {
        join_body(a, b)
    }
}

/// Whether a closure is passed in registers (at most two words): `join`'s sides are then
/// given to the out-of-line [`join_narrow`].
const fn narrow<F>() -> bool {
    std::mem::size_of::<F>() <= 2 * std::mem::size_of::<usize>()
}

/// [`join`] of two narrow closures, out of line (but still compiled in the caller's crate:
/// it is generic). Inlined into the caller, the join makes the caller's function the
/// recursive one, so each leaf of a recursion (`fib(0)`, an empty subtree) is a real call
/// of it, with its prologue, and the captured locals are stored before its leaf test; here
/// the caller's function — now only its leaf test and this call — is inlined into the
/// closures instead, so this function is the recursive one and a leaf is a test at the call
/// site. The closures arrive in registers. Wide closures stay inlined (`join_body`): passed
/// to a call they would go through memory, and their captures read back from it.
#[inline(never)]
fn join_narrow<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_body(a, b)
}

/// The body of [`join`]: the no-seed path, then the planting one (see the module docs).
#[inline(always)]
fn join_body<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if Worker::plants_none() {
        // Enough older seeds wait for thieves, and nothing was sent to this worker since it
        // last polled (its limit word would be raised): this join runs as two plain calls.
        // Thieves take the oldest seed first, so a younger one would only be taken after
        // all of those; by then this join has usually returned.
        let ra = a();
        return (ra, b());
    }
    if Worker::seeds_full() {
        // The count has reached the limit but the limit word was raised: a request or a
        // stop came, or the count changed or carries a mark. A tuple built here, as for
        // `join_outside` below.
        return join_raised((a, b));
    }
    let w = Worker::current();
    if w.is_null() {
        // Moved into a tuple built here, not passed as two arguments: a closure argument
        // larger than two registers is passed by pointer to the caller's own copy, which
        // would then have to be in memory on every path — the compiler does not sink those
        // stores into this cold branch. Built here, the copy is made only here, and on the
        // other paths the closures' captures stay in registers.
        return join_outside((a, b));
    }
    // SAFETY: a non-null current worker belongs to a live registry and is run by this thread.
    unsafe { join_in_worker(&*w, a, b) }
}

/// `join` outside every pool: the whole join runs in the global pool.
#[cold]
#[inline(never)]
fn join_outside<A, B, RA, RB>((a, b): (A, B)) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    crate::pool::ThreadPool::global().run(|| join(a, b))
}

/// `join` with at least `SEED_LIMIT` seeds counted (or a marked count) and a raised limit
/// word (`limit_word.rs`): polls, and re-arms the limit first when the count is a plain
/// one. The join then runs as two plain calls, as on the no-seed path.
#[cold]
#[inline(never)]
fn join_raised<A, B, RA, RB>((a, b): (A, B)) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // An isolated section marks itself with a count above every real one (on any thread):
    // a join there is an error, raised before the worker is touched. The workers of a pool
    // that measures work and span mark theirs too (`metrics/`). A marked count keeps its
    // limit raised, so every join comes here.
    if Worker::marked() {
        return join_marked(a, b);
    }
    // SAFETY: counted seeds mean that this thread runs a worker (`seeds_full`; the isolated
    // mark, the one exception, was ruled out above), which belongs to a live registry.
    let w = unsafe { &*Worker::current() };
    // Re-armed before the poll reads the mailbox, so a request that comes after that read
    // raises the word again (`limit_word.rs`, invariant 2).
    w.rearm_limit();
    w.poll();
    let ra = a();
    (ra, b())
}

/// `join` on a thread whose seed count carries a mark: inside an `isolated` section (an
/// error), or on a worker of a pool that measures work and span.
fn join_marked<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    Worker::check_not_isolated("join");
    // SAFETY: a marked count other than the isolated one is set only on a worker's thread
    // (`Worker::run`), whose worker belongs to a live registry.
    let w = unsafe { &*Worker::current() };
    join_metered(w, a, b)
}

/// A pointer that a closure may carry to another thread: the `join` that owns the pointee
/// outlives both sides (see the module invariants).
struct SendPtr<T>(*mut T);
// SAFETY: see the type's docs; each pointee is written by one side and read by the join
// after both sides finished.
unsafe impl<T> Send for SendPtr<T> {}

/// `join` on a worker of a pool that measures work and span (`metrics/`): both sides start
/// from the clock at the call; afterwards the clock is their join (the longer span, both
/// works). The second side begins a strand of its own, on whichever worker runs it.
fn join_metered<A, B, RA, RB>(w: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let c0 = w.meter().checkpoint();
    let mut ca = crate::metrics::Clock::ZERO;
    // The second side's end, and whether it ran on the joining worker.
    let mut cb = (crate::metrics::Clock::ZERO, true);
    let (pa, pb) = (SendPtr(&mut ca as *mut _), SendPtr(&mut cb as *mut _));
    let a2 = move || {
        let pa = pa;
        let r = a();
        // SAFETY: `ca` outlives the join; only this side writes it. This side runs on the
        // joining thread, whose worker is current.
        unsafe { *pa.0 = (*Worker::current()).meter().checkpoint() };
        r
    };
    let joiner = w as *const Worker as usize;
    let b2 = move || {
        let pb = pb;
        // SAFETY: whichever worker runs this side is current on its thread.
        let here = unsafe { &*Worker::current() };
        // On the joining worker this side runs right after the first one, whose end was
        // just read; on a thief it begins a strand of its own.
        let inline = here as *const Worker as usize == joiner;
        let saved = if inline {
            here.meter().begin_inline(c0)
        } else {
            here.meter().begin(c0)
        };
        let r = b();
        // SAFETY: as above (a parked side resumes on the worker that ran it); `cb` outlives
        // the join and only this side writes it.
        unsafe { *pb.0 = ((*Worker::current()).meter().end(saved), inline) };
        r
    };
    let r = if w.seed_count() >= crate::worker::SEED_LIMIT {
        w.poll();
        let ra = a2();
        (ra, b2())
    } else {
        // SAFETY: `w` is the current worker (the caller's contract).
        unsafe { join_in_worker(w, a2, b2) }
    };
    // SAFETY: the joining thread's worker is current (this task resumes where it parked).
    let w = unsafe { &*Worker::current() };
    let joined = crate::metrics::Clock::join(c0, ca, cb.0);
    if !cb.1 {
        // The wait for the thief is nobody's time.
        w.meter().set(joined);
    } else {
        // `b` ended here just now, reading the time.
        w.meter().set_fresh(joined);
    }
    r
}

/// Like [`join`], for closures that can fail: the first `Err` (or panic) wins, the other
/// side is stopped at its next poll point (or never started), and the winner is returned
/// (or resumed) once both sides are finished.
///
/// ```
/// let r: Result<(u32, u32), String> = offshoot::try_join(
///     || Ok(1),
///     || Err("no".to_string()),
/// );
/// assert_eq!(r, Err("no".to_string()));
/// ```
pub fn try_join<A, B, RA, RB, E>(a: A, b: B) -> Result<(RA, RB), E>
where
    A: FnOnce() -> Result<RA, E> + Send,
    B: FnOnce() -> Result<RB, E> + Send,
    RA: Send,
    RB: Send,
    E: Send,
{
    let a_err = ErrSlot::<E>::new();
    let b_err = ErrSlot::<E>::new();
    let r = catch_unwind(AssertUnwindSafe(|| {
        join(
            || a().unwrap_or_else(|e| a_err.fail(e)),
            || b().unwrap_or_else(|e| b_err.fail(e)),
        )
    }));
    match r {
        Ok(v) => Ok(v),
        Err(p) => match p.downcast::<ErrMarker>() {
            Ok(m) if m.0 == a_err.addr() => Err(a_err.take()),
            Ok(m) if m.0 == b_err.addr() => Err(b_err.take()),
            Ok(m) => resume_unwind(m),
            Err(p) => resume_unwind(p),
        },
    }
}

/// Holds the error of one side of a `try_join`. Written once, by the thread that ran that
/// side, before the marker unwinds; read by the caller after the join has finished (the
/// join's completion orders the two).
struct ErrSlot<E>(UnsafeCell<Option<E>>);

// SAFETY: see the type's docs: one writer, then one reader after a synchronising join.
unsafe impl<E: Send> Sync for ErrSlot<E> {}

impl<E> ErrSlot<E> {
    fn new() -> Self {
        ErrSlot(UnsafeCell::new(None))
    }
    fn addr(&self) -> usize {
        self as *const Self as usize
    }
    fn fail(&self, e: E) -> ! {
        // SAFETY: only the side owning this slot writes it, once, and nobody reads it
        // before the join has finished.
        unsafe { *self.0.get() = Some(e) };
        resume_unwind(Box::new(ErrMarker(self.addr())))
    }
    fn take(&self) -> E {
        // SAFETY: the join has finished, so the writer is done.
        unsafe { (*self.0.get()).take() }.expect("offshoot: try_join lost the error it reported")
    }
}

/// The seed `join` plants for `b`. `#[repr(C)]` with the frame first, so the chain's
/// `*const Frame` casts back to it.
#[repr(C)]
struct JoinSeed<B, RB> {
    frame: Frame,
    /// Initialised by `offer`, only if the seed is handed out.
    header: UnsafeCell<MaybeUninit<JobHeader>>,
    b: UnsafeCell<ManuallyDrop<B>>,
    /// Written by the thief when `b` returns.
    result: UnsafeCell<MaybeUninit<RB>>,
}

// A handed-out seed's header is found through `SeedHead`'s layout (frame.rs); the fields
// before `header` do not depend on `B` or `RB`, so one instance checks them all.
const _: () = assert!(
    std::mem::offset_of!(JoinSeed<(), ()>, header) == std::mem::offset_of!(SeedHead, header)
);

/// Hands out a planted seed (a join's, or a scoped future's — `#[repr(C)]`, its `Frame`
/// first and its job header cell second) to `thief`: initialises the header, marks the seed
/// handed out (table `None`: it now reads as a stolen seed) and uncounts it. Runs on the
/// owner, at a poll.
///
/// # Safety
/// `f` is an unstolen seed of `w`'s chain, derived from the whole seed; `header` is its
/// header cell; `execute` runs that seed's kind.
pub(crate) unsafe fn hand_out_seed(
    f: *const Frame,
    header: &UnsafeCell<MaybeUninit<JobHeader>>,
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    w: &Worker,
    thief: usize,
    ctx: *const FinishState,
) -> JobRef {
    debug_assert!(ptr::eq(
        header.get() as *const JobHeader,
        header_of_frame(f)
    ));
    let h = JobHeader::new(execute, w);
    h.thief.set(thief);
    h.finish.set(ctx);
    // SAFETY: only the owner touches an unstolen seed's header.
    unsafe { (*header.get()).write(h) };
    // SAFETY: per the contract, `f` is a live frame of this worker's chain.
    unsafe { (*f).vtable.set(None) };
    w.note_hand_out();
    w.count_seed(-1);
    // Derived from `f`, which carries the whole seed's provenance, so the thief may get
    // back from the header to the seed's other fields.
    JobRef(header_of_frame(f))
}

impl<B, RB> JoinSeed<B, RB>
where
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    /// Whether the owner runs an unstolen `b` from its own copy rather than the seed's (see
    /// `join_in_worker`): when `b` is larger than a word.
    const LOCAL_B: bool = std::mem::size_of::<B>() > std::mem::size_of::<usize>();

    const VTABLE: FrameVTable = FrameVTable {
        kind: FrameKind::Seed,
        has_work: always,
        offer: Self::offer,
        cancelled: never,
        answer: None,
        export: None,
    };

    /// Hands the seed out to `thief`. Runs on the owner, at a poll.
    ///
    /// # Safety
    /// `f` is the frame of this live `JoinSeed<B, RB>`, not handed out yet, on the calling
    /// worker's chain (running or parked), which called `has_work` first; called by that owner
    /// at a poll, once per seed: afterwards the table says stolen.
    unsafe fn offer(f: *const Frame, w: &Worker, thief: usize, ctx: *const FinishState) -> JobRef {
        // SAFETY: the Seed table is installed only on `JoinSeed<B, RB>`s.
        let seed = unsafe { &*(f as *const Self) };
        debug_assert_eq!(
            std::mem::offset_of!(Self, header),
            std::mem::offset_of!(JoinSeed<(), ()>, header)
        );
        // SAFETY: `f` is this unstolen seed, with its header cell right after its frame.
        unsafe { hand_out_seed(f, &seed.header, Self::execute, w, thief, ctx) }
    }

    fn from_header(h: *const JobHeader) -> *const Self {
        (h as *const u8).wrapping_sub(std::mem::offset_of!(Self, header)) as *const Self
    }

    /// Runs `b` on the thief. See the module invariants.
    ///
    /// # Safety
    /// `h` is the header of a live `JoinSeed<B, RB>` that `offer` handed to the calling thief
    /// `w`, in `Mode::Stolen`, executed once; the owner stays in the seed's frame until `done`
    /// is set.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        debug_assert_eq!(
            mode,
            Mode::Stolen,
            "a join seed is only ever run by a thief"
        );
        // SAFETY: `h` is the header of a live, handed-out `JoinSeed<B, RB>`; the owner
        // does not leave its frame before the job is done.
        unsafe {
            let seed = &*Self::from_header(h);
            let b = ManuallyDrop::take(&mut *seed.b.get());
            let proxy = thief_proxy(h, w);
            proxy.enter(w);
            run_as_thief(h, w, b, |v| {
                (*seed.result.get()).write(v);
            });
            thief_done(h, w, &proxy);
        }
    }

    fn header(&self) -> &JobHeader {
        // SAFETY: called only after the seed was handed out, which initialised the header.
        unsafe { (*self.header.get()).assume_init_ref() }
    }

    /// The end of a join whose `a` failed (panicked or was stopped) with `p`: unlinks the
    /// seed `fp` (this one) and, if it was handed out, waits for the thief (see
    /// [`JoinSeed::join_stolen`]); otherwise `b` never starts and is dropped from the
    /// seed's copy (the joining thread's is forgotten). A panic of `b`'s destructor comes
    /// second, so `a`'s payload wins.
    #[cold]
    #[inline(never)]
    fn a_failed<RA>(&self, fp: *const Frame, p: Box<dyn std::any::Any + Send>) -> (RA, RB) {
        // SAFETY: this thread's worker, which planted the seed (as in `join_in_worker`).
        let w = unsafe { &*Worker::current() };
        w.pop(fp);
        if self.frame.vtable.get().is_none() {
            return self.join_stolen(w, Err(p));
        }
        w.count_seed(-1);
        // SAFETY: the seed was not handed out, so its `b` is still there and ours; the other
        // copy is a `ManuallyDrop` the caller forgets.
        let b = unsafe { ManuallyDrop::take(&mut *self.b.get()) };
        let _ = catch_unwind(AssertUnwindSafe(|| drop(b)));
        resume_unwind(p)
    }

    /// The join of a seed that was handed out: wait for the thief, then decide the outcome.
    #[cold]
    #[inline(never)]
    fn join_stolen<RA>(&self, w: &Worker, ra: std::thread::Result<RA>) -> (RA, RB) {
        join_stolen_seed(w, self.header(), ra, || {
            // SAFETY: called only when the thief wrote the result (before `done`).
            unsafe { (*self.result.get()).assume_init_read() }
        })
    }
}

/// The end of a join (or a scoped future) whose seed was handed out, on its owner: the
/// owner's side ended with `ra`; cancel the thief if that failed, wait for it (taking work
/// back from it), then decide. `read` takes the thief's value, called only if it wrote one.
/// Returns both values, or resumes the first failure (the thief's if it failed first), or
/// unwinds as stopped when a region around the join was cancelled.
pub(crate) fn join_stolen_seed<RA, RB>(
    w: &Worker,
    hdr: &JobHeader,
    ra: std::thread::Result<RA>,
    read: impl FnOnce() -> RB,
) -> (RA, RB) {
    // `a`'s panic is stamped now, before the wait for the thief (`caught.rs`): a stop or
    // resolution that comes while we wait must not take its place.
    let ra = ra.map_err(Caught::here);
    if ra.is_err() {
        cancel_job(w, hdr);
    }
    let settled = settle_job(w, hdr);
    let failed_first = hdr.failed.load(Ordering::Acquire) == FAILED_A;
    let rb = match settled {
        Settled::Value => Some(read()),
        Settled::Failed(pb) => {
            // `b` failed first: its payload wins over `a`'s.
            drop(ra);
            pb.resume()
        }
        Settled::Stopped => None,
    };
    match (ra, rb) {
        (Err(pa), rb) => {
            drop(rb);
            pa.resume()
        }
        (Ok(ra), Some(rb)) if !failed_first => (ra, rb),
        // Stopped: a region enclosing this join was cancelled (this worker cancelled `b`
        // while waiting, or `b`'s own region stopped it).
        (Ok(ra), rb) => {
            drop((ra, rb));
            raise_stopped()
        }
    }
}

/// The body of [`join`] on a worker that plants a seed. See the module docs for the path.
///
/// # Safety
/// `w` is the current thread's worker (`Worker::current()`, not null), run by this thread, on a
/// live registry.
#[inline(always)]
unsafe fn join_in_worker<A, B, RA, RB>(w: &Worker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    w.count_seed(1);
    // `b` is kept twice, bit for bit: in the seed, for a thief, and here, for this thread.
    // At most one copy is ever used or dropped: the seed's if the seed was handed out;
    // otherwise this one when `b` is larger than a word (`LOCAL_B`), else the seed's again.
    // Run from here, a wide `b`'s captures stay in registers across `a`, or are recomputed
    // (references to the caller's locals are), instead of being read back from the seed,
    // which the compiler must assume `a` may have changed: nqueens' six captured
    // references cost twelve loads that way, six this way. A one-word `b` is cheaper read
    // back (one load) than kept in a callee-saved register over the whole function.
    let b = ManuallyDrop::new(b);
    let seed = JoinSeed::<B, RB> {
        frame: Frame {
            prev: w.head(),
            vtable: Cell::new(Some(&JoinSeed::<B, RB>::VTABLE)),
        },
        header: UnsafeCell::new(MaybeUninit::uninit()),
        // SAFETY: a bitwise copy of `b`; see above for why only one copy is ever used.
        b: UnsafeCell::new(ManuallyDrop::new(unsafe { ptr::read(&*b) })),
        result: UnsafeCell::new(MaybeUninit::uninit()),
    };
    // The frame pointer is derived from the whole seed (repr(C), frame first), so the
    // chain's `*const Frame` may be cast back to the seed.
    let fp = &seed as *const JoinSeed<B, RB> as *const Frame;
    w.push(fp);
    let ra = match catch_unwind(AssertUnwindSafe(|| {
        w.poll();
        a()
    })) {
        Ok(ra) => ra,
        // Out of line, so that no test of the result is left on the path that returns; it
        // drops the seed's copy of `b`, so this one never has to be in memory.
        Err(p) => return seed.a_failed(fp, p),
    };
    // Unlinking and uncounting reach the thread-local only (the chain's head and the count
    // live there), so `w` need not be kept, nor read again, across the call of `a`.
    w.pop(fp);
    if seed.frame.vtable.get().is_none() {
        // SAFETY: as above; the same worker (this thread's), read again from the
        // thread-local.
        let w = unsafe { &*Worker::current() };
        return seed.join_stolen(w, Ok(ra));
    }
    w.count_seed(-1);
    // The seed was not handed out, so `b` is ours, in either copy (see above).
    let b = if JoinSeed::<B, RB>::LOCAL_B {
        ManuallyDrop::into_inner(b)
    } else {
        // SAFETY: the seed was not handed out, so its `b` is still there and ours.
        unsafe { ManuallyDrop::take(&mut *seed.b.get()) }
    };
    (ra, b())
}
