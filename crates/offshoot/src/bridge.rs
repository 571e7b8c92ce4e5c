//! Stock mode for sequential iterators (000 §6.2.2): [`ParallelBridge::par_bridge`], the
//! counterpart of rayon's `par_bridge`.
//!
//! The worker that owns the iterator advances it itself and keeps a small **stock** of the
//! items it has pulled but not yet processed, in a [`StockFrame`] on its frame chain. It
//! processes the oldest stocked item, tops the stock up, polls, and so on. A request takes
//! the **newer half** of the stock as one [`StockPiece`]; the thief runs those items under
//! a stock frame of its own (without an iterator), so its piece can be split again. No task
//! is made for an item unless a worker asks. Each hand-out doubles the owner's stock target
//! (from [`STOCK_START`] up to [`STOCK_MAX`] items), so that thieves of cheap items get
//! bigger pieces, while an iterator nobody asks about is buffered only a few items ahead.
//!
//! Order: items are processed in no particular order across workers, and partial results
//! combine in an order fixed by the hand-outs, not by the iterator; `reduce` therefore needs
//! an associative *and commutative* operation. `collect` pays for order: it numbers the
//! items as it pulls them and sorts the results by number at the end.
//!
//! Invariants:
//! * Only the owning worker touches a `StockFrame`'s stock, target and piece list, and never
//!   while user code (the iterator's `next`, the body) holds a borrow of them: an item is
//!   moved out of the stock, or pulled into a local, before user code runs, because that
//!   code may poll and a request answered there splits the stock.
//! * Every item is pulled once and then either processed once or dropped (with the stock
//!   frame, or with a piece that was never run because the loop failed).
//! * Pieces are kept and settled as in `loops.rs` ([`Pieces`]): every path out waits for
//!   every piece; the first failure wins; a piece's failure stops the owner.

use std::cell::{Cell, UnsafeCell};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::finish::{in_worker, FinishState};
use crate::frame::Frame;
use crate::job::{run_as_thief, thief_done, thief_proxy, JobHeader, JobRef, Mode};
use crate::loops::{HandedOut, Pieces, SplitFrame};
use crate::worker::Worker;

/// The stock an owner keeps before anyone asked for work.
const STOCK_START: usize = 4;
/// The largest stock an owner keeps (each hand-out doubles it up to here).
const STOCK_MAX: usize = 1024;

/// What a bridged loop does with each item and how partial results combine.
trait StockBody<T>: Sync {
    type Acc: Send;
    fn identity(&self) -> Self::Acc;
    fn run(&self, acc: &mut Self::Acc, item: T);
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
}

#[repr(C)]
struct StockFrame<'a, T, B: StockBody<T>> {
    frame: Frame,
    body: &'a B,
    /// Items pulled and not yet processed or handed out, oldest first.
    stock: UnsafeCell<VecDeque<T>>,
    /// How many items the owner keeps pulled ahead.
    target: Cell<usize>,
    pieces: Pieces<StockPiece<'a, T, B>>,
}

/// Items handed to a thief, and the thief's combined result.
#[repr(C)]
struct StockPiece<'a, T, B: StockBody<T>> {
    header: JobHeader,
    body: &'a B,
    items: UnsafeCell<VecDeque<T>>,
    result: UnsafeCell<Option<B::Acc>>,
}

// SAFETY: `StockPiece` is `#[repr(C)]` with its header first; its runner writes the result
// before `done` (see `StockPiece::execute`).
unsafe impl<T, B: StockBody<T>> HandedOut for StockPiece<'_, T, B> {
    type Acc = B::Acc;
    fn header(&self) -> &JobHeader {
        &self.header
    }
    fn take_result(&self) -> Option<B::Acc> {
        // SAFETY: called by the owner after `done`: the thief no longer touches the slot.
        unsafe { (*self.result.get()).take() }
    }
}

impl<T: Send, B: StockBody<T>> SplitFrame for StockFrame<'_, T, B> {
    unsafe fn has_work(f: *const Frame) -> bool {
        // SAFETY: this table is only installed on `StockFrame<T, B>`s; only the owner calls,
        // and never while user code borrows the stock (module invariant).
        unsafe { !(*(*(f as *const Self)).stock.get()).is_empty() }
    }

    unsafe fn offer(f: *const Frame, w: &Worker, thief: usize, ctx: *const FinishState) -> JobRef {
        // SAFETY: as in `has_work`.
        let f = unsafe { &*(f as *const Self) };
        // SAFETY: as in `has_work`; the borrow ends before anything else runs.
        let stock = unsafe { &mut *f.stock.get() };
        let keep = stock.len() / 2;
        let items = stock.split_off(keep);
        f.target.set((f.target.get() * 2).min(STOCK_MAX));
        let piece = StockPiece {
            header: JobHeader::new(StockPiece::<T, B>::execute, w),
            body: f.body,
            items: UnsafeCell::new(items),
            result: UnsafeCell::new(None),
        };
        // SAFETY: only the owner (this worker, answering a request) touches the list.
        unsafe { f.pieces.hand_out(piece, thief, ctx) }
    }

    unsafe fn cancelled(f: *const Frame) -> bool {
        // SAFETY: as in `has_work`.
        unsafe { (*(f as *const Self)).pieces.any_failed() }
    }
}

impl<T: Send, B: StockBody<T>> StockPiece<'_, T, B> {
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        debug_assert_eq!(
            mode,
            Mode::Stolen,
            "a stock piece is only ever run by a thief"
        );
        // SAFETY: `h` is the first field of a live `StockPiece`, owned by a stock frame that
        // waits for it.
        let piece = unsafe { &*(h as *const Self) };
        // SAFETY: as above; only this thief touches `items` and `result` until `done`.
        unsafe {
            let proxy = thief_proxy(h, w);
            proxy.enter(w);
            run_as_thief(
                h,
                w,
                || {
                    let items = std::mem::take(&mut *piece.items.get());
                    run_stock(w, piece.body, items, None::<std::iter::Empty<T>>)
                },
                |v| *piece.result.get() = Some(v),
            );
            thief_done(h, w, &proxy);
        };
    }
}

/// Processes `stock` and then (if any) the items of `source` on `w`, handing out half of
/// the stock on each request; returns the combined result.
fn run_stock<T: Send, B: StockBody<T>, I: Iterator<Item = T>>(
    w: &Worker,
    body: &B,
    stock: VecDeque<T>,
    mut source: Option<I>,
) -> B::Acc {
    let frame = StockFrame {
        frame: Frame {
            prev: w.head(),
            vtable: Cell::new(Some(&<StockFrame<T, B> as SplitFrame>::VTABLE)),
        },
        body,
        stock: UnsafeCell::new(stock),
        target: Cell::new(STOCK_START),
        pieces: Pieces::new(),
    };
    let fp = &frame as *const StockFrame<T, B> as *const Frame;
    w.push(fp);
    let own = catch_unwind(AssertUnwindSafe(|| {
        let mut acc = body.identity();
        loop {
            if let Some(src) = source.as_mut() {
                // SAFETY: (each access to the stock here) only this worker touches the
                // stock, and each borrow ends before user code (`next`, the body) runs.
                let stocked = || unsafe { (*frame.stock.get()).len() };
                while stocked() < frame.target.get() {
                    match src.next() {
                        // SAFETY: as above; `next` has returned.
                        Some(x) => unsafe { (*frame.stock.get()).push_back(x) },
                        None => {
                            source = None;
                            break;
                        }
                    }
                }
            }
            // SAFETY: as above.
            let Some(item) = (unsafe { (*frame.stock.get()).pop_front() }) else {
                break;
            };
            body.run(&mut acc, item);
            w.poll();
        }
        acc
    }));
    w.pop(fp);
    // An iterator left behind by a failure is dropped before the pieces are waited for.
    drop(source);
    frame.pieces.settle(w, own, |a, b| body.combine(a, b))
}

/// Runs `body` over the items of `iter` in stock mode on the current worker (or in the
/// global pool from outside every pool).
fn drive<I, B>(iter: I, body: &B) -> B::Acc
where
    I: Iterator + Send,
    I::Item: Send,
    B: StockBody<I::Item>,
{
    in_worker(|w| run_stock(w, body, VecDeque::new(), Some(iter)))
}

/// A [`StockBody`] that maps every item and folds the results: `Acc = Option<R>` (`None`:
/// nothing yet).
struct MapFold<F, C> {
    map: F,
    combine: C,
}

impl<T, R: Send, F, C> StockBody<T> for MapFold<F, C>
where
    F: Fn(T) -> R + Sync,
    C: Fn(R, R) -> R + Sync,
{
    type Acc = Option<R>;
    fn identity(&self) -> Option<R> {
        None
    }
    fn run(&self, acc: &mut Option<R>, item: T) {
        let r = (self.map)(item);
        *acc = Some(match acc.take() {
            Some(a) => (self.combine)(a, r),
            None => r,
        });
    }
    fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
        match (a, b) {
            (Some(a), Some(b)) => Some((self.combine)(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

/// Turns a sequential iterator into a parallel one in *stock mode*: the calling worker
/// advances the iterator and keeps a few pulled items in stock; an idle worker that asks
/// gets half of that stock (which it can split again). No task is made per item.
///
/// Use it for iterators that cannot be split (lines of a reader, a channel, a linked
/// structure). For ranges, slices and `Vec`, `par_iter()` splits better and keeps order.
///
/// The owner answers requests between items, and holds at most 1024 pulled items at once
/// (4 until a worker asks; each hand-out doubles it). An iterator whose `next` blocks
/// holds up its stock while it blocks.
///
/// ```
/// use offshoot::prelude::*;
/// let words = "the quick brown fox jumps over the lazy dog";
/// let letters: usize = words.split(' ').par_bridge().map(str::len).sum();
/// assert_eq!(letters, 35);
/// ```
pub trait ParallelBridge: Iterator + Sized + Send
where
    Self::Item: Send,
{
    /// Processes the items of `self` in parallel, in stock mode; see [`ParallelBridge`].
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let n = (0..1000u32).filter(|x| x % 7 == 0).par_bridge().count();
    /// assert_eq!(n, 143);
    /// ```
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

impl<I: Iterator + Send> ParallelBridge for I where I::Item: Send {}

/// A sequential iterator processed in parallel in stock mode; made by
/// [`ParallelBridge::par_bridge`].
///
/// Items are processed in no particular order, on any worker; only
/// [`IterBridge::collect`] restores the iterator's order.
#[derive(Debug)]
#[must_use = "a bridge does nothing until it is consumed (for_each, sum, collect, ...)"]
pub struct IterBridge<I> {
    iter: I,
}

impl<I> IterBridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    /// Applies `f` to every item (in parallel, once consumed).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s: u64 = (1..=10u64).par_bridge().map(|x| x * x).sum();
    /// assert_eq!(s, 385);
    /// ```
    pub fn map<R, F>(self, f: F) -> BridgeMap<I, F>
    where
        F: Fn(I::Item) -> R + Sync + Send,
        R: Send,
    {
        BridgeMap { iter: self.iter, f }
    }

    /// Calls `f` on every item, in parallel and in no particular order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let total = AtomicU64::new(0);
    /// (1..=100u64).par_bridge().for_each(|x| {
    ///     total.fetch_add(x, Ordering::Relaxed);
    /// });
    /// assert_eq!(total.into_inner(), 5050);
    /// ```
    pub fn for_each<F>(self, f: F)
    where
        F: Fn(I::Item) + Sync + Send,
    {
        self.map(f).for_each(drop)
    }

    /// The sum of the items (in no particular order).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s: u32 = vec![1u32, 2, 3].into_iter().par_bridge().sum();
    /// assert_eq!(s, 6);
    /// ```
    pub fn sum<S>(self) -> S
    where
        S: Send + std::iter::Sum<I::Item> + std::iter::Sum<S>,
    {
        self.map(std::convert::identity).sum()
    }

    /// Folds the items with `op`; `identity()` must be neutral for `op`, and `op`
    /// associative **and commutative** (the items combine in no particular order).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let m = [3u32, 9, 4].into_iter().par_bridge().reduce(|| 0, u32::max);
    /// assert_eq!(m, 9);
    /// ```
    pub fn reduce<ID, OP>(self, identity: ID, op: OP) -> I::Item
    where
        ID: Fn() -> I::Item + Sync + Send,
        OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
    {
        self.map(std::convert::identity).reduce(identity, op)
    }

    /// The number of items.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!("a,b,c".split(',').par_bridge().count(), 3);
    /// ```
    pub fn count(self) -> usize {
        self.map(std::convert::identity).count()
    }

    /// Collects the items **in the iterator's order**. Order has a price: each item is
    /// numbered as it is pulled (one `usize` more per item), and the numbered results are
    /// sorted by number at the end (on one worker they arrive already sorted).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<char> = "hello".chars().par_bridge().collect();
    /// assert_eq!(v, ['h', 'e', 'l', 'l', 'o']);
    /// ```
    pub fn collect<C: FromIterator<I::Item>>(self) -> C {
        self.map(std::convert::identity).collect()
    }
}

/// Items of a bridged iterator mapped by a function; made by [`IterBridge::map`].
#[must_use = "a bridge does nothing until it is consumed (for_each, sum, collect, ...)"]
pub struct BridgeMap<I, F> {
    iter: I,
    f: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for BridgeMap<I, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeMap")
            .field("iter", &self.iter)
            .finish_non_exhaustive()
    }
}

impl<I, F, R> BridgeMap<I, F>
where
    I: Iterator + Send,
    I::Item: Send,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    /// Applies `g` after the map so far.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s: u64 = (1..=4u64).par_bridge().map(|x| x + 1).map(|x| x * 10).sum();
    /// assert_eq!(s, 140);
    /// ```
    pub fn map<S, G>(self, g: G) -> BridgeMap<I, impl Fn(I::Item) -> S + Sync + Send>
    where
        G: Fn(R) -> S + Sync + Send,
        S: Send,
    {
        let f = self.f;
        BridgeMap {
            iter: self.iter,
            f: move |x| g(f(x)),
        }
    }

    /// Calls `g` on every mapped item, in parallel and in no particular order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::sync::Mutex;
    /// let seen = Mutex::new(Vec::new());
    /// (0..5u32).par_bridge().map(|x| x * 2).for_each(|y| seen.lock().unwrap().push(y));
    /// let mut seen = seen.into_inner().unwrap();
    /// seen.sort();
    /// assert_eq!(seen, [0, 2, 4, 6, 8]);
    /// ```
    pub fn for_each<G>(self, g: G)
    where
        G: Fn(R) + Sync + Send,
    {
        let f = self.f;
        let body = MapFold {
            map: move |x| g(f(x)),
            combine: |(), ()| (),
        };
        drive(self.iter, &body);
    }

    /// The sum of the mapped items (in no particular order).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s: usize = ["a", "bb", "ccc"].into_iter().par_bridge().map(str::len).sum();
    /// assert_eq!(s, 6);
    /// ```
    pub fn sum<S>(self) -> S
    where
        S: Send + std::iter::Sum<R> + std::iter::Sum<S>,
    {
        let f = self.f;
        let body = MapFold {
            map: move |x| std::iter::once(f(x)).sum::<S>(),
            combine: |a: S, b: S| [a, b].into_iter().sum(),
        };
        drive(self.iter, &body).unwrap_or_else(|| std::iter::empty::<S>().sum())
    }

    /// Folds the mapped items with `op`; `identity()` must be neutral for `op`, and `op`
    /// associative **and commutative** (the items combine in no particular order).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let longest = "a bbb cc".split(' ').par_bridge().map(str::len).reduce(|| 0, usize::max);
    /// assert_eq!(longest, 3);
    /// ```
    pub fn reduce<ID, OP>(self, identity: ID, op: OP) -> R
    where
        ID: Fn() -> R + Sync + Send,
        OP: Fn(R, R) -> R + Sync + Send,
    {
        let body = MapFold {
            map: self.f,
            combine: op,
        };
        drive(self.iter, &body).unwrap_or_else(identity)
    }

    /// The number of items (the map still runs on each, for its effects).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..10u8).par_bridge().map(|x| x / 2).count(), 10);
    /// ```
    pub fn count(self) -> usize {
        let f = self.f;
        let body = MapFold {
            map: move |x| {
                drop(f(x));
                1usize
            },
            combine: |a, b| a + b,
        };
        drive(self.iter, &body).unwrap_or(0)
    }

    /// Collects the mapped items **in the iterator's order** (see [`IterBridge::collect`]).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<u32> = (1..=5u32).par_bridge().map(|x| x * x).collect();
    /// assert_eq!(v, [1, 4, 9, 16, 25]);
    /// ```
    pub fn collect<C: FromIterator<R>>(self) -> C {
        let body = Numbered(self.f);
        let mut parts = drive(self.iter.enumerate(), &body);
        // Every number 0..n occurs once: sorting by it restores the iterator's order.
        parts.sort_unstable_by_key(|&(i, _)| i);
        parts.into_iter().map(|(_, r)| r).collect()
    }
}

/// The [`StockBody`] of `collect`: maps numbered items and keeps them with their numbers.
struct Numbered<F>(F);

impl<T, R: Send, F: Fn(T) -> R + Sync> StockBody<(usize, T)> for Numbered<F> {
    type Acc = Vec<(usize, R)>;
    fn identity(&self) -> Vec<(usize, R)> {
        Vec::new()
    }
    fn run(&self, acc: &mut Vec<(usize, R)>, (i, item): (usize, T)) {
        acc.push((i, (self.0)(item)));
    }
    fn combine(&self, mut a: Vec<(usize, R)>, mut b: Vec<(usize, R)>) -> Vec<(usize, R)> {
        if a.len() < b.len() {
            std::mem::swap(&mut a, &mut b);
        }
        a.append(&mut b);
        a
    }
}
