//! Fixed-size chunks from the back of a slice (`par_rchunks`, `par_rchunks_mut`,
//! `par_rchunks_exact`, `par_rchunks_exact_mut`) as indexed sources of the `par_iter`
//! protocol: std's `rchunks` and its forms, in parallel.
//!
//! Chunk `i` is elements `n - min((i + 1) * size, n)..n - i * size`, so the block of
//! chunks `lo..hi` is the sub-slice `n - min(hi * size, n)..n - lo * size` cut by std's
//! `rchunks` (its last chunk, at the slice's front, is the only short one).
//!
//! Invariants: as in `chunks.rs` (disjoint blocks; the `exact` forms' remainder, the
//! first `len % size` elements, is never part of a block; `size >= 1`).

use super::chunks::{back_span, check_size, chunk_source};
use super::raw::RawMut;
use crate::par_iter::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// Parallel iterator over `size`-element chunks from the back of a slice, the last one
/// (the slice's front) possibly shorter: see
/// [`ParallelSlice::par_rchunks`](super::ParallelSlice::par_rchunks).
#[derive(Debug)]
pub struct RChunks<'a, T> {
    slice: &'a [T],
    size: usize,
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

impl<'a, T: Sync> RChunks<'a, T> {
    pub(super) fn new(slice: &'a [T], size: usize) -> Self {
        check_size("par_rchunks", size);
        RChunks { slice, size }
    }
    fn count(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
}

chunk_source!(RChunks, &'a [T], Sync);

impl<'a, T: Sync> IndexedParallelIterator for RChunks<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
        self.slice[back_span(self.slice.len(), self.size, lo, hi)].rchunks(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.slice = &self.slice[back_span(self.slice.len(), self.size, 0, len)];
    }
    fn advance(&mut self, k: usize) {
        let n = self.slice.len();
        self.slice = &self.slice[back_span(n, self.size, k, usize::MAX)];
    }
}

/// Parallel iterator over `size`-element mutable chunks from the back of a slice: see
/// [`ParallelSliceMut::par_rchunks_mut`](super::ParallelSliceMut::par_rchunks_mut).
#[derive(Debug)]
pub struct RChunksMut<'a, T> {
    slice: RawMut<'a, T>,
    size: usize,
}

impl<'a, T: Send> RChunksMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], size: usize) -> Self {
        check_size("par_rchunks_mut", size);
        RChunksMut {
            slice: RawMut::new(slice),
            size,
        }
    }
    fn count(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
}

chunk_source!(RChunksMut, &'a mut [T], Send);

impl<'a, T: Send> IndexedParallelIterator for RChunksMut<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a mut [T]> + ExactSizeIterator {
        let r = back_span(self.slice.len(), self.size, lo, hi);
        // SAFETY: chunk indices lo..hi are handed out once (contract), and blocks of
        // disjoint chunk ranges cover disjoint elements (module invariant).
        unsafe { self.slice.get(r) }.rchunks_mut(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.slice
            .narrow(back_span(self.slice.len(), self.size, 0, len));
    }
    fn advance(&mut self, k: usize) {
        let n = self.slice.len();
        self.slice.narrow(back_span(n, self.size, k, usize::MAX));
    }
}

/// Parallel iterator over exactly-`size`-element chunks from the back of a slice; the
/// first `len % size` elements are left out, in [`remainder`](RChunksExact::remainder):
/// see [`ParallelSlice::par_rchunks_exact`](super::ParallelSlice::par_rchunks_exact).
#[derive(Debug)]
pub struct RChunksExact<'a, T> {
    body: &'a [T],
    rem: &'a [T],
    size: usize,
}

impl<T> Clone for RChunksExact<'_, T> {
    fn clone(&self) -> Self {
        RChunksExact { ..*self }
    }
}

impl<'a, T: Sync> RChunksExact<'a, T> {
    pub(super) fn new(slice: &'a [T], size: usize) -> Self {
        check_size("par_rchunks_exact", size);
        let (rem, body) = slice.split_at(slice.len() % size);
        RChunksExact { body, rem, size }
    }

    /// The elements left out: the first `len % size` of the slice (fewer than `size`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// assert_eq!(v.par_rchunks_exact(2).remainder(), &[1]);
    /// ```
    pub fn remainder(&self) -> &'a [T] {
        self.rem
    }

    fn count(&self) -> usize {
        self.body.len() / self.size
    }
}

chunk_source!(RChunksExact, &'a [T], Sync);

impl<'a, T: Sync> IndexedParallelIterator for RChunksExact<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
        self.body[back_span(self.body.len(), self.size, lo, hi)].rchunks_exact(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.body = &self.body[back_span(self.body.len(), self.size, 0, len)];
    }
    fn advance(&mut self, k: usize) {
        let n = self.body.len();
        self.body = &self.body[back_span(n, self.size, k, usize::MAX)];
    }
}

/// Parallel iterator over exactly-`size`-element mutable chunks from the back of a slice;
/// the first `len % size` elements are left out, in
/// [`into_remainder`](RChunksExactMut::into_remainder): see
/// [`ParallelSliceMut::par_rchunks_exact_mut`](super::ParallelSliceMut::par_rchunks_exact_mut).
#[derive(Debug)]
pub struct RChunksExactMut<'a, T> {
    body: RawMut<'a, T>,
    rem: RawMut<'a, T>,
    size: usize,
}

impl<'a, T: Send> RChunksExactMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], size: usize) -> Self {
        check_size("par_rchunks_exact_mut", size);
        let (rem, body) = slice.split_at_mut(slice.len() % size);
        RChunksExactMut {
            body: RawMut::new(body),
            rem: RawMut::new(rem),
            size,
        }
    }

    /// The elements left out (the first `len % size`), for the slice's whole borrow.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let rem = v.par_rchunks_exact_mut(2).into_remainder();
    /// rem[0] = 0;
    /// assert_eq!(v, [0, 2, 3, 4, 5]);
    /// ```
    pub fn into_remainder(self) -> &'a mut [T] {
        // SAFETY: `self` is consumed, so nothing else can ask for the remainder, and it is
        // never part of a block (module invariant).
        unsafe { self.rem.get(0..self.rem.len()) }
    }

    fn count(&self) -> usize {
        self.body.len() / self.size
    }
}

chunk_source!(RChunksExactMut, &'a mut [T], Send);

impl<'a, T: Send> IndexedParallelIterator for RChunksExactMut<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a mut [T]> + ExactSizeIterator {
        let r = back_span(self.body.len(), self.size, lo, hi);
        // SAFETY: chunk indices lo..hi are handed out once (contract), and blocks of
        // disjoint chunk ranges cover disjoint elements (module invariant).
        unsafe { self.body.get(r) }.rchunks_exact_mut(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.body
            .narrow(back_span(self.body.len(), self.size, 0, len));
    }
    fn advance(&mut self, k: usize) {
        let n = self.body.len();
        self.body.narrow(back_span(n, self.size, k, usize::MAX));
    }
}
