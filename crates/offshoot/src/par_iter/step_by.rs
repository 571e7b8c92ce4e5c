//! `step_by`: every `step`-th item of an indexed iterator. Item `i` is base item
//! `i * step`; block `lo..hi` walks the base's block `lo * step..min(hi * step, n)` with
//! `Iterator::step_by` (the skipped items are produced and dropped, as sequentially).
//!
//! Invariant: the base blocks of different blocks are disjoint.

use super::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::step_by`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I: IndexedParallelIterator> StepBy<I> {
    pub(super) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "offshoot: step_by(0)");
        StepBy { base, step }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for StepBy<I> {
    type Item = I::Item;
    type State = I::State;
    #[inline]
    fn base_len(&self) -> usize {
        self.base.base_len().div_ceil(self.step)
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths().per(self.step)
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
        // SAFETY: forwarded contract: disjoint base ranges for disjoint blocks.
        unsafe {
            self.base
                .drop_block(lo * self.step, hi.saturating_mul(self.step).min(n))
        }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
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
        // SAFETY: forwarded contract: disjoint base ranges for disjoint blocks.
        unsafe {
            self.base
                .iblock(st, lo * self.step, hi.saturating_mul(self.step).min(n))
        }
        .step_by(self.step)
    }
    fn truncate(&mut self, len: usize) {
        self.base.truncate(len.saturating_mul(self.step));
    }
    fn advance(&mut self, k: usize) {
        let n = self.base.base_len();
        self.base.advance(k.saturating_mul(self.step).min(n));
    }
}
