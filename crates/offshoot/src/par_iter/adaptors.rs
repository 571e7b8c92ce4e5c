//! Adaptors: `map`, `filter`, `enumerate`, `zip`. Each runs its closure inside the blocks of
//! its source, on whichever worker runs the block; none of them creates tasks.
//!
//! Invariant: an adaptor asks its source(s) for exactly the indices it is asked for, so the
//! source's "each index at most once" contract carries through.

use super::{IndexedParallelIterator, ParallelIterator};

/// See [`ParallelIterator::map`].
#[derive(Debug)]
pub struct Map<I, F> {
    base: I,
    f: F,
}

impl<I, F> Map<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        Map { base, f }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
{
    type Item = R;
    fn base_len(&self) -> usize {
        self.base.base_len()
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = R> + '_ {
        // SAFETY: forwarded contract.
        unsafe { self.base.block(lo, hi) }.map(&self.f)
    }
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe { self.base.drop_block(lo, hi) }
    }
    fn truncate(&mut self, len: usize) {
        self.base.truncate(len)
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
{
}

/// See [`ParallelIterator::filter`].
#[derive(Debug)]
pub struct Filter<I, P> {
    base: I,
    p: P,
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
    fn base_len(&self) -> usize {
        self.base.base_len()
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = I::Item> + '_ {
        // SAFETY: forwarded contract.
        unsafe { self.base.block(lo, hi) }.filter(&self.p)
    }
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe { self.base.drop_block(lo, hi) }
    }
    fn truncate(&mut self, len: usize) {
        self.base.truncate(len)
    }
}

/// See [`IndexedParallelIterator::enumerate`].
#[derive(Debug)]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    pub(super) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);
    fn base_len(&self) -> usize {
        self.base.base_len()
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = (usize, I::Item)> + '_ {
        // SAFETY: forwarded contract.
        (lo..hi).zip(unsafe { self.base.block(lo, hi) })
    }
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe { self.base.drop_block(lo, hi) }
    }
    fn truncate(&mut self, len: usize) {
        self.base.truncate(len)
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {}

/// See [`IndexedParallelIterator::zip`].
#[derive(Debug)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> Zip<A, B> {
    pub(super) fn new(mut a: A, mut b: B) -> Self {
        // Both sides walk the same indices: cut the longer one (dropping what it owns).
        let n = a.base_len().min(b.base_len());
        a.truncate(n);
        b.truncate(n);
        Zip { a, b }
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ParallelIterator for Zip<A, B> {
    type Item = (A::Item, B::Item);
    fn base_len(&self) -> usize {
        self.a.base_len()
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = (A::Item, B::Item)> + '_ {
        // SAFETY: forwarded contract (both sides have the same length).
        unsafe { self.a.block(lo, hi).zip(self.b.block(lo, hi)) }
    }
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe {
            self.a.drop_block(lo, hi);
            self.b.drop_block(lo, hi);
        }
    }
    fn truncate(&mut self, len: usize) {
        self.a.truncate(len);
        self.b.truncate(len);
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for Zip<A, B> {}
