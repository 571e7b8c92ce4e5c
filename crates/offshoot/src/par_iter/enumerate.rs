//! `enumerate`: pairs every item of an indexed iterator with its index.
//!
//! Invariant: asks its base for exactly the indices it is asked for; index `i` of the
//! base is item `i`, numbered `offset + i` (`offset` counts the items skipped after
//! `enumerate`).

use super::{block_via_iblock, forward_to_base, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::enumerate`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Enumerate<I> {
    base: I,
    offset: usize,
}

impl<I> Enumerate<I> {
    pub(super) fn new(base: I) -> Self {
        Enumerate { base, offset: 0 }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);
    type State = I::State;
    forward_to_base!();
    block_via_iblock!();
    fn into_seq(self) -> impl Iterator<Item = (usize, I::Item)> {
        let offset = self.offset;
        (offset..).zip(self.base.into_seq())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = (usize, I::Item)> + ExactSizeIterator {
        // SAFETY: forwarded contract.
        (lo + self.offset..hi + self.offset).zip(unsafe { self.base.iblock(st, lo, hi) })
    }
    fn truncate(&mut self, len: usize) {
        self.base.truncate(len)
    }
    fn advance(&mut self, n: usize) {
        self.base.advance(n);
        self.offset += n;
    }
}
