//! `try_join`, `try_scope`, `try_finish` and `try_spawn`: `Ok` values come through; the
//! first `Err` wins (made deterministic by letting the loser fail only after it has been
//! stopped), the siblings are stopped (they poll until stopped, with a bound none may
//! reach), tasks not yet started never start, and the `Err` is returned — not a panic. A
//! panic inside a `try_` construct still resumes as a panic; an `Err` from `try_spawn` under
//! a plain `finish`, or of another error type than the `try_finish`'s, is reported by a
//! panic that says what to do.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{
    boom, boom_msg, bounded, long_task, panic_message, poll_until, poll_until_stopped, pool, Tally,
    LONG, POOL_SIZES,
};

#[test]
fn try_join_returns_both_values_when_both_succeed() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for i in 0..50u32 {
                let r: Result<(u32, String), String> =
                    p.run(|| offshoot::try_join(|| Ok(i), || Ok(format!("b{i}"))));
                assert_eq!(r, Ok((i, format!("b{i}"))));
            }
        }
    })
}

#[test]
fn try_join_err_from_a_wins_and_b_never_starts_on_one_worker() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let b_ran = AtomicBool::new(false);
            let r: Result<((), ()), String> = p.run(|| {
                offshoot::try_join(
                    || Err("a failed".to_string()),
                    || {
                        b_ran.store(true, Ordering::SeqCst);
                        Ok(())
                    },
                )
            });
            assert_eq!(r, Err("a failed".to_string()));
            if n == 1 {
                assert!(!b_ran.load(Ordering::SeqCst), "b started after a failed");
            }
        }
    })
}

#[test]
fn try_join_err_from_b_inline_is_returned() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let r: Result<(u32, u32), u32> = p.run(|| offshoot::try_join(|| Ok(1), || Err(2)));
            assert_eq!(r, Err(2));
        }
    })
}

#[test]
fn try_join_err_from_stolen_b_stops_a() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            for rep in 0..5u32 {
                let a = Tally::new();
                let b_started = AtomicBool::new(false);
                let r: Result<((), ()), u32> = p.run(|| {
                    offshoot::try_join(
                        || {
                            assert!(
                                poll_until(|| b_started.load(Ordering::SeqCst)),
                                "b was never stolen"
                            );
                            long_task(&a);
                            Ok(())
                        },
                        || {
                            b_started.store(true, Ordering::SeqCst);
                            Err(rep)
                        },
                    )
                });
                assert_eq!(r, Err(rep));
                assert_eq!(a.finished(), 0, "a was not stopped");
            }
        }
    })
}

#[test]
fn try_join_err_from_a_stops_stolen_b() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            for rep in 0..5u32 {
                let b = Tally::new();
                let r: Result<((), ()), u32> = p.run(|| {
                    offshoot::try_join(
                        || {
                            assert!(poll_until(|| b.started() == 1), "b was never stolen");
                            Err(rep)
                        },
                        || {
                            long_task(&b);
                            Ok(())
                        },
                    )
                });
                assert_eq!(r, Err(rep));
                assert_eq!(b.finished(), 0, "b was not stopped");
            }
        }
    })
}

#[test]
fn try_join_first_err_wins_when_both_fail() {
    bounded(|| {
        for n in [2, 3] {
            let p = pool(n);
            for _ in 0..5 {
                // b (stolen) fails first; a is stopped, swallows the stop and fails late.
                let b_started = AtomicBool::new(false);
                let a_stopped = AtomicBool::new(false);
                let r: Result<((), ()), &str> = p.run(|| {
                    offshoot::try_join(
                        || {
                            let stopped = catch_unwind(AssertUnwindSafe(|| {
                                poll_until(|| b_started.load(Ordering::SeqCst))
                                    && poll_until_stopped(LONG)
                            }))
                            .is_err();
                            a_stopped.store(stopped, Ordering::SeqCst);
                            Err("a late")
                        },
                        || {
                            b_started.store(true, Ordering::SeqCst);
                            Err("b first")
                        },
                    )
                });
                assert!(a_stopped.load(Ordering::SeqCst), "a was not stopped");
                assert_eq!(r, Err("b first"));
            }
        }
    })
}

#[test]
fn panic_inside_try_join_resumes_as_a_panic() {
    bounded(|| {
        for n in [1, 2, 3] {
            let p = pool(n);
            let what = format!("try_join panic on {n} workers");
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::try_join(|| Ok::<u32, u32>(1), || -> Result<u32, u32> { boom(&what) })
                })
            });
            assert_eq!(msg, boom_msg(&what));
        }
    })
}

#[test]
fn nested_try_joins_propagate_the_error_with_question_mark() {
    fn search(lo: u32, hi: u32, bad: u32) -> Result<u64, u32> {
        if hi - lo == 1 {
            return if lo == bad { Err(lo) } else { Ok(lo as u64) };
        }
        let mid = (lo + hi) / 2;
        let (a, b) = offshoot::try_join(|| search(lo, mid, bad), || search(mid, hi, bad))?;
        Ok(a + b)
    }
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            assert_eq!(p.run(|| search(0, 512, 1000)), Ok((0..512).sum()));
            for bad in [0, 1, 255, 256, 511] {
                assert_eq!(p.run(|| search(0, 512, bad)), Err(bad), "on {n} workers");
            }
        }
    })
}

#[test]
fn try_scope_returns_the_body_value_when_everything_succeeds() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let sum = AtomicUsize::new(0);
            let r: Result<&str, String> = p.run(|| {
                offshoot::try_scope(|s| {
                    for i in 0..100 {
                        let sum = &sum;
                        s.spawn(move |s| {
                            s.spawn(move |_| {
                                sum.fetch_add(i, Ordering::SeqCst);
                                Ok(())
                            });
                            Ok(())
                        });
                    }
                    Ok("done")
                })
            });
            assert_eq!(r, Ok("done"));
            assert_eq!(sum.load(Ordering::SeqCst), (0..100).sum());
        }
    })
}

#[test]
fn try_scope_task_err_wins_stops_siblings_and_never_starts_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for rep in 0..5u32 {
                let t = Tally::new();
                let r: Result<(), u32> = p.run(|| {
                    offshoot::try_scope(|s| {
                        for _ in 0..10 {
                            let g = t.guard();
                            let t = &t;
                            s.spawn(move |_| {
                                let _g = g;
                                long_task(t);
                                Ok(())
                            });
                        }
                        let g = t.guard();
                        let t = &t;
                        s.spawn(move |_| {
                            let _g = g;
                            if n > 1 && !poll_until(|| t.started() >= 1) {
                                return Err(u32::MAX); // never stolen: reported below
                            }
                            Err(rep)
                        });
                        Ok(())
                    })
                });
                assert_eq!(r, Err(rep), "on {n} workers");
                assert_eq!(t.finished(), 0, "a sibling was not stopped");
                assert_eq!(t.dropped(), t.made());
                assert!(t.started() < 10);
                if n == 1 {
                    assert_eq!(t.started(), 0, "a sibling started after the failure");
                }
            }
        }
    })
}

#[test]
fn try_scope_body_err_stops_running_tasks() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            let t = Tally::new();
            let r: Result<(), String> = p.run(|| {
                offshoot::try_scope(|s| {
                    s.spawn(|_| {
                        long_task(&t);
                        Ok(())
                    });
                    assert!(poll_until(|| t.started() == 1), "the task was never stolen");
                    Err("body failed".to_string())
                })
            });
            assert_eq!(r, Err("body failed".to_string()));
            assert_eq!(t.finished(), 0, "the task was not stopped");
        }
    })
}

#[test]
fn try_scope_first_err_wins() {
    bounded(|| {
        for n in [2, 3] {
            let p = pool(n);
            let started = AtomicBool::new(false);
            let body_stopped = AtomicBool::new(false);
            let r: Result<(), &str> = p.run(|| {
                offshoot::try_scope(|s| {
                    s.spawn(|_| {
                        started.store(true, Ordering::SeqCst);
                        Err("task first")
                    });
                    let stopped = catch_unwind(AssertUnwindSafe(|| {
                        poll_until(|| started.load(Ordering::SeqCst)) && poll_until_stopped(LONG)
                    }))
                    .is_err();
                    body_stopped.store(stopped, Ordering::SeqCst);
                    Err("body late")
                })
            });
            assert!(
                body_stopped.load(Ordering::SeqCst),
                "the body was not stopped"
            );
            assert_eq!(r, Err("task first"));
        }
    })
}

#[test]
fn panic_in_try_scope_resumes_as_a_panic() {
    bounded(|| {
        let p = pool(2);
        let msg = panic_message(|| {
            p.run(|| {
                offshoot::try_scope(|s| {
                    s.spawn(|_| -> Result<(), u32> { boom("try_scope task") });
                    Ok::<(), u32>(())
                })
            })
        });
        assert_eq!(msg, boom_msg("try_scope task"));
    })
}

/// Spawns `k` fallible tasks from a callee into the innermost `try_finish`; task `bad`
/// fails.
fn spawn_checks(k: u32, bad: u32, count: &Arc<AtomicUsize>) {
    for i in 0..k {
        let count = count.clone();
        offshoot::finish::try_spawn(move || {
            count.fetch_add(1, Ordering::SeqCst);
            if i == bad {
                Err(format!("task {i} failed"))
            } else {
                Ok(())
            }
        });
    }
}

#[test]
fn try_finish_returns_ok_and_joins_every_try_spawn() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let count = Arc::new(AtomicUsize::new(0));
            let c = count.clone();
            let r: Result<u32, String> = p.run(move || {
                offshoot::try_finish(move || {
                    spawn_checks(50, u32::MAX, &c);
                    Ok(7)
                })
            });
            assert_eq!(r, Ok(7));
            assert_eq!(count.load(Ordering::SeqCst), 50);
        }
    })
}

#[test]
fn try_finish_returns_the_err_of_a_task_spawned_in_a_callee() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let count = Arc::new(AtomicUsize::new(0));
            let c = count.clone();
            let r: Result<(), String> = p.run(move || {
                offshoot::try_finish(move || {
                    spawn_checks(20, 13, &c);
                    Ok(())
                })
            });
            assert_eq!(r, Err("task 13 failed".to_string()), "on {n} workers");
        }
    })
}

#[test]
fn try_finish_err_stops_siblings() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            for rep in 0..5u32 {
                let t = Tally::new();
                let t2 = t.clone();
                let r: Result<(), u32> = p.run(move || {
                    offshoot::try_finish(move || {
                        for _ in 0..10 {
                            let (g, t) = (t2.guard(), t2.clone());
                            offshoot::finish::try_spawn(move || {
                                let _g = g;
                                long_task(&t);
                                Ok::<(), u32>(())
                            });
                        }
                        let g = t2.guard();
                        offshoot::finish::try_spawn(move || {
                            let _g = g;
                            if !poll_until(|| t2.started() >= 1) {
                                return Err(u32::MAX); // never stolen
                            }
                            Err(rep)
                        });
                        Ok(())
                    })
                });
                assert_eq!(r, Err(rep));
                assert_eq!(t.finished(), 0, "a sibling was not stopped");
                assert_eq!(t.dropped(), t.made());
                assert!(t.started() < 10);
            }
        }
    })
}

#[test]
fn try_finish_body_err_is_returned_and_pending_tasks_never_start_on_one_worker() {
    bounded(|| {
        let p = pool(1);
        let t = Tally::new();
        let t2 = t.clone();
        let r: Result<(), &str> = p.run(move || {
            offshoot::try_finish(move || {
                for _ in 0..10 {
                    let (g, t) = (t2.guard(), t2.clone());
                    offshoot::finish::try_spawn(move || {
                        let _g = g;
                        t.start();
                        Ok::<(), &str>(())
                    });
                }
                Err("body failed")
            })
        });
        assert_eq!(r, Err("body failed"));
        assert_eq!(t.started(), 0, "a task started after the failure");
        assert_eq!(t.dropped(), 10);
    })
}

#[test]
fn try_spawn_err_under_a_plain_finish_panics_with_a_message() {
    bounded(|| {
        let p = pool(2);
        let msg = panic_message(|| {
            p.run(|| {
                offshoot::finish(|| offshoot::finish::try_spawn(|| Err::<(), _>("lost")));
            })
        });
        assert!(msg.contains("try_finish"), "unhelpful message: {msg}");
    })
}

#[test]
fn try_spawn_err_of_another_type_panics_with_a_message() {
    bounded(|| {
        let p = pool(2);
        let msg = panic_message(|| {
            p.run(|| {
                let _: Result<(), String> = offshoot::try_finish(|| {
                    offshoot::finish::try_spawn(|| Err::<(), u8>(1));
                    Ok(())
                });
            })
        });
        assert!(
            msg.contains("error of another type"),
            "unhelpful message: {msg}"
        );
    })
}

#[test]
fn try_constructs_nest_and_propagate_errors() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let r: Result<u32, String> = p.run(|| {
                offshoot::try_scope(|s| {
                    s.spawn(|_| {
                        let (a, b) = offshoot::try_join(
                            || offshoot::try_finish(|| Ok::<u32, String>(1)),
                            || {
                                offshoot::try_finish(|| {
                                    offshoot::finish::try_spawn(|| {
                                        Err::<(), String>("deep".into())
                                    });
                                    Ok(2)
                                })
                            },
                        )?;
                        assert_eq!((a, b), (1, 2), "unreachable: b failed");
                        Ok(())
                    });
                    Ok(5)
                })
            });
            assert_eq!(r, Err("deep".to_string()), "on {n} workers");
        }
    })
}
