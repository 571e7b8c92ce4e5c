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
                                offshoot::finish::spawn(move || {
                                    let _g = g;
                                    long_task(&t)
                                });
                            }
                            let g = t2.guard();
                            offshoot::finish::spawn(move || {
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
                                // Runs only if stolen: `a` never ends on its own. It fails
                                // only once `a` runs: the join polls between planting this
                                // side and calling `a`, so a failure before that point may
                                // rightly cancel `a` before it starts (a preempted victim
                                // made CI see `started() == 0`).
                                let _g = gb;
                                assert!(poll_until(|| t.started() >= 1), "`a` never started");
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

/// What a stopped sibling waits on in [`a_stop_ends_every_kind_of_wait`].
#[cfg(feature = "sync")]
const WAIT_KINDS: usize = 8;

/// A failing task stops siblings that wait on things nobody will ever deliver — a promise
/// never put, a channel whose sender lives on but never sends, a mutex held outside the
/// pool, a condition never notified, a monitor never notified, a semaphore without permits,
/// a write lock behind a reader outside the pool, a barrier that never fills — and the
/// finish body waiting too: the waits end, the stopped tasks unwind (releasing what they
/// hold), and the finish ends with the original panic, not a hang and not a deadlock report.
#[test]
#[cfg(feature = "sync")]
fn a_stop_ends_every_kind_of_wait() {
    use offshoot::sync::{
        self, Barrier, Condvar, Event, Monitor, Mutex, Promise, RwLock, Semaphore,
    };

    struct Waits {
        never: Promise<u32>,
        rx: sync::Receiver<u32>,
        held: Mutex<u32>,
        cv: Condvar,
        monitor: Monitor<()>,
        sem: Semaphore,
        rw: RwLock<u32>,
        bar: Barrier,
        /// One per waiter, locked while it waits: unlocked again once it has unwound.
        own: Vec<Mutex<()>>,
        waiting: AtomicUsize,
        all_waiting: Event<()>,
    }
    const WAITERS: usize = 2 * WAIT_KINDS;

    fn wait(w: &Waits, k: usize) {
        let _own = w.own[k].lock();
        let last = w.waiting.fetch_add(1, Ordering::SeqCst) + 1 == WAITERS;
        if last {
            w.all_waiting.set(()).unwrap();
        }
        match k % WAIT_KINDS {
            0 => {
                let _ = w.never.get();
            }
            1 => drop(w.rx.recv()),
            2 => drop(w.held.lock()),
            3 => {
                let m = Mutex::new(());
                let g = m.lock();
                drop(w.cv.wait(g));
            }
            4 => w.monitor.enter().wait(),
            5 => drop(w.sem.acquire()),
            6 => drop(w.rw.write()),
            _ => drop(w.bar.wait()),
        }
    }

    bounded(|| {
        for n in [1, 2] {
            // Without the deadlock watch: the stop alone must end the waits (the watch
            // would end them too, with a later failure that the finish would drop).
            let p = offshoot::ThreadPool::builder()
                .workers(n)
                .deadlock_detection(false)
                .build()
                .unwrap();
            for rep in 0..5 {
                let (tx, rx) = sync::unbounded();
                let w = Arc::new(Waits {
                    never: Promise::new(),
                    rx,
                    held: Mutex::new(0),
                    cv: Condvar::new(),
                    monitor: Monitor::new(()),
                    sem: Semaphore::new(0),
                    rw: RwLock::new(0),
                    bar: Barrier::new(WAITERS + 1),
                    own: (0..WAITERS).map(|_| Mutex::new(())).collect(),
                    waiting: AtomicUsize::new(0),
                    all_waiting: Event::new(),
                });
                // Held by this thread (outside the pool), which waits in `run` meanwhile.
                let held = w.held.lock();
                let read = w.rw.read();
                let t = Tally::new();
                let what = Arc::new(format!("stop ends waits, {n} workers, rep {rep}"));
                let (w2, t2, what2) = (w.clone(), t.clone(), what.clone());
                let msg = panic_message(|| {
                    p.run(move || {
                        offshoot::finish(move || {
                            // Spawned first: the drain runs it last, once the waiters wait.
                            let (w3, g) = (w2.clone(), t2.guard());
                            offshoot::finish::spawn(move || {
                                let _g = g;
                                w3.all_waiting.wait();
                                boom(&what2)
                            });
                            for k in 0..WAITERS {
                                let (w3, t3, g) = (w2.clone(), t2.clone(), t2.guard());
                                offshoot::finish::spawn(move || {
                                    let _g = g;
                                    t3.start();
                                    wait(&w3, k);
                                    t3.finish();
                                });
                            }
                            // The body waits too.
                            let _ = w2.never.get();
                            t2.finish();
                        })
                    })
                });
                assert_eq!(msg, boom_msg(&what), "{n} workers, rep {rep}");
                assert_eq!(t.started(), WAITERS, "{n} workers, rep {rep}");
                assert_eq!(t.finished(), 0, "a wait ended without being stopped");
                assert_eq!(
                    t.dropped(),
                    t.made(),
                    "a closure was leaked or dropped twice"
                );
                for m in &w.own {
                    assert!(m.try_lock().is_some(), "a stopped task kept its lock");
                }
                drop((held, read, tx));
                // Every waiter was taken off its construct, which works as before (a reader
                // would wait forever behind a stopped writer still counted as waiting; the
                // deadlock watch would report it).
                p.run(|| {
                    drop(w.held.lock());
                    drop(w.rw.read());
                    drop(w.rw.write());
                    drop(w.monitor.enter());
                    w.sem.add_permits(1);
                    drop(w.sem.acquire());
                });
            }
        }
    })
}

/// Tasks stopped while contending for a mutex (some just woken by an unlock, some parked)
/// must pass every wake on: a task outside the failing region that contends for the same
/// mutex gets it every time, and the mutex is free at the end. (On one worker nothing
/// contends: a wake cannot race with a stop there.)
#[test]
#[cfg(feature = "sync")]
fn tasks_stopped_while_contending_for_a_mutex_lose_no_wake() {
    use offshoot::sync::{Event, Mutex};
    bounded(|| {
        for n in [2, 3] {
            let p = pool(n);
            for rep in 0..10 {
                let m = Mutex::new(0u64);
                let busy = Event::new();
                let what = format!("contended stop, {n} workers, rep {rep}");
                let (failed, got) = p.run(|| {
                    offshoot::join(
                        || {
                            catch_unwind(AssertUnwindSafe(|| {
                                offshoot::scope(|s| {
                                    for _ in 0..12 {
                                        s.spawn(|_| {
                                            for _ in 0..20_000 {
                                                let mut g = m.lock();
                                                *g += 1;
                                                if *g == 100 {
                                                    busy.set(()).unwrap();
                                                }
                                                offshoot::poll();
                                            }
                                        });
                                    }
                                    s.spawn(|_| {
                                        busy.wait();
                                        boom(&what)
                                    });
                                })
                            }))
                        },
                        || {
                            for _ in 0..200 {
                                drop(m.lock());
                            }
                            200
                        },
                    )
                });
                let msg = common::payload_str(&*failed.unwrap_err()).map(str::to_string);
                assert_eq!(msg, Some(boom_msg(&what)));
                assert_eq!(got, 200);
                assert!(m.try_lock().is_some(), "the mutex stayed locked");
            }
        }
    })
}

/// The flags of [`run_task_above_a_cancelled_join`], in the order they are set.
#[derive(Default)]
struct AboveJoin {
    /// The nested join's seed `j3` is planted (by its owner, the worker running `J2.b`).
    j3_planted: AtomicBool,
    /// `j3.b` runs (on the worker running `J.b`, which took it back while waiting at `J2`).
    j3b_started: AtomicBool,
    /// The task `t` runs; `t_above` says it runs on the stack of `J.b`, above `J`'s frames.
    t_running: AtomicBool,
    t_above: AtomicBool,
    /// `J`'s owner has cancelled `J.b` and, waiting at `J`, took back the seed `t` planted.
    cancel_seen: AtomicBool,
    /// `t` ran to its end.
    t_done: AtomicBool,
}

/// The address of a local of the caller's frame, to tell which stack code runs on.
#[inline(never)]
fn stack_addr() -> usize {
    let x = 0u8;
    std::hint::black_box(&x) as *const u8 as usize
}

/// Builds, on 3 workers, a task of the root finish that runs *above* the frames of a stolen
/// join half `J.b` on the thief's stack, then cancels `J` (its `a` side fails) while the
/// task runs, and returns the run's outcome and whether the placement happened.
///
/// * the root plants `J`; a worker X steals `J.b`, which plants `J2`; a worker Y steals
///   `J2.b`, which plants `j3`;
/// * X, waiting at `J2`, takes `j3.b` back from Y; `j3.b` spawns `t` into the root finish
///   (onto X's frame of it for `j3`), and X runs `t` when that frame ends — still inside
///   `J.b`, above `J`'s marker;
/// * `J.a` fails once `t` runs (`fail_with_err`: by returning `Err` from a `try_join`, which
///   the caller ignores; else by panicking), which cancels `J.b`; `t` plants a seed that
///   only `J`'s owner, waiting at `J` after the cancel, can take: `t` polls until it has.
///
/// `t` belongs to the root finish, not to `J.b`: the cancel of `J` must not stop it (its
/// stop used to be recorded as the root finish's first failure, so the run ended in "a stop
/// escaped to ThreadPool::run" and the real panic was lost).
fn run_task_above_a_cancelled_join(
    fail_with_err: bool,
    what: &str,
) -> (std::thread::Result<()>, Arc<AboveJoin>) {
    let p = pool(3);
    let f = Arc::new(AboveJoin::default());
    let f2 = f.clone();
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.run(|| {
            let f = &f2;
            let a = || -> Result<(), ()> {
                assert!(
                    poll_until(|| f.t_running.load(Ordering::SeqCst)),
                    "the task above J.b never ran"
                );
                if fail_with_err {
                    return Err(());
                }
                boom(what)
            };
            let b = || -> Result<(), ()> {
                let jb_stack = stack_addr();
                offshoot::join(
                    || {
                        assert!(
                            poll_until(|| f.j3_planted.load(Ordering::SeqCst)),
                            "J2.b was never stolen"
                        );
                    },
                    || {
                        offshoot::join(
                            || {
                                f.j3_planted.store(true, Ordering::SeqCst);
                                assert!(
                                    poll_until(|| f.j3b_started.load(Ordering::SeqCst)),
                                    "j3.b was never taken back"
                                );
                            },
                            || {
                                f.j3b_started.store(true, Ordering::SeqCst);
                                let f = f.clone();
                                offshoot::finish::spawn(move || {
                                    // Within 1 MiB below `J.b`'s frame: the same stack (fiber
                                    // stacks are separate mappings of 2 MiB or more).
                                    let here = stack_addr();
                                    f.t_above.store(
                                        here < jb_stack && jb_stack - here < 1 << 20,
                                        Ordering::SeqCst,
                                    );
                                    f.t_running.store(true, Ordering::SeqCst);
                                    offshoot::join(
                                        || {
                                            assert!(
                                                poll_until(|| f.cancel_seen.load(Ordering::SeqCst)),
                                                "J's owner never took work back"
                                            );
                                        },
                                        || f.cancel_seen.store(true, Ordering::SeqCst),
                                    );
                                    f.t_done.store(true, Ordering::SeqCst);
                                });
                            },
                        );
                        // Keep J2.b's worker from stealing the seed `t` plants.
                        poll_until(|| f.t_done.load(Ordering::SeqCst));
                    },
                );
                Ok(())
            };
            let r = offshoot::try_join(a, b);
            assert!(!fail_with_err || r.is_err(), "J.a's error was lost");
        })
    }));
    (r, f)
}

#[test]
fn a_task_run_above_a_cancelled_join_half_is_not_stopped_by_it() {
    bounded(|| {
        let mut placed = 0;
        for rep in 0..8 {
            for fail_with_err in [false, true] {
                let what = format!("task above a cancelled join, rep {rep}");
                let (r, f) = run_task_above_a_cancelled_join(fail_with_err, &what);
                let msg = r.err().map(|p| {
                    common::payload_str(&*p)
                        .unwrap_or("a non-string panic")
                        .to_string()
                });
                if fail_with_err {
                    assert_eq!(msg, None, "the run failed though only J.a's Err failed");
                } else {
                    assert_eq!(msg, Some(boom_msg(&what)), "the panic was replaced");
                }
                assert!(
                    f.t_done.load(Ordering::SeqCst),
                    "the task was stopped by the cancel of a join it does not belong to"
                );
                placed += usize::from(f.t_above.load(Ordering::SeqCst));
            }
        }
        eprintln!("the task ran above the join half in {placed} of 16 runs");
        // Without that placement the test would check nothing.
        assert!(placed > 0, "the task never ran above the join half");
    })
}
