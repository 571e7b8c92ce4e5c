//! Fixed-size chunks from the front of a slice (`par_chunks`, `par_chunks_mut`,
//! `par_chunks_exact`, `par_chunks_exact_mut`) as indexed sources of the `par_iter`
//! protocol.
//!
//! Chunk `i` is elements `i * size..min((i + 1) * size, n)`, so the block of chunks
//! `lo..hi` is the sub-slice `lo * size..min(hi * size, n)` cut by std's `chunks` (or
//! `chunks_exact`, `chunks_mut`, ...): each block is the serial program's loop over a plain
//! sub-slice, with no allocation.
//!
//! Invariants:
//! * Blocks of different chunk ranges cover disjoint elements (what makes the `_mut` forms
//!   sound: each chunk index is handed out once, by the protocol).
//! * The `exact` forms keep their body (a multiple of `size` long) and their remainder
//!   apart; the remainder is never part of a block.
//! * `size >= 1` (checked where the source is made, with [`check_size`]).

use std::ops::Range;

use super::raw::RawMut;
use crate::par_iter::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// Panics with the message every chunking source gives for a chunk size of 0.
#[track_caller]
pub(super) fn check_size(method: &str, size: usize) {
    assert!(
        size != 0,
        "offshoot: {method}(0): the chunk size must be at least 1; pass a positive size"
    );
}

/// The elements of chunks `lo..hi` counted from the front of `n` elements.
#[inline]
pub(super) fn front_span(n: usize, size: usize, lo: usize, hi: usize) -> Range<usize> {
    lo.saturating_mul(size).min(n)..hi.saturating_mul(size).min(n)
}

/// The elements of chunks `lo..hi` counted from the back of `n` elements.
#[inline]
pub(super) fn back_span(n: usize, size: usize, lo: usize, hi: usize) -> Range<usize> {
    n - hi.saturating_mul(size).min(n)..n - lo.saturating_mul(size).min(n)
}

/// Implements `ParallelIterator` for a chunking source with an inherent `count()` and an
/// `IndexedParallelIterator` impl.
macro_rules! chunk_source {
    ($ty:ident, $item:ty, $bound:ident) => {
        impl<'a, T: $bound> ParallelIterator for $ty<'a, T> {
            type Item = $item;
            type State = ();
            #[inline]
            fn base_len(&self) -> usize {
                self.count()
            }
            #[inline]
            fn state(&self) {}
            block_via_iblock!();
        }
    };
}
pub(super) use chunk_source;

/// Parallel iterator over `size`-element chunks of a slice, the last one possibly shorter:
/// see [`ParallelSlice::par_chunks`](super::ParallelSlice::par_chunks).
#[derive(Debug)]
pub struct Chunks<'a, T> {
    slice: &'a [T],
    size: usize,
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

impl<'a, T: Sync> Chunks<'a, T> {
    pub(super) fn new(slice: &'a [T], size: usize) -> Self {
        check_size("par_chunks", size);
        Chunks { slice, size }
    }
    fn count(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
}

chunk_source!(Chunks, &'a [T], Sync);

impl<'a, T: Sync> IndexedParallelIterator for Chunks<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
        self.slice[front_span(self.slice.len(), self.size, lo, hi)].chunks(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.slice = &self.slice[front_span(self.slice.len(), self.size, 0, len)];
    }
    fn advance(&mut self, k: usize) {
        let n = self.slice.len();
        self.slice = &self.slice[front_span(n, self.size, k, usize::MAX)];
    }
}

/// Parallel iterator over `size`-element mutable chunks of a slice, the last one possibly
/// shorter: see [`ParallelSliceMut::par_chunks_mut`](super::ParallelSliceMut::par_chunks_mut).
#[derive(Debug)]
pub struct ChunksMut<'a, T> {
    slice: RawMut<'a, T>,
    size: usize,
}

impl<'a, T: Send> ChunksMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], size: usize) -> Self {
        check_size("par_chunks_mut", size);
        ChunksMut {
            slice: RawMut::new(slice),
            size,
        }
    }
    fn count(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
}

chunk_source!(ChunksMut, &'a mut [T], Send);

impl<'a, T: Send> IndexedParallelIterator for ChunksMut<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a mut [T]> + ExactSizeIterator {
        let r = front_span(self.slice.len(), self.size, lo, hi);
        // SAFETY: chunk indices lo..hi are handed out once (contract), and blocks of
        // disjoint chunk ranges cover disjoint elements (module invariant).
        unsafe { self.slice.get(r) }.chunks_mut(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.slice
            .narrow(front_span(self.slice.len(), self.size, 0, len));
    }
    fn advance(&mut self, k: usize) {
        let n = self.slice.len();
        self.slice.narrow(front_span(n, self.size, k, usize::MAX));
    }
}

/// Parallel iterator over exactly-`size`-element chunks of a slice; the last
/// `len % size` elements are left out, in [`remainder`](ChunksExact::remainder): see
/// [`ParallelSlice::par_chunks_exact`](super::ParallelSlice::par_chunks_exact).
#[derive(Debug)]
pub struct ChunksExact<'a, T> {
    body: &'a [T],
    rem: &'a [T],
    size: usize,
}

impl<T> Clone for ChunksExact<'_, T> {
    fn clone(&self) -> Self {
        ChunksExact { ..*self }
    }
}

impl<'a, T: Sync> ChunksExact<'a, T> {
    pub(super) fn new(slice: &'a [T], size: usize) -> Self {
        check_size("par_chunks_exact", size);
        let (body, rem) = slice.split_at(slice.len() - slice.len() % size);
        ChunksExact { body, rem, size }
    }

    /// The elements left out: the last `len % size` of the slice (fewer than `size`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// assert_eq!(v.par_chunks_exact(2).remainder(), &[5]);
    /// ```
    pub fn remainder(&self) -> &'a [T] {
        self.rem
    }

    fn count(&self) -> usize {
        self.body.len() / self.size
    }
}

chunk_source!(ChunksExact, &'a [T], Sync);

impl<'a, T: Sync> IndexedParallelIterator for ChunksExact<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
        self.body[front_span(self.body.len(), self.size, lo, hi)].chunks_exact(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.body = &self.body[front_span(self.body.len(), self.size, 0, len)];
    }
    fn advance(&mut self, k: usize) {
        let n = self.body.len();
        self.body = &self.body[front_span(n, self.size, k, usize::MAX)];
    }
}

/// Parallel iterator over exactly-`size`-element mutable chunks of a slice; the last
/// `len % size` elements are left out, in [`into_remainder`](ChunksExactMut::into_remainder):
/// see [`ParallelSliceMut::par_chunks_exact_mut`](super::ParallelSliceMut::par_chunks_exact_mut).
#[derive(Debug)]
pub struct ChunksExactMut<'a, T> {
    body: RawMut<'a, T>,
    rem: RawMut<'a, T>,
    size: usize,
}

impl<'a, T: Send> ChunksExactMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], size: usize) -> Self {
        check_size("par_chunks_exact_mut", size);
        let at = slice.len() - slice.len() % size;
        let (body, rem) = slice.split_at_mut(at);
        ChunksExactMut {
            body: RawMut::new(body),
            rem: RawMut::new(rem),
            size,
        }
    }

    /// The elements left out (the last `len % size`), for as long as the iterator lives.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut it = v.par_chunks_exact_mut(2);
    /// it.remainder()[0] = 50;
    /// it.for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 50]);
    /// ```
    pub fn remainder(&mut self) -> &mut [T] {
        // SAFETY: the remainder is never part of a block (module invariant), and the
        // returned borrow of `self` keeps any other call from asking for it meanwhile.
        unsafe { self.rem.get(0..self.rem.len()) }
    }

    /// The elements left out, for the slice's whole borrow.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let rem = v.par_chunks_exact_mut(2).into_remainder();
    /// rem[0] = 0;
    /// assert_eq!(v, [1, 2, 3, 4, 0]);
    /// ```
    pub fn into_remainder(self) -> &'a mut [T] {
        // SAFETY: `self` is consumed, so nothing else can ask for the remainder, and it is
        // never part of a block (module invariant).
        unsafe { self.rem.get(0..self.rem.len()) }
    }

    /// Takes the elements left out, for the slice's whole borrow; the iterator's remainder
    /// is empty afterwards.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3];
    /// let mut it = v.par_chunks_exact_mut(2);
    /// let rem = it.take_remainder();
    /// assert_eq!(rem, &[3]);
    /// assert!(it.remainder().is_empty());
    /// ```
    pub fn take_remainder(&mut self) -> &'a mut [T] {
        let n = self.rem.len();
        // SAFETY: the remainder is never part of a block; after the `narrow` below this
        // iterator can no longer reach it, so the returned slice is the only way to it.
        let rem = unsafe { self.rem.get(0..n) };
        self.rem.narrow(n..n);
        rem
    }

    fn count(&self) -> usize {
        self.body.len() / self.size
    }
}

chunk_source!(ChunksExactMut, &'a mut [T], Send);

impl<'a, T: Send> IndexedParallelIterator for ChunksExactMut<'a, T> {
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a mut [T]> + ExactSizeIterator {
        let r = front_span(self.body.len(), self.size, lo, hi);
        // SAFETY: chunk indices lo..hi are handed out once (contract), and blocks of
        // disjoint chunk ranges cover disjoint elements (module invariant).
        unsafe { self.body.get(r) }.chunks_exact_mut(self.size)
    }
    fn truncate(&mut self, len: usize) {
        self.body
            .narrow(front_span(self.body.len(), self.size, 0, len));
    }
    fn advance(&mut self, k: usize) {
        let n = self.body.len();
        self.body.narrow(front_span(n, self.size, k, usize::MAX));
    }
}
