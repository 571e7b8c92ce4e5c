//! An inner parallel iterator of `flat_map` / `flatten` runs lazily on the worker that
//! reached it: it is never held whole, and it stops where its consumer stops.
//!
//! Each test counts the items an inner pipeline produced (a counter in its closure), so
//! the bounds hold whatever the scheduling: a consumer that stops at its first hit makes
//! the inner pipelines it reached produce a few items each, where running them to their
//! end (as before) produced every item of every inner pipeline a piece reached.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use offshoot::prelude::*;

const INNER: u64 = 1000;

/// Two levels of `flat_map` whose inner pipelines are adapted ranges (`with_max_len`,
/// `step_by`, `map`, `fold`: pipelines without a sequential form of their own).
#[test]
fn a_find_through_nested_flat_maps_stops_inside_the_inner_pipelines() {
    for workers in [1, 2] {
        let pool = common::pool(workers);
        let made = AtomicUsize::new(0);
        let count = |x: u64| {
            made.fetch_add(1, Ordering::Relaxed);
            x
        };
        let hit = pool.run(|| {
            (0..1000u64)
                .into_par_iter()
                .with_max_len(10)
                .flat_map(|i| {
                    (0..INNER)
                        .into_par_iter()
                        .with_max_len(1000)
                        .step_by(1)
                        .map(move |j| i * INNER + j)
                        .flat_map(move |k| {
                            (0..INNER)
                                .into_par_iter()
                                .with_min_len(5)
                                .map(move |l| count(k * INNER + l))
                        })
                })
                .find_first(|_| true)
        });
        assert_eq!(hit, Some(0));
        // Each piece that started before the hit was known stops after its first inner
        // item; far fewer than the million items of one outer index were made (running the inner pipelines whole makes them all).
        let n = made.load(Ordering::Relaxed);
        assert!(
            n < 10_000,
            "{workers} workers: {n} inner items made for one hit"
        );
    }
}

/// `any` over `flatten` of inner pipelines, and a sum over them (the internal iteration
/// path), give the sequential answers.
#[test]
fn inner_pipelines_give_the_sequential_answers() {
    let pool = common::pool(2);
    let (found, sum, items) = pool.run(|| {
        let nested = || {
            (0..200u64).into_par_iter().map(|i| {
                (0..=i)
                    .into_par_iter()
                    .step_by(2)
                    .fold(|| 0u64, |a, x| a + x)
                    .chain((0..3u64).into_par_iter().with_max_len(1))
            })
        };
        let found = nested().flatten().any(|x| x == 9900);
        let sum: u64 = nested().flatten().sum();
        let items: Vec<u64> = nested().flatten().collect();
        (found, sum, items)
    });
    // A fold of one piece yields one accumulator per inner pipeline.
    let want: Vec<u64> = (0..200u64)
        .flat_map(|i| std::iter::once((0..=i).step_by(2).sum::<u64>()).chain(0..3))
        .collect();
    assert_eq!(items, want);
    assert_eq!(sum, want.iter().sum::<u64>());
    assert_eq!(found, want.contains(&9900));
}

/// An inner pipeline over owned elements, left part way by an early exit, drops each
/// element it did not yield exactly once.
#[test]
fn an_inner_pipeline_left_part_way_drops_its_elements() {
    let pool = common::pool(2);
    let probes: Vec<std::sync::Arc<()>> = (0..50).map(|_| std::sync::Arc::new(())).collect();
    let hit = pool.run(|| {
        (0..50usize)
            .into_par_iter()
            .flat_map(|i| {
                let owned: Vec<std::sync::Arc<()>> = (0..4000).map(|_| probes[i].clone()).collect();
                owned.into_par_iter().step_by(1).map(move |a| (i, a))
            })
            .find_any(|(i, _)| i % 7 == 3)
    });
    let (i, a) = hit.expect("a hit");
    assert_eq!(i % 7, 3);
    drop(a);
    for p in &probes {
        assert_eq!(std::sync::Arc::strong_count(p), 1);
    }
}

/// A `find_any` whose first piece reaches an endless inner pipeline: the worker walking it
/// polls inside it, so the other worker gets the rest of the outer range and finds the
/// hit there, and the first one stops inside its inner pipeline once that hit is known.
#[test]
fn a_find_hands_out_the_outer_range_while_an_inner_pipeline_runs() {
    common::bounded(|| {
        let pool = common::pool(2);
        let hit = pool.run(|| {
            (0..1000u64)
                .into_par_iter()
                .flat_map(|i| (0..u64::MAX).into_par_iter().map(move |j| (i, j)))
                .find_any(|(i, _)| *i >= 500)
        });
        assert!(
            hit.is_some_and(|(i, _)| (500..1000).contains(&i)),
            "{hit:?}"
        );
    })
}

/// A `fold` yields one accumulator per piece, the identity where a piece folded nothing,
/// and one identity for an empty pipeline, as rayon's does: `fold(..).reduce_with(..)` is
/// `Some` on an empty input (it was `None`, so a ported `.unwrap()` panicked), and an
/// inner pipeline's fold yields its identity too.
#[test]
fn a_fold_of_nothing_yields_its_identity() {
    let pool = common::pool(2);
    pool.run(|| {
        let none: Vec<u32> = Vec::new();
        let accs: Vec<u32> = none.par_iter().fold(|| 7, |a, x| a + x).collect();
        assert_eq!(accs, [7]);
        assert_eq!(
            (0..0u32)
                .into_par_iter()
                .fold_with(0, |a, x| a + x)
                .reduce_with(|a, b| a + b),
            Some(0)
        );
        let tried: Vec<Result<u32, ()>> =
            none.par_iter().try_fold(|| 0, |a, x| Ok(a + x)).collect();
        assert_eq!(tried, [Ok(0)]);
        // Every inner fold, empty or not, yields one accumulator.
        let inner: Vec<u64> = (0..4u64)
            .into_par_iter()
            .flat_map(|i| (0..i).into_par_iter().fold(|| 100, |a, x| a + x))
            .collect();
        assert_eq!(inner, [100, 100, 101, 103]);
        // Non-empty: the accumulators still sum to the answer.
        let total: u64 = (0..10_000u64)
            .into_par_iter()
            .filter(|x| x % 2 == 0)
            .fold(|| 0, |a, x| a + x)
            .sum();
        assert_eq!(total, (0..10_000u64).filter(|x| x % 2 == 0).sum());
    });
}
