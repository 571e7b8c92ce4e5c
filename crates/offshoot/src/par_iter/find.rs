//! Early-exit consumers: `find_map_any` (behind `any`, `all`, `find_any`,
//! `position_any`), `find_map_first` and `find_map_last` (behind `find_first`,
//! `find_last`, `position_first`, `position_last`).
//!
//! A hit is known by the first index of the block it was found in. Pieces check, before
//! each block, whether the rest of their range can still matter ([`Consumer::skip`]); if
//! not, they drop it unrun. So `find_first` stops every piece to the right of a hit at its
//! next block, but lets the pieces to its left finish; `find_last` does the mirror image.
//!
//! Invariant: `first` only decreases and `last` only increases, and a hit's block key is
//! published only after the hit is in the finder's accumulator; skipped ranges lie wholly
//! after (`first`) or before (`last`) a block that holds a hit, so the answer is exact.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::consumer::{drive, Consumer};
use super::ParallelIterator;

struct FindAny<F> {
    f: F,
    found: AtomicBool,
}

impl<T, R: Send, F: Fn(T) -> Option<R> + Sync> Consumer<T> for FindAny<F> {
    type Acc = Option<R>;
    #[inline]
    fn identity(&self) -> Option<R> {
        None
    }
    #[inline]
    fn consume(&self, acc: Option<R>, mut it: impl Iterator<Item = T>, _: usize) -> Option<R> {
        if acc.is_some() {
            return acc;
        }
        let r = it.find_map(&self.f);
        if r.is_some() {
            // Relaxed: the flag only stops work early; the answer travels through the
            // loop's join of the accumulators.
            self.found.store(true, Ordering::Relaxed);
        }
        r
    }
    #[inline]
    fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
        a.or(b)
    }
    #[inline]
    fn skip(&self, _: usize, _: usize) -> bool {
        self.found.load(Ordering::Relaxed)
    }
}

#[inline]
pub(super) fn find_map_any<I, R, F>(iter: I, f: F) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    drive(
        iter,
        &FindAny {
            f,
            found: AtomicBool::new(false),
        },
    )
}

struct FindFirst<F> {
    f: F,
    /// The first index of the lowest block known to hold a hit (`usize::MAX`: none yet).
    first: AtomicUsize,
}

impl<T, R: Send, F: Fn(T) -> Option<R> + Sync> Consumer<T> for FindFirst<F> {
    type Acc = Option<R>;
    #[inline]
    fn identity(&self) -> Option<R> {
        None
    }
    #[inline]
    fn consume(&self, acc: Option<R>, mut it: impl Iterator<Item = T>, lo: usize) -> Option<R> {
        if acc.is_some() {
            // This piece already has an earlier hit.
            return acc;
        }
        let r = it.find_map(&self.f);
        if r.is_some() {
            // Relaxed: a hint to stop work; the answer travels through the loop's join.
            self.first.fetch_min(lo, Ordering::Relaxed);
        }
        r
    }
    #[inline]
    fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
        a.or(b)
    }
    #[inline]
    fn skip(&self, lo: usize, _: usize) -> bool {
        // Blocks are disjoint: one starting after a hit's block start lies wholly after it.
        lo > self.first.load(Ordering::Relaxed)
    }
}

#[inline]
pub(super) fn find_map_first<I, R, F>(iter: I, f: F) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    drive(
        iter,
        &FindFirst {
            f,
            first: AtomicUsize::new(usize::MAX),
        },
    )
}

struct FindLast<F> {
    f: F,
    /// One past the first index of the highest block known to hold a hit (0: none yet).
    last: AtomicUsize,
}

impl<T, R: Send, F: Fn(T) -> Option<R> + Sync> Consumer<T> for FindLast<F> {
    type Acc = Option<R>;
    #[inline]
    fn identity(&self) -> Option<R> {
        None
    }
    #[inline]
    fn consume(&self, acc: Option<R>, it: impl Iterator<Item = T>, lo: usize) -> Option<R> {
        let r = it.filter_map(&self.f).last();
        if r.is_some() {
            // Relaxed: a hint to stop work; the answer travels through the loop's join.
            self.last.fetch_max(lo + 1, Ordering::Relaxed);
            return r;
        }
        acc
    }
    #[inline]
    fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
        b.or(a)
    }
    #[inline]
    fn skip(&self, _: usize, hi: usize) -> bool {
        // The rest of the piece ends at or before a hit's block start.
        hi < self.last.load(Ordering::Relaxed)
    }
}

#[inline]
pub(super) fn find_map_last<I, R, F>(iter: I, f: F) -> Option<R>
where
    I: ParallelIterator,
    R: Send,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
{
    drive(
        iter,
        &FindLast {
            f,
            last: AtomicUsize::new(0),
        },
    )
}
