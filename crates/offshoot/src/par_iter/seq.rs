//! [`Seq`]: the default of [`ParallelIterator::into_seq`] — a pipeline's items, in order,
//! on the thread that iterates, made lazily a few indices at a time.
//!
//! An inner parallel iterator of `flat_map` or `flatten` runs this way. Materialising it
//! (the former default collected the whole pipeline into a `Vec` before yielding the first
//! item) made `(0..n).into_par_iter().flat_map(|i| big(i))` hold every inner item at once
//! (a nested `flat_map` over 10⁹ × 10⁹ items asked for gigabytes and never returned) and
//! ran an inner pipeline to its end even when the consumer had stopped at its first item.
//!
//! Invariants:
//! * `next` only grows: indices `next..len` have not been handed out; `next` is advanced
//!   *before* a block is asked for, so a block that panics is never handed out again.
//! * A block covers at most `step` indices, and `step` doubles from 1 up to [`MAX_STEP`]:
//!   the buffer holds the items of at most that many indices, and the first item comes
//!   after one index's work. `fold` (internal iteration, which `sum`, `for_each`,
//!   `collect` use) asks for the rest in one block and buffers nothing.
//! * What is left when the iterator is dropped is disposed of with one `drop_block`
//!   (owned elements are dropped, no closure runs), as a loop does on an early exit; the
//!   per-piece state's leftovers (`flush`) are yielded only when every index was.

use std::collections::VecDeque;

use super::ParallelIterator;

/// The most indices one buffered block covers.
const MAX_STEP: usize = 1024;

/// See the module docs.
pub(super) struct Seq<P: ParallelIterator> {
    p: P,
    st: P::State,
    /// The first index not handed out yet.
    next: usize,
    len: usize,
    /// Indices the next buffered block covers.
    step: usize,
    buf: VecDeque<P::Item>,
    flushed: bool,
}

impl<P: ParallelIterator> Seq<P> {
    pub(super) fn new(p: P) -> Self {
        let len = p.base_len();
        let st = p.state();
        Seq {
            p,
            st,
            next: 0,
            len,
            step: 1,
            buf: VecDeque::new(),
            flushed: false,
        }
    }

    /// Claims `next..next + n` (at most the rest), or nothing once the pipeline will yield
    /// no more (the rest is then dropped unrun).
    fn claim(&mut self, n: usize) -> Option<(usize, usize)> {
        if self.next == self.len {
            return None;
        }
        if self.p.exhausted() {
            self.discard_rest();
            return None;
        }
        let lo = self.next;
        self.next = lo + n.min(self.len - lo);
        Some((lo, self.next))
    }

    /// Disposes of the indices not handed out yet with one `drop_block` (owned elements
    /// are dropped, no closure runs), and marks them handed out.
    fn discard_rest(&mut self) {
        if self.next < self.len {
            let lo = std::mem::replace(&mut self.next, self.len);
            // SAFETY: `lo..len` has not been handed out (`next` only grows) and ends at
            // `base_len()`; `next` now marks it handed out.
            unsafe { self.p.drop_block(lo, self.len) };
        }
    }
}

impl<P: ParallelIterator> Iterator for Seq<P> {
    type Item = P::Item;

    fn next(&mut self) -> Option<P::Item> {
        loop {
            if let Some(x) = self.buf.pop_front() {
                return Some(x);
            }
            if let Some((lo, hi)) = self.claim(self.step) {
                self.step = (self.step * 2).min(MAX_STEP);
                // SAFETY: `claim` handed out `lo..hi` to this block only, within `base_len()`.
                let block = unsafe { self.p.block(&mut self.st, lo, hi) };
                self.buf.extend(block);
            } else if !self.flushed {
                self.flushed = true;
                self.buf.extend(self.p.flush(&mut self.st));
            } else {
                return None;
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.buf.len(), None)
    }

    fn fold<B, F: FnMut(B, P::Item) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = std::mem::take(&mut self.buf).into_iter().fold(init, &mut f);
        if let Some((lo, hi)) = self.claim(usize::MAX) {
            // SAFETY: `claim` handed out `lo..hi` to this block only, within `base_len()`.
            acc = unsafe { self.p.block(&mut self.st, lo, hi) }.fold(acc, &mut f);
        }
        if !self.flushed {
            self.flushed = true;
            acc = self.p.flush(&mut self.st).fold(acc, &mut f);
        }
        acc
    }
}

impl<P: ParallelIterator> Drop for Seq<P> {
    fn drop(&mut self) {
        self.discard_rest();
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A pipeline with no `into_seq` of its own (a `fold`'s per-piece state, a `step_by`)
    /// yields the sequential answer, through `next` and through `fold`.
    #[test]
    fn yields_what_the_sequential_pipeline_yields() {
        let it = || (0..5000u64).into_par_iter().step_by(3).with_min_len(7);
        let by_next: Vec<u64> = it().into_seq().collect::<Vec<_>>();
        let by_fold: u64 = it().into_seq().sum();
        let want: Vec<u64> = (0..5000).step_by(3).collect();
        assert_eq!(by_next, want);
        assert_eq!(by_fold, want.iter().sum::<u64>());
        let folded: Vec<u64> = (0..100u64)
            .into_par_iter()
            .fold(|| 0, |a, x| a + x)
            .into_seq()
            .collect();
        assert_eq!(folded, [4950]);
    }

    /// Taking the first item runs one index, not the pipeline.
    #[test]
    fn the_first_item_costs_one_index() {
        let calls = AtomicUsize::new(0);
        let first = (0..1_000_000u32)
            .into_par_iter()
            .step_by(1)
            .inspect(|_| {
                calls.fetch_add(1, Ordering::Relaxed);
            })
            .into_seq()
            .next();
        assert_eq!(first, Some(0));
        assert_eq!(calls.load(Ordering::Relaxed), 1);
    }

    /// Dropped part way, the owned elements not yielded are dropped, each once.
    #[test]
    fn the_rest_is_dropped_once() {
        let v: Vec<std::sync::Arc<()>> = (0..3000).map(|_| std::sync::Arc::new(())).collect();
        let probe = v[2999].clone();
        let mut it = v.into_par_iter().step_by(1).into_seq();
        assert!(it.next().is_some());
        assert!(it.next().is_some());
        drop(it);
        assert_eq!(std::sync::Arc::strong_count(&probe), 1);
    }
}
