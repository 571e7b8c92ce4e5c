//! `rev`: an indexed iterator backwards. Index `i` of the `Rev` is index `n - 1 - i` of
//! its base, so block `lo..hi` is the base's block `n - hi..n - lo`, walked from its end.
//!
//! Invariant: asks its base for exactly the mirrored indices it is asked for.

use super::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::rev`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(super) fn new(base: I) -> Self {
        Rev { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Rev<I> {
    type Item = I::Item;
    type State = I::State;
    #[inline]
    fn base_len(&self) -> usize {
        self.base.base_len()
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
        let n = self.base.base_len();
        // SAFETY: forwarded contract (the mirror of a valid range is valid).
        unsafe { self.base.drop_block(n - hi, n - lo) }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
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
        let n = self.base.base_len();
        // SAFETY: forwarded contract (the mirror of a valid range is valid).
        unsafe { self.base.iblock(st, n - hi, n - lo) }.rev()
    }
    fn truncate(&mut self, len: usize) {
        let n = self.base.base_len();
        if len < n {
            self.base.advance(n - len);
        }
    }
    fn advance(&mut self, k: usize) {
        let n = self.base.base_len();
        self.base.truncate(n - k.min(n));
    }
}
