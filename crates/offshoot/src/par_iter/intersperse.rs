//! `intersperse`: a separator between every two items.
//!
//! **Indexed bases** (one item per index: `opt_len` is known). Think of the *virtual*
//! sequence `s x0 s x1 s ... s x(m-1) s` of the base's `m` items with a separator before,
//! between and after them: position `2b + 1` is base item `b`, every even position a
//! separator. The iterator's items are the positions `start..end` of it (`1..2m` at first:
//! no separator at either end; `skip` and `take` move the ends), so block `lo..hi` is the
//! positions `start + lo..start + hi`, which hold base items `(start + lo) / 2..(start +
//! hi) / 2`, walked in step with the positions. Every separator is placed exactly.
//!
//! **Unindexed bases** (`filter`, `flat_map`, `par_split`: an index yields any number of
//! items). The indices are the base's; each piece puts a separator before every item it
//! yields but its first, and before its first too unless the piece starts at index 0. A
//! piece cannot know whether the pieces before it yield anything, so when every item
//! before a cut is filtered out, the result may start with a separator — rayon's
//! unindexed `intersperse` has the same limit (its later splits always lead with one).
//!
//! Invariants: `start <= 1` after each renormalisation (`advance` moves whole pairs into
//! the base); the base holds exactly the items at the odd positions below `end`; the base
//! blocks of different blocks are disjoint. `indexed` is fixed when the adaptor is made and
//! is true for every `IndexedParallelIterator` base.

use either::Either;

use super::{IndexedParallelIterator, ParallelIterator};

/// See [`ParallelIterator::intersperse`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    sep: I::Item,
    start: usize,
    end: usize,
    /// The base yields one item per index (positions); otherwise separators go per item.
    indexed: bool,
}

impl<I: ParallelIterator> Intersperse<I>
where
    I::Item: Clone + Sync,
{
    pub(super) fn new(base: I, sep: I::Item) -> Self {
        let m = base.base_len();
        let indexed = base.opt_len().is_some();
        let (start, end) = match (indexed, m) {
            (false, _) => (0, m),
            (true, 0) => (1, 1),
            (true, _) => (1, 2 * m),
        };
        Intersperse {
            base,
            sep,
            start,
            end,
            indexed,
        }
    }

    /// The base items at the positions `a..b` (indexed), or the same indices (unindexed).
    fn base_range(&self, lo: usize, hi: usize) -> (usize, usize) {
        if self.indexed {
            ((self.start + lo) / 2, (self.start + hi) / 2)
        } else {
            (lo, hi)
        }
    }

    /// Unindexed: the items of `it` with a separator before each one, but the piece's first
    /// when the piece starts at index 0 (`lead` is set at the piece's first block).
    fn per_item<'s>(
        &'s self,
        lead: &'s mut bool,
        it: impl Iterator<Item = I::Item> + 's,
    ) -> impl Iterator<Item = I::Item> + 's {
        it.flat_map(move |x| {
            let sep = std::mem::replace(lead, true).then(|| self.sep.clone());
            sep.into_iter().chain(std::iter::once(x))
        })
    }
}

impl<I: ParallelIterator> ParallelIterator for Intersperse<I>
where
    I::Item: Clone + Sync,
{
    type Item = I::Item;
    /// Whether the piece leads with a separator (unset before its first block), and the
    /// base's state.
    type State = (Option<bool>, I::State);
    #[inline]
    fn base_len(&self) -> usize {
        self.end - self.start
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths()
    }
    #[inline]
    fn state(&self) -> Self::State {
        (None, self.base.state())
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = I::Item> {
        let (a, b) = self.base_range(lo, hi);
        let (lead, bst) = st;
        // SAFETY: forwarded contract: disjoint blocks have disjoint base ranges.
        let it = unsafe { self.base.block(bst, a, b) };
        if self.indexed {
            Either::Left(Positions {
                base: it,
                sep: &self.sep,
                front: self.start + lo,
                back: self.start + hi,
            })
        } else {
            Either::Right(self.per_item(lead.get_or_insert(lo != 0), it))
        }
    }
    fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = I::Item> {
        // An indexed base yields nothing here; an unindexed one's leftovers (a `fold`'s
        // accumulators) come after the piece's items.
        let (lead, bst) = st;
        let lead = lead.get_or_insert(false);
        self.per_item(lead, self.base.flush(bst))
    }
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        let (a, b) = self.base_range(lo, hi);
        // SAFETY: forwarded contract: disjoint blocks have disjoint base ranges.
        unsafe { self.base.drop_block(a, b) }
    }
    #[inline]
    fn exhausted(&self) -> bool {
        self.base.exhausted()
    }
    fn opt_len(&self) -> Option<usize> {
        self.indexed.then(|| self.end - self.start)
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Intersperse<I>
where
    I::Item: Clone + Sync,
{
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = I::Item> + ExactSizeIterator {
        debug_assert!(self.indexed, "an indexed base reports its length");
        let (a, b) = self.base_range(lo, hi);
        Positions {
            // SAFETY: forwarded contract: disjoint blocks have disjoint base ranges.
            base: unsafe { self.base.iblock(&mut st.1, a, b) },
            sep: &self.sep,
            front: self.start + lo,
            back: self.start + hi,
        }
    }
    fn truncate(&mut self, len: usize) {
        self.end = self.start + len.min(self.end - self.start);
        self.base.truncate(self.end / 2);
    }
    fn advance(&mut self, k: usize) {
        let start = self.start + k.min(self.end - self.start);
        // Whole (separator, item) pairs before the new start leave the base.
        let pairs = start / 2;
        self.base.advance(pairs);
        self.start = start - 2 * pairs;
        self.end -= 2 * pairs;
    }
}

/// The positions `front..back` of the virtual sequence: odd ones from `base`, which holds
/// exactly those, even ones clones of `sep`.
struct Positions<'s, B, T> {
    base: B,
    sep: &'s T,
    front: usize,
    back: usize,
}

impl<B: Iterator<Item = T>, T: Clone> Iterator for Positions<'_, B, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.front += 1;
        if self.front.is_multiple_of(2) {
            self.base.next()
        } else {
            Some(self.sep.clone())
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<B: DoubleEndedIterator<Item = T>, T: Clone> DoubleEndedIterator for Positions<'_, B, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        if self.back % 2 == 1 {
            self.base.next_back()
        } else {
            Some(self.sep.clone())
        }
    }
}

impl<B: Iterator<Item = T>, T: Clone> ExactSizeIterator for Positions<'_, B, T> {}
