//! Consumers: each one is a [`LoopBody`] over `0..base_len()` of the pipeline, so it splits
//! only when a worker asks, and combines partial results in index order.
//!
//! Invariant: every index of the pipeline is handed to exactly one `block` or `drop_block`
//! call (the loop runs each index once; early-exit consumers dispose of the rest).

use std::sync::atomic::{AtomicBool, Ordering};

use super::ParallelIterator;
use crate::finish::in_worker;
use crate::loops::{run_range, LoopBody};

/// Runs `body` over all indices of `iter`.
fn drive<I: ParallelIterator, L: LoopBody>(iter: &I, body: &L) -> L::Acc {
    let n = iter.base_len();
    if n == 0 {
        return body.identity();
    }
    in_worker(|w| run_range(w, body, 0, n))
}

pub(super) fn for_each<I, F>(iter: I, f: F)
where
    I: ParallelIterator,
    F: Fn(I::Item) + Sync + Send,
{
    struct ForEach<'a, I, F>(&'a I, F);
    impl<I: ParallelIterator, F: Fn(I::Item) + Sync> LoopBody for ForEach<'_, I, F> {
        type Acc = ();
        fn identity(&self) {}
        fn run(&self, _: &mut (), lo: usize, hi: usize) {
            // SAFETY: the loop hands every index to one block.
            unsafe { self.0.block(lo, hi) }.for_each(&self.1)
        }
        fn combine(&self, _: (), _: ()) {}
    }
    drive(&iter, &ForEach(&iter, f))
}

/// A fold whose parts start from `None` (nothing yet) and combine in index order.
struct Fold<'a, I, T, B, C> {
    iter: &'a I,
    /// Folds a block into a partial result.
    block: B,
    /// Combines two partial results (left then right).
    combine: C,
    marker: std::marker::PhantomData<fn() -> T>,
}

impl<I, T, B, C> LoopBody for Fold<'_, I, T, B, C>
where
    I: ParallelIterator,
    T: Send,
    B: Fn(Option<T>, &mut dyn Iterator<Item = I::Item>) -> Option<T> + Sync,
    C: Fn(T, T) -> T + Sync,
{
    type Acc = Option<T>;
    fn identity(&self) -> Option<T> {
        None
    }
    fn run(&self, acc: &mut Option<T>, lo: usize, hi: usize) {
        // SAFETY: the loop hands every index to one block.
        let mut it = unsafe { self.iter.block(lo, hi) };
        *acc = (self.block)(acc.take(), &mut it);
    }
    fn combine(&self, a: Option<T>, b: Option<T>) -> Option<T> {
        match (a, b) {
            (Some(a), Some(b)) => Some((self.combine)(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

fn fold<I, T, B, C>(iter: &I, block: B, combine: C) -> Option<T>
where
    I: ParallelIterator,
    T: Send,
    B: Fn(Option<T>, &mut dyn Iterator<Item = I::Item>) -> Option<T> + Sync + Send,
    C: Fn(T, T) -> T + Sync + Send,
{
    drive(
        iter,
        &Fold {
            iter,
            block,
            combine,
            marker: std::marker::PhantomData,
        },
    )
}

pub(super) fn sum<I, S>(iter: I) -> S
where
    I: ParallelIterator,
    S: Send + std::iter::Sum<I::Item> + std::iter::Sum<S>,
{
    let part = fold(
        &iter,
        |acc: Option<S>, it| {
            let s: S = it.sum();
            Some(match acc {
                Some(a) => [a, s].into_iter().sum(),
                None => s,
            })
        },
        |a: S, b: S| [a, b].into_iter().sum(),
    );
    part.unwrap_or_else(|| std::iter::empty::<S>().sum())
}

pub(super) fn reduce<I, ID, OP>(iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    I::Item: Send,
    ID: Fn() -> I::Item + Sync + Send,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    let part = fold(
        &iter,
        |acc: Option<I::Item>, it| Some(it.fold(acc.unwrap_or_else(&identity), &op)),
        &op,
    );
    part.unwrap_or_else(identity)
}

pub(super) fn count<I: ParallelIterator>(iter: I) -> usize {
    fold(
        &iter,
        |acc: Option<usize>, it| Some(acc.unwrap_or(0) + it.count()),
        |a, b| a + b,
    )
    .unwrap_or(0)
}

pub(super) fn min_by<I, F>(iter: I, cmp: F) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Send,
    F: Fn(&I::Item, &I::Item) -> std::cmp::Ordering + Sync + Send,
{
    // Ties keep the left (first) item, as `Iterator::min_by`.
    let better = |a: I::Item, b: I::Item| if cmp(&b, &a).is_lt() { b } else { a };
    best(&iter, better)
}

pub(super) fn max_by<I, F>(iter: I, cmp: F) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Send,
    F: Fn(&I::Item, &I::Item) -> std::cmp::Ordering + Sync + Send,
{
    // Ties keep the right (last) item, as `Iterator::max_by`.
    let better = |a: I::Item, b: I::Item| if cmp(&b, &a).is_ge() { b } else { a };
    best(&iter, better)
}

/// The item that wins every pairwise `better(left, right)` in index order.
fn best<I, B>(iter: &I, better: B) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Send,
    B: Fn(I::Item, I::Item) -> I::Item + Sync + Send,
{
    fold(
        iter,
        |acc: Option<I::Item>, it| {
            it.fold(acc, |m, x| {
                Some(match m {
                    Some(m) => better(m, x),
                    None => x,
                })
            })
        },
        &better,
    )
}

pub(super) fn any<I, P>(iter: I, p: P) -> bool
where
    I: ParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    struct Any<'a, I, P> {
        iter: &'a I,
        p: P,
        found: AtomicBool,
    }
    impl<I: ParallelIterator, P: Fn(I::Item) -> bool + Sync> LoopBody for Any<'_, I, P> {
        type Acc = ();
        fn identity(&self) {}
        fn run(&self, _: &mut (), lo: usize, hi: usize) {
            if self.found.load(Ordering::Relaxed) {
                // Known already, on some worker: dispose of the rest without running closures.
                // SAFETY: the loop hands every index to one block.
                unsafe { self.iter.drop_block(lo, hi) };
                return;
            }
            // SAFETY: as above.
            let mut it = unsafe { self.iter.block(lo, hi) };
            if it.by_ref().any(&self.p) {
                self.found.store(true, Ordering::Relaxed);
                // The rest of this block still holds items (maybe owned): drop them.
                it.for_each(drop);
            }
        }
        fn combine(&self, _: (), _: ()) {}
    }
    let body = Any {
        iter: &iter,
        p,
        found: AtomicBool::new(false),
    };
    drive(&iter, &body);
    body.found.into_inner()
}

pub(super) fn collect_vec<I>(iter: I) -> Vec<I::Item>
where
    I: ParallelIterator,
    I::Item: Send,
{
    let part = fold(
        &iter,
        |acc: Option<Vec<I::Item>>, it| {
            let mut v = acc.unwrap_or_default();
            v.extend(it);
            Some(v)
        },
        |mut a: Vec<I::Item>, mut b: Vec<I::Item>| {
            if a.len() >= b.len() {
                a.append(&mut b);
                a
            } else {
                // Keep the order: prepend `a` to the bigger `b`.
                b.splice(0..0, a);
                b
            }
        },
    );
    part.unwrap_or_default()
}
