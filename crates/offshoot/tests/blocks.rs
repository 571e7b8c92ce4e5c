//! `by_uniform_blocks` and `by_exponential_blocks` as rayon defines them: the iterator is
//! consumed as a sequence of parallel blocks, the next starting only when every item of
//! the one before is done, and none starting once an early exit has its answer. Steals are
//! forced where it matters (an item that waits, polling, until another worker has started
//! an item), so that a runtime that ran the blocks side by side fails every time.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use common::{bounded, PATIENCE};
use offshoot::prelude::*;
use offshoot::ThreadPoolBuilder;

fn pool(n: usize) -> offshoot::ThreadPool {
    ThreadPoolBuilder::new().num_threads(n).build().unwrap()
}

/// Waits, polling, until `started` counts more than `seen` items, or gives up after
/// [`PATIENCE`] (on one worker nothing else starts).
fn wait_for_another(started: &AtomicUsize, seen: usize, workers: usize) {
    if workers < 2 {
        return;
    }
    let t = Instant::now();
    while started.load(Ordering::SeqCst) <= seen {
        assert!(t.elapsed() < PATIENCE, "no other worker started an item");
        offshoot::poll();
    }
}

#[test]
fn rayons_blocks_test_holds_on_every_run() {
    bounded(|| {
        for workers in [1, 2, 3] {
            let pool = pool(workers);
            for _ in 0..20 {
                let count = AtomicUsize::new(0);
                let v: Vec<usize> = pool.install(|| {
                    (0..1000)
                        .into_par_iter()
                        .map(|_| count.fetch_add(1, Ordering::Relaxed))
                        .by_uniform_blocks(100)
                        .collect()
                });
                let m: Vec<usize> = v.chunks(100).map(|c| *c.iter().max().unwrap()).collect();
                assert!(m.is_sorted(), "block maxima out of order: {m:?}");
                assert_eq!(v.len(), 1000);
            }
        }
    })
}

#[test]
fn a_block_starts_only_when_the_blocks_before_it_are_done() {
    bounded(|| {
        for workers in [1, 2, 4] {
            let pool = pool(workers);
            let started = AtomicUsize::new(0);
            let done = AtomicUsize::new(0);
            pool.install(|| {
                (0..1000)
                    .into_par_iter()
                    .by_uniform_blocks(100)
                    .for_each(|i| {
                        let seen = started.fetch_add(1, Ordering::SeqCst);
                        if i == 0 {
                            // A thief takes part of this block (or, wrongly, of a later one).
                            wait_for_another(&started, seen, workers);
                        }
                        let d = done.load(Ordering::SeqCst);
                        assert!(d >= i / 100 * 100, "item {i} ran with only {d} items done");
                        done.fetch_add(1, Ordering::SeqCst);
                    })
            });
            assert_eq!(done.into_inner(), 1000);
        }
    })
}

#[test]
fn exponential_blocks_double_from_the_worker_count() {
    bounded(|| {
        for workers in [1, 2, 3] {
            let pool = pool(workers);
            let p = workers;
            // Block ends: p, 3p, 7p, ...
            let ends: Vec<usize> = std::iter::successors(Some(p), |e| Some(2 * e + p))
                .take_while(|&e| e < 5000)
                .chain([5000])
                .collect();
            let started = AtomicUsize::new(0);
            let done = AtomicUsize::new(0);
            pool.install(|| {
                (0..5000)
                    .into_par_iter()
                    .by_exponential_blocks()
                    .for_each(|i| {
                        let seen = started.fetch_add(1, Ordering::SeqCst);
                        if i == 700 {
                            wait_for_another(&started, seen, workers);
                        }
                        // Every item of the blocks that end at or before `i` is done.
                        let before = ends.iter().rev().find(|&&e| e <= i).copied().unwrap_or(0);
                        let d = done.load(Ordering::SeqCst);
                        assert!(d >= before, "item {i} ran with only {d} items done");
                        done.fetch_add(1, Ordering::SeqCst);
                    })
            });
        }
    })
}

#[test]
fn no_block_starts_after_an_early_exit_has_its_answer() {
    bounded(|| {
        for workers in [1, 2] {
            let pool = pool(workers);
            let highest = AtomicUsize::new(0);
            let hit = pool.install(|| {
                (0..100_000)
                    .into_par_iter()
                    .inspect(|&i| {
                        highest.fetch_max(i, Ordering::Relaxed);
                    })
                    .by_uniform_blocks(100)
                    .find_first(|&i| i == 150)
            });
            assert_eq!(hit, Some(150));
            let h = highest.into_inner();
            assert!(h < 200, "item {h} ran, past the hit's block");

            let highest = AtomicUsize::new(0);
            let any = pool.install(|| {
                (0..1_000_000)
                    .into_par_iter()
                    .inspect(|&i| {
                        highest.fetch_max(i, Ordering::Relaxed);
                    })
                    .by_exponential_blocks()
                    .any(|i| i == 4_999)
            });
            assert!(any);
            // The block holding 4999 ends before 2 * 4999 + workers.
            let h = highest.into_inner();
            assert!(
                h < 2 * 4_999 + workers,
                "item {h} ran, past the hit's block"
            );
        }
    })
}

/// A value that counts its drops.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn an_owning_source_drops_every_element_once_after_an_exit_or_a_panic() {
    bounded(|| {
        let pool = pool(2);
        let n = 1000;
        let drops = Arc::new(AtomicUsize::new(0));
        let v: Vec<Counted> = (0..n).map(|_| Counted(drops.clone())).collect();
        let found = pool.install(|| {
            v.into_par_iter()
                .enumerate()
                .by_uniform_blocks(64)
                .find_first(|(i, _)| *i == 70)
                .map(|(i, _)| i)
        });
        assert_eq!(found, Some(70));
        assert_eq!(drops.load(Ordering::SeqCst), n);

        let drops = Arc::new(AtomicUsize::new(0));
        let v: Vec<Counted> = (0..n).map(|_| Counted(drops.clone())).collect();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                v.into_par_iter()
                    .enumerate()
                    .by_uniform_blocks(64)
                    .for_each(|(i, c)| {
                        if i == 200 {
                            panic!("{} in block 3", common::EXPECTED);
                        }
                        drop(c);
                    })
            })
        }));
        assert!(r.is_err());
        assert_eq!(drops.load(Ordering::SeqCst), n);
    })
}

#[test]
fn results_keep_their_order_through_folds_chains_and_flat_maps() {
    bounded(|| {
        let pool = pool(2);
        pool.install(|| {
            let v: Vec<u32> = (0..10_000u32)
                .into_par_iter()
                .by_uniform_blocks(1000)
                .fold(Vec::new, |mut v, e| {
                    v.push(e);
                    v
                })
                .reduce(Vec::new, |mut a, mut b| {
                    a.append(&mut b);
                    a
                });
            assert_eq!(v, (0..10_000).collect::<Vec<_>>());

            let c: Vec<u32> = (0..300u32)
                .into_par_iter()
                .by_exponential_blocks()
                .chain(300..600u32)
                .flat_map_iter(|x| [x, x])
                .collect();
            let want: Vec<u32> = (0..600).flat_map(|x| [x, x]).collect();
            assert_eq!(c, want);

            let empty: Vec<u32> = (0..0u32).into_par_iter().by_uniform_blocks(7).collect();
            assert!(empty.is_empty());
            assert_eq!(
                (0..1001u64)
                    .into_par_iter()
                    .by_uniform_blocks(7)
                    .sum::<u64>(),
                500_500
            );
        })
    })
}

#[test]
fn a_zero_block_size_is_refused_with_rayons_message() {
    let r = std::panic::catch_unwind(|| (0..10).into_par_iter().by_uniform_blocks(0));
    let p = r.expect_err("by_uniform_blocks(0) must panic");
    assert_eq!(
        common::payload_str(&*p),
        Some("block_size must not be zero")
    );
}

#[test]
fn the_adaptors_print_and_clone_as_rayons() {
    let v = [1, 2, 3];
    let u = v.par_iter().by_uniform_blocks(5);
    assert_eq!(
        format!("{u:?}"),
        format!(
            "UniformBlocks {{ base: {:?}, block_size: 5 }}",
            v.par_iter()
        )
    );
    let e = v.par_iter().by_exponential_blocks();
    assert!(format!("{e:?}").starts_with("ExponentialBlocks { base: "));
    let log = Mutex::new(Vec::new());
    u.clone().for_each(|x| log.lock().unwrap().push(*x));
    let mut got = log.into_inner().unwrap();
    got.sort();
    assert_eq!(got, v);
    assert_eq!(e.clone().sum::<i32>(), 6);
}
