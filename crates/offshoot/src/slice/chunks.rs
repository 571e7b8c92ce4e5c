//! Fixed-size chunks of a slice as indexed sources of the `par_iter` protocol: from the
//! front (`par_chunks`, `par_chunks_exact`) or from the back (`par_rchunks`,
//! `par_rchunks_exact`), shared or `_mut` — std's eight chunk iterators, in parallel.
//!
//! Every source holds its `body` (the elements its chunks cover) and its remainder `rem`
//! (the `len % size` elements an `exact` form leaves out; empty for the others), split by
//! its [`Layout`]. Chunk `i` of a front layout is body elements `i * size..min((i + 1) *
//! size, n)` ([`front_span`]); of a back layout, the same counted from the body's end
//! ([`back_span`]). So the block of chunks `lo..hi` is one sub-slice of the body, cut by
//! std's `chunks` / `chunks_exact` / `rchunks` / ... (and their `_mut` forms): each block
//! is the serial program's loop over a plain sub-slice, with no allocation.
//!
//! Invariants:
//! * Blocks of different chunk ranges cover disjoint elements of the body (what makes
//!   the `_mut` forms sound: each chunk index is handed out once, by the protocol).
//! * The remainder is never part of a block; an `exact` body is a multiple of `size` long.
//! * `size >= 1` (checked where the source is made, with [`check_size`]).

use std::ops::Range;

use super::raw::RawMut;
use crate::par_iter::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// Panics with the message every chunking source gives for a chunk size of 0.
#[track_caller]
fn check_size(method: &str, size: usize) {
    assert!(
        size != 0,
        "offshoot: {method}(0): the chunk size must be at least 1; pass a positive size"
    );
}

/// Where a source's chunks lie in its slice.
#[derive(Clone, Copy)]
enum Layout {
    /// Every element, the last chunk possibly short (`chunks`, `rchunks`).
    Ragged,
    /// Whole chunks from the front; the last `n % size` elements are the remainder.
    ExactFront,
    /// Whole chunks from the back; the first `n % size` elements are the remainder.
    ExactBack,
}

impl Layout {
    /// The body of a slice of `n` elements; the remainder is the rest.
    fn body(self, n: usize, size: usize) -> Range<usize> {
        match self {
            Layout::Ragged => 0..n,
            Layout::ExactFront => 0..n - n % size,
            Layout::ExactBack => n % size..n,
        }
    }

    /// `(body, remainder)` of `s`.
    fn split<S: Splittable>(self, s: S, size: usize) -> (S, S) {
        let body = self.body(s.len(), size);
        if body.start == 0 {
            s.split(body.end)
        } else {
            let (rem, body) = s.split(body.start);
            (body, rem)
        }
    }
}

/// `&[T]` and `&mut [T]`, split at an index.
trait Splittable: Sized {
    fn len(&self) -> usize;
    fn split(self, at: usize) -> (Self, Self);
}

impl<T> Splittable for &[T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn split(self, at: usize) -> (Self, Self) {
        self.split_at(at)
    }
}

impl<T> Splittable for &mut [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
    fn split(self, at: usize) -> (Self, Self) {
        self.split_at_mut(at)
    }
}

/// The elements of chunks `lo..hi` counted from the front of `n` elements.
#[inline]
fn front_span(n: usize, size: usize, lo: usize, hi: usize) -> Range<usize> {
    lo.saturating_mul(size).min(n)..hi.saturating_mul(size).min(n)
}

/// The elements of chunks `lo..hi` counted from the back of `n` elements.
#[inline]
fn back_span(n: usize, size: usize, lo: usize, hi: usize) -> Range<usize> {
    n - hi.saturating_mul(size).min(n)..n - lo.saturating_mul(size).min(n)
}

/// Defines one chunking source: `ref` over `&'a [T]`, `mut` over `&'a mut [T]` (held as a
/// [`RawMut`]); `$method` names it in the size-0 panic, `$layout` splits body and
/// remainder, `$span` places chunks, `$cut` is std's matching slice method.
macro_rules! chunking {
    (ref $(#[$doc:meta])* $ty:ident, $method:literal, $layout:expr, $span:ident, $cut:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "lazy iterators do nothing unless consumed"]
        pub struct $ty<'a, T> {
            body: &'a [T],
            // Empty and never read in the ragged forms; the exact forms' `remainder`.
            #[allow(dead_code)]
            rem: &'a [T],
            size: usize,
        }

        impl<T> Clone for $ty<'_, T> {
            fn clone(&self) -> Self {
                $ty { ..*self }
            }
        }

        impl<'a, T: Sync> $ty<'a, T> {
            #[track_caller]
            pub(super) fn new(slice: &'a [T], size: usize) -> Self {
                check_size($method, size);
                let (body, rem) = $layout.split(slice, size);
                $ty { body, rem, size }
            }
        }

        impl<'a, T: Sync> ParallelIterator for $ty<'a, T> {
            type Item = &'a [T];
            type State = ();
            #[inline]
            fn base_len(&self) -> usize {
                self.body.len().div_ceil(self.size)
            }
            #[inline]
            fn state(&self) {}
            block_via_iblock!();
        }

        impl<'a, T: Sync> IndexedParallelIterator for $ty<'a, T> {
            /// # Safety
            /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`):
            /// each index is handed out at most once over the pipeline's life, and
            /// `lo <= hi <= base_len()`.
            #[inline]
            unsafe fn iblock<'s>(
                &'s self,
                _: &'s mut (),
                lo: usize,
                hi: usize,
            ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
                self.body[$span(self.body.len(), self.size, lo, hi)].$cut(self.size)
            }
            fn truncate(&mut self, len: usize) {
                self.body = &self.body[$span(self.body.len(), self.size, 0, len)];
            }
            fn advance(&mut self, k: usize) {
                let n = self.body.len();
                self.body = &self.body[$span(n, self.size, k, usize::MAX)];
            }
        }
    };
    (mut $(#[$doc:meta])* $ty:ident, $method:literal, $layout:expr, $span:ident, $cut:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "lazy iterators do nothing unless consumed"]
        pub struct $ty<'a, T> {
            body: RawMut<'a, T>,
            // Empty and never read in the ragged forms; the exact forms' remainder.
            #[allow(dead_code)]
            rem: RawMut<'a, T>,
            size: usize,
        }

        impl<'a, T: Send> $ty<'a, T> {
            #[track_caller]
            pub(super) fn new(slice: &'a mut [T], size: usize) -> Self {
                check_size($method, size);
                let (body, rem) = $layout.split(slice, size);
                $ty {
                    body: RawMut::new(body),
                    rem: RawMut::new(rem),
                    size,
                }
            }
        }

        impl<'a, T: Send> ParallelIterator for $ty<'a, T> {
            type Item = &'a mut [T];
            type State = ();
            #[inline]
            fn base_len(&self) -> usize {
                self.body.len().div_ceil(self.size)
            }
            #[inline]
            fn state(&self) {}
            block_via_iblock!();
        }

        impl<'a, T: Send> IndexedParallelIterator for $ty<'a, T> {
            /// # Safety
            /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`):
            /// each index is handed out at most once over the pipeline's life, and
            /// `lo <= hi <= base_len()`.
            #[inline]
            unsafe fn iblock<'s>(
                &'s self,
                _: &'s mut (),
                lo: usize,
                hi: usize,
            ) -> impl DoubleEndedIterator<Item = &'a mut [T]> + ExactSizeIterator {
                let r = $span(self.body.len(), self.size, lo, hi);
                // SAFETY: chunk indices lo..hi are handed out once (contract), and blocks
                // of disjoint chunk ranges cover disjoint elements (module invariant).
                unsafe { self.body.get(r) }.$cut(self.size)
            }
            fn truncate(&mut self, len: usize) {
                self.body
                    .narrow($span(self.body.len(), self.size, 0, len));
            }
            fn advance(&mut self, k: usize) {
                let n = self.body.len();
                self.body.narrow($span(n, self.size, k, usize::MAX));
            }
        }
    };
}

chunking!(ref
    /// Parallel iterator over `size`-element chunks of a slice, the last one possibly
    /// shorter: see [`ParallelSlice::par_chunks`](super::ParallelSlice::par_chunks).
    Chunks, "par_chunks", Layout::Ragged, front_span, chunks);
chunking!(mut
    /// Parallel iterator over `size`-element mutable chunks of a slice, the last one
    /// possibly shorter: see
    /// [`ParallelSliceMut::par_chunks_mut`](super::ParallelSliceMut::par_chunks_mut).
    ChunksMut, "par_chunks_mut", Layout::Ragged, front_span, chunks_mut);
chunking!(ref
    /// Parallel iterator over exactly-`size`-element chunks of a slice; the last
    /// `len % size` elements are left out, in [`remainder`](ChunksExact::remainder): see
    /// [`ParallelSlice::par_chunks_exact`](super::ParallelSlice::par_chunks_exact).
    ChunksExact, "par_chunks_exact", Layout::ExactFront, front_span, chunks_exact);
chunking!(mut
    /// Parallel iterator over exactly-`size`-element mutable chunks of a slice; the last
    /// `len % size` elements are left out, in
    /// [`into_remainder`](ChunksExactMut::into_remainder): see
    /// [`ParallelSliceMut::par_chunks_exact_mut`](super::ParallelSliceMut::par_chunks_exact_mut).
    ChunksExactMut, "par_chunks_exact_mut", Layout::ExactFront, front_span, chunks_exact_mut);
chunking!(ref
    /// Parallel iterator over `size`-element chunks from the back of a slice, the last one
    /// (the slice's front) possibly shorter: see
    /// [`ParallelSlice::par_rchunks`](super::ParallelSlice::par_rchunks).
    RChunks, "par_rchunks", Layout::Ragged, back_span, rchunks);
chunking!(mut
    /// Parallel iterator over `size`-element mutable chunks from the back of a slice: see
    /// [`ParallelSliceMut::par_rchunks_mut`](super::ParallelSliceMut::par_rchunks_mut).
    RChunksMut, "par_rchunks_mut", Layout::Ragged, back_span, rchunks_mut);
chunking!(ref
    /// Parallel iterator over exactly-`size`-element chunks from the back of a slice; the
    /// first `len % size` elements are left out, in [`remainder`](RChunksExact::remainder):
    /// see [`ParallelSlice::par_rchunks_exact`](super::ParallelSlice::par_rchunks_exact).
    RChunksExact, "par_rchunks_exact", Layout::ExactBack, back_span, rchunks_exact);
chunking!(mut
    /// Parallel iterator over exactly-`size`-element mutable chunks from the back of a
    /// slice; the first `len % size` elements are left out, in
    /// [`into_remainder`](RChunksExactMut::into_remainder): see
    /// [`ParallelSliceMut::par_rchunks_exact_mut`](super::ParallelSliceMut::par_rchunks_exact_mut).
    RChunksExactMut, "par_rchunks_exact_mut", Layout::ExactBack, back_span, rchunks_exact_mut);

impl<'a, T> ChunksExact<'a, T> {
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
}

impl<'a, T> RChunksExact<'a, T> {
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
}

/// The remainder accessors of the `exact` `_mut` forms.
macro_rules! remainder_mut {
    ($ty:ident, $method:ident, $which:literal, $ex_rem:literal, $ex_after:literal) => {
        impl<'a, T> $ty<'a, T> {
            #[doc = concat!("The elements left out (the ", $which, " `len % size`), for as long as")]
            /// the iterator lives.
            pub fn remainder(&mut self) -> &mut [T] {
                // SAFETY: the remainder is never part of a block (module invariant), and
                // the returned borrow of `self` keeps any other call from asking for it.
                unsafe { self.rem.get(0..self.rem.len()) }
            }

            /// The elements left out, for the slice's whole borrow.
            ///
            /// ```
            /// use offshoot::prelude::*;
            /// let mut v = [1, 2, 3, 4, 5];
            #[doc = concat!("let rem = v.", stringify!($method), "(2).into_remainder();")]
            #[doc = concat!("assert_eq!(rem, &[", $ex_rem, "]);")]
            /// rem[0] = 0;
            #[doc = concat!("assert_eq!(v, [", $ex_after, "]);")]
            /// ```
            pub fn into_remainder(self) -> &'a mut [T] {
                // SAFETY: `self` is consumed, so nothing else can ask for the remainder,
                // and it is never part of a block (module invariant).
                unsafe { self.rem.get(0..self.rem.len()) }
            }

            /// Takes the elements left out, for the slice's whole borrow; the iterator's
            /// remainder is empty afterwards.
            ///
            /// ```
            /// use offshoot::prelude::*;
            /// let mut v = [1, 2, 3, 4, 5];
            #[doc = concat!("let mut it = v.", stringify!($method), "(2);")]
            #[doc = concat!("assert_eq!(it.take_remainder(), &[", $ex_rem, "]);")]
            /// assert!(it.remainder().is_empty());
            /// ```
            pub fn take_remainder(&mut self) -> &'a mut [T] {
                let n = self.rem.len();
                // SAFETY: the remainder is never part of a block; after the `narrow` below
                // this iterator can no longer reach it, so the returned slice is the only
                // way to it.
                let rem = unsafe { self.rem.get(0..n) };
                self.rem.narrow(n..n);
                rem
            }
        }
    };
}

remainder_mut!(
    ChunksExactMut,
    par_chunks_exact_mut,
    "last",
    "5",
    "1, 2, 3, 4, 0"
);
remainder_mut!(
    RChunksExactMut,
    par_rchunks_exact_mut,
    "first",
    "1",
    "0, 2, 3, 4, 5"
);
