//! `par_split` and `par_split_mut`: the sub-slices between the elements that match a
//! predicate (std's `split`, in parallel: `k` separators give `k + 1` pieces, the
//! separators themselves in none, an empty slice gives one empty piece).
//!
//! The separators are found first, by a parallel filter over the positions (the predicate
//! runs once per element, in parallel), into one `Vec` of positions; piece `i` is then the
//! elements between separators `i - 1` and `i`, and the pieces are an ordinary source of
//! the `par_iter` protocol. Finding them first is what makes `par_split_mut` sound: a piece
//! handed out as `&mut` is never read again by another block looking for separators.
//!
//! Unlike rayon's, these sources are indexed (the number of pieces is known once the
//! separators are), so `enumerate`, `zip` and `rev` work on them.
//!
//! Invariants: `seps` is strictly increasing and below `n`; the pieces are disjoint (no two
//! share an element, and no separator is in any piece).

use std::ops::Range;

use super::raw::RawMut;
use crate::par_iter::{
    block_via_iblock, IndexedParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
    ParallelIterator,
};

/// The separators' positions in a slice of `n` elements, and the window `skip..skip +
/// len` of the pieces still in the iterator (`skip`/`take` narrow it).
#[derive(Debug, Clone)]
struct Cuts {
    seps: Vec<usize>,
    n: usize,
    skip: usize,
    len: usize,
}

impl Cuts {
    /// Finds the separators among `items` (the slice's elements, by shared or mutable
    /// reference: `par_split_mut` needs only `T: Send`).
    fn find<I, F>(items: I, n: usize, pred: F) -> Cuts
    where
        I: IndexedParallelIterator,
        F: Fn(I::Item) -> bool + Sync + Send,
    {
        let seps = items
            .enumerate()
            .filter_map(|(i, x)| pred(x).then_some(i))
            .collect::<Vec<usize>>();
        let len = seps.len() + 1;
        Cuts {
            seps,
            n,
            skip: 0,
            len,
        }
    }

    fn count(&self) -> usize {
        self.len
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    fn advance(&mut self, k: usize) {
        let k = k.min(self.len);
        self.skip += k;
        self.len -= k;
    }

    /// The elements of piece `i < count()`.
    #[inline]
    fn piece(&self, i: usize) -> Range<usize> {
        let i = i + self.skip;
        let start = if i == 0 { 0 } else { self.seps[i - 1] + 1 };
        start..self.seps.get(i).copied().unwrap_or(self.n)
    }
}

/// Parallel iterator over the sub-slices between separators: see
/// [`ParallelSlice::par_split`](super::ParallelSlice::par_split).
#[derive(Debug, Clone)]
pub struct Split<'a, T> {
    slice: &'a [T],
    cuts: Cuts,
}

impl<'a, T: Sync> Split<'a, T> {
    pub(super) fn new(slice: &'a [T], pred: impl Fn(&T) -> bool + Sync + Send) -> Self {
        Split {
            cuts: Cuts::find(slice.par_iter(), slice.len(), pred),
            slice,
        }
    }
}

impl<'a, T: Sync> ParallelIterator for Split<'a, T> {
    type Item = &'a [T];
    type State = ();
    fn base_len(&self) -> usize {
        self.cuts.count()
    }
    fn state(&self) {}
    block_via_iblock!();
}

impl<'a, T: Sync> IndexedParallelIterator for Split<'a, T> {
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a [T]> + ExactSizeIterator {
        let slice = self.slice;
        (lo..hi).map(move |i| &slice[self.cuts.piece(i)])
    }
    fn truncate(&mut self, len: usize) {
        self.cuts.truncate(len);
    }
    fn advance(&mut self, k: usize) {
        self.cuts.advance(k);
    }
}

/// Parallel iterator over the mutable sub-slices between separators: see
/// [`ParallelSliceMut::par_split_mut`](super::ParallelSliceMut::par_split_mut).
#[derive(Debug)]
pub struct SplitMut<'a, T> {
    slice: RawMut<'a, T>,
    cuts: Cuts,
}

impl<'a, T: Send> SplitMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], pred: impl Fn(&T) -> bool + Sync + Send) -> Self {
        let n = slice.len();
        SplitMut {
            cuts: Cuts::find(slice.par_iter_mut(), n, |x: &mut T| pred(x)),
            slice: RawMut::new(slice),
        }
    }
}

impl<'a, T: Send> ParallelIterator for SplitMut<'a, T> {
    type Item = &'a mut [T];
    type State = ();
    fn base_len(&self) -> usize {
        self.cuts.count()
    }
    fn state(&self) {}
    block_via_iblock!();
}

impl<'a, T: Send> IndexedParallelIterator for SplitMut<'a, T> {
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a mut [T]> + ExactSizeIterator {
        // SAFETY: piece indices lo..hi are handed out once (contract), and pieces are
        // pairwise disjoint (module invariant).
        (lo..hi).map(move |i| unsafe { self.slice.get(self.cuts.piece(i)) })
    }
    fn truncate(&mut self, len: usize) {
        self.cuts.truncate(len);
    }
    fn advance(&mut self, k: usize) {
        self.cuts.advance(k);
    }
}
