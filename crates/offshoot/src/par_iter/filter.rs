//! `filter` and `filter_map`: keep some items. The result is not indexed (which items
//! remain is known only by running the closure).
//!
//! Invariant: each adaptor asks its base for exactly the indices it is asked for.

use std::fmt;

use super::map::MapOp;
use super::{forward_to_base, ParallelIterator};

/// See [`ParallelIterator::filter`].
#[derive(Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Filter<I, P> {
    base: I,
    p: P,
}

/// The base only: the predicate is a closure (as rayon's `Filter`).
impl<I: fmt::Debug, P> fmt::Debug for Filter<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Filter").field("base", &self.base).finish()
    }
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, p: P) -> Self {
        Filter { base, p }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;
    type State = I::State;
    forward_to_base!();
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = I::Item> {
        // SAFETY: forwarded contract.
        unsafe { self.base.block(st, lo, hi) }.filter(&self.p)
    }
    #[inline]
    fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = I::Item> {
        self.base.flush(st).filter(&self.p)
    }
    fn into_seq(self) -> impl Iterator<Item = I::Item> {
        self.base.into_seq().filter(self.p)
    }
}

/// See [`ParallelIterator::filter_map`]. Its operation is an `Fn(T) -> Option<R>`, or the
/// named one of `Positions`.
#[derive(Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct FilterMap<I, F> {
    base: I,
    f: F,
}

/// The base only: the operation is a closure (as rayon's `FilterMap`).
impl<I: fmt::Debug, F> fmt::Debug for FilterMap<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish()
    }
}

impl<I, F> FilterMap<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        FilterMap { base, f }
    }
}

impl<I, F, R> ParallelIterator for FilterMap<I, F>
where
    I: ParallelIterator,
    F: MapOp<I::Item, Out = Option<R>>,
    R: Send,
{
    type Item = R;
    type State = I::State;
    forward_to_base!();
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = R> {
        // SAFETY: forwarded contract.
        unsafe { self.base.block(st, lo, hi) }.filter_map(move |x| self.f.call(x))
    }
    #[inline]
    fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = R> {
        self.base.flush(st).filter_map(move |x| self.f.call(x))
    }
    fn into_seq(self) -> impl Iterator<Item = R> {
        let f = self.f;
        self.base.into_seq().filter_map(move |x| f.call(x))
    }
}
