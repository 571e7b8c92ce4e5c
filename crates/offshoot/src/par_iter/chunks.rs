//! `chunks`: the items of an indexed iterator in `Vec`s of `size`. Chunk `i` is base
//! items `i * size..min((i + 1) * size, n)`, so block `lo..hi` is the base's block
//! `lo * size..min(hi * size, n)` cut into `Vec`s.
//!
//! Invariant: the base blocks of different blocks are disjoint; only the last chunk of
//! the whole iterator is short.

use super::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::chunks`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I: IndexedParallelIterator> Chunks<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        assert!(size != 0, "offshoot: chunks(0)");
        Chunks { base, size }
    }

    fn base_range(&self, lo: usize, hi: usize) -> (usize, usize) {
        let n = self.base.base_len();
        (lo * self.size, hi.saturating_mul(self.size).min(n))
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Chunks<I> {
    type Item = Vec<I::Item>;
    type State = I::State;
    #[inline]
    fn base_len(&self) -> usize {
        self.base.base_len().div_ceil(self.size)
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths().per(self.size)
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
        // SAFETY: forwarded contract: disjoint base ranges for disjoint blocks.
        unsafe { self.base.drop_block(a, b) }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = Vec<I::Item>> + ExactSizeIterator {
        let (a, b) = self.base_range(lo, hi);
        ChunkIter {
            // SAFETY: forwarded contract: disjoint base ranges for disjoint blocks.
            it: unsafe { self.base.iblock(st, a, b) },
            size: self.size,
        }
    }
    fn truncate(&mut self, len: usize) {
        self.base.truncate(len.saturating_mul(self.size));
    }
    fn advance(&mut self, k: usize) {
        let n = self.base.base_len();
        self.base.advance(k.saturating_mul(self.size).min(n));
    }
}

/// A sequential iterator cut into `Vec`s of `size` (the last one may be shorter).
struct ChunkIter<It> {
    it: It,
    size: usize,
}

impl<It: ExactSizeIterator> Iterator for ChunkIter<It> {
    type Item = Vec<It::Item>;
    fn next(&mut self) -> Option<Vec<It::Item>> {
        let k = self.it.len().min(self.size);
        (k > 0).then(|| self.it.by_ref().take(k).collect())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.it.len().div_ceil(self.size);
        (n, Some(n))
    }
}

impl<It: ExactSizeIterator> ExactSizeIterator for ChunkIter<It> {}

impl<It: DoubleEndedIterator + ExactSizeIterator> DoubleEndedIterator for ChunkIter<It> {
    fn next_back(&mut self) -> Option<Vec<It::Item>> {
        let n = self.it.len();
        if n == 0 {
            return None;
        }
        let k = match n % self.size {
            0 => self.size,
            r => r,
        };
        let mut v: Vec<It::Item> = self.it.by_ref().rev().take(k).collect();
        v.reverse();
        Some(v)
    }
}
