//! `with_future` / `ScopedFuture`: every path of a scoped future — taken back by its creator
//! and run inline, handed out and waited for, never got (run at the end), got by other
//! tasks before the creator, failed on either side, borrowing from the caller — with values,
//! runs and drops checked against the obvious serial answer.
#![cfg(feature = "sync")]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{boom, boom_msg, bounded, install_panic_hook, panic_message, pool, Rng, Tally};
use common::{fib, mix, POOL_SIZES};
use offshoot::sync::{with_future, Promise};

fn ffib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    with_future(
        || ffib(n - 1),
        |a| {
            let b = ffib(n - 2);
            *a.get() + b
        },
    )
}

#[test]
fn futures_got_in_call_order_compute_fib() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for k in [0, 1, 2, 10, 18] {
                assert_eq!(p.run(|| ffib(k)), fib(k), "{n} workers, fib({k})");
            }
        }
    });
}

/// One node of a random computation tree: the value is a function of the children's, and
/// the way each child is computed (future got early, late, twice, never, by a child task,
/// or a plain join) is drawn from the seed. The serial oracle ignores the ways.
fn node(seed: u64, depth: u32, runs: &AtomicUsize) -> u64 {
    runs.fetch_add(1, Ordering::Relaxed);
    let here = mix(seed);
    if depth == 0 {
        return here;
    }
    let (s1, s2) = (mix(seed ^ 1), mix(seed ^ 2));
    let way = here % 6;
    match way {
        // Got after the creator's own work (call order).
        0 => with_future(
            || node(s1, depth - 1, runs),
            |a| {
                let b = node(s2, depth - 1, runs);
                here ^ a.get().wrapping_add(b)
            },
        ),
        // Got before the creator's own work, and twice.
        1 => with_future(
            || node(s1, depth - 1, runs),
            |a| {
                let x = *a.get();
                assert_eq!(a.try_get(), Some(&x));
                let b = node(s2, depth - 1, runs);
                here ^ a.get().wrapping_add(b)
            },
        ),
        // Never got: the value is computed again serially-shaped by the caller through a
        // second future, and the first must still run (checked by the run count).
        2 => {
            let b = with_future(|| node(s1, depth - 1, runs), |_| node(s2, depth - 1, runs));
            here ^ node(s1, depth - 1, runs).wrapping_add(b)
        }
        // Got by child tasks of a scope started in the body, before the creator gets it.
        3 => with_future(
            || node(s1, depth - 1, runs),
            |a| {
                let mut seen = [0u64; 2];
                offshoot::scope(|s| {
                    for slot in seen.iter_mut() {
                        s.spawn(move |_| *slot = *a.get());
                    }
                });
                let b = node(s2, depth - 1, runs);
                assert_eq!(seen[0], *a.get());
                assert_eq!(seen[1], *a.get());
                here ^ seen[0].wrapping_add(b)
            },
        ),
        // Got inside a nested finish and a join branch.
        4 => with_future(
            || node(s1, depth - 1, runs),
            |a| {
                let (x, b) = offshoot::join(
                    || offshoot::finish(|| *a.get()),
                    || node(s2, depth - 1, runs),
                );
                here ^ x.wrapping_add(b)
            },
        ),
        _ => {
            let (x, b) = offshoot::join(|| node(s1, depth - 1, runs), || node(s2, depth - 1, runs));
            here ^ x.wrapping_add(b)
        }
    }
}

fn node_serial(seed: u64, depth: u32, runs: &mut usize) -> u64 {
    *runs += 1;
    let here = mix(seed);
    if depth == 0 {
        return here;
    }
    let (s1, s2) = (mix(seed ^ 1), mix(seed ^ 2));
    if here % 6 == 2 {
        let a = node_serial(s1, depth - 1, runs);
        let b = node_serial(s2, depth - 1, runs);
        let again = node_serial(s1, depth - 1, runs);
        debug_assert_eq!(a, again);
        return here ^ again.wrapping_add(b);
    }
    let a = node_serial(s1, depth - 1, runs);
    let b = node_serial(s2, depth - 1, runs);
    here ^ a.wrapping_add(b)
}

#[test]
fn random_trees_of_futures_match_the_serial_oracle() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for seed in 0..12u64 {
                let mut want_runs = 0;
                let want = node_serial(seed, 9, &mut want_runs);
                let runs = AtomicUsize::new(0);
                let got = p.run(|| node(seed, 9, &runs));
                assert_eq!(got, want, "{n} workers, seed {seed}");
                assert_eq!(
                    runs.into_inner(),
                    want_runs,
                    "{n} workers, seed {seed}: runs"
                );
            }
        }
    });
}

#[test]
fn a_future_nobody_gets_runs_once_before_with_future_returns() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let t = Tally::new();
            let ran = AtomicUsize::new(0);
            p.run(|| {
                let g = t.guard();
                let r = with_future(
                    || {
                        let _g = g;
                        ran.fetch_add(1, Ordering::SeqCst);
                        7
                    },
                    |_| 5,
                );
                assert_eq!(r, 5);
                assert_eq!(ran.load(Ordering::SeqCst), 1, "{n} workers");
            });
            assert_eq!((t.made(), t.dropped()), (1, 1), "{n} workers");
        }
    });
}

#[test]
fn the_closure_may_borrow_from_the_caller() {
    bounded(|| {
        let p = pool(2);
        let data: Vec<u64> = (0..1000).collect();
        let total = p.run(|| {
            with_future(
                || data[..500].iter().sum::<u64>(),
                |a| data[500..].iter().sum::<u64>() + a.get(),
            )
        });
        assert_eq!(total, 999 * 1000 / 2);
    });
}

/// The creator waits (on a promise) before it gets the value, so the future is run by a
/// thief — on one worker, by the worker itself from the creator's parked stack.
#[test]
fn a_handed_out_future_is_waited_for_and_its_value_kept() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for _ in 0..20 {
                let v = p.run(|| {
                    let go = Promise::new();
                    with_future(
                        || {
                            go.put(()).unwrap();
                            vec![1u64, 2, 3]
                        },
                        |a| {
                            go.get();
                            a.get().iter().sum::<u64>()
                        },
                    )
                });
                assert_eq!(v, 6, "{n} workers");
            }
        }
    });
}

#[test]
fn a_panic_of_the_closure_run_inline_comes_out_once() {
    install_panic_hook();
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let what = format!("inline future {n}");
            let before = common::times_raised(&boom_msg(&what));
            let t = Tally::new();
            let msg = panic_message(|| {
                p.run(|| {
                    let g = t.guard();
                    with_future(
                        move || -> u64 {
                            let _g = g;
                            boom(&what)
                        },
                        |a| *a.get() + 1,
                    )
                })
            });
            assert_eq!(msg, boom_msg(&format!("inline future {n}")));
            assert_eq!(
                common::times_raised(&msg) - before,
                1,
                "{n} workers: raised once"
            );
            assert_eq!((t.made(), t.dropped()), (1, 1));
        }
    });
}

/// Runs a `with_future` on `p` whose closure, once started, lets the body get it and then
/// panics with `what`; returns the message that comes out of `run`.
fn stolen_closure_panics(p: &offshoot::ThreadPool, what: &str) -> String {
    panic_message(|| {
        p.run(|| {
            let go = Promise::new();
            with_future(
                || -> u64 {
                    go.put(()).unwrap();
                    boom(what)
                },
                |a| {
                    go.get();
                    *a.get()
                },
            )
        })
    })
}

#[test]
fn a_panic_of_a_handed_out_closure_wins_and_comes_out_once() {
    install_panic_hook();
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let msg = stolen_closure_panics(&p, "stolen future");
            assert_eq!(msg, boom_msg("stolen future"), "{n} workers");
        }
    });
}

/// The same, many times: the creator's `get` must not see the stolen closure end before
/// its failure is recorded, or the creator fails first with its own panic ("the future's
/// computation panicked") or a stop ("a stop escaped to ThreadPool::run"), and that comes
/// out instead. Before the fix: 1 run in ~15 of the whole release suite; this test, in
/// release on a loaded machine, failed 2 of 3 runs (passed 6 of 6 after).
#[test]
fn a_stolen_closure_s_panic_wins_over_the_creator_seeing_it_fail() {
    install_panic_hook();
    bounded(|| {
        for n in [2, 4] {
            let p = pool(n);
            for i in 0..3000 {
                let msg = stolen_closure_panics(&p, "stolen future, again");
                assert_eq!(
                    msg,
                    boom_msg("stolen future, again"),
                    "{n} workers, run {i}"
                );
            }
        }
    });
}

#[test]
fn a_panic_of_the_body_drops_the_unstarted_closure_unrun() {
    install_panic_hook();
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let t = Tally::new();
            let ran = AtomicUsize::new(0);
            let msg = panic_message(|| {
                p.run(|| {
                    let g = t.guard();
                    with_future(
                        || {
                            let _g = g;
                            ran.fetch_add(1, Ordering::SeqCst);
                        },
                        |_| -> u64 { boom("body") },
                    )
                })
            });
            assert_eq!(msg, boom_msg("body"));
            assert_eq!((t.made(), t.dropped()), (1, 1), "{n} workers");
            // On one worker nobody can have taken it; on more, a thief may have.
            if n == 1 {
                assert_eq!(ran.load(Ordering::SeqCst), 0);
            }
        }
    });
}

#[test]
fn other_getters_of_a_failed_future_are_told_so() {
    install_panic_hook();
    bounded(|| {
        let p = pool(2);
        let seen = std::sync::Mutex::new(Vec::new());
        let msg = panic_message(|| {
            p.run(|| {
                with_future(
                    || -> u64 { boom("shared failure") },
                    |a| {
                        offshoot::scope(|s| {
                            s.spawn(|_| {
                                let m = panic_message(|| *a.get());
                                seen.lock().unwrap().push(m);
                            });
                        });
                        *a.get()
                    },
                )
            })
        });
        // The closure's own panic comes out of with_future (whoever ran it); a getter that
        // only waited saw the future fail.
        assert_eq!(msg, boom_msg("shared failure"));
        for m in seen.into_inner().unwrap() {
            assert!(
                m == boom_msg("shared failure") || m.contains("panicked or was stopped"),
                "{m}"
            );
        }
    });
}

#[test]
fn outside_every_pool_it_enters_the_global_pool() {
    bounded(|| {
        assert_eq!(ffib(12), fib(12));
        let v = with_future(|| 2, |a| *a.get() * 21);
        assert_eq!(v, 42);
    });
}

#[test]
fn random_gets_from_many_tasks_agree() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for seed in 0..10u64 {
                let mut rng = Rng::new(seed + 7);
                let k = 1 + rng.range(0, 6) as usize;
                let total = p.run(|| {
                    with_future(
                        move || mix(seed),
                        |a| {
                            let got = std::sync::Mutex::new(0u64);
                            offshoot::scope(|s| {
                                for _ in 0..k {
                                    s.spawn(|_| {
                                        let v = *a.get();
                                        *got.lock().unwrap() += v % 1000;
                                    });
                                }
                            });
                            got.into_inner().unwrap()
                        },
                    )
                });
                assert_eq!(
                    total,
                    k as u64 * (mix(seed) % 1000),
                    "{n} workers, seed {seed}"
                );
            }
        }
    });
}
