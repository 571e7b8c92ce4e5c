//! `with_min_len` and `with_max_len` as rayon defines them: no piece a worker folds (one
//! `fold` accumulator, one `map_init` value) is shorter than the minimum, unless the whole
//! iterator is; a piece longer than the maximum is cut, unless that would make it shorter
//! than the minimum. Checked with rayon's own doc examples run many times on 2 workers, with
//! splits forced at known points (a body that waits, polling, until other workers have taken
//! pieces), and through adaptors that change the index space (`chunks`, `step_by`, `zip`).

mod common;

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use common::{bounded, PATIENCE};
use offshoot::prelude::*;
use offshoot::ThreadPoolBuilder;

fn pool(n: usize) -> offshoot::ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// A little work for one item, so that idle workers keep asking.
fn busy(x: usize) -> usize {
    (0..50).fold(x, |a, b| a.wrapping_mul(31) ^ b)
}

/// The number of items in each piece (each `fold` accumulator), in piece order.
fn piece_sizes<I: ParallelIterator>(it: I) -> Vec<usize> {
    it.fold(|| 0usize, |a, _| a + 1).collect()
}

#[test]
fn rayons_min_len_example_holds_on_every_run() {
    bounded(|| {
        let pool = pool(2);
        for run in 0..200 {
            let min = pool.install(|| {
                (0..1_000_000)
                    .into_par_iter()
                    .with_min_len(1234)
                    .fold(|| 0, |a, _| a + 1)
                    .min()
                    .unwrap()
            });
            assert!(min >= 1234, "run {run}: a piece of {min} items");
        }
    })
}

#[test]
fn rayons_max_len_example_holds_on_every_run() {
    bounded(|| {
        let pool = pool(2);
        for run in 0..50 {
            let sizes =
                pool.install(|| piece_sizes((0..1_000_000).into_par_iter().with_max_len(1234)));
            assert_eq!(sizes.iter().sum::<usize>(), 1_000_000);
            let max = *sizes.iter().max().unwrap();
            assert!(max <= 1234, "run {run}: a piece of {max} items");
        }
    })
}

/// A body that keeps workers asking: every item does a little work, so pieces are split
/// all the time; neither bound may be crossed, and every item is counted once.
#[test]
fn busy_bodies_split_often_within_both_bounds() {
    bounded(|| {
        for workers in [2, 3] {
            let pool = pool(workers);
            for &(n, min, max) in &[
                (10_000usize, 100usize, usize::MAX),
                (10_000, 1, 77),
                (10_000, 50, 120),
                (10_000, 3_000, 100),
                (999, 1_000, 1_000),
            ] {
                for run in 0..10 {
                    let sizes = pool.install(|| {
                        piece_sizes(
                            (0..n)
                                .into_par_iter()
                                .with_min_len(min)
                                .with_max_len(max)
                                .map(busy),
                        )
                    });
                    assert_eq!(sizes.iter().sum::<usize>(), n, "{n} {min} {max}");
                    let lo = *sizes.iter().min().unwrap();
                    let hi = *sizes.iter().max().unwrap();
                    assert!(
                        lo >= min.min(n),
                        "run {run} ({n}, {min}, {max}): piece of {lo}"
                    );
                    // The maximum gives way to the minimum (rayon: min 10, max 15 and 16 items
                    // stay one piece).
                    if max >= 2 * min {
                        assert!(hi <= max, "run {run} ({n}, {min}, {max}): piece of {hi}");
                    }
                }
            }
        }
    })
}

/// Splits forced at known points: the item at index 0 waits (polling, so its worker
/// answers requests) until two more pieces have started (`map_init` makes its value once
/// per piece). Without a minimum the second cut leaves a piece of at most 250 items; with
/// `with_min_len(300)` the range is cut only at 333 and 666.
#[test]
fn forced_splits_keep_the_minimum() {
    bounded(|| {
        let pool = pool(2);
        for _ in 0..5 {
            let pieces = AtomicUsize::new(0);
            let sizes = pool.install(|| {
                piece_sizes((0..1000).into_par_iter().with_min_len(300).map_init(
                    || pieces.fetch_add(1, Ordering::SeqCst),
                    |_, i| {
                        let start = Instant::now();
                        while i == 0 && pieces.load(Ordering::SeqCst) < 3 {
                            assert!(start.elapsed() < PATIENCE, "no thief took a piece");
                            offshoot::poll();
                        }
                        i
                    },
                ))
            });
            assert_eq!(sizes, [333, 333, 334]);
        }
    })
}

/// Runs `make()`'s pipeline on `pool` and checks that every piece's size is in `bounds`.
fn pieces_within<I, F>(pool: &offshoot::ThreadPool, bounds: RangeInclusive<usize>, make: F)
where
    I: ParallelIterator,
    F: Fn() -> I + Send + Sync,
{
    let sizes = pool.install(|| piece_sizes(make()));
    assert!(
        sizes.iter().all(|s| bounds.contains(s)),
        "{bounds:?}: {sizes:?}"
    );
}

/// The lengths are counted in the items of the adaptor they were set on: 10 chunks of 10
/// are at least 3 chunks (30 base items) a piece, and a `zip` keeps the larger minimum
/// and the smaller maximum of its sides.
#[test]
fn lengths_follow_the_index_space() {
    bounded(|| {
        let pool = pool(2);
        let chunk_work = |c: Vec<usize>| busy(c.len());
        for _ in 0..20 {
            pieces_within(&pool, 3..=usize::MAX, || {
                (0..100)
                    .into_par_iter()
                    .chunks(10)
                    .with_min_len(3)
                    .map(chunk_work)
            });
            pieces_within(&pool, 4..=usize::MAX, || {
                (0..1000)
                    .into_par_iter()
                    .with_min_len(40)
                    .chunks(10)
                    .map(chunk_work)
            });
            pieces_within(&pool, 20..=250, || {
                let it = (0..10_000).into_par_iter().with_max_len(500);
                it.step_by(2).with_min_len(20).map(busy)
            });
            pieces_within(&pool, 64..=300, || {
                let other = (0..10_000).into_par_iter().with_max_len(300);
                (0..10_000).into_par_iter().with_min_len(64).zip(other)
            });
        }
    })
}

/// `map_init`'s value is made once per piece, so a maximum makes at least one per maximum.
#[test]
fn max_len_makes_a_map_init_value_per_piece() {
    bounded(|| {
        let inits = AtomicUsize::new(0);
        let n: usize = pool(2).install(|| {
            (0..1000)
                .into_par_iter()
                .with_max_len(10)
                .map_init(|| inits.fetch_add(1, Ordering::Relaxed), |_, x| x)
                .count()
        });
        assert_eq!(n, 1000);
        assert!(inits.into_inner() >= 100);
    })
}
