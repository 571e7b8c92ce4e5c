//! `by_uniform_blocks` and `by_exponential_blocks`: a pipeline consumed as a *sequence* of
//! parallel blocks. Each block of indices runs as its own lazily split loop; the next block
//! starts only when every item of this one is done, and none starts once the consumer needs
//! no more (`find_first` past its hit, `any` after a match) or the pipeline will yield no
//! more. Blocks are rayon's: uniform ones of a given size, or exponential ones that start
//! at the pool's worker count and double (`0..p`, `p..3p`, `3p..7p`, ...).
//!
//! The adaptors only record their plan in [`Lengths::blocks`]; the adaptors above them keep
//! their base's indices (a blocked iterator is not indexed, as in rayon, so only
//! index-keeping adaptors can wrap it), and the consumer (`consumer.rs`) runs the top's
//! plan with [`in_blocks`].
//!
//! Invariants:
//! * Every index of `0..n` goes to exactly one block's loop or, after an early exit or a
//!   panic, to one `discard` of the rest: a block's indices belong to its loop from the
//!   moment it is started (so a panicking block's loop disposes of them, not this one).
//! * Results combine in index order: each block's accumulator is combined to the right of
//!   the blocks before it.
//! * Nothing here changes which items are produced or their order, only when they run.

use std::fmt;

use super::{forward_to_base, IndexedParallelIterator, Lengths, ParallelIterator};
use crate::loops::{discard_rest, run_range, LoopBody};
use crate::pool::in_worker;

/// How a pipeline's indices are grouped into blocks that run one after the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocks {
    /// One block: the whole range, split on request.
    Whole,
    /// Blocks of this many indices (`by_uniform_blocks`).
    Uniform(usize),
    /// Blocks that start at the worker count and double (`by_exponential_blocks`).
    Exponential,
}

impl Blocks {
    /// The end of the block that starts at `s`, with `p` workers (saturating).
    fn end(self, s: usize, p: usize) -> usize {
        match self {
            Blocks::Whole => usize::MAX,
            Blocks::Uniform(size) => s.saturating_add(size),
            // Blocks of p, 2p, 4p, ...: the block that starts at (2^k - 1)p is 2^k p long,
            // that is, s + p.
            Blocks::Exponential => s.saturating_mul(2).saturating_add(p.max(1)),
        }
    }

    /// The plan counted in items of an adaptor whose item `i` covers `k` of these items.
    pub(crate) fn per(self, k: usize) -> Blocks {
        match self {
            Blocks::Uniform(size) => Blocks::Uniform(size.div_ceil(k).max(1)),
            other => other,
        }
    }
}

/// Runs `body` over `0..n` block by block: each block in parallel, the blocks in order,
/// stopping before a block the body skips (`LoopBody::skip`).
#[inline(never)]
pub(super) fn in_blocks<L: LoopBody>(body: &L, plan: Blocks, n: usize) -> L::Acc
where
    L::Acc: Send,
{
    /// The indices not yet given to a block's loop; disposed of if a block panics.
    struct Rest<'a, L: LoopBody> {
        body: &'a L,
        from: usize,
        to: usize,
    }
    impl<L: LoopBody> Drop for Rest<'_, L> {
        fn drop(&mut self) {
            discard_rest(self.body, self.from, self.to);
        }
    }

    in_worker(|w| {
        let p = w.registry().num_workers();
        let mut rest = Rest {
            body,
            from: 0,
            to: n,
        };
        let mut acc = body.identity();
        while rest.from < n {
            let s = rest.from;
            if s > 0 && body.skip(s, n) {
                // Early exit between blocks: the rest is not needed.
                rest.from = n;
                body.discard(s, n);
                break;
            }
            let e = plan.end(s, p).min(n);
            // From here on `s..e` is the block's loop's to run or dispose of.
            rest.from = e;
            let a = in_worker(|w| run_range(w, body, s, e));
            acc = body.combine(acc, a);
        }
        acc
    })
}

/// A pipeline consumed as a sequence of parallel blocks of one size: see
/// [`IndexedParallelIterator::by_uniform_blocks`].
#[must_use = "lazy iterators do nothing unless consumed"]
#[derive(Clone)]
pub struct UniformBlocks<I> {
    base: I,
    size: usize,
}

/// A pipeline consumed as a sequence of parallel blocks that double in size: see
/// [`IndexedParallelIterator::by_exponential_blocks`].
#[must_use = "lazy iterators do nothing unless consumed"]
#[derive(Clone)]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> UniformBlocks<I> {
    pub(super) fn new(base: I, size: usize) -> Self {
        UniformBlocks { base, size }
    }
}

impl<I> ExponentialBlocks<I> {
    pub(super) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

impl<I: fmt::Debug> fmt::Debug for UniformBlocks<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniformBlocks")
            .field("base", &self.base)
            .field("block_size", &self.size)
            .finish()
    }
}

impl<I: fmt::Debug> fmt::Debug for ExponentialBlocks<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExponentialBlocks")
            .field("base", &self.base)
            .finish()
    }
}

/// The two adaptors: their base's pipeline with a block plan recorded.
macro_rules! blocks_adaptor {
    ($name:ident, |$s:ident| $plan:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;
            type State = I::State;
            forward_to_base!(own_lengths);
            $crate::par_iter::forward_items!();
            fn lengths(&self) -> Lengths {
                let $s = self;
                Lengths {
                    blocks: $plan,
                    ..self.base.lengths()
                }
            }
            fn opt_len(&self) -> Option<usize> {
                Some(self.base.len())
            }
        }
    };
}

blocks_adaptor!(UniformBlocks, |s| Blocks::Uniform(s.size));
blocks_adaptor!(ExponentialBlocks, |s| {
    let _ = s;
    Blocks::Exponential
});

#[cfg(test)]
mod tests {
    use super::Blocks;

    #[test]
    fn exponential_blocks_double_from_the_worker_count() {
        let mut s = 0;
        let mut ends = Vec::new();
        while s < 100 {
            s = Blocks::Exponential.end(s, 3);
            ends.push(s);
        }
        assert_eq!(ends, [3, 9, 21, 45, 93, 189]);
    }

    #[test]
    fn uniform_blocks_saturate() {
        assert_eq!(Blocks::Uniform(10).end(usize::MAX - 3, 2), usize::MAX);
        assert_eq!(Blocks::Uniform(10).per(3), Blocks::Uniform(4));
    }
}
