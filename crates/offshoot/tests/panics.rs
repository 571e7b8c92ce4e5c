//! Panics across joins: a panic from `a`, from `b` run inline, from `b` while it was stolen
//! (made near certain by having `a` poll until `b` has started), from `ThreadPool::run`'s
//! closure, from spawned tasks, and from deep inside nested scopes / finishes / joins each
//! surfaces exactly once in the caller, with its own payload (checked by downcasting, also
//! for non-string payloads). When two sides fail, the first failure wins (made deterministic
//! by letting the loser fail only after it has been stopped). After every panic the pool
//! still computes correct values.

mod common;

use std::panic::{catch_unwind, panic_any, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{
    boom, boom_msg, bounded, panic_message, poll_until, poll_until_stopped, pool, spin_until,
    times_raised, Tally, LONG, POOL_SIZES,
};
use offshoot::ThreadPool;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// The pool still works (and computes the right value) after a failure.
fn still_works(p: &ThreadPool) {
    assert_eq!(
        p.run(|| fib(15)),
        610,
        "the pool computes wrong values after a panic"
    );
}

#[test]
fn panic_in_a_surfaces_with_its_payload_and_b_never_starts_on_one_worker() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let what = format!("a on {n} workers");
            let b_ran = AtomicBool::new(false);
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::join(
                        || -> u32 { boom(&what) },
                        || {
                            b_ran.store(true, Ordering::SeqCst);
                            2u32
                        },
                    )
                })
            });
            assert_eq!(msg, boom_msg(&what));
            assert_eq!(times_raised(&boom_msg(&what)), 1);
            if n == 1 {
                // Nobody could have taken b before a failed: it is dropped unrun.
                assert!(!b_ran.load(Ordering::SeqCst), "b started after a failed");
            }
            still_works(&p);
        }
    })
}

#[test]
fn panic_in_b_run_inline_surfaces_with_its_payload() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let what = format!("inline b on {n} workers");
            let msg =
                panic_message(|| p.run(|| offshoot::join(|| 1u32, || -> u32 { boom(&what) })));
            assert_eq!(msg, boom_msg(&what));
            assert_eq!(times_raised(&boom_msg(&what)), 1);
            still_works(&p);
        }
    })
}

#[test]
fn panic_in_stolen_b_surfaces_and_stops_a() {
    bounded(|| {
        for n in [2, 3, 4] {
            for rep in 0..5 {
                let p = pool(n);
                let what = format!("stolen b on {n} workers, rep {rep}");
                let b_started = AtomicBool::new(false);
                let a_not_stopped = AtomicBool::new(false);
                let a_worker = AtomicUsize::new(usize::MAX);
                let b_worker = AtomicUsize::new(usize::MAX);
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::join(
                            || {
                                a_worker.store(p.current_worker_index().unwrap(), Ordering::SeqCst);
                                // Keep answering requests until a thief has taken and started b,
                                // then keep polling until b's failure stops this side.
                                assert!(
                                    poll_until(|| b_started.load(Ordering::SeqCst)),
                                    "b was never stolen"
                                );
                                if poll_until_stopped(LONG) {
                                    a_not_stopped.store(true, Ordering::SeqCst);
                                }
                            },
                            || {
                                b_worker.store(p.current_worker_index().unwrap(), Ordering::SeqCst);
                                b_started.store(true, Ordering::SeqCst);
                                boom(&what)
                            },
                        )
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(times_raised(&boom_msg(&what)), 1);
                assert!(
                    !a_not_stopped.load(Ordering::SeqCst),
                    "a was not stopped after b failed"
                );
                assert_ne!(
                    a_worker.load(Ordering::SeqCst),
                    b_worker.load(Ordering::SeqCst),
                    "b was not stolen"
                );
                still_works(&p);
            }
        }
    })
}

#[test]
fn panic_in_a_while_b_is_stolen_stops_b() {
    bounded(|| {
        for n in [2, 3, 4] {
            for rep in 0..5 {
                let p = pool(n);
                let what = format!("a against stolen b on {n} workers, rep {rep}");
                let b = Tally::new();
                let msg = panic_message(|| {
                    p.run(|| {
                        let g = b.guard();
                        offshoot::join(
                            || {
                                assert!(poll_until(|| b.started() == 1), "b was never stolen");
                                boom(&what)
                            },
                            || {
                                let _g = g;
                                b.start();
                                if poll_until_stopped(LONG) {
                                    b.finish();
                                }
                            },
                        )
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(times_raised(&boom_msg(&what)), 1);
                assert_eq!(b.finished(), 0, "b was not stopped after a failed");
                assert_eq!(b.dropped(), 1, "b's captures were not dropped");
                still_works(&p);
            }
        }
    })
}

/// What the losing side of a "first panic wins" test saw. Recorded in flags and checked by
/// the test itself, because an assertion failing inside the losing side would be a panic
/// that loses against the winner and would go unnoticed.
#[derive(Default)]
struct Loser {
    /// The loser's body began. The winner waits for it before it fails: a poll on the
    /// loser's way in (the one that hands the winner to a thief) may otherwise see the
    /// winner's stop and unwind before the loser's body runs, and then only one side fails.
    began: AtomicBool,
    /// The winner started (so the loser ran in parallel with it).
    saw_winner: AtomicBool,
    /// The loser was stopped (its poll loop unwound) before it panicked itself.
    stopped: AtomicBool,
}

impl Loser {
    /// Polls until `winner_started`, then until stopped, catching the stop; then panics
    /// with `late`.
    fn run(&self, winner_started: &AtomicBool, late: &str) -> ! {
        self.began.store(true, Ordering::SeqCst);
        let r = catch_unwind(AssertUnwindSafe(|| {
            // The stop may already come while waiting for the winner to start.
            if poll_until(|| winner_started.load(Ordering::SeqCst)) {
                self.saw_winner.store(true, Ordering::SeqCst);
                poll_until_stopped(LONG)
            } else {
                false
            }
        }));
        if r.is_err() {
            self.saw_winner.store(true, Ordering::SeqCst);
            self.stopped.store(true, Ordering::SeqCst);
        }
        boom(late)
    }

    /// Called by the winner before it fails: waits (spinning, without polling, since the
    /// winner runs on a thief) until the loser's body began.
    fn wait_began(&self) {
        assert!(
            spin_until(|| self.began.load(Ordering::SeqCst)),
            "the loser never began"
        );
    }

    fn check(&self, who: &str) {
        assert!(
            self.saw_winner.load(Ordering::SeqCst),
            "{who}: the winner never ran in parallel"
        );
        assert!(
            self.stopped.load(Ordering::SeqCst),
            "{who}: the loser was not stopped"
        );
    }
}

#[test]
fn first_panic_wins_when_both_sides_of_a_join_fail() {
    bounded(|| {
        for n in [2, 3] {
            for rep in 0..5 {
                let p = pool(n);
                // b (stolen) fails first; a is stopped, swallows the stop and panics late.
                let first = format!("b first on {n} workers, rep {rep}");
                let late = format!("a late on {n} workers, rep {rep}");
                let b_started = AtomicBool::new(false);
                let loser = Loser::default();
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::join(
                            || loser.run(&b_started, &late),
                            || {
                                b_started.store(true, Ordering::SeqCst);
                                loser.wait_began();
                                boom(&first)
                            },
                        )
                    })
                });
                loser.check("a");
                assert_eq!(msg, boom_msg(&first));
                assert_eq!(times_raised(&boom_msg(&first)), 1);
                assert_eq!(times_raised(&boom_msg(&late)), 1);

                // a fails first; the stolen b is stopped, swallows the stop and panics late.
                let first = format!("a first on {n} workers, rep {rep}");
                let late = format!("b late on {n} workers, rep {rep}");
                let b_started = AtomicBool::new(false);
                let b_caught_stop = AtomicBool::new(false);
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::join(
                            || {
                                assert!(
                                    poll_until(|| b_started.load(Ordering::SeqCst)),
                                    "b was never stolen"
                                );
                                boom(&first)
                            },
                            || {
                                b_started.store(true, Ordering::SeqCst);
                                let stopped =
                                    catch_unwind(AssertUnwindSafe(|| poll_until_stopped(LONG)))
                                        .is_err();
                                b_caught_stop.store(stopped, Ordering::SeqCst);
                                boom(&late)
                            },
                        )
                    })
                });
                assert_eq!(msg, boom_msg(&first));
                assert!(b_caught_stop.load(Ordering::SeqCst), "b was not stopped");
                assert_eq!(times_raised(&boom_msg(&first)), 1);
                assert_eq!(times_raised(&boom_msg(&late)), 1);
                still_works(&p);
            }
        }
    })
}

#[test]
fn first_panic_wins_in_a_scope() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            // A task fails first; the body, stopped, panics late.
            let first = format!("scope task first on {n} workers");
            let late = format!("scope body late on {n} workers");
            let started = AtomicBool::new(false);
            let loser = Loser::default();
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::scope(|s| {
                        s.spawn(|_| {
                            started.store(true, Ordering::SeqCst);
                            loser.wait_began();
                            boom(&first)
                        });
                        loser.run(&started, &late)
                    })
                })
            });
            loser.check("scope body");
            assert_eq!(msg, boom_msg(&first));
            assert_eq!(times_raised(&boom_msg(&first)), 1);
            assert_eq!(times_raised(&boom_msg(&late)), 1);
            still_works(&p);
        }
    })
}

#[test]
fn one_of_many_failing_tasks_wins_and_surfaces_once() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for rep in 0..10 {
                let names: Vec<String> = (0..8)
                    .map(|i| format!("many: task {i} rep {rep} on {n} workers"))
                    .collect();
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::scope(|s| {
                            for name in &names {
                                s.spawn(move |_| {
                                    for _ in 0..100 {
                                        offshoot::poll();
                                    }
                                    boom(name)
                                });
                            }
                        })
                    })
                });
                assert!(
                    names.iter().any(|name| msg == boom_msg(name)),
                    "the payload is none of the tasks' own: {msg}"
                );
            }
            still_works(&p);
        }
    })
}

#[test]
fn panic_in_run_closure_resumes_in_the_caller() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let what = format!("run body on {n} workers");
            let msg = panic_message(|| p.run(|| -> u32 { boom(&what) }));
            assert_eq!(msg, boom_msg(&what));
            assert_eq!(times_raised(&boom_msg(&what)), 1);
            still_works(&p);
        }
    })
}

#[derive(Debug, PartialEq)]
struct CustomPayload(u32, &'static str);

#[test]
fn non_string_payloads_survive_every_construct() {
    bounded(|| {
        common::install_panic_hook();
        for n in [1, 2, 3] {
            let p = pool(n);
            let payload = |f: &dyn Fn()| {
                let e = catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic");
                *e.downcast::<CustomPayload>()
                    .expect("the payload changed type")
            };
            // Quiet: the default hook prints "Box<dyn Any>" for these; harmless.
            assert_eq!(
                payload(&|| {
                    p.run(|| offshoot::join(|| panic_any(CustomPayload(1, "join a")), || ()));
                }),
                CustomPayload(1, "join a")
            );
            assert_eq!(
                payload(&|| {
                    p.run(|| offshoot::join(|| (), || panic_any(CustomPayload(2, "join b"))));
                }),
                CustomPayload(2, "join b")
            );
            assert_eq!(
                payload(&|| p.run(|| offshoot::scope(
                    |s| s.spawn(|_| panic_any(CustomPayload(3, "scope")))
                ))),
                CustomPayload(3, "scope")
            );
            assert_eq!(
                payload(
                    &|| p.run(|| offshoot::finish(|| offshoot::finish::spawn(|| panic_any(
                        CustomPayload(4, "finish")
                    ))))
                ),
                CustomPayload(4, "finish")
            );
            assert_eq!(
                payload(
                    &|| p.run(|| offshoot::finish::spawn(|| panic_any(CustomPayload(
                        5,
                        "spawn under run"
                    ))))
                ),
                CustomPayload(5, "spawn under run")
            );
            assert_eq!(
                payload(&|| {
                    let _ = p.run(|| {
                        offshoot::try_join(
                            || Ok::<(), ()>(()),
                            || -> Result<(), ()> { panic_any(CustomPayload(6, "try_join")) },
                        )
                    });
                }),
                CustomPayload(6, "try_join")
            );
            still_works(&p);
        }
    })
}

#[test]
fn panic_in_a_task_spawned_under_run_resumes_in_run() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let what = format!("spawned under run on {n} workers");
            let w2 = what.clone();
            let msg = panic_message(|| {
                p.run(move || {
                    for i in 0..20 {
                        let w = w2.clone();
                        offshoot::finish::spawn(move || {
                            if i == 13 {
                                boom(&w)
                            }
                        });
                    }
                })
            });
            assert_eq!(msg, boom_msg(&what));
            assert_eq!(times_raised(&boom_msg(&what)), 1);
            still_works(&p);
        }
    })
}

/// Descends `depth` levels through a rotation of scope, finish + spawn and join, with
/// busy siblings (`fib`) at every level, and panics at the bottom.
fn deep(depth: u32, what: &Arc<String>, tally: &Arc<Tally>) {
    if depth == 0 {
        boom(what)
    }
    match depth % 3 {
        0 => offshoot::scope(|s| {
            s.spawn(|_| {
                fib(10);
            });
            s.spawn(|_| deep(depth - 1, what, tally));
            s.spawn(|_| {
                fib(10);
            });
        }),
        1 => {
            let (what, tally) = (what.clone(), tally.clone());
            offshoot::finish(move || {
                let g = tally.guard();
                offshoot::finish::spawn(move || {
                    let _g = g;
                    fib(10);
                });
                let g = tally.guard();
                offshoot::finish::spawn(move || {
                    let _g = g;
                    deep(depth - 1, &what, &tally)
                });
            })
        }
        _ => {
            let g = tally.guard();
            offshoot::join(
                || {
                    let _g = g;
                    fib(10)
                },
                || deep(depth - 1, what, tally),
            );
        }
    }
}

#[test]
fn panic_deep_inside_nested_scopes_finishes_and_joins_surfaces_once() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for depth in [1, 2, 3, 7, 12] {
                let what = Arc::new(format!("deep {depth} on {n} workers"));
                let tally = Tally::new();
                let (w2, t2) = (what.clone(), tally.clone());
                let msg = panic_message(|| p.run(move || deep(depth, &w2, &t2)));
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(times_raised(&boom_msg(&what)), 1);
                assert_eq!(tally.dropped(), tally.made(), "closures were leaked");
            }
            still_works(&p);
        }
    })
}

#[test]
fn panic_deep_inside_nested_pool_runs_surfaces_once() {
    bounded(|| {
        let a = pool(2);
        let b = pool(2);
        let what = "through two pools";
        let msg = panic_message(|| {
            a.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        b.run(|| {
                            offshoot::join(
                                || fib(8),
                                || offshoot::finish(|| offshoot::finish::spawn(|| boom(what))),
                            )
                        });
                    });
                })
            })
        });
        assert_eq!(msg, boom_msg(what));
        assert_eq!(times_raised(&boom_msg(what)), 1);
        still_works(&a);
        still_works(&b);
    })
}

#[test]
fn panic_through_the_global_pool_resumes_in_the_caller() {
    bounded(|| {
        let what = "global join";
        let msg = panic_message(|| offshoot::join(|| 1, || -> u32 { boom(what) }));
        assert_eq!(msg, boom_msg(what));
        let what = "global scope";
        let msg = panic_message(|| offshoot::scope(|s| s.spawn(|_| boom(what))));
        assert_eq!(msg, boom_msg(what));
        let what = "global finish";
        let msg = panic_message(|| {
            offshoot::finish(|| offshoot::finish::spawn(|| boom("global finish")))
        });
        assert_eq!(msg, boom_msg(what));
        assert_eq!(fib(12), 144);
    })
}
