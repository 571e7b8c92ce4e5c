//! `chain`: the items of `a`, then those of `b`. Indices `0..na` are `a`'s, `na..na + nb`
//! are `b`'s (shifted down by `na`); a block that straddles `na` asks both.
//!
//! Invariants: each side is asked for exactly the indices the `Chain` is asked for, once
//! mapped to its side. A piece's states of both sides are flushed when the piece ends (so
//! a `fold` inside `a` yields its accumulator after `b`'s items of the same piece: chain
//! an unfolded `a`, or fold after the chain, where that order matters).

use super::{IndexedParallelIterator, ParallelIterator};

/// See [`ParallelIterator::chain`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

/// The parts of `lo..hi` that fall on `a` (`0..na`) and on `b` (shifted down by `na`).
#[inline]
fn split(na: usize, lo: usize, hi: usize) -> ((usize, usize), (usize, usize)) {
    ((lo.min(na), hi.min(na)), (lo.max(na) - na, hi.max(na) - na))
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;
    type State = (A::State, B::State);
    #[inline]
    fn base_len(&self) -> usize {
        self.a.base_len() + self.b.base_len()
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.a.lengths().and(self.b.lengths())
    }
    #[inline]
    fn state(&self) -> Self::State {
        (self.a.state(), self.b.state())
    }
    /// Both sides: the rest of a piece may reach into either.
    #[inline]
    fn exhausted(&self) -> bool {
        self.a.exhausted() && self.b.exhausted()
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = A::Item> {
        let ((a0, a1), (b0, b1)) = split(self.a.base_len(), lo, hi);
        let (sa, sb) = st;
        // SAFETY: forwarded contract (the two parts are disjoint and in range).
        unsafe { self.a.block(sa, a0, a1).chain(self.b.block(sb, b0, b1)) }
    }
    #[inline]
    fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = A::Item> {
        let (sa, sb) = st;
        self.a.flush(sa).chain(self.b.flush(sb))
    }
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        let ((a0, a1), (b0, b1)) = split(self.a.base_len(), lo, hi);
        // SAFETY: forwarded contract.
        unsafe {
            self.a.drop_block(a0, a1);
            self.b.drop_block(b0, b1);
        }
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.a.opt_len()? + self.b.opt_len()?)
    }
    fn into_seq(self) -> impl Iterator<Item = A::Item> {
        self.a.into_seq().chain(self.b.into_seq())
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = A::Item> + ExactSizeIterator {
        let ((a0, a1), (b0, b1)) = split(self.a.base_len(), lo, hi);
        let (sa, sb) = st;
        // SAFETY: forwarded contract (the two parts are disjoint and in range).
        unsafe {
            ExactChain {
                a: self.a.iblock(sa, a0, a1),
                b: self.b.iblock(sb, b0, b1),
            }
        }
    }
    fn truncate(&mut self, len: usize) {
        let na = self.a.base_len();
        if len <= na {
            self.a.truncate(len);
            self.b.truncate(0);
        } else {
            self.b.truncate(len - na);
        }
    }
    fn advance(&mut self, n: usize) {
        let na = self.a.base_len();
        if n <= na {
            self.a.advance(n);
        } else {
            self.a.advance(na);
            self.b.advance(n - na);
        }
    }
}

/// `Iterator::chain` of two exact-size iterators, itself exact-size.
struct ExactChain<A, B> {
    a: A,
    b: B,
}

impl<A: ExactSizeIterator, B: ExactSizeIterator<Item = A::Item>> Iterator for ExactChain<A, B> {
    type Item = A::Item;
    #[inline]
    fn next(&mut self) -> Option<A::Item> {
        self.a.next().or_else(|| self.b.next())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
    #[inline]
    fn fold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut f: F) -> Acc {
        let acc = self.a.fold(init, &mut f);
        self.b.fold(acc, f)
    }
}

impl<A: ExactSizeIterator, B: ExactSizeIterator<Item = A::Item>> ExactSizeIterator
    for ExactChain<A, B>
{
}

impl<A, B> DoubleEndedIterator for ExactChain<A, B>
where
    A: DoubleEndedIterator + ExactSizeIterator,
    B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>,
{
    #[inline]
    fn next_back(&mut self) -> Option<A::Item> {
        self.b.next_back().or_else(|| self.a.next_back())
    }
}
