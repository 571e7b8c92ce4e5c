//! `intersperse`: a separator between every two items of an indexed iterator.
//!
//! Think of the *virtual* sequence `s x0 s x1 s ... s x(m-1) s` of the base's `m` items
//! with a separator before, between and after them: position `2b + 1` is base item `b`,
//! every even position a separator. The iterator's items are the positions `start..end`
//! of it (`1..2m` at first: no separator at either end; `skip` and `take` move the ends),
//! so block `lo..hi` is the positions `start + lo..start + hi`, which hold base items
//! `(start + lo) / 2..(start + hi) / 2`, walked in step with the positions.
//!
//! Only indexed bases: for them every position is known in advance, so each separator is
//! placed exactly. (For an unindexed base, such as a `filter`, a piece cannot know whether
//! an item precedes it until the pieces before it have run.)
//!
//! Invariants: `start <= 1` after each renormalisation (`advance` moves whole pairs into
//! the base); the base holds exactly the items at the odd positions below `end`; the base
//! blocks of different blocks are disjoint.

use super::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::intersperse`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    sep: I::Item,
    start: usize,
    end: usize,
}

impl<I: IndexedParallelIterator> Intersperse<I>
where
    I::Item: Clone + Sync,
{
    pub(super) fn new(base: I, sep: I::Item) -> Self {
        let m = base.base_len();
        Intersperse {
            base,
            sep,
            start: 1,
            end: if m == 0 { 1 } else { 2 * m },
        }
    }

    /// The base items at the positions `a..b`.
    fn base_range(&self, lo: usize, hi: usize) -> (usize, usize) {
        ((self.start + lo) / 2, (self.start + hi) / 2)
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Intersperse<I>
where
    I::Item: Clone + Sync,
{
    type Item = I::Item;
    type State = I::State;
    #[inline]
    fn base_len(&self) -> usize {
        self.end - self.start
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths()
    }
    #[inline]
    fn state(&self) -> I::State {
        self.base.state()
    }
    block_via_iblock!();
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        let (a, b) = self.base_range(lo, hi);
        // SAFETY: forwarded contract: disjoint blocks have disjoint base ranges.
        unsafe { self.base.drop_block(a, b) }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Intersperse<I>
where
    I::Item: Clone + Sync,
{
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = I::Item> + ExactSizeIterator {
        let (a, b) = self.base_range(lo, hi);
        Positions {
            // SAFETY: forwarded contract: disjoint blocks have disjoint base ranges.
            base: unsafe { self.base.iblock(st, a, b) },
            sep: &self.sep,
            front: self.start + lo,
            back: self.start + hi,
        }
    }
    fn truncate(&mut self, len: usize) {
        self.end = self.start + len.min(self.end - self.start);
        self.base.truncate(self.end / 2);
    }
    fn advance(&mut self, k: usize) {
        let start = self.start + k.min(self.end - self.start);
        // Whole (separator, item) pairs before the new start leave the base.
        let pairs = start / 2;
        self.base.advance(pairs);
        self.start = start - 2 * pairs;
        self.end -= 2 * pairs;
    }
}

/// The positions `front..back` of the virtual sequence: odd ones from `base`, which holds
/// exactly those, even ones clones of `sep`.
struct Positions<'s, B, T> {
    base: B,
    sep: &'s T,
    front: usize,
    back: usize,
}

impl<B: Iterator<Item = T>, T: Clone> Iterator for Positions<'_, B, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.front += 1;
        if self.front.is_multiple_of(2) {
            self.base.next()
        } else {
            Some(self.sep.clone())
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<B: DoubleEndedIterator<Item = T>, T: Clone> DoubleEndedIterator for Positions<'_, B, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        if self.back % 2 == 1 {
            self.base.next_back()
        } else {
            Some(self.sep.clone())
        }
    }
}

impl<B: Iterator<Item = T>, T: Clone> ExactSizeIterator for Positions<'_, B, T> {}
