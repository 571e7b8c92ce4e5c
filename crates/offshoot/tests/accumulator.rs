//! Finish accumulators (`offshoot::accumulator`) against serial folds: random trees of
//! joins, scope spawns and loops putting random values on 1-4 workers, with SUM, MIN, MAX,
//! ANY, PROD and a user operator; puts from threads that are not the pool's workers (a
//! `std::thread::scope`, a nested pool); the start-of-region value inside the region;
//! consecutive regions; a panic and a eureka stop discard the region's puts; a second
//! region while one is open is a clear error. The order-preserving variant
//! (`OrderedAccumulator`) with a non-commutative operator against a fold in index order:
//! random trees, loops, puts from other threads, an index put twice.
#![cfg(all(feature = "accumulator", feature = "eureka"))]

mod common;

use std::collections::BTreeSet;
use std::sync::OnceLock;

use common::{boom, boom_msg, bounded, mix, panic_message, pool, POOL_SIZES};
use offshoot::accumulator::{Accumulator, OrderedAccumulator, Puts};
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

/// A 2×2 matrix product modulo a prime: associative, not commutative — a fold in any other
/// order than the indices' gives another matrix.
type Mat = [[u64; 2]; 2];
const P: u64 = 1_000_000_007;
fn mat_mul(a: &mut Mat, b: Mat) {
    let c = *a;
    for (i, row) in a.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (c[i][0] * b[0][j] + c[i][1] * b[1][j]) % P;
        }
    }
}
fn mat_of(v: u64) -> Mat {
    [[v % 7 + 1, v % 5], [v % 3, v % 11 + 2]]
}
const ID: Mat = [[1, 0], [0, 1]];

fn ordered_product(mut items: Vec<(usize, u64)>) -> Mat {
    items.sort_unstable();
    let mut m = ID;
    for (_, v) in items {
        mat_mul(&mut m, mat_of(v));
    }
    m
}

#[test]
fn ordered_puts_fold_in_index_order_on_random_trees() {
    bounded(|| {
        let mut checked = 0;
        for seed in 0..trees() / 4 {
            // Each node puts at an index derived from its value (the same on every
            // schedule); the fold must follow the indices, not the schedule.
            let values = serial_values(seed);
            let items: Vec<(usize, u64)> = values
                .iter()
                .map(|&v| (mix(v ^ seed) as usize, v))
                .collect();
            let distinct: BTreeSet<usize> = items.iter().map(|x| x.0).collect();
            if distinct.len() != items.len() {
                continue; // a tree that repeats a value: its index would be put twice
            }
            checked += 1;
            let want = ordered_product(items);
            for p in pools() {
                let acc = OrderedAccumulator::new(ID, mat_mul);
                p.run(|| {
                    acc.finish(|o| {
                        walk(seed, seed, 5, &|v| o.put(mix(v ^ seed) as usize, mat_of(v)))
                    })
                });
                assert_eq!(acc.get(), want, "tree {seed}, {} workers", p.workers());
            }
        }
        assert!(
            checked >= trees() / 8,
            "only {checked} trees had distinct values"
        );
    });
}

#[test]
fn ordered_puts_of_a_loop_and_of_other_threads_fold_in_index_order() {
    bounded(|| {
        let inner = pool(2);
        let n = 20_000usize;
        let mut items: Vec<(usize, u64)> = (0..n).map(|i| (i, mix(i as u64))).collect();
        items.extend((0..300).map(|k| (n + 3 * k, k as u64))); // sparse indices
        items.extend((0..50).map(|k| (10 * n + k, 7 * k as u64)));
        let want = ordered_product(items);
        for p in pools() {
            let acc = OrderedAccumulator::new(ID, mat_mul);
            p.run(|| {
                acc.finish(|o| {
                    // Descending spawns: the schedule's order is not the indices'.
                    offshoot::par_for(0..n, |i| o.put(n - 1 - i, mat_of(mix((n - 1 - i) as u64))));
                    std::thread::scope(|t| {
                        for part in 0..3 {
                            t.spawn(move || {
                                for k in (part..300).step_by(3) {
                                    o.put(n + 3 * k, mat_of(k as u64));
                                }
                            });
                        }
                    });
                    inner.run(|| {
                        offshoot::par_for(0..50, |k| o.put(10 * n + k, mat_of(7 * k as u64)))
                    });
                })
            });
            assert_eq!(acc.get(), want, "{} workers", p.workers());
        }
    });
}

#[test]
fn an_index_put_twice_is_an_error_that_names_it_and_changes_nothing() {
    bounded(|| {
        for p in pools() {
            let acc = OrderedAccumulator::new(String::from(">"), |a: &mut String, x: String| {
                a.push_str(&x)
            });
            let msg = panic_message(|| {
                p.run(|| {
                    acc.finish(|o| {
                        offshoot::par_for(0..100, |i| o.put(i, "x".into()));
                        o.put(57, "again".into());
                    })
                })
            });
            assert!(
                msg.contains("index 57 was put more than once"),
                "unexpected message: {msg}"
            );
            assert_eq!(acc.get(), ">", "nothing of the failed region is kept");
            p.run(|| {
                acc.finish(|o| offshoot::join(|| o.put(2, "b".into()), || o.put(1, "a".into())))
            });
            assert_eq!(acc.get(), ">ab");
            // A panicking task discards the region's puts too.
            let msg = panic_message(|| {
                p.run(|| {
                    acc.finish(|o| {
                        offshoot::par_for(0..100, |i| {
                            o.put(i, "y".into());
                            if i == 40 {
                                boom("ordered");
                            }
                        })
                    })
                })
            });
            assert_eq!(msg, boom_msg("ordered"));
            assert_eq!(acc.get(), ">ab");
        }
    });
}
