//! Slices cut where a predicate says, as std's `split`, `split_inclusive` and `chunk_by`
//! (and their `_mut` forms), in parallel:
//!
//! * `par_split`: the sub-slices between the elements that match (`k` separators give
//!   `k + 1` pieces, the separators themselves in none, an empty slice gives one empty
//!   piece);
//! * `par_split_inclusive`: each piece ends with the separator that ends it (no empty
//!   piece at the end; an empty slice gives none);
//! * `par_chunk_by`: the runs of consecutive elements for which `pred(a, b)` holds between
//!   neighbours (an empty slice gives none).
//!
//! The cut points (*marks*) are found first, by a parallel pass (the predicate runs once
//! per element or per pair of neighbours, in parallel), into one `Vec` of positions; piece
//! `i` then lies between marks `i - 1` and `i`, and the pieces are an ordinary source of
//! the `par_iter` protocol. Finding them first is what makes the `_mut` forms sound: a
//! piece handed out as `&mut` is never read again by another block looking for marks.
//! `par_chunk_by_mut` needs only `T: Send`: each block of its pass compares the neighbours
//! inside one `&mut` chunk, and the pairs that straddle two chunks are compared afterwards
//! by the caller, who then holds the whole slice again.
//!
//! Unlike rayon's, these sources are indexed (the number of pieces is known once the
//! marks are), so `enumerate`, `zip` and `rev` work on them.
//!
//! Invariants: `marks` is strictly increasing and below `n` (above 0 for `chunk_by`); the
//! pieces are disjoint (no two share an element, and no excluded separator is in any
//! piece), and together with the excluded separators they cover the slice.

use std::ops::Range;

use super::raw::RawMut;
use super::ParallelSliceMut;
use crate::par_iter::{
    block_via_iblock, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};

/// How a mark cuts: where the piece before it ends and the piece after it starts,
/// relative to the mark.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// `split`: the mark is a separator that belongs to no piece.
    Exclude,
    /// `split_inclusive`: the mark is a separator that ends the piece before it.
    Include,
    /// `chunk_by`: the mark is the first element of the piece after it.
    Before,
}

/// The marks of a slice of `n` elements, and the window `skip..skip + len` of the pieces
/// still in the iterator (`skip`/`take` narrow it).
#[derive(Debug, Clone)]
struct Cuts {
    marks: Vec<usize>,
    cut: Cut,
    n: usize,
    skip: usize,
    len: usize,
}

impl Cuts {
    fn new(marks: Vec<usize>, cut: Cut, n: usize) -> Cuts {
        let k = marks.len();
        let len = match cut {
            Cut::Exclude => k + 1,
            // No empty piece after a separator that ends the slice, none in an empty slice.
            Cut::Include => k + usize::from(marks.last().map_or(n > 0, |&m| m + 1 < n)),
            Cut::Before => k + usize::from(n > 0),
        };
        Cuts {
            marks,
            cut,
            n,
            skip: 0,
            len,
        }
    }

    /// Finds the separators among `items` (the slice's elements, by shared or mutable
    /// reference: `par_split_mut` needs only `T: Send`).
    fn find<I, F>(items: I, n: usize, pred: F, cut: Cut) -> Cuts
    where
        I: IndexedParallelIterator,
        F: Fn(I::Item) -> bool + Sync + Send,
    {
        let marks = items
            .enumerate()
            .filter_map(|(i, x)| pred(x).then_some(i))
            .collect::<Vec<usize>>();
        Cuts::new(marks, cut, n)
    }

    /// Finds the starts of runs: the positions `i > 0` where `same(&v[i - 1], &v[i])` is
    /// false. Each chunk of the pass compares the neighbours inside it; the pairs that
    /// straddle two chunks are compared after the pass, by the caller.
    fn find_runs<T: Send>(v: &mut [T], same: impl Fn(&T, &T) -> bool + Sync + Send) -> Cuts {
        const CHUNK: usize = 4096;
        let n = v.len();
        let same = &same;
        let mut marks: Vec<usize> = v
            .par_chunks_mut(CHUNK)
            .enumerate()
            .flat_map_iter(|(j, c)| {
                (1..c.len())
                    .filter(move |&i| !same(&c[i - 1], &c[i]))
                    .map(move |i| j * CHUNK + i)
            })
            .collect();
        let straddling = (CHUNK..n)
            .step_by(CHUNK)
            .filter(|&i| !same(&v[i - 1], &v[i]));
        marks.extend(straddling);
        marks.sort_unstable();
        Cuts::new(marks, Cut::Before, n)
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
        let (end_off, start_off) = match self.cut {
            Cut::Exclude => (0, 1),
            Cut::Include => (1, 1),
            Cut::Before => (0, 0),
        };
        let start = if i == 0 {
            0
        } else {
            self.marks[i - 1] + start_off
        };
        start..self.marks.get(i).map_or(self.n, |m| m + end_off)
    }
}

/// Parallel iterator over the sub-slices between separators: see
/// [`ParallelSlice::par_split`](super::ParallelSlice::par_split).
#[derive(Debug, Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Split<'a, T> {
    slice: &'a [T],
    cuts: Cuts,
}

impl<'a, T: Sync> Split<'a, T> {
    pub(super) fn new(slice: &'a [T], pred: impl Fn(&T) -> bool + Sync + Send) -> Self {
        Split {
            cuts: Cuts::find(slice.par_iter(), slice.len(), pred, Cut::Exclude),
            slice,
        }
    }

    pub(super) fn inclusive(slice: &'a [T], pred: impl Fn(&T) -> bool + Sync + Send) -> Self {
        Split {
            cuts: Cuts::find(slice.par_iter(), slice.len(), pred, Cut::Include),
            slice,
        }
    }

    pub(super) fn chunk_by(slice: &'a [T], same: impl Fn(&T, &T) -> bool + Sync + Send) -> Self {
        let n = slice.len();
        let marks = (1..n)
            .into_par_iter()
            .filter(|&i| !same(&slice[i - 1], &slice[i]))
            .collect();
        Split {
            cuts: Cuts::new(marks, Cut::Before, n),
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
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
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
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct SplitMut<'a, T> {
    slice: RawMut<'a, T>,
    cuts: Cuts,
}

impl<'a, T: Send> SplitMut<'a, T> {
    pub(super) fn new(slice: &'a mut [T], pred: impl Fn(&T) -> bool + Sync + Send) -> Self {
        let n = slice.len();
        SplitMut {
            cuts: Cuts::find(slice.par_iter_mut(), n, |x: &mut T| pred(x), Cut::Exclude),
            slice: RawMut::new(slice),
        }
    }

    pub(super) fn inclusive(slice: &'a mut [T], pred: impl Fn(&T) -> bool + Sync + Send) -> Self {
        let n = slice.len();
        SplitMut {
            cuts: Cuts::find(slice.par_iter_mut(), n, |x: &mut T| pred(x), Cut::Include),
            slice: RawMut::new(slice),
        }
    }

    pub(super) fn chunk_by(
        slice: &'a mut [T],
        same: impl Fn(&T, &T) -> bool + Sync + Send,
    ) -> Self {
        SplitMut {
            cuts: Cuts::find_runs(slice, same),
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
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
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
