//! Small sources (`empty`, `once`, `repeat_n`) and the adaptors that share a flag or a
//! counter between workers (`while_some`, `take_any`, `skip_any`).
//!
//! Invariant: the shared flag and counter only decide which items are yielded; every
//! index is still handed to the base exactly as asked.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{
    block_via_iblock, forward_to_base, IndexedParallelIterator, IntoIter, IntoParallelIterator,
    ParallelIterator,
};

/// A parallel iterator with no items: see [`empty`].
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Empty<T>(PhantomData<fn() -> T>);

impl<T> Clone for Empty<T> {
    fn clone(&self) -> Self {
        Empty(PhantomData)
    }
}

/// A parallel iterator with no items.
///
/// ```
/// use offshoot::iter::*;
/// assert_eq!(empty::<i32>().count(), 0);
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty(PhantomData)
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;
    type State = ();
    fn base_len(&self) -> usize {
        0
    }
    fn state(&self) {}
    block_via_iblock!();
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        _: usize,
        _: usize,
    ) -> impl DoubleEndedIterator<Item = T> + ExactSizeIterator {
        std::iter::empty()
    }
    fn truncate(&mut self, _: usize) {}
    fn advance(&mut self, _: usize) {}
}

/// A parallel iterator with one item: see [`once`].
pub type Once<T> = IntoIter<T>;

/// A parallel iterator with the one item `x`.
///
/// ```
/// use offshoot::iter::*;
/// let v: Vec<i32> = (0..2).into_par_iter().chain(once(7)).collect();
/// assert_eq!(v, [0, 1, 7]);
/// ```
pub fn once<T: Send>(x: T) -> Once<T> {
    Some(x).into_par_iter()
}

/// `n` clones of one value: see [`repeat_n`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct RepeatN<T> {
    x: T,
    n: usize,
}

/// `n` clones of `x`.
///
/// ```
/// use offshoot::iter::*;
/// let v: Vec<char> = repeat_n('z', 3).collect();
/// assert_eq!(v, ['z', 'z', 'z']);
/// ```
pub fn repeat_n<T: Clone + Send + Sync>(x: T, n: usize) -> RepeatN<T> {
    RepeatN { x, n }
}

/// `x` over and over: see [`repeat`]. rayon's name; here the same iterator as
/// [`RepeatN`], of `usize::MAX` clones.
pub type Repeat<T> = RepeatN<T>;

/// `x` over and over: `usize::MAX` clones (cut it with `take` or `zip`).
///
/// ```
/// use offshoot::iter::*;
/// let v: Vec<(i32, char)> = (0..3).into_par_iter().zip(repeat('x')).collect();
/// assert_eq!(v, [(0, 'x'), (1, 'x'), (2, 'x')]);
/// ```
pub fn repeat<T: Clone + Send + Sync>(x: T) -> Repeat<T> {
    repeat_n(x, usize::MAX)
}

/// rayon's older name for [`repeat_n`].
///
/// ```
/// use offshoot::iter::*;
/// let v: Vec<u8> = repeatn(7u8, 3).collect();
/// assert_eq!(v, [7, 7, 7]);
/// ```
pub fn repeatn<T: Clone + Send + Sync>(x: T, n: usize) -> RepeatN<T> {
    repeat_n(x, n)
}

impl<T: Clone + Send + Sync> ParallelIterator for RepeatN<T> {
    type Item = T;
    type State = ();
    fn base_len(&self) -> usize {
        self.n
    }
    fn state(&self) {}
    block_via_iblock!();
}

impl<T: Clone + Send + Sync> IndexedParallelIterator for RepeatN<T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = T> + ExactSizeIterator {
        (lo..hi).map(|_| self.x.clone())
    }
    fn truncate(&mut self, len: usize) {
        self.n = self.n.min(len);
    }
    fn advance(&mut self, k: usize) {
        self.n -= k.min(self.n);
    }
}

/// See [`ParallelIterator::while_some`].
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct WhileSome<I> {
    base: I,
    /// Set once a `None` was seen.
    ended: AtomicBool,
}

/// A clone of an adaptor not yet consumed, so its flag is still clear.
impl<I: Clone> Clone for WhileSome<I> {
    fn clone(&self) -> Self {
        WhileSome::new(self.base.clone())
    }
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome {
            base,
            ended: AtomicBool::new(false),
        }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;
    type State = I::State;
    forward_to_base!(own_exhausted);
    /// Nothing after the first `None` is yielded.
    fn exhausted(&self) -> bool {
        // Relaxed: as in `take_while_some`.
        self.ended.load(Ordering::Relaxed) || self.base.exhausted()
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = T> {
        // SAFETY: forwarded contract.
        let it = unsafe { self.base.block(st, lo, hi) };
        self.take_while_some(it)
    }
    fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = T> {
        self.take_while_some(self.base.flush(st))
    }
}

impl<I> WhileSome<I> {
    fn take_while_some<'s, T>(
        &'s self,
        it: impl Iterator<Item = Option<T>> + 's,
    ) -> impl Iterator<Item = T> + 's {
        // Relaxed: the flag only cuts work short; the items themselves are not published
        // through it.
        it.map_while(move |x| {
            if self.ended.load(Ordering::Relaxed) {
                return None;
            }
            if x.is_none() {
                self.ended.store(true, Ordering::Relaxed);
            }
            x
        })
    }
}

/// See [`ParallelIterator::take_any`] and [`ParallelIterator::skip_any`].
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct TakeAny<I> {
    base: I,
    n: usize,
    /// Whether the first `n` items seen are kept (`take_any`) or dropped (`skip_any`).
    take: bool,
    seen: AtomicUsize,
}

/// A clone of an adaptor not yet consumed (a consumer owns it while it runs), so its
/// counter is still at its start.
impl<I: Clone> Clone for TakeAny<I> {
    fn clone(&self) -> Self {
        TakeAny::new(self.base.clone(), self.n, self.take)
    }
}

impl<I> TakeAny<I> {
    pub(super) fn new(base: I, n: usize, take: bool) -> Self {
        TakeAny {
            base,
            n,
            take,
            seen: AtomicUsize::new(0),
        }
    }

    fn keep(&self) -> bool {
        // Relaxed: a counter of items; each item gets a distinct ticket.
        let ticket = self.seen.fetch_add(1, Ordering::Relaxed);
        (ticket < self.n) == self.take
    }
}

impl<I: ParallelIterator> ParallelIterator for TakeAny<I> {
    type Item = I::Item;
    type State = I::State;
    forward_to_base!(own_exhausted);
    /// `take_any` keeps nothing once `n` tickets are out.
    fn exhausted(&self) -> bool {
        // Relaxed: a counter of items (see `keep`).
        (self.take && self.seen.load(Ordering::Relaxed) >= self.n) || self.base.exhausted()
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = I::Item> {
        // SAFETY: forwarded contract.
        unsafe { self.base.block(st, lo, hi) }.filter(move |_| self.keep())
    }
    fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = I::Item> {
        self.base.flush(st).filter(move |_| self.keep())
    }
}

/// See [`ParallelIterator::take_any_while`] and [`ParallelIterator::skip_any_while`].
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct AnyWhile<I, P> {
    base: I,
    p: P,
    /// `take_any_while` (true) or `skip_any_while` (false).
    take: bool,
    /// Set once `p` failed for some item.
    failed: AtomicBool,
}

/// The base and the flags; the predicate is a closure.
impl<I: std::fmt::Debug, P> std::fmt::Debug for AnyWhile<I, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnyWhile")
            .field("base", &self.base)
            .field("take", &self.take)
            .field("failed", &self.failed)
            .finish()
    }
}

/// A clone of an adaptor not yet consumed, so its flag is still clear.
impl<I: Clone, P: Clone> Clone for AnyWhile<I, P> {
    fn clone(&self) -> Self {
        AnyWhile::new(self.base.clone(), self.p.clone(), self.take)
    }
}

impl<I, P> AnyWhile<I, P> {
    pub(super) fn new(base: I, p: P, take: bool) -> Self {
        AnyWhile {
            base,
            p,
            take,
            failed: AtomicBool::new(false),
        }
    }
}

impl<I: ParallelIterator, P: Fn(&I::Item) -> bool + Sync + Send> AnyWhile<I, P> {
    /// Whether `x` is yielded; notes the first failure of `p`. Relaxed: the flag only
    /// decides which items pass; nothing else is published through it.
    fn keep(&self, x: &I::Item) -> bool {
        let failed = self.failed.load(Ordering::Relaxed) || {
            let f = !(self.p)(x);
            if f {
                self.failed.store(true, Ordering::Relaxed);
            }
            f
        };
        failed != self.take
    }

    fn pass<'s>(
        &'s self,
        it: impl Iterator<Item = I::Item> + 's,
    ) -> impl Iterator<Item = I::Item> + 's {
        // `take_any_while` ends a block at its first rejected item (the rest are dropped);
        // `skip_any_while` filters.
        let take = self.take;
        let mut done = false;
        it.filter(move |x| {
            !done
                && (self.keep(x)
                    || (take && {
                        done = true;
                        false
                    }))
        })
    }
}

impl<I: ParallelIterator, P: Fn(&I::Item) -> bool + Sync + Send> ParallelIterator
    for AnyWhile<I, P>
{
    type Item = I::Item;
    type State = I::State;
    forward_to_base!(own_exhausted);
    /// `take_any_while` keeps nothing once `p` failed.
    fn exhausted(&self) -> bool {
        // Relaxed: as in `keep`.
        (self.take && self.failed.load(Ordering::Relaxed)) || self.base.exhausted()
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = I::Item> {
        // SAFETY: forwarded contract.
        self.pass(unsafe { self.base.block(st, lo, hi) })
    }
    fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = I::Item> {
        self.pass(self.base.flush(st))
    }
}
