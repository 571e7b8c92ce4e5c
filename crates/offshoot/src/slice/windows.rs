//! `par_windows`: every `size`-element window of a slice, as an indexed source of the
//! `par_iter` protocol. Window `i` is elements `i..i + size`, so the block of windows
//! `lo..hi` is std's `windows` over the sub-slice `lo..hi + size - 1` (blocks overlap in
//! the elements they read, which is fine: the windows are shared borrows).
//!
//! Invariant: `size >= 1` (checked in [`Windows::new`]).

use crate::par_iter::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// Parallel iterator over the overlapping `size`-element windows of a slice: see
/// [`ParallelSlice::par_windows`](super::ParallelSlice::par_windows).
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Windows<'a, T> {
    slice: &'a [T],
    size: usize,
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

impl<'a, T: Sync> Windows<'a, T> {
    #[track_caller]
    pub(super) fn new(slice: &'a [T], size: usize) -> Self {
        assert!(
            size != 0,
            "offshoot: par_windows(0): the window size must be at least 1; pass a positive size"
        );
        Windows { slice, size }
    }
}

impl<'a, T: Sync> ParallelIterator for Windows<'a, T> {
    type Item = &'a [T];
    type State = ();
    #[inline]
    fn base_len(&self) -> usize {
        self.slice.len().saturating_sub(self.size - 1)
    }
    #[inline]
    fn state(&self) {}
    block_via_iblock!();
}

impl<'a, T: Sync> IndexedParallelIterator for Windows<'a, T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
        let end = hi.saturating_add(self.size - 1).min(self.slice.len());
        self.slice[lo.min(end)..end].windows(self.size)
    }
    fn truncate(&mut self, len: usize) {
        let end = len.saturating_add(self.size - 1).min(self.slice.len());
        self.slice = &self.slice[..end];
    }
    fn advance(&mut self, k: usize) {
        self.slice = &self.slice[k.min(self.slice.len())..];
    }
}
