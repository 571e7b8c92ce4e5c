//! The consumer side of the protocol: a [`Consumer`] folds the items of each block into a
//! per-piece accumulator and combines accumulators in index order; [`drive`] runs it as a
//! lazily split loop (`loops.rs`) over the pipeline's indices.
//!
//! Invariants:
//! * Every index of `0..base_len()` goes to exactly one `block` (run) or `drop_block`
//!   (skipped after an early exit) call: the loop hands each index to one block.
//! * A piece's pipeline state is made on the worker that runs the piece and flushed into
//!   the piece's accumulator when the piece ends (not when it unwinds).
//! * Accumulators combine left (lower indices) with right: `combine(a, b)`.
//! * A piece ends early when the consumer needs no more (`Consumer::skip`) or the pipeline
//!   will yield no more (`ParallelIterator::exhausted`): its rest goes to one `drop_block`.

use super::ParallelIterator;
use crate::loops::{run_range, LoopBody};
use crate::pool::in_worker;

/// Folds items into a per-piece accumulator.
pub(super) trait Consumer<T>: Sync {
    type Acc: Send;
    /// A piece's starting accumulator.
    fn identity(&self) -> Self::Acc;
    /// Folds the items of block `lo..hi` into `acc` (`lo` is a position key for the
    /// `find_first`/`find_last` family; items a piece's state yields at its end come with
    /// the empty block `end..end`).
    fn consume(
        &self,
        acc: Self::Acc,
        it: impl Iterator<Item = T>,
        lo: usize,
        hi: usize,
    ) -> Self::Acc;
    /// Combines the accumulators of two adjacent ranges, `a` the lower.
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Early exit: whether the indices `lo..hi` (the rest of a piece) are not needed.
    #[inline]
    fn skip(&self, lo: usize, hi: usize) -> bool {
        let _ = (lo, hi);
        false
    }
}

/// A consumer run over a pipeline: the loop's body.
struct Run<'a, I, C> {
    iter: &'a I,
    c: &'a C,
}

impl<I: ParallelIterator, C: Consumer<I::Item>> LoopBody for Run<'_, I, C> {
    type Acc = Option<C::Acc>;
    /// The pipeline's state and the end of the last block run.
    type Local = (I::State, usize);
    #[inline]
    fn identity(&self) -> Option<C::Acc> {
        None
    }
    #[inline]
    fn local(&self) -> Self::Local {
        (self.iter.state(), 0)
    }
    #[inline]
    fn run(&self, local: &mut Self::Local, acc: &mut Option<C::Acc>, lo: usize, hi: usize) {
        let a = acc.take().unwrap_or_else(|| self.c.identity());
        // SAFETY: the loop hands every index to one block.
        let it = unsafe { self.iter.block(&mut local.0, lo, hi) };
        *acc = Some(self.c.consume(a, it, lo, hi));
        local.1 = hi;
    }
    #[inline]
    fn skip(&self, lo: usize, hi: usize) -> bool {
        self.c.skip(lo, hi) || self.iter.exhausted()
    }
    fn discard(&self, lo: usize, hi: usize) {
        // SAFETY: the loop hands every index to one block (here: to be dropped).
        unsafe { self.iter.drop_block(lo, hi) }
    }
    #[inline]
    fn finish(&self, local: Self::Local, acc: &mut Option<C::Acc>) {
        let (mut st, end) = local;
        let mut flushed = self.iter.flush(&mut st).peekable();
        if flushed.peek().is_some() {
            let a = acc.take().unwrap_or_else(|| self.c.identity());
            *acc = Some(self.c.consume(a, flushed, end, end));
        }
    }
    #[inline]
    fn combine(&self, a: Option<C::Acc>, b: Option<C::Acc>) -> Option<C::Acc> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.c.combine(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

/// Runs `c` over every index of `iter`, in parallel, splitting only when a worker asks;
/// returns the combined accumulator.
#[inline]
pub(super) fn drive<I: ParallelIterator, C: Consumer<I::Item>>(iter: I, c: &C) -> C::Acc {
    let n = iter.base_len();
    let out = if n == 0 {
        None
    } else {
        let body = Run { iter: &iter, c };
        in_worker(|w| run_range(w, &body, 0, n))
    };
    out.unwrap_or_else(|| c.identity())
}
