//! Consumers that fold every item: `for_each`, `count`, `sum`, `product`, `reduce`,
//! `reduce_with`, `min`/`max` and their `_by`/`_by_key` forms. Each block is folded with
//! the sequential iterator's own `fold`/`sum` (the vectorisable loop); accumulators of
//! pieces combine in index order, so ties break as in `std` and `reduce` needs only
//! associativity.

use std::cmp::Ordering;
use std::iter::{once, Product, Sum};

use super::consumer::{drive, Consumer};
use super::ParallelIterator;

struct ForEach<F>(F);

impl<T, F: Fn(T) + Sync> Consumer<T> for ForEach<F> {
    type Acc = ();
    #[inline]
    fn identity(&self) {}
    #[inline]
    fn consume(&self, _: (), it: impl Iterator<Item = T>, _: usize, _: usize) {
        it.for_each(&self.0)
    }
    #[inline]
    fn combine(&self, _: (), _: ()) {}
}

#[inline]
pub(super) fn for_each<I: ParallelIterator, F: Fn(I::Item) + Sync + Send>(iter: I, f: F) {
    drive(iter, &ForEach(f))
}

struct Count;

impl<T> Consumer<T> for Count {
    type Acc = usize;
    #[inline]
    fn identity(&self) -> usize {
        0
    }
    #[inline]
    fn consume(&self, acc: usize, it: impl Iterator<Item = T>, _: usize, _: usize) -> usize {
        acc + it.count()
    }
    #[inline]
    fn combine(&self, a: usize, b: usize) -> usize {
        a + b
    }
}

#[inline]
pub(super) fn count<I: ParallelIterator>(iter: I) -> usize {
    drive(iter, &Count)
}

struct SumOf<S>(std::marker::PhantomData<fn() -> S>);

impl<T, S: Send + Sum<T> + Sum<S>> Consumer<T> for SumOf<S> {
    type Acc = S;
    #[inline]
    fn identity(&self) -> S {
        std::iter::empty::<S>().sum()
    }
    #[inline]
    fn consume(&self, acc: S, it: impl Iterator<Item = T>, _: usize, _: usize) -> S {
        let s: S = it.sum();
        once(acc).chain(once(s)).sum()
    }
    #[inline]
    fn combine(&self, a: S, b: S) -> S {
        once(a).chain(once(b)).sum()
    }
}

#[inline]
pub(super) fn sum<I, S>(iter: I) -> S
where
    I: ParallelIterator,
    S: Send + Sum<I::Item> + Sum<S>,
{
    drive(iter, &SumOf(std::marker::PhantomData))
}

struct ProductOf<P>(std::marker::PhantomData<fn() -> P>);

impl<T, P: Send + Product<T> + Product<P>> Consumer<T> for ProductOf<P> {
    type Acc = P;
    #[inline]
    fn identity(&self) -> P {
        std::iter::empty::<P>().product()
    }
    #[inline]
    fn consume(&self, acc: P, it: impl Iterator<Item = T>, _: usize, _: usize) -> P {
        let p: P = it.product();
        once(acc).chain(once(p)).product()
    }
    #[inline]
    fn combine(&self, a: P, b: P) -> P {
        once(a).chain(once(b)).product()
    }
}

#[inline]
pub(super) fn product<I, P>(iter: I) -> P
where
    I: ParallelIterator,
    P: Send + Product<I::Item> + Product<P>,
{
    drive(iter, &ProductOf(std::marker::PhantomData))
}

/// Folds with an associative `op`; `None` until the first item.
struct ReduceWith<OP>(OP);

impl<T: Send, OP: Fn(T, T) -> T + Sync> Consumer<T> for ReduceWith<OP> {
    type Acc = Option<T>;
    #[inline]
    fn identity(&self) -> Option<T> {
        None
    }
    #[inline]
    fn consume(
        &self,
        acc: Option<T>,
        mut it: impl Iterator<Item = T>,
        _: usize,
        _: usize,
    ) -> Option<T> {
        let first = match acc {
            Some(a) => a,
            None => it.next()?,
        };
        Some(it.fold(first, &self.0))
    }
    #[inline]
    fn combine(&self, a: Option<T>, b: Option<T>) -> Option<T> {
        match (a, b) {
            (Some(a), Some(b)) => Some((self.0)(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

#[inline]
pub(super) fn reduce_with<I, OP>(iter: I, op: OP) -> Option<I::Item>
where
    I: ParallelIterator,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    drive(iter, &ReduceWith(op))
}

/// Folds with an associative `op` from `identity()` per piece.
struct Reduce<ID, OP>(ID, OP);

impl<T: Send, ID: Fn() -> T + Sync, OP: Fn(T, T) -> T + Sync> Consumer<T> for Reduce<ID, OP> {
    type Acc = T;
    #[inline]
    fn identity(&self) -> T {
        (self.0)()
    }
    #[inline]
    fn consume(&self, acc: T, it: impl Iterator<Item = T>, _: usize, _: usize) -> T {
        it.fold(acc, &self.1)
    }
    #[inline]
    fn combine(&self, a: T, b: T) -> T {
        (self.1)(a, b)
    }
}

#[inline]
pub(super) fn reduce<I, ID, OP>(iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    ID: Fn() -> I::Item + Sync + Send,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    drive(iter, &Reduce(identity, op))
}

#[inline]
pub(super) fn min_by<I, F>(iter: I, cmp: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync + Send,
{
    // Ties keep the left (first) item, as `Iterator::min_by`.
    reduce_with(iter, move |a, b| if cmp(&b, &a).is_lt() { b } else { a })
}

#[inline]
pub(super) fn max_by<I, F>(iter: I, cmp: F) -> Option<I::Item>
where
    I: ParallelIterator,
    F: Fn(&I::Item, &I::Item) -> Ordering + Sync + Send,
{
    // Ties keep the right (last) item, as `Iterator::max_by`.
    reduce_with(iter, move |a, b| if cmp(&b, &a).is_ge() { b } else { a })
}

#[inline]
pub(super) fn min_by_key<I, K, F>(iter: I, f: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    // The key is computed once per item, as `Iterator::min_by_key`.
    let keyed = iter.map(move |x| (f(&x), x));
    min_by(keyed, |a, b| a.0.cmp(&b.0)).map(|(_, x)| x)
}

#[inline]
pub(super) fn max_by_key<I, K, F>(iter: I, f: F) -> Option<I::Item>
where
    I: ParallelIterator,
    K: Ord + Send,
    F: Fn(&I::Item) -> K + Sync + Send,
{
    let keyed = iter.map(move |x| (f(&x), x));
    max_by(keyed, |a, b| a.0.cmp(&b.0)).map(|(_, x)| x)
}
