//! Stopping siblings after a failure. When a task of a `scope` / `finish` / `join` panics,
//! its running siblings are stopped at their next poll point (they loop on
//! `offshoot::poll()` until a flag that is never set, with a huge bound, so "completed"
//! would mean "ran into the bound": none may), their destructors run (every closure given
//! to the runtime is dropped exactly once), tasks not yet started never start, and a
//! stopped task cannot swallow the stop: catching the unwind and polling again, or starting
//! new parallel work, stops it again.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{
    boom, boom_msg, bounded, long_task, panic_message, poll_until, poll_until_stopped, pool, Tally,
    LONG, POOL_SIZES,
};

const SIBLINGS: usize = 12;

#[test]
fn scope_stops_running_siblings_and_never_starts_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for rep in 0..5 {
                let t = Tally::new();
                let what = format!("scope stop, {n} workers, rep {rep}");
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::scope(|s| {
                            for _ in 0..SIBLINGS {
                                let g = t.guard();
                                let t = &t;
                                s.spawn(move |_| {
                                    let _g = g;
                                    long_task(t)
                                });
                            }
                            let g = t.guard();
                            let (t, what) = (&t, &what);
                            // Spawned last: the owner runs it first; thieves take the oldest
                            // siblings. It fails once a sibling runs in parallel.
                            s.spawn(move |_| {
                                let _g = g;
                                if n > 1 {
                                    assert!(
                                        poll_until(|| t.started() >= 1),
                                        "no sibling was ever stolen"
                                    );
                                }
                                boom(what)
                            });
                        })
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(
                    t.finished(),
                    0,
                    "a sibling ran into its bound: it was not stopped"
                );
                assert_eq!(
                    t.dropped(),
                    t.made(),
                    "a closure was leaked or dropped twice"
                );
                assert!(
                    t.started() < SIBLINGS,
                    "every sibling started: none was cancelled before starting"
                );
                if n == 1 {
                    assert_eq!(
                        t.started(),
                        0,
                        "a sibling started after the failure on 1 worker"
                    );
                } else {
                    assert!(t.started() >= 1);
                }
            }
        }
    })
}

#[test]
fn finish_stops_running_siblings_and_never_starts_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for rep in 0..5 {
                let t = Tally::new();
                let what = Arc::new(format!("finish stop, {n} workers, rep {rep}"));
                let (t2, w2) = (t.clone(), what.clone());
                let msg = panic_message(|| {
                    p.run(move || {
                        offshoot::finish(move || {
                            for _ in 0..SIBLINGS {
                                let g = t2.guard();
                                let t = t2.clone();
                                offshoot::spawn(move || {
                                    let _g = g;
                                    long_task(&t)
                                });
                            }
                            let g = t2.guard();
                            offshoot::spawn(move || {
                                let _g = g;
                                if n > 1 {
                                    assert!(
                                        poll_until(|| t2.started() >= 1),
                                        "no sibling was ever stolen"
                                    );
                                }
                                boom(&w2)
                            });
                        })
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(
                    t.finished(),
                    0,
                    "a sibling ran into its bound: it was not stopped"
                );
                assert_eq!(
                    t.dropped(),
                    t.made(),
                    "a closure was leaked or dropped twice"
                );
                assert!(t.started() < SIBLINGS);
                if n == 1 {
                    assert_eq!(
                        t.started(),
                        0,
                        "a sibling started after the failure on 1 worker"
                    );
                }
            }
        }
    })
}

#[test]
fn join_stops_the_other_side_and_drops_its_captures() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            for rep in 0..5 {
                let t = Tally::new();
                let what = format!("join stop, {n} workers, rep {rep}");
                let msg = panic_message(|| {
                    p.run(|| {
                        let (ga, gb) = (t.guard(), t.guard());
                        offshoot::join(
                            || {
                                let _g = ga;
                                long_task(&t)
                            },
                            || {
                                // Runs only if stolen: `a` never ends on its own.
                                let _g = gb;
                                boom(&what)
                            },
                        )
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(t.started(), 1);
                assert_eq!(t.finished(), 0, "a was not stopped");
                assert_eq!((t.made(), t.dropped()), (2, 2));
            }
        }
    })
}

#[test]
fn siblings_at_every_level_of_nested_scopes_are_stopped() {
    bounded(|| {
        for n in [3, 4] {
            let p = pool(n);
            for rep in 0..3 {
                let t = Tally::new();
                let what = format!("nested stop, {n} workers, rep {rep}");
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::scope(|s| {
                            // An outer sibling. Long tasks occupy their worker until stopped,
                            // so the pool needs a worker for each of them (this one and the
                            // join's `a`) plus one for the path to the failing task.
                            let g = t.guard();
                            s.spawn(|_| {
                                let _g = g;
                                long_task(&t)
                            });
                            s.spawn(|_| {
                                offshoot::join(
                                    || {
                                        let g = t.guard();
                                        let _g = g;
                                        long_task(&t)
                                    },
                                    || {
                                        offshoot::scope(|s2| {
                                            for _ in 0..3 {
                                                let g = t.guard();
                                                s2.spawn(|_| {
                                                    let _g = g;
                                                    long_task(&t)
                                                });
                                            }
                                            let g = t.guard();
                                            s2.spawn(|_| {
                                                let _g = g;
                                                assert!(
                                                    poll_until(|| t.started() >= 2),
                                                    "siblings never started"
                                                );
                                                boom(&what)
                                            });
                                        })
                                    },
                                );
                            });
                        })
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(
                    t.finished(),
                    0,
                    "a sibling ran into its bound: it was not stopped"
                );
                assert_eq!(t.dropped(), t.made());
            }
        }
    })
}

#[test]
fn a_stopped_task_cannot_swallow_the_stop() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            for rep in 0..5 {
                let caught = AtomicUsize::new(0);
                let stopped_again = AtomicUsize::new(0);
                let escaped = AtomicUsize::new(0);
                let started = AtomicBool::new(false);
                let what = format!("swallow, {n} workers, rep {rep}");
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::scope(|s| {
                            s.spawn(|_| {
                                started.store(true, Ordering::SeqCst);
                                // Swallow the first stop...
                                if catch_unwind(AssertUnwindSafe(|| poll_until_stopped(LONG)))
                                    .is_err()
                                {
                                    caught.fetch_add(1, Ordering::SeqCst);
                                }
                                // ...and keep polling: the next poll must stop it again.
                                let again =
                                    catch_unwind(AssertUnwindSafe(|| poll_until_stopped(LONG)));
                                if again.is_err() {
                                    stopped_again.fetch_add(1, Ordering::SeqCst);
                                }
                                // Even swallowing twice does not help: new parallel work in a
                                // stopped task is stopped too.
                                let r = catch_unwind(AssertUnwindSafe(|| {
                                    offshoot::join(
                                        || poll_until_stopped(LONG),
                                        || poll_until_stopped(LONG),
                                    )
                                }));
                                if r.is_ok() {
                                    escaped.fetch_add(1, Ordering::SeqCst);
                                }
                                let r = catch_unwind(AssertUnwindSafe(|| {
                                    offshoot::scope(|s2| {
                                        s2.spawn(|_| assert!(!poll_until_stopped(LONG)))
                                    })
                                }));
                                if r.is_ok() {
                                    escaped.fetch_add(1, Ordering::SeqCst);
                                }
                                // Return normally: the scope still fails with the winner.
                            });
                            assert!(
                                poll_until(|| started.load(Ordering::SeqCst)),
                                "the task was never stolen"
                            );
                            boom(&what)
                        })
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(caught.load(Ordering::SeqCst), 1, "the task was not stopped");
                assert_eq!(
                    stopped_again.load(Ordering::SeqCst),
                    1,
                    "the task swallowed the stop"
                );
                assert_eq!(
                    escaped.load(Ordering::SeqCst),
                    0,
                    "parallel work escaped the stop"
                );
            }
        }
    })
}

#[test]
fn a_stolen_join_half_cannot_swallow_the_stop() {
    bounded(|| {
        for n in [2, 3] {
            let p = pool(n);
            for rep in 0..5 {
                let b_started = AtomicBool::new(false);
                let stops = AtomicUsize::new(0);
                let what = format!("swallow in join, {n} workers, rep {rep}");
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::join(
                            || {
                                assert!(
                                    poll_until(|| b_started.load(Ordering::SeqCst)),
                                    "b was never stolen"
                                );
                                boom(&what)
                            },
                            || {
                                b_started.store(true, Ordering::SeqCst);
                                for _ in 0..3 {
                                    if catch_unwind(AssertUnwindSafe(|| poll_until_stopped(LONG)))
                                        .is_err()
                                    {
                                        stops.fetch_add(1, Ordering::SeqCst);
                                    }
                                }
                            },
                        )
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(stops.load(Ordering::SeqCst), 3, "b swallowed the stop");
            }
        }
    })
}

/// After a task has failed, the worker that ran it goes back to its idle loop and asks the
/// scope's owner for work; the owner keeps running sequential code for a while and then
/// polls. A sibling handed out at that poll must not start (or, if it starts, must be
/// stopped), and the owner must be stopped.
#[test]
fn no_sibling_starts_unstopped_after_the_failure() {
    bounded(|| {
        for n in [2, 3] {
            let p = pool(n);
            for rep in 0..30 {
                let t = Tally::new();
                let failing = AtomicBool::new(false);
                let what = format!("late hand-out, {n} workers, rep {rep}");
                // Whether the body ran into the bound of its last poll loop (not stopped).
                let owner_not_stopped = AtomicBool::new(false);
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::scope(|s| {
                            s.spawn(|_| {
                                failing.store(true, Ordering::SeqCst);
                                boom(&what)
                            });
                            // The stop may come at any poll from here on.
                            let r = catch_unwind(AssertUnwindSafe(|| {
                                if !poll_until(|| failing.load(Ordering::SeqCst)) {
                                    return false; // never stolen: nothing to test this time
                                }
                                for _ in 0..SIBLINGS {
                                    let g = t.guard();
                                    let t = &t;
                                    s.spawn(move |_| {
                                        let _g = g;
                                        long_task(t)
                                    });
                                }
                                // Sequential code without poll points: the failure is
                                // recorded and the thief goes back to asking for work.
                                std::thread::sleep(std::time::Duration::from_micros(300));
                                poll_until_stopped(LONG)
                            }));
                            owner_not_stopped.store(matches!(r, Ok(true)), Ordering::SeqCst);
                        })
                    })
                });
                assert_eq!(msg, boom_msg(&what));
                assert_eq!(
                    t.finished(),
                    0,
                    "a sibling ran into its bound: it was not stopped"
                );
                assert_eq!(t.dropped(), t.made());
                assert!(
                    !owner_not_stopped.load(Ordering::SeqCst),
                    "the scope body was not stopped"
                );
            }
        }
    })
}
