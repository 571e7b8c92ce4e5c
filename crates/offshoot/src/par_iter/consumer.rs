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
//! * Under a maximum piece length (`len.rs`) a piece's state is flushed into its
//!   accumulator and made again at each restart boundary, so one state never folds more
//!   than a segment.
//! * A piece ends early when the consumer needs no more (`Consumer::skip`) or the pipeline
//!   will yield no more (`ParallelIterator::exhausted`): its rest goes to one `drop_block`.
//! * A block that unwinds part way (a panic, a stop at a poll between its indices) gives the
//!   indices it had not reached to `drop_block` ([`BlockRest`]); those its failing `block`
//!   call held are disposed of by that call's iterator, and the loop disposes of the
//!   piece's unclaimed rest (`loops.rs`).

use super::blocks::{in_blocks, Blocks};
use super::{Grid, ParallelIterator};
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
    /// Where pieces may be cut and where their states restart (`len.rs`).
    grid: Grid,
    /// An index may stand for a long run of items (`Lengths::runs`): blocks are run one
    /// index at a time, with a poll point between indices.
    runs: bool,
}

/// A piece's scratch: the pipeline's state, the end of the last block run into it, and
/// the restart boundary that ends the state's segment (`usize::MAX`: none).
struct Local<S> {
    st: S,
    end: usize,
    seg_end: usize,
    fresh: bool,
}

impl<I: ParallelIterator, C: Consumer<I::Item>> Run<'_, I, C> {
    /// Folds what the state still holds into `acc`, at the end of the last block.
    #[inline]
    fn flush(&self, local: &mut Local<I::State>, acc: &mut Option<C::Acc>) {
        flush_into(self.iter, self.c, &mut local.st, acc, local.end);
    }

    /// Blocks of a pipeline whose index may stand for a long run of items, one index at a
    /// time with a poll point between indices (so that each index's run is one block, and
    /// a request waits for one run, not a block of them).
    #[cold]
    #[inline(never)]
    fn by_index(
        &self,
        local: &mut Local<I::State>,
        acc: &mut Option<C::Acc>,
        lo: usize,
        hi: usize,
    ) {
        let mut rest = BlockRest::new(self, lo, hi);
        for i in lo..hi {
            if i > lo {
                if self.skip(i, hi) {
                    // Early exit inside the block: the rest is disposed of, as the loop does.
                    rest.from = hi;
                    return self.discard(i, hi);
                }
                crate::poll();
            }
            rest.from = i + 1;
            self.segments(local, acc, i, i + 1);
        }
    }

    /// Block `lo..hi`, cut at restart boundaries under a maximum (`len.rs`): one state per
    /// segment.
    #[inline]
    fn segments(
        &self,
        local: &mut Local<I::State>,
        acc: &mut Option<C::Acc>,
        lo: usize,
        hi: usize,
    ) {
        if !self.grid.restarts() {
            return self.block(local, acc, lo, hi);
        }
        let mut rest = BlockRest::new(self, lo, hi);
        let mut s = lo;
        while s < hi {
            if local.fresh || s >= local.seg_end {
                if !local.fresh {
                    self.flush(local, acc);
                    local.st = self.iter.state();
                }
                local.seg_end = self.grid.restart_after(s);
            }
            let e = hi.min(local.seg_end);
            rest.from = e;
            self.block(local, acc, s, e);
            s = e;
        }
    }

    #[inline]
    fn block(&self, local: &mut Local<I::State>, acc: &mut Option<C::Acc>, lo: usize, hi: usize) {
        let a = acc.take().unwrap_or_else(|| self.c.identity());
        // SAFETY: the loop hands every index to one block.
        let it = unsafe { self.iter.block(&mut local.st, lo, hi) };
        *acc = Some(self.c.consume(a, it, lo, hi));
        local.end = hi;
        local.fresh = false;
    }
}

/// The indices `from..to` of a block that are not handed to a `block` call yet: discarded
/// (`LoopBody::discard`, through the loop's `discard_rest`) if the block unwinds before it
/// reaches them — a panic in an earlier segment or index, or a stop at the poll between
/// indices. On the normal path `from` reaches `to` and nothing is left.
struct BlockRest<'r, 'a, I: ParallelIterator, C: Consumer<I::Item>> {
    run: &'r Run<'a, I, C>,
    from: usize,
    to: usize,
}

impl<'r, 'a, I: ParallelIterator, C: Consumer<I::Item>> BlockRest<'r, 'a, I, C> {
    fn new(run: &'r Run<'a, I, C>, from: usize, to: usize) -> Self {
        BlockRest { run, from, to }
    }
}

impl<I: ParallelIterator, C: Consumer<I::Item>> Drop for BlockRest<'_, '_, I, C> {
    fn drop(&mut self) {
        crate::loops::discard_rest(self.run, self.from, self.to);
    }
}

impl<I: ParallelIterator, C: Consumer<I::Item>> LoopBody for Run<'_, I, C> {
    type Acc = Option<C::Acc>;
    type Local = Local<I::State>;
    #[inline]
    fn identity(&self) -> Option<C::Acc> {
        None
    }
    #[inline]
    fn local(&self) -> Self::Local {
        Local {
            st: self.iter.state(),
            end: 0,
            seg_end: usize::MAX,
            fresh: true,
        }
    }
    #[inline]
    fn run(&self, local: &mut Self::Local, acc: &mut Option<C::Acc>, lo: usize, hi: usize) {
        if self.runs {
            return self.by_index(local, acc, lo, hi);
        }
        self.segments(local, acc, lo, hi);
    }
    #[inline]
    fn cut(&self, next: usize, end: usize, whole: bool) -> Option<usize> {
        self.grid.cut(next, end, whole)
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
    fn finish(&self, mut local: Self::Local, acc: &mut Option<C::Acc>) {
        self.flush(&mut local, acc);
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

/// Folds what a piece's state `st` still holds (`ParallelIterator::flush`) into `acc`, as
/// items at index `at` (the piece's end); `acc` stays as it is if there is nothing.
#[inline]
fn flush_into<I: ParallelIterator, C: Consumer<I::Item>>(
    iter: &I,
    c: &C,
    st: &mut I::State,
    acc: &mut Option<C::Acc>,
    at: usize,
) {
    let mut flushed = iter.flush(st).peekable();
    if flushed.peek().is_some() {
        let a = acc.take().unwrap_or_else(|| c.identity());
        *acc = Some(c.consume(a, flushed, at, at));
    }
}

/// Runs `c` over every index of `iter`, in parallel, splitting only when a worker asks;
/// returns the combined accumulator.
#[inline]
pub(super) fn drive<I: ParallelIterator, C: Consumer<I::Item>>(iter: I, c: &C) -> C::Acc {
    let n = iter.base_len();
    let out = if n == 0 {
        // One empty piece: what its state yields at the end (a `fold`'s identity) still
        // reaches the consumer, as a piece's leftovers do.
        let mut out = None;
        flush_into(&iter, c, &mut iter.state(), &mut out, 0);
        out
    } else {
        let lengths = iter.lengths();
        let body = Run {
            iter: &iter,
            c,
            grid: Grid::new(n, lengths),
            runs: lengths.runs,
        };
        if lengths.blocks == Blocks::Whole {
            in_worker(|w| run_range(w, &body, 0, n))
        } else {
            in_blocks(&body, lengths.blocks, n)
        }
    };
    out.unwrap_or_else(|| c.identity())
}
