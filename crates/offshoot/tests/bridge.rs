//! `par_bridge` (stock mode for sequential iterators) against the sequential equivalent on
//! every pool size: every item processed once, `map` + `sum` / `reduce` / `count` equal,
//! `collect` in the iterator's order, empty and one-item iterators, iterators of unknown
//! length; the stock really handed out on request; a panic surfacing once, stopping the
//! others, and every pulled item dropped exactly once.

mod common;

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::{boom, boom_msg, bounded, pool, Rng, Tally, LONG, POOL_SIZES};
use offshoot::prelude::*;

const LENS: [usize; 7] = [0, 1, 2, 3, 7, 1000, 10_007];

fn data(len: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() % 10_000).collect()
}

#[test]
fn for_each_processes_every_item_once() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for len in LENS {
                let hits: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
                // Owned items (moved into the body) of an iterator of unknown length.
                p.run(|| {
                    (0..len)
                        .map(|i| i.to_string())
                        .filter(|_| true)
                        .par_bridge()
                        .for_each(|s| {
                            hits[s.parse::<usize>().unwrap()].fetch_add(1, Ordering::Relaxed);
                        })
                });
                assert!(
                    hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                    "len {len} on {n} workers"
                );
            }
        }
    })
}

#[test]
fn map_sum_reduce_count_match_sequential() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for (k, len) in LENS.into_iter().enumerate() {
                let v = data(len, k as u64);
                let (sum, mapped, red, cnt, mcnt) = p.run(|| {
                    (
                        v.iter().copied().par_bridge().sum::<u64>(),
                        v.iter().par_bridge().map(|x| x * 3 + 1).sum::<u64>(),
                        v.iter().copied().par_bridge().reduce(|| 0, u64::max),
                        v.iter().filter(|x| *x % 2 == 0).par_bridge().count(),
                        v.iter().par_bridge().map(|x| x + 1).count(),
                    )
                });
                assert_eq!(sum, v.iter().sum::<u64>(), "sum, len {len}, {n} workers");
                assert_eq!(mapped, v.iter().map(|x| x * 3 + 1).sum::<u64>());
                assert_eq!(red, v.iter().copied().max().unwrap_or(0));
                assert_eq!(cnt, v.iter().filter(|x| *x % 2 == 0).count());
                assert_eq!(mcnt, len);
                let mr = p.run(|| {
                    v.iter()
                        .par_bridge()
                        .map(|x| x % 97)
                        .map(|x| x * x)
                        .reduce(|| 0, |a, b| a + b)
                });
                assert_eq!(mr, v.iter().map(|x| (x % 97) * (x % 97)).sum::<u64>());
            }
        }
    })
}

#[test]
fn collect_keeps_the_iterators_order() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for (k, len) in LENS.into_iter().enumerate() {
                let v = data(len, 100 + k as u64);
                let plain: Vec<u64> = p.run(|| v.clone().into_iter().par_bridge().collect());
                assert_eq!(plain, v, "len {len} on {n} workers");
                let mapped: Vec<String> =
                    p.run(|| v.iter().par_bridge().map(|x| format!("<{x}>")).collect());
                let want: Vec<String> = v.iter().map(|x| format!("<{x}>")).collect();
                assert_eq!(mapped, want, "len {len} on {n} workers");
            }
        }
    })
}

/// Items that each wait until a second worker has processed one: possible only if the
/// owner handed part of its stock to a thief.
#[test]
fn the_stock_is_handed_out_on_request() {
    bounded(|| {
        let p = pool(2);
        let before = p.stats();
        let threads = Mutex::new(HashSet::new());
        p.run(|| {
            (0..64u32).par_bridge().for_each(|_| {
                threads.lock().unwrap().insert(std::thread::current().id());
                assert!(
                    common::poll_until(|| threads.lock().unwrap().len() >= 2),
                    "no second worker took part of the stock"
                );
            })
        });
        assert!(p.stats().requests_answered_work > before.requests_answered_work);
    })
}

#[test]
fn a_panicking_item_surfaces_once_and_stops_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let tally = Tally::new();
            let ran = AtomicUsize::new(0);
            let msg = format!("item 10 failed on {n}");
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    (0..1_000_000usize)
                        .map(|i| (i, tally.guard()))
                        .par_bridge()
                        .for_each(|(i, _g)| {
                            if i == 10 {
                                boom(&format!("item 10 failed on {n}"));
                            }
                            ran.fetch_add(1, Ordering::Relaxed);
                            offshoot::poll();
                        })
                })
            }));
            let payload = r.expect_err("the bridge must fail");
            assert_eq!(common::payload_str(&*payload), Some(&*boom_msg(&msg)));
            assert_eq!(common::times_raised(&boom_msg(&msg)), 1);
            assert!(
                ran.load(Ordering::Relaxed) < 1_000_000,
                "not stopped on {n}"
            );
            assert_eq!(tally.made(), tally.dropped(), "items leaked on {n} workers");
            // The pool is still usable.
            assert_eq!(p.run(|| (1..=10u32).par_bridge().sum::<u32>()), 55);
        }
    })
}

/// A thief's piece fails: the owner, busy with its own items, is stopped.
#[test]
fn a_panic_in_a_thiefs_piece_stops_the_owner() {
    bounded(|| {
        let p = pool(2);
        let not_stopped = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            p.run(|| {
                let owner = std::thread::current().id();
                (0..64u32).par_bridge().for_each(|_| {
                    if std::thread::current().id() != owner {
                        boom("a thief's item failed");
                    }
                    if common::poll_until_stopped(LONG) {
                        not_stopped.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
        }));
        let payload = r.expect_err("the bridge must fail");
        assert_eq!(
            common::payload_str(&*payload),
            Some(&*boom_msg("a thief's item failed"))
        );
        assert_eq!(not_stopped.load(Ordering::Relaxed), 0);
    })
}

#[test]
fn bridges_outside_every_pool_use_the_global_pool() {
    let v: Vec<u32> = (0..100u32).par_bridge().map(|x| x + 1).collect();
    assert_eq!(v, (1..=100).collect::<Vec<_>>());
}
