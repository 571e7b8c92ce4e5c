//! Early-exit consumers: `find_map_any` (behind `any`, `all`, `find_any`,
//! `position_any`), `find_map_first` and `find_map_last` (behind `find_first`,
//! `find_last`, `position_first`, `position_last`).
//!
//! A hit is known by the first index of the block it was found in. Pieces check, before
//! each block, whether the rest of their range can still matter ([`Consumer::skip`]); if
//! not, they drop it unrun. So `find_first` stops every piece to the right of a hit at its
//! next block, but lets the pieces to its left finish; `find_last` does the mirror image.
//!
//! Where an index stands for a long run of items (a range longer than `usize::MAX`,
//! `Lengths::runs`) or may yield any number of them (`flat_map`'s inner iterators,
//! `Lengths::deep`), a block checks the mark every 64 items too, so it stops soon after a
//! hit elsewhere, and polls every 4096 items, so that a worker that asks gets the rest of
//! the piece while one index's items are still being walked. There `find_last` raises the
//! mark at a block's first hit, not at its end, and a block stops once a later block holds
//! a hit.
//!
//! Invariant: the `First` mark only decreases and the `Last` mark only increases; skipped
//! ranges lie wholly after (`First`) or before (`Last`) a block that holds a hit, whose
//! piece keeps it, so the answer is exact.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::consumer::{drive, Consumer};
use super::ParallelIterator;

/// Which hit a [`Find`] keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Any,
    First,
    Last,
}

struct Find<F> {
    f: F,
    which: Which,
    /// `Any`: 1 once a hit is known (0 before). `First`: the first index of the lowest
    /// block known to hold a hit (`usize::MAX`: none yet). `Last`: one past the first index
    /// of the highest block known to hold a hit (0: none yet).
    mark: AtomicUsize,
    /// The pipeline's indices may stand for long runs of items (`Lengths::runs`, `deep`):
    /// check the mark every 64 items too.
    runs: bool,
}

/// Counts an item of a block of long runs; true every 64th (time to check the mark), and
/// every 4096th it polls first, so that a request does not wait for the whole run. A stop
/// comes within 64 items of the mark, at about a counter's cost per item.
#[inline]
fn at_checkpoint(n: &mut u32) -> bool {
    *n = n.wrapping_add(1);
    if !n.is_multiple_of(64) {
        return false;
    }
    if n.is_multiple_of(4096) {
        crate::poll();
    }
    true
}

impl<F> Find<F> {
    /// `find_map` over a block whose index stands for a long run of values (`range.rs`):
    /// stops at a hit elsewhere, checked every 64 items, and polls every 4096 items so
    /// that a request does not wait for the whole run. Apart, so that the ordinary path's
    /// loop stays what it is.
    #[cold]
    #[inline(never)]
    fn find_in_runs<T, R>(&self, mut it: impl Iterator<Item = T>, lo: usize) -> Option<R>
    where
        F: Fn(T) -> Option<R>,
    {
        // `Some(None)`: stopped by a hit elsewhere.
        let mut n = 0u32;
        it.find_map(|x| {
            if at_checkpoint(&mut n) && self.past_a_hit(lo) {
                return Some(None);
            }
            (self.f)(x).map(Some)
        })
        .flatten()
    }

    /// `find_map_last` over a block of long runs: keeps the block's last hit, raises the mark
    /// at its first, and stops once a block after this one holds a hit (the combine then
    /// keeps that later one); polls every 4096 items.
    #[cold]
    #[inline(never)]
    fn find_last_in_runs<T, R>(&self, it: impl Iterator<Item = T>, lo: usize) -> Option<R>
    where
        F: Fn(T) -> Option<R>,
    {
        let mut best = None;
        let mut n = 0u32;
        for x in it {
            if at_checkpoint(&mut n) && self.mark.load(Ordering::Relaxed) > lo + 1 {
                break;
            }
            if let Some(r) = (self.f)(x) {
                if best.is_none() {
                    self.mark.fetch_max(lo + 1, Ordering::Relaxed);
                }
                best = Some(r);
            }
        }
        best
    }

    /// `Any`, `First`: whether items from the block that starts at `lo` on are no longer
    /// needed (a hit is known, for `First` in an earlier block).
    #[inline]
    fn past_a_hit(&self, lo: usize) -> bool {
        let mark = self.mark.load(Ordering::Relaxed);
        match self.which {
            Which::Any => mark != 0,
            Which::First => lo > mark,
            Which::Last => false,
        }
    }
}

impl<T, R: Send, F: Fn(T) -> Option<R> + Sync> Consumer<T> for Find<F> {
    type Acc = Option<R>;
    #[inline]
    fn identity(&self) -> Option<R> {
        None
    }
    #[inline]
    fn consume(
        &self,
        acc: Option<R>,
        mut it: impl Iterator<Item = T>,
        lo: usize,
        _: usize,
    ) -> Option<R> {
        // Relaxed marks: they only stop work early; the answer travels through the loop's
        // join of the accumulators.
        match self.which {
            Which::Any | Which::First => {
                if acc.is_some() {
                    // This piece already has an earlier hit.
                    return acc;
                }
                let r = if self.runs {
                    self.find_in_runs(it, lo)
                } else {
                    it.find_map(&self.f)
                };
                if r.is_some() {
                    if self.which == Which::Any {
                        self.mark.store(1, Ordering::Relaxed);
                    } else {
                        self.mark.fetch_min(lo, Ordering::Relaxed);
                    }
                }
                r
            }
            Which::Last if self.runs => self.find_last_in_runs(it, lo).or(acc),
            Which::Last => match it.filter_map(&self.f).last() {
                Some(r) => {
                    self.mark.fetch_max(lo + 1, Ordering::Relaxed);
                    Some(r)
                }
                None => acc,
            },
        }
    }
    #[inline]
    fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
        match self.which {
            Which::Last => b.or(a),
            Which::Any | Which::First => a.or(b),
        }
    }
    #[inline]
    fn skip(&self, lo: usize, hi: usize) -> bool {
        let mark = self.mark.load(Ordering::Relaxed);
        match self.which {
            Which::Any => mark != 0,
            // Blocks are disjoint: one starting after a hit's block start lies wholly after.
            Which::First => lo > mark,
            // The rest of the piece ends at or before a hit's block start.
            Which::Last => hi < mark,
        }
    }
}

#[inline]
fn find<I, R, F>(iter: I, f: F, which: Which) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    let mark = if which == Which::First { usize::MAX } else { 0 };
    let lengths = iter.lengths();
    let runs = lengths.runs || lengths.deep;
    drive(
        iter,
        &Find {
            f,
            which,
            mark: AtomicUsize::new(mark),
            runs,
        },
    )
}

#[inline]
pub(super) fn find_map_any<I, R, F>(iter: I, f: F) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    find(iter, f, Which::Any)
}

#[inline]
pub(super) fn find_map_first<I, R, F>(iter: I, f: F) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    find(iter, f, Which::First)
}

#[inline]
pub(super) fn find_map_last<I, R, F>(iter: I, f: F) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    find(iter, f, Which::Last)
}
