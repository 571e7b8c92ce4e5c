//! Finish accumulators (`offshoot::accumulator`) against serial folds: random trees of
//! joins, scope spawns and loops putting random values on 1-4 workers, with SUM, MIN, MAX,
//! ANY, PROD and a user operator; puts from threads that are not the pool's workers (a
//! `std::thread::scope`, a nested pool); the start-of-region value inside the region;
//! consecutive regions; a panic and a eureka stop discard the region's puts; a second
//! region while one is open is a clear error.

mod common;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use common::{boom, boom_msg, bounded, mix, panic_message, pool, POOL_SIZES};
use offshoot::accumulator::{Accumulator, Puts};
use offshoot::eureka::{self, Eureka, Search};
use offshoot::ThreadPool;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| POOL_SIZES.iter().map(|&n| pool(n)).collect())
}

fn trees() -> u64 {
    std::env::var("OFFSHOOT_STRESS_TREES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// The values a random tree puts: node `n` puts `value(n)`, then has 0-3 children, split
/// by a join, a scope spawn or a loop, chosen by its hash; `visit` sees every value, in
/// the serial order when run serially.
fn walk(seed: u64, n: u64, depth: u32, visit: &(dyn Fn(u64) + Sync)) {
    visit(mix(n ^ seed) % 1_000_003);
    if depth == 0 {
        return;
    }
    let h = mix(n ^ seed ^ 0xACC);
    let kids = h % 4;
    let child = |i: u64| mix(n.wrapping_mul(31).wrapping_add(i + 1) ^ seed);
    match (h >> 8) % 3 {
        0 if kids >= 2 => {
            offshoot::join(
                || walk(seed, child(0), depth - 1, visit),
                || {
                    for i in 1..kids {
                        walk(seed, child(i), depth - 1, visit);
                    }
                },
            );
        }
        1 => offshoot::scope(|s| {
            for i in 0..kids {
                s.spawn(move |_| walk(seed, child(i), depth - 1, visit));
            }
        }),
        _ => offshoot::par_for(0..kids as usize, |i| {
            walk(seed, child(i as u64), depth - 1, visit)
        }),
    }
}

fn serial_values(seed: u64) -> Vec<u64> {
    let out = std::sync::Mutex::new(Vec::new());
    // Run on one worker: the tree's constructs then run in the serial order.
    pools()[0].run(|| walk(seed, seed, 5, &|v| out.lock().unwrap().push(v)));
    out.into_inner().unwrap()
}

#[test]
fn every_operator_matches_a_serial_fold_on_random_trees() {
    bounded(|| {
        for seed in 0..trees() {
            let values = serial_values(seed);
            let sum: u64 = values.iter().sum();
            let min = values.iter().copied().min().unwrap();
            let max = values.iter().copied().max().unwrap();
            let any = values.iter().any(|v| v % 1000 == 7);
            let prod = values.iter().fold(1u64, |a, v| a.wrapping_mul(v | 1));
            let set: BTreeSet<u64> = values.iter().map(|v| v % 97).collect();
            for p in pools() {
                let (s, lo, hi, an) = (
                    Accumulator::sum(),
                    Accumulator::min(u64::MAX),
                    Accumulator::max(0),
                    Accumulator::any(),
                );
                let pr = Accumulator::new(1u64, |a: &mut u64, x: u64| *a = a.wrapping_mul(x));
                let union =
                    Accumulator::new(BTreeSet::new(), |a: &mut BTreeSet<u64>, x| a.extend(x));
                p.run(|| {
                    s.finish(|s| {
                        lo.finish(|lo| {
                            hi.finish(|hi| {
                                an.finish(|an| {
                                    pr.finish(|pr| {
                                        union.finish(|un| {
                                            walk(seed, seed, 5, &|v| {
                                                s.put(v);
                                                lo.put(v);
                                                hi.put(v);
                                                an.put(v % 1000 == 7);
                                                pr.put(v | 1);
                                                un.put(BTreeSet::from([v % 97]));
                                            })
                                        })
                                    })
                                })
                            })
                        })
                    })
                });
                let w = p.workers();
                assert_eq!(s.get(), sum, "SUM, tree {seed}, {w} workers");
                assert_eq!(lo.get(), min, "MIN, tree {seed}, {w} workers");
                assert_eq!(hi.get(), max, "MAX, tree {seed}, {w} workers");
                assert_eq!(an.get(), any, "ANY, tree {seed}, {w} workers");
                assert_eq!(pr.get(), prod, "PROD, tree {seed}, {w} workers");
                assert_eq!(union.get(), set, "union, tree {seed}, {w} workers");
            }
        }
    });
}

#[test]
fn puts_from_other_threads_and_pools_count() {
    bounded(|| {
        let inner = pool(2);
        for p in pools() {
            let sum = Accumulator::sum();
            p.run(|| {
                sum.finish(|s| {
                    offshoot::par_for(0..100, |i| s.put(i as u64));
                    std::thread::scope(|t| {
                        for k in 0..3u64 {
                            t.spawn(move || {
                                for i in 0..100 {
                                    s.put(1000 * (k + 1) + i);
                                }
                            });
                        }
                    });
                    inner.run(|| offshoot::par_for(0..50, |i| s.put(i as u64)));
                })
            });
            let want: u64 = (0..100).sum::<u64>()
                + (1..=3u64)
                    .map(|k| (0..100).map(|i| 1000 * k + i).sum::<u64>())
                    .sum::<u64>()
                + (0..50).sum::<u64>();
            assert_eq!(sum.get(), want, "{} workers", p.workers());
        }
    });
}

#[test]
fn outside_every_pool_the_region_runs_in_the_global_pool() {
    bounded(|| {
        let sum = Accumulator::sum();
        sum.finish(|s| offshoot::par_for(0..1000, |i| s.put(i as u64)));
        assert_eq!(sum.get(), 499_500);
    });
}

#[test]
fn get_inside_the_region_is_the_start_value_and_regions_add_up() {
    bounded(|| {
        let sum = Accumulator::new(10u64, |a: &mut u64, x| *a += x);
        pools()[1].run(|| {
            sum.finish(|s: &Puts<'_, u64, _>| {
                offshoot::par_for(0..100, |i| {
                    s.put(i as u64);
                    assert_eq!(s.get(), 10);
                    assert_eq!(sum.get(), 10);
                });
            });
            assert_eq!(sum.get(), 10 + 4950);
            sum.finish(|s| s.put(5));
        });
        assert_eq!(sum.into_inner(), 10 + 4950 + 5);
    });
}

#[test]
fn a_panic_discards_the_regions_puts_and_the_accumulator_stays_usable() {
    bounded(|| {
        for p in pools() {
            let sum = Accumulator::sum();
            sum.finish(|s| s.put(7u64));
            let msg = panic_message(|| {
                p.run(|| {
                    sum.finish(|s| {
                        offshoot::par_for(0..100, |i| {
                            s.put(i as u64);
                            if i == 63 {
                                boom("accumulator");
                            }
                        })
                    })
                })
            });
            assert_eq!(msg, boom_msg("accumulator"));
            assert_eq!(sum.get(), 7, "the failed region's puts are discarded");
            p.run(|| sum.finish(|s| s.put(1)));
            assert_eq!(sum.get(), 8);
        }
    });
}

#[test]
fn a_resolved_eureka_around_the_region_stops_it_and_discards_its_puts() {
    bounded(|| {
        for p in pools() {
            let sum = Accumulator::sum();
            let found = Search::new();
            p.run(|| {
                eureka::finish(&found, || {
                    sum.finish(|s| {
                        offshoot::par_for(0..10_000, |i| {
                            found.check();
                            s.put(1u64);
                            if i == 5000 {
                                found.offer(i);
                            }
                        })
                    })
                })
            });
            assert_eq!(found.get(), Some(&5000));
            assert_eq!(sum.get(), 0, "a stopped region's puts are discarded");
        }
    });
}

#[test]
fn a_second_region_while_one_is_open_is_an_error() {
    bounded(|| {
        let sum = Accumulator::<u64>::sum();
        let msg = panic_message(|| pools()[1].run(|| sum.finish(|_| sum.finish(|s| s.put(1)))));
        assert!(
            msg.contains("already bound to a finish"),
            "unexpected message: {msg}"
        );
        // The failed attempt did not leave it open.
        sum.finish(|s| s.put(2));
        assert_eq!(sum.get(), 2);
    });
}
