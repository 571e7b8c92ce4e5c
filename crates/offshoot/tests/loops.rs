//! `par_for`, `par_for_each`, `par_for_each_mut` and `par_reduce`: every index exactly once,
//! results equal to the sequential ones on 1, 2 and 3 workers, lazy splitting really
//! happening, nesting with joins, panics surfacing once and stopping the loop, and
//! iterations that wait for each other (a barrier inside the loop) all running.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use common::{bounded, pool, Rng};

const SIZES: [usize; 3] = [1, 2, 3];

#[test]
fn par_for_visits_every_index_once() {
    bounded(|| {
        for n in SIZES {
            let p = pool(n);
            for len in [0usize, 1, 2, 3, 7, 1000, 100_003] {
                let hits: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
                p.run(|| {
                    offshoot::par_for(0..len, |i| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                    })
                });
                assert!(
                    hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                    "len {len} on {n} workers"
                );
            }
            // A range that does not start at 0.
            let sum = AtomicU64::new(0);
            p.run(|| {
                offshoot::par_for(10..20, |i| {
                    sum.fetch_add(i as u64, Ordering::Relaxed);
                })
            });
            assert_eq!(sum.into_inner(), (10..20).sum::<u64>());
        }
    })
}

#[test]
fn par_for_each_and_mut_match_sequential() {
    bounded(|| {
        let mut rng = Rng::new(7);
        for n in SIZES {
            let p = pool(n);
            for len in [0usize, 1, 5, 4097, 50_000] {
                let v: Vec<u64> = (0..len).map(|_| rng.next_u64() % 1000).collect();
                let total = AtomicU64::new(0);
                p.run(|| {
                    offshoot::par_for_each(&v, |x| {
                        total.fetch_add(*x, Ordering::Relaxed);
                    })
                });
                assert_eq!(total.into_inner(), v.iter().sum::<u64>());
                let mut w = v.clone();
                p.run(|| offshoot::par_for_each_mut(&mut w, |x| *x = *x * 3 + 1));
                let want: Vec<u64> = v.iter().map(|x| x * 3 + 1).collect();
                assert_eq!(w, want, "len {len} on {n} workers");
            }
        }
    })
}

#[test]
fn par_reduce_matches_sequential_and_is_deterministic_on_one_worker() {
    bounded(|| {
        for n in SIZES {
            let p = pool(n);
            for len in [0usize, 1, 2, 999, 123_457] {
                let s = p.run(|| {
                    offshoot::par_reduce(0..len, || 0u64, |i| (i as u64) * (i as u64), |a, b| a + b)
                });
                assert_eq!(
                    s,
                    (0..len as u64).map(|i| i * i).sum::<u64>(),
                    "len {len} on {n} workers"
                );
            }
            // Inclusive ranges and a non-commutative (but associative) combine: string
            // concatenation must come out in index order whatever the splits.
            let s = p.run(|| {
                offshoot::par_reduce(
                    0..=2000usize,
                    String::new,
                    |i| format!("{i},"),
                    |mut a, b| {
                        a.push_str(&b);
                        a
                    },
                )
            });
            let want: String = (0..=2000).map(|i| format!("{i},")).collect();
            assert_eq!(s, want, "order on {n} workers");
        }
        // On one worker nothing is split: a float sum is exactly the sequential left fold.
        let p = pool(1);
        let xs: Vec<f64> = (0..10_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let seq = xs.iter().fold(0.0, |a, b| a + b);
        let par = p.run(|| offshoot::par_reduce(0..xs.len(), || 0.0f64, |i| xs[i], |a, b| a + b));
        assert_eq!(par.to_bits(), seq.to_bits());
    })
}

/// A loop whose iterations each wait until another worker has run some iteration: only
/// possible if the loop really was split and handed out.
#[test]
fn loops_split_on_request() {
    bounded(|| {
        let p = pool(2);
        let before = p.stats();
        let seen = [AtomicBool::new(false), AtomicBool::new(false)];
        p.run(|| {
            offshoot::par_for(0..64, |_| {
                let me = offshoot_worker();
                seen[me].store(true, Ordering::SeqCst);
                common::poll_until(|| seen[1 - me].load(Ordering::SeqCst));
            })
        });
        assert!(p.stats().requests_answered_work > before.requests_answered_work);
    });

    fn offshoot_worker() -> usize {
        // Each test pool has its own indices; the current worker is one of 0 and 1.
        thread_local!(static IDX: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) });
        IDX.with(|c| {
            if c.get().is_none() {
                let name = std::thread::current().name().unwrap_or("").to_string();
                c.set(Some(if name.ends_with('1') { 1 } else { 0 }));
            }
            c.get().unwrap()
        })
    }
}

#[test]
fn loops_nest_with_joins_and_loops() {
    bounded(|| {
        for n in SIZES {
            let p = pool(n);
            let total = p.run(|| {
                offshoot::par_reduce(
                    0..50usize,
                    || 0u64,
                    |i| {
                        let (a, b) = offshoot::join(
                            || offshoot::par_reduce(0..i, || 0u64, |j| j as u64, |x, y| x + y),
                            || {
                                let c = AtomicU64::new(0);
                                offshoot::par_for(0..i, |_| {
                                    c.fetch_add(1, Ordering::Relaxed);
                                });
                                c.into_inner()
                            },
                        );
                        a + b
                    },
                    |x, y| x + y,
                )
            });
            let want: u64 = (0..50u64).map(|i| i * i.saturating_sub(1) / 2 + i).sum();
            assert_eq!(total, want, "on {n} workers");
        }
    })
}

#[test]
fn a_panicking_iteration_surfaces_once_and_stops_the_loop() {
    bounded(|| {
        for n in SIZES {
            let p = pool(n);
            let ran = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    offshoot::par_for(0..1_000_000, |i| {
                        if i == 10 {
                            panic!("expected: iteration 10 failed");
                        }
                        ran.fetch_add(1, Ordering::Relaxed);
                        offshoot::poll();
                    })
                })
            }));
            let payload = r.expect_err("the loop must fail");
            assert_eq!(
                payload.downcast_ref::<&str>().copied(),
                Some("expected: iteration 10 failed"),
                "on {n} workers"
            );
            assert!(
                ran.load(Ordering::Relaxed) < 1_000_000,
                "the loop was not stopped on {n} workers"
            );
            // The pool is still usable.
            assert_eq!(
                p.run(|| offshoot::par_reduce(0..10usize, || 0, |i| i, |a, b| a + b)),
                45
            );
        }
    })
}

#[test]
fn loops_outside_every_pool_use_the_global_pool() {
    let s = offshoot::par_reduce(1..=10usize, || 1u64, |i| i as u64, |a, b| a * b);
    assert_eq!(s, 3_628_800);
}

#[test]
#[cfg(all(feature = "sync", feature = "phaser"))]
fn iterations_that_wait_for_each_other_all_run() {
    // Every iteration meets all the others at a barrier (or phaser), several times: each
    // must be started while the earlier ones wait. A piece parked in an iteration hands out
    // all of its remaining iterations, not only half of two or more; without that the
    // last iteration of each piece would wait behind its parked neighbour forever.
    bounded(|| {
        for &w in &common::POOL_SIZES {
            let p = pool(w);
            for n in [1usize, 2, 7, 64] {
                let barrier = offshoot::sync::Barrier::new(n);
                let met = AtomicUsize::new(0);
                p.run(|| {
                    offshoot::par_for(0..n, |_| {
                        for _ in 0..3 {
                            barrier.wait();
                        }
                        met.fetch_add(1, Ordering::Relaxed);
                    })
                });
                assert_eq!(met.into_inner(), n, "{n} iterations on {w} workers");
                // The same as a batch of tasks, each owning a phaser registration.
                let ph = offshoot::phaser::Phaser::new();
                let rounds = AtomicUsize::new(0);
                p.run(|| {
                    let me = ph.register(offshoot::phaser::Mode::SigWait);
                    offshoot::scope(|s| {
                        s.spawn_batch_iter((0..n).map(|_| {
                            let mut r = me.child(offshoot::phaser::Mode::SigWait);
                            let rounds = &rounds;
                            move |_: &offshoot::Scope<'_>| {
                                for _ in 0..3 {
                                    r.next();
                                }
                                rounds.fetch_add(1, Ordering::Relaxed);
                            }
                        }));
                        drop(me);
                    })
                });
                assert_eq!(rounds.into_inner(), n);
                assert_eq!(ph.ended_phases(), 3);
            }
        }
    });
}
