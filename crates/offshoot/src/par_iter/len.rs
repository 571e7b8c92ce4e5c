//! `with_min_len` and `with_max_len`: the shortest and longest *piece* a pipeline asks
//! for. A piece is what one per-piece state covers (one `fold` accumulator, one `map_init`
//! value): a part of the range a worker runs, or, under a maximum, a segment of it.
//!
//! [`MinLen`] and [`MaxLen`] only record their bound; every adaptor reports its base's
//! bounds in its own indices ([`ParallelIterator::lengths`]: the same for adaptors that
//! keep their base's indices, divided for `chunks` and `step_by`, the tighter of both sides
//! for `zip` and `chain`). The consumer (`consumer.rs`) turns the top's bounds into a
//! [`Grid`] over `0..n`, which the loop asks where it may cut a piece for a thief and
//! where a piece's state restarts.
//!
//! Invariants:
//! * With a minimum `min > 1`, the loop cuts only at the boundaries of `n / min` equal
//!   cells (each at least `min` long; one cell if `n < 2 * min`). Every piece starts and
//!   ends at a boundary, so each is a run of whole cells: none is shorter than `min` unless
//!   `n` is. A piece's own part before the cut is never emptied except when the loop gives
//!   a parked piece all its unclaimed rest and nothing of it ran yet.
//! * With a maximum, a piece's state is flushed and made again at *restart* boundaries: the
//!   boundaries of `ceil(n / max)` equal cells, or, with a minimum too, every `c`-th cut
//!   boundary, `c` the most cells that fit in `max`. So each state covers at most `max`
//!   items unless a single cell (at least `min`) is longer: the minimum wins, as in rayon.
//! * Nothing here changes which items are produced or their order: only where pieces are
//!   cut and how many states fold them.

use super::blocks::Blocks;
use super::{
    block_via_iblock, forward_shape, forward_to_base, IndexedParallelIterator, ParallelIterator,
};

/// The bounds on a piece's length a pipeline asks for, in its own indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lengths {
    /// No piece shorter (unless the whole range is); 1: no bound.
    pub(crate) min: usize,
    /// No piece longer, where the minimum allows; `usize::MAX`: no bound.
    pub(crate) max: usize,
    /// An index may stand for a long run of items (a range longer than `usize::MAX`,
    /// `range.rs`), so a consumer that stops early checks between items, not only between
    /// blocks. Not a bound: carried here because every adaptor already reports `lengths`.
    pub(crate) runs: bool,
    /// An index may yield any number of items (the inner iterators of `flat_map` and
    /// `flatten`), so a consumer that stops early checks between items and polls inside a
    /// block, as for `runs`; blocks keep their size. Not a bound either.
    pub(crate) deep: bool,
    /// The blocks the indices run in, one after the other (`blocks.rs`): `Whole` but under
    /// `by_uniform_blocks` and `by_exponential_blocks`. Not a bound either.
    pub(crate) blocks: Blocks,
}

impl Lengths {
    /// No bound.
    pub(crate) const ANY: Lengths = Lengths {
        min: 1,
        max: usize::MAX,
        runs: false,
        deep: false,
        blocks: Blocks::Whole,
    };

    /// Both bounds at once (`zip`, `chain`, a bound set twice): the larger minimum and the
    /// smaller maximum.
    pub(crate) fn and(self, other: Lengths) -> Lengths {
        Lengths {
            min: self.min.max(other.min),
            max: self.max.min(other.max),
            runs: self.runs || other.runs,
            deep: self.deep || other.deep,
            // The first plan set (a `chain` of a blocked side: the chain's indices run in
            // that side's blocks, counted from the chain's start).
            blocks: if self.blocks == Blocks::Whole {
                other.blocks
            } else {
                self.blocks
            },
        }
    }

    /// The bounds of `self`, counted in items of an adaptor whose item `i` covers `k` of
    /// these items (`chunks(k)`, `step_by(k)`).
    pub(crate) fn per(self, k: usize) -> Lengths {
        Lengths {
            min: self.min.div_ceil(k),
            max: if self.max == usize::MAX {
                usize::MAX
            } else {
                (self.max / k).max(1)
            },
            runs: self.runs,
            deep: self.deep,
            blocks: self.blocks.per(k),
        }
    }
}

/// Where a pipeline of `n` indices with [`Lengths`] may be cut, and where its pieces'
/// states restart (see the module's invariants).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    n: usize,
    /// The number of equal cells; boundary `j` is `j * n / cells`.
    cells: usize,
    /// Cuts only at cell boundaries (a minimum was set); else anywhere.
    cut_on_cells: bool,
    /// States restart at every `restart_every`-th boundary; 0: never.
    restart_every: usize,
}

impl Grid {
    pub(crate) fn new(n: usize, l: Lengths) -> Grid {
        let (min, max) = (l.min.max(1), l.max.max(1));
        let n1 = n.max(1);
        if min > 1 {
            let cells = (n1 / min).max(1);
            let widest = n1.div_ceil(cells);
            let c = (max / widest).max(1);
            Grid {
                n: n1,
                cells,
                cut_on_cells: true,
                restart_every: if max < n1 && c < cells { c } else { 0 },
            }
        } else {
            Grid {
                n: n1,
                cells: n1.div_ceil(max),
                cut_on_cells: false,
                restart_every: usize::from(max < n1),
            }
        }
    }

    /// Whether a piece's state ever restarts.
    #[inline]
    pub(crate) fn restarts(&self) -> bool {
        self.restart_every != 0
    }

    fn boundary(&self, j: usize) -> usize {
        (j as u128 * self.n as u128 / self.cells as u128) as usize
    }

    /// The index of the first boundary at or above `x` (`x <= n`).
    fn index_above(&self, x: usize) -> usize {
        (x as u128 * self.cells as u128).div_ceil(self.n as u128) as usize
    }

    /// Where the unclaimed part `next..end` of a piece may be cut for a thief (which takes
    /// `mid..end`): near the middle, or, for `whole`, as near `next` as the cells allow.
    /// `None`: it may not be cut now.
    pub(crate) fn cut(&self, next: usize, end: usize, whole: bool) -> Option<usize> {
        let want = if whole { next } else { next + (end - next) / 2 };
        let mid = if self.cut_on_cells {
            let j = self.index_above(want);
            match self.boundary(j) {
                b if b < end => b,
                _ if j > 0 => self.boundary(j - 1),
                _ => return None,
            }
        } else {
            want
        };
        let lowest = if whole { next } else { next + 1 };
        (lowest <= mid && mid < end).then_some(mid)
    }

    /// The first restart boundary above `s` (`n` if none; only when [`Grid::restarts`]).
    pub(crate) fn restart_after(&self, s: usize) -> usize {
        let j = self.index_above((s + 1).min(self.n));
        let j = j.div_ceil(self.restart_every) * self.restart_every;
        self.boundary(j.min(self.cells))
    }
}

/// See [`IndexedParallelIterator::with_min_len`].
#[must_use = "lazy iterators do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

/// See [`IndexedParallelIterator::with_max_len`].
#[must_use = "lazy iterators do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MinLen<I> {
    pub(super) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

impl<I> MaxLen<I> {
    pub(super) fn new(base: I, max: usize) -> Self {
        MaxLen { base, max }
    }
}

/// The two adaptors: their base's pipeline with one bound added.
macro_rules! length_adaptor {
    ($name:ident, |$s:ident| $own:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;
            type State = I::State;
            forward_to_base!(own_lengths);
            block_via_iblock!();
            fn lengths(&self) -> Lengths {
                let $s = self;
                self.base.lengths().and($own)
            }
            fn into_seq(self) -> impl Iterator<Item = I::Item> {
                self.base.into_seq()
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            /// # Safety
            /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`):
            /// each index is handed out at most once over the pipeline's life, and
            /// `lo <= hi <= base_len()`.
            #[inline]
            unsafe fn iblock<'s>(
                &'s self,
                st: &'s mut I::State,
                lo: usize,
                hi: usize,
            ) -> impl DoubleEndedIterator<Item = I::Item> + ExactSizeIterator {
                // SAFETY: forwarded contract.
                unsafe { self.base.iblock(st, lo, hi) }
            }
            forward_shape!();
        }
    };
}

length_adaptor!(MinLen, |s| Lengths {
    min: s.min.max(1),
    ..Lengths::ANY
});
length_adaptor!(MaxLen, |s| Lengths {
    max: s.max.max(1),
    ..Lengths::ANY
});

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize, min: usize, max: usize) -> Grid {
        Grid::new(
            n,
            Lengths {
                min,
                max,
                ..Lengths::ANY
            },
        )
    }

    /// Every piece a sequence of cuts can make, from any claimed point, is a run of whole
    /// cells of at least `min`.
    #[test]
    fn cuts_never_leave_a_piece_under_the_minimum() {
        for &(n, min) in &[
            (1000, 300),
            (1_000_000, 1234),
            (10, 3),
            (7, 7),
            (5, 9),
            (1009, 10),
        ] {
            let g = grid(n, min, usize::MAX);
            // Pieces as (start, next, end): cut each at every claim point, both ways.
            let mut work = vec![(0usize, 0usize, n)];
            let mut done = Vec::new();
            let mut steps = 0;
            while let Some((lo, next, end)) = work.pop() {
                steps += 1;
                let cut = (next < end && steps < 4000)
                    .then(|| g.cut(next, end, steps % 3 == 0))
                    .flatten();
                match cut {
                    Some(mid) => {
                        assert!(next <= mid && mid < end);
                        work.push((mid, mid, end));
                        // The owner claims a little more before the next request.
                        let claimed = (mid - next).min(1 + steps % 7);
                        work.push((lo, next + claimed, mid));
                    }
                    None => done.push(end - lo),
                }
            }
            assert_eq!(done.iter().sum::<usize>(), n);
            for &len in &done {
                assert!(
                    len >= min.min(n) || len == 0,
                    "({n}, {min}): a piece of {len}"
                );
            }
        }
    }

    #[test]
    fn without_a_minimum_cuts_are_halves() {
        let g = grid(100, 1, usize::MAX);
        assert_eq!(g.cut(10, 20, false), Some(15));
        assert_eq!(g.cut(10, 11, false), None);
        assert_eq!(g.cut(10, 11, true), Some(10));
        assert!(!g.restarts());
    }

    /// Restart boundaries split `0..n` into segments within both bounds, the minimum
    /// winning.
    #[test]
    fn restarts_keep_segments_within_the_bounds() {
        for &(n, min, max) in &[
            (1_000_000, 1, 1234),
            (10_000, 50, 120),
            (10_000, 64, 300),
            (1009, 10, 10),
            (100, 1, 1),
        ] {
            let g = grid(n, min, max);
            assert!(g.restarts(), "({n}, {min}, {max})");
            let (mut s, mut segs) = (0, Vec::new());
            while s < n {
                let e = g.restart_after(s);
                assert!(e > s);
                segs.push(e - s);
                s = e;
            }
            assert_eq!(s, n);
            for &len in &segs {
                assert!(len >= min.min(n), "({n}, {min}, {max}): {len}");
                assert!(len <= max || len < 2 * min, "({n}, {min}, {max}): {len}");
            }
        }
        assert!(!grid(100, 1, 100).restarts());
        assert!(!grid(100, 30, 1000).restarts());
        // One cell of 16: the minimum of 10 wins over the maximum of 15, as in rayon.
        assert!(!grid(16, 10, 15).restarts());
    }
}
