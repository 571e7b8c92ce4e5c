//! `zip`: pairs two indexed iterators by index.
//!
//! Invariant: both sides have the same length (the longer one is truncated, dropping
//! what it owns, when the `Zip` is made), and each is asked for exactly the indices the
//! `Zip` is asked for.

use super::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::zip`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> Zip<A, B> {
    pub(super) fn new(mut a: A, mut b: B) -> Self {
        let n = a.base_len().min(b.base_len());
        a.truncate(n);
        b.truncate(n);
        Zip { a, b }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for Zip<A, B> {
    type Item = (A::Item, B::Item);
    type State = (A::State, B::State);
    #[inline]
    fn base_len(&self) -> usize {
        self.a.base_len()
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.a.lengths().and(self.b.lengths())
    }
    #[inline]
    fn state(&self) -> Self::State {
        (self.a.state(), self.b.state())
    }
    block_via_iblock!();
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe {
            self.a.drop_block(lo, hi);
            self.b.drop_block(lo, hi);
        }
    }
    fn into_seq(self) -> impl Iterator<Item = (A::Item, B::Item)> {
        // Both sides have the same length (`new` truncated them).
        self.a.into_seq().zip(self.b.into_seq())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for Zip<A, B> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = Self::Item> + ExactSizeIterator {
        let (sa, sb) = st;
        // SAFETY: forwarded contract (both sides have the same length).
        unsafe { self.a.iblock(sa, lo, hi).zip(self.b.iblock(sb, lo, hi)) }
    }
    fn truncate(&mut self, len: usize) {
        self.a.truncate(len);
        self.b.truncate(len);
    }
    fn advance(&mut self, n: usize) {
        self.a.advance(n);
        self.b.advance(n);
    }
}
