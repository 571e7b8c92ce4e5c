//! Loops that split only when asked (the `forall` of Umatani's OPA thesis, ch. 6): `par_for`, `par_for_each`,
//! `par_for_each_mut`, `par_reduce`.
//!
//! The worker that runs a loop keeps its remaining range `[next, end)` as one piece in a
//! [`LoopFrame`] on its frame chain and walks it in blocks, polling between blocks. A request
//! takes the **upper half** of what remains: the frame's `end` moves down to the middle and
//! the thief receives a [`Piece`] for `[mid, end)`, which it runs the same way (so it can be
//! split again). Nothing is pre-split and no grain size is needed: a block starts at one
//! iteration and doubles while a block takes under ~5 µs (halving above ~40 µs), so a trivial
//! body runs in long, vectorisable blocks and a heavy one polls at every iteration; a request
//! waits at most about one block.
//!
//! Reductions combine in an order fixed by the split tree: the owner's accumulator covers
//! the bottom of its range; the pieces it handed out cover consecutive higher ranges and are
//! combined in ascending order. With the same splits the result is the same, bit for bit.
//!
//! Invariants:
//! * Only the owning worker touches a `LoopFrame` (its `Cell`s and its list of pieces).
//!   `next` is advanced past a block *before* the block runs, so a request answered at a
//!   poll inside the body (a nested join or loop) splits only iterations nobody has claimed.
//! * A handed-out piece is boxed and owned by the frame's list until its thief set `done`;
//!   every path out of the loop (return or unwind) waits for every piece first.
//! * The first failure wins: the owner's panic cancels every piece; a piece's panic stops
//!   the owner (its frame reports itself cancelled) and then every other piece.
//! * Every iteration runs or is discarded ([`LoopBody::discard`]) exactly once: skipped by
//!   an early exit, or left unclaimed by a piece that a failure stopped (before its first
//!   block or part way).

use std::cell::{Cell, UnsafeCell};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::caught::Caught;
use crate::finish::FinishState;
use crate::frame::{ClientKind, Frame, FrameKind, FrameVTable};

/// The frame kind of the part of a loop a worker runs.
static LOOP: ClientKind = ClientKind("loop");
use crate::job::{
    cancel_job, run_as_thief, settle_job, thief_done, thief_proxy, JobHeader, JobRef, Mode,
    Settled, FAILED_B,
};
use crate::pool::in_worker;
use crate::unwind::raise_stopped;
use crate::worker::Worker;

/// What a loop does with its iterations: the body, and how partial results combine.
///
/// A loop runs as pieces (its whole range, and every part handed to a thief); each piece
/// has one accumulator (`identity`) and one `Local` scratch value, made and dropped on the
/// worker that runs the piece, and is walked in blocks of increasing index.
pub(crate) trait LoopBody: Sync {
    type Acc: Send;
    /// Per-piece scratch that never crosses threads (e.g. a `map_init` value).
    type Local;
    fn identity(&self) -> Self::Acc;
    fn local(&self) -> Self::Local;
    /// Runs iterations `lo..hi` into `acc`.
    fn run(&self, local: &mut Self::Local, acc: &mut Self::Acc, lo: usize, hi: usize);
    /// Early exit: whether iterations `lo..hi` (the rest of a piece) are no longer needed.
    /// Checked once per block.
    #[inline]
    fn skip(&self, lo: usize, hi: usize) -> bool {
        let _ = (lo, hi);
        false
    }
    /// Disposes of iterations `lo..hi` that will not run: those `skip` let go, and, after a
    /// failure, the rest of each piece that the failure stopped (so a source that owns its
    /// elements drops them). Never called twice for one iteration, nor for one that ran.
    #[inline]
    fn discard(&self, lo: usize, hi: usize) {
        let _ = (lo, hi);
    }
    /// Where the unclaimed iterations `next..end` of a piece may be cut for a thief, which
    /// takes `mid..end`: by default the middle, or for `whole` (a parked chain, see
    /// [`whole_offer`]) all of it; `None`: not now. Called by the owner only, twice for one
    /// cut (`has_work`, then `offer`), so it must answer the same both times.
    #[inline]
    fn cut(&self, next: usize, end: usize, whole: bool) -> Option<usize> {
        let want = if whole { next } else { next + (end - next) / 2 };
        let lowest = if whole { next } else { next + 1 };
        (lowest <= want && want < end).then_some(want)
    }
    /// Ends a piece that was not unwound: last use of its scratch value.
    #[inline]
    fn finish(&self, local: Self::Local, acc: &mut Self::Acc) {
        let _ = (local, acc);
    }
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
}

/// A block that took less than this doubles; one that took more than `SLOW` halves.
const FAST: Duration = Duration::from_micros(5);
const SLOW: Duration = Duration::from_micros(40);

#[repr(C)]
struct LoopFrame<'a, L: LoopBody> {
    frame: Frame,
    body: &'a L,
    next: Cell<usize>,
    end: Cell<usize>,
    /// Pieces handed out, in hand-out order (each covers a range below the previous one).
    pieces: Pieces<Piece<'a, L>>,
    /// The loop's work/span record in a pool that measures (`metrics/`), else null.
    meter: *const crate::metrics::LoopMeter,
}

/// A part of a loop handed to a thief: `lo..hi`, and the thief's combined result.
#[repr(C)]
struct Piece<'a, L: LoopBody> {
    header: JobHeader,
    body: &'a L,
    lo: usize,
    hi: usize,
    result: UnsafeCell<Option<L::Acc>>,
    /// The loop's work/span record, or null (see `LoopFrame`).
    meter: *const crate::metrics::LoopMeter,
}

/// A frame of kind `Loop` that splits its remaining work on request (a loop's range); its
/// table is [`SplitFrame::VTABLE`]. The functions are called by the
/// owning worker only, with a pointer to a frame of the implementing type.
pub(crate) trait SplitFrame {
    /// Whether the frame can give a thief a piece now (`FrameVTable::has_work`).
    ///
    /// # Safety
    /// `f` is a live frame of the implementing type (the only one this table is installed
    /// on), linked in the calling worker's chain (running or parked); called by that worker
    /// only.
    unsafe fn has_work(f: *const Frame) -> bool;
    /// Cuts a piece off for `thief` and hands it out (`FrameVTable::offer`); `ctx` is the
    /// innermost finish enclosing the frame.
    ///
    /// # Safety
    /// As for `has_work`, which has just said yes for `f`.
    unsafe fn offer(f: *const Frame, w: &Worker, thief: usize, ctx: *const FinishState) -> JobRef;
    /// Whether the region the frame stands for was cancelled (`FrameVTable::cancelled`).
    ///
    /// # Safety
    /// As for `has_work`.
    unsafe fn cancelled(f: *const Frame) -> bool;
    const VTABLE: FrameVTable = FrameVTable {
        kind: FrameKind::Client(&LOOP),
        has_work: Self::has_work,
        offer: Self::offer,
        cancelled: Self::cancelled,
        answer: None,
        export: None,
    };
}

/// Whether a loop frame hands out all its remaining iterations, not half: on a parked
/// fiber's chain (`Worker::scanning_parked`), whose piece waits in an iteration and would
/// run the others only after that wait — which may be for one of them (bodies that meet at
/// a barrier, a phaser, a channel). On the running chain the piece goes on with the rest.
/// (A body with a minimum piece length cuts only where its cells allow: `LoopBody::cut`.)
fn whole_offer() -> bool {
    let w = Worker::current();
    // SAFETY: frame tables are called by their owning worker, on its thread.
    !w.is_null() && unsafe { (*w).scanning_parked() }
}

impl<L: LoopBody> SplitFrame for LoopFrame<'_, L> {
    /// # Safety
    /// As for `SplitFrame::has_work`: `f` is a live `LoopFrame<L>`, and the caller is its
    /// owner.
    unsafe fn has_work(f: *const Frame) -> bool {
        // SAFETY: the Loop table is only installed on `LoopFrame<L>`s; only the owner calls.
        let f = unsafe { &*(f as *const Self) };
        let (next, end) = (f.next.get(), f.end.get());
        next < end && f.body.cut(next, end, whole_offer()).is_some()
    }

    /// # Safety
    /// As for `SplitFrame::offer`: `f` is a live `LoopFrame<L>` whose `has_work` just said yes,
    /// and the caller is its owner.
    unsafe fn offer(f: *const Frame, w: &Worker, thief: usize, ctx: *const FinishState) -> JobRef {
        // SAFETY: as in `has_work`.
        let f = unsafe { &*(f as *const Self) };
        let (next, end) = (f.next.get(), f.end.get());
        // On a parked chain, all of it (see `whole_offer`); else the upper half; where the
        // body allows (`LoopBody::cut`, which `has_work` just asked the same).
        let mid = f
            .body
            .cut(next, end, whole_offer())
            .expect("has_work said the loop can be cut");
        f.end.set(mid);
        let piece = Piece {
            header: JobHeader::new(Piece::<L>::execute, w),
            body: f.body,
            lo: mid,
            hi: end,
            result: UnsafeCell::new(None),
            meter: f.meter,
        };
        // SAFETY: only the owner (this worker, answering a request) touches the list.
        unsafe { f.pieces.hand_out(piece, thief, ctx) }
    }

    /// # Safety
    /// As for `SplitFrame::cancelled`: `f` is a live `LoopFrame<L>`, and the caller is its
    /// owner.
    unsafe fn cancelled(f: *const Frame) -> bool {
        // SAFETY: as in `has_work`.
        let f = unsafe { &*(f as *const Self) };
        // SAFETY: only the owner calls `cancelled`.
        unsafe { f.pieces.any_failed() }
    }
}

/// Work a splitting frame handed to a thief (a part of a loop's range): `#[repr(C)]` with its [`JobHeader`] first, and a slot for its result.
///
/// # Safety
/// Implementors are `#[repr(C)]` with the header as their first field, and write the
/// result slot only before their header's `done`.
pub(crate) unsafe trait HandedOut {
    /// The partial result.
    type Acc;
    fn header(&self) -> &JobHeader;
    /// Takes the result; called by the owner only after `done`.
    fn take_result(&self) -> Option<Self::Acc>;
}

/// The pieces a frame handed out, in hand-out order. Raw pointers from `Box::into_raw` (a
/// `Box` would assert uniqueness each time the list moves it, invalidating the thief's
/// pointer); freed by `Drop`, after [`Pieces::settle`] waited for every one of them.
/// Only the owning worker touches the list.
pub(crate) struct Pieces<P>(UnsafeCell<Vec<*mut P>>);

impl<P> Drop for Pieces<P> {
    fn drop(&mut self) {
        for &p in self.0.get_mut().iter() {
            // SAFETY: every piece came from `Box::into_raw` in `hand_out`, and every owner
            // settles its pieces (their thieves set `done`) before the list is dropped.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

impl<P: HandedOut> Pieces<P> {
    pub(crate) fn new() -> Self {
        Pieces(UnsafeCell::new(Vec::new()))
    }

    /// Boxes `piece`, addresses it to `thief` in the finish `ctx` and keeps it in the list;
    /// returns the job to reply with.
    ///
    /// # Safety
    /// Only the owning worker may call (it alone touches the list).
    pub(crate) unsafe fn hand_out(
        &self,
        piece: P,
        thief: usize,
        ctx: *const FinishState,
    ) -> JobRef {
        let p = Box::into_raw(Box::new(piece));
        // SAFETY: just allocated; nobody else has it yet. Only the owner touches the list.
        unsafe {
            (*p).header().thief.set(thief);
            (*p).header().finish.set(ctx);
            (*self.0.get()).push(p);
        }
        // The header is the first field (`HandedOut`'s contract); the pointer covers the
        // whole piece.
        JobRef(p as *const JobHeader)
    }

    /// Whether a piece failed first (its owner must stop).
    ///
    /// # Safety
    /// Only the owning worker may call.
    pub(crate) unsafe fn any_failed(&self) -> bool {
        // SAFETY: only the owner touches the list; the pieces are live until it is dropped.
        unsafe { (*self.0.get()).iter() }
            // SAFETY: as above.
            .any(|&p| unsafe { (*p).header().failed.load(Ordering::Acquire) } == FAILED_B)
    }

    /// Owner side, after its own part (`own`) ended and its frame left the chain: stops the
    /// pieces if `own` failed, waits for every piece (newest first), and returns `own`'s
    /// result combined with the pieces' results in that order — or resumes the first
    /// failure (a piece that failed first wins over the owner's own stop).
    pub(crate) fn settle(
        &self,
        w: &Worker,
        own: std::thread::Result<P::Acc>,
        combine: impl Fn(P::Acc, P::Acc) -> P::Acc,
    ) -> P::Acc {
        // SAFETY: the frame is unlinked; this worker is the list's only user. The pieces are
        // live until the list is dropped, after this function settled them all.
        let pieces: Vec<&P> = unsafe { (*self.0.get()).iter().map(|&p| &*p).collect() };
        // Stamped before the wait (`caught.rs`).
        let own = own.map_err(Caught::here);
        if own.is_err() {
            for p in pieces.iter() {
                cancel_job(w, p.header());
            }
        }
        let mut failure: Option<Caught> = None;
        let mut stopped = false;
        let mut parts = Vec::with_capacity(pieces.len());
        for p in pieces.iter().rev() {
            match settle_job(w, p.header()) {
                Settled::Value => parts.push(p.take_result()),
                Settled::Failed(caught) => {
                    if failure.is_none() {
                        failure = Some(caught);
                        for q in pieces.iter() {
                            cancel_job(w, q.header());
                        }
                    }
                }
                Settled::Stopped => stopped = true,
            }
        }
        let acc = match own {
            Err(p) => {
                drop(parts);
                failure.unwrap_or(p).resume()
            }
            Ok(acc) => acc,
        };
        if let Some(p) = failure {
            p.resume();
        }
        if stopped {
            raise_stopped();
        }
        parts.into_iter().flatten().fold(acc, combine)
    }
}

// SAFETY: `Piece` is `#[repr(C)]` with its header first; its result is written by its
// runner before `done` (see `Piece::execute`).
unsafe impl<L: LoopBody> HandedOut for Piece<'_, L> {
    type Acc = L::Acc;
    fn header(&self) -> &JobHeader {
        &self.header
    }
    fn take_result(&self) -> Option<L::Acc> {
        // SAFETY: called by the owner after `done`: the thief no longer touches the slot.
        unsafe { (*self.result.get()).take() }
    }
}

impl<L: LoopBody> Piece<'_, L> {
    /// # Safety
    /// `h` is the header (first field) of a live `Piece<L>` that its loop frame handed to the
    /// calling thief `w`, in `Mode::Stolen`, executed once; the loop frame waits for `done`
    /// before it frees the piece.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        debug_assert_eq!(
            mode,
            Mode::Stolen,
            "a loop piece is only ever run by a thief"
        );
        // SAFETY: `h` is the first field of a live `Piece<L>`, owned by a loop frame that
        // waits for it.
        let piece = unsafe { &*(h as *const Self) };
        // SAFETY: as above; the runner writes the result before `done`.
        unsafe {
            let proxy = thief_proxy(h, w);
            proxy.enter(w);
            let started = Cell::new(false);
            run_as_thief(
                h,
                w,
                || {
                    started.set(true);
                    run_range_in(w, piece.body, piece.lo, piece.hi, piece.meter)
                },
                |v| *piece.result.get() = Some(v),
            );
            if !started.get() {
                // Stopped before it began (at the thief's first poll): none of the piece
                // ran, so all of it is disposed of, before `done` lets the owner go on.
                discard_rest(piece.body, piece.lo, piece.hi);
            }
            thief_done(h, w, &proxy);
        };
    }
}

/// Runs `lo..hi` of `body` on `w`, splitting on request; returns the combined result.
///
/// `#[inline]` so that it is instantiated in the caller's crate and codegen unit, where
/// the body's block loop can be inlined and vectorised without LTO.
#[inline]
pub(crate) fn run_range<L: LoopBody>(w: &Worker, body: &L, lo: usize, hi: usize) -> L::Acc {
    if w.meter().on() {
        return run_range_metered(w, body, lo, hi);
    }
    run_range_in(w, body, lo, hi, std::ptr::null())
}

/// [`run_range`] in a pool that measures work and span (`metrics/`): every block of
/// iterations, here or in a piece a thief took, is a strand from the loop's start; the
/// loop ends after the longest.
#[cold]
#[inline(never)]
fn run_range_metered<L: LoopBody>(w: &Worker, body: &L, lo: usize, hi: usize) -> L::Acc {
    let meter = crate::metrics::LoopMeter::new(w.meter().checkpoint());
    let r = run_range_in(w, body, lo, hi, &meter);
    // SAFETY: the loop ran on this thread's worker (a parked loop resumes there).
    let w = unsafe { &*Worker::current() };
    meter.merge(w.meter());
    r
}

/// [`run_range`] with the loop's work/span record `meter` (null: none).
#[inline]
fn run_range_in<L: LoopBody>(
    w: &Worker,
    body: &L,
    lo: usize,
    hi: usize,
    meter: *const crate::metrics::LoopMeter,
) -> L::Acc {
    Worker::check_not_isolated("a parallel loop");
    let frame = LoopFrame {
        frame: Frame {
            prev: w.head(),
            vtable: Cell::new(Some(&<LoopFrame<L> as SplitFrame>::VTABLE)),
        },
        body,
        next: Cell::new(lo),
        end: Cell::new(hi),
        pieces: Pieces::new(),
        meter,
    };
    let fp = &frame as *const LoopFrame<L> as *const Frame;
    w.push(fp);
    let own = catch_unwind(AssertUnwindSafe(|| {
        let mut acc = body.identity();
        let mut local = body.local();
        let mut block = 1usize;
        loop {
            let next = frame.next.get();
            let end = frame.end.get();
            if next >= end {
                break;
            }
            if body.skip(next, end) {
                // Early exit: the rest of this piece is not needed. Claimed first, as a block.
                frame.next.set(end);
                body.discard(next, end);
                break;
            }
            let stop = next + block.min(end - next);
            // Claim the block before running it: the body may poll (a nested join or loop),
            // and a request answered there must split only what lies beyond the block.
            frame.next.set(stop);
            let t = Instant::now();
            if meter.is_null() {
                body.run(&mut local, &mut acc, next, stop);
            } else {
                // SAFETY: the record lives in the frame of the loop's owner, which waits
                // for every piece before it leaves.
                unsafe { &*meter }
                    .block(stop - next, || body.run(&mut local, &mut acc, next, stop));
            }
            w.poll();
            let took = t.elapsed();
            if took < FAST {
                block = block.saturating_mul(2);
            } else if took > SLOW && block > 1 {
                block /= 2;
            }
        }
        body.finish(local, &mut acc);
        acc
    }));
    w.pop(fp);
    if own.is_err() {
        // The failure stopped this piece: what it had not claimed is disposed of (the
        // block that failed disposed of its own rest as it unwound).
        discard_rest(body, frame.next.get(), frame.end.get());
    }
    frame.pieces.settle(w, own, |a, b| body.combine(a, b))
}

/// Disposes of the iterations `lo..hi` of a piece that a failure stopped
/// ([`LoopBody::discard`]). A panic there (an element's destructor) loses to the failure
/// that stopped the piece, and is dropped.
#[cold]
#[inline(never)]
pub(crate) fn discard_rest<L: LoopBody>(body: &L, lo: usize, hi: usize) {
    if lo < hi {
        let _ = catch_unwind(AssertUnwindSafe(|| body.discard(lo, hi)));
    }
}

/// Runs `body(i)` for every `i` in `range`, in parallel: the range is split in halves only
/// when idle workers ask for work (no pre-splitting, no grain size to choose).
///
/// Inside a pool it runs on the current worker; outside every pool in the global pool.
///
/// # Panics
///
/// The first panic of an iteration wins: the rest of the loop is stopped and the panic
/// resumes in the caller once every part of the loop has ended.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let sum = AtomicU64::new(0);
/// offshoot::par_for(0..1000, |i| {
///     sum.fetch_add(i as u64, Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 499_500);
/// ```
pub fn par_for<F>(range: Range<usize>, body: F)
where
    F: Fn(usize) + Sync + Send,
{
    struct For<F>(F);
    impl<F: Fn(usize) + Sync> LoopBody for For<F> {
        type Acc = ();
        type Local = ();
        fn identity(&self) {}
        fn local(&self) {}
        #[inline]
        fn run(&self, _: &mut (), _: &mut (), lo: usize, hi: usize) {
            for i in lo..hi {
                (self.0)(i);
            }
        }
        fn combine(&self, _: (), _: ()) {}
    }
    if range.is_empty() {
        return;
    }
    let b = For(body);
    in_worker(|w| run_range(w, &b, range.start, range.end));
}

/// Calls `f` on every element of `items`, in parallel, splitting only on request (see
/// [`par_for`]).
///
/// ```
/// let words = ["a", "bb", "ccc"];
/// let total = std::sync::atomic::AtomicUsize::new(0);
/// offshoot::par_for_each(&words, |w| {
///     total.fetch_add(w.len(), std::sync::atomic::Ordering::Relaxed);
/// });
/// assert_eq!(total.into_inner(), 6);
/// ```
pub fn par_for_each<T, F>(items: &[T], f: F)
where
    T: Sync,
    F: Fn(&T) + Sync + Send,
{
    par_for(0..items.len(), |i| f(&items[i]));
}

/// Calls `f` on every element of `items` mutably, in parallel, splitting only on request
/// (see [`par_for`]).
///
/// ```
/// let mut v: Vec<u32> = (0..100).collect();
/// offshoot::par_for_each_mut(&mut v, |x| *x *= 2);
/// assert_eq!(v[99], 198);
/// ```
pub fn par_for_each_mut<T, F>(items: &mut [T], f: F)
where
    T: Send,
    F: Fn(&mut T) + Sync + Send,
{
    struct Ptr<T>(*mut T);
    // SAFETY: each index is visited exactly once (the loop's ranges are disjoint), so no two
    // threads ever hold `&mut` to the same element; `T: Send` lets the element be mutated
    // from another thread.
    unsafe impl<T: Send> Sync for Ptr<T> {}
    // SAFETY: as above.
    unsafe impl<T: Send> Send for Ptr<T> {}
    impl<T> Ptr<T> {
        // A method, so closures capture the whole `Ptr` (which is Sync), not its field.
        fn at(&self, i: usize) -> *mut T {
            self.0.wrapping_add(i)
        }
    }
    let base = Ptr(items.as_mut_ptr());
    let len = items.len();
    par_for(0..len, |i| {
        debug_assert!(i < len);
        // SAFETY: `i < len`, and every index is visited exactly once (see `Ptr`), while
        // `items` stays mutably borrowed for the whole call.
        f(unsafe { &mut *base.at(i) })
    });
}

/// Folds `map(i)` over `range` with `combine`, in parallel, splitting only on request.
/// `identity()` must be a neutral element of `combine`, and `combine` associative.
///
/// The combine order is fixed by the split tree: each part's partial result is combined
/// with the parts to its right, in index order. For a given set of splits the result is the
/// same every time — also for floating-point sums — but different runs may split
/// differently (splits follow requests), so a floating-point sum can differ in its last
/// bits between runs. On one worker nothing is ever split.
///
/// ```
/// let s = offshoot::par_reduce(0..=100usize, || 0u64, |i| i as u64, |a, b| a + b);
/// assert_eq!(s, 5050);
/// ```
pub fn par_reduce<R, ID, M, C, RG>(range: RG, identity: ID, map: M, combine: C) -> R
where
    RG: std::ops::RangeBounds<usize>,
    R: Send,
    ID: Fn() -> R + Sync + Send,
    M: Fn(usize) -> R + Sync + Send,
    C: Fn(R, R) -> R + Sync + Send,
{
    struct Reduce<ID, M, C>(ID, M, C);
    impl<R: Send, ID, M, C> LoopBody for Reduce<ID, M, C>
    where
        ID: Fn() -> R + Sync,
        M: Fn(usize) -> R + Sync,
        C: Fn(R, R) -> R + Sync,
    {
        type Acc = Option<R>;
        type Local = ();
        fn identity(&self) -> Option<R> {
            None
        }
        fn local(&self) {}
        #[inline]
        fn run(&self, _: &mut (), acc: &mut Option<R>, lo: usize, hi: usize) {
            let mut a = acc.take().unwrap_or_else(&self.0);
            for i in lo..hi {
                a = (self.2)(a, (self.1)(i));
            }
            *acc = Some(a);
        }
        fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
            match (a, b) {
                (Some(a), Some(b)) => Some((self.2)(a, b)),
                (a, None) => a,
                (None, b) => b,
            }
        }
    }
    let (lo, hi) = bounds(range);
    let r = Reduce(identity, map, combine);
    let out = if lo < hi {
        in_worker(|w| run_range(w, &r, lo, hi))
    } else {
        None
    };
    out.unwrap_or_else(&r.0)
}

fn bounds(r: impl std::ops::RangeBounds<usize>) -> (usize, usize) {
    use std::ops::Bound;
    let lo = match r.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s
            .checked_add(1)
            .expect("offshoot: range start overflows usize"),
        Bound::Unbounded => 0,
    };
    let hi = match r.end_bound() {
        Bound::Included(&e) => e
            .checked_add(1)
            .expect("offshoot: range end overflows usize; use ..usize::MAX"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => panic!("offshoot::par_reduce needs a bounded range"),
    };
    (lo, hi)
}
