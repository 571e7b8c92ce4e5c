//! Destructors and failures. When a task fails, its unstarted siblings are dropped unrun
//! and its running siblings are unwound: their destructors run, and a destructor is user
//! code that may itself panic, or use the runtime (`join`, `scope`, `finish`, `poll`) —
//! for instance to free a big structure in parallel. None of this may crash or abort the
//! process, the first failure still wins, and the pool keeps working.
//!
//! A crash (abort, segfault) would take the whole test binary down, so each test here runs
//! its body in a child process: this binary, re-run with only that test selected.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{
    boom, boom_msg, bounded, panic_message, poll_until, poll_until_stopped, pool, run_child,
    CHILD_ENV, LIMIT, LONG,
};

/// Runs `body` (bounded in time) in a child process running only the test `name`, and
/// fails if the child fails, crashes or hangs. In the child, runs `body` directly.
fn in_child_process(name: &str, body: fn()) {
    if std::env::var(CHILD_ENV).ok().as_deref() == Some(name) {
        bounded(body);
        return;
    }
    let (status, stderr) = run_child(name, name, LIMIT + Duration::from_secs(10), |_| {});
    let tail: String = {
        let lines: Vec<&str> = stderr.lines().collect();
        lines[lines.len().saturating_sub(25)..].join("\n")
    };
    match status {
        None => panic!("the child process hung; its stderr ends with:\n{tail}"),
        Some(s) if !s.success() => {
            panic!("the child process failed ({s}); its stderr ends with:\n{tail}")
        }
        Some(_) => {}
    }
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Panics when dropped, unless the thread is already panicking.
struct PanicOnDrop(&'static str);

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            boom(self.0)
        }
    }
}

#[test]
fn destructor_of_a_discarded_scope_task_may_panic() {
    in_child_process("destructor_of_a_discarded_scope_task_may_panic", || {
        let p = pool(1);
        for _ in 0..3 {
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::scope(|s| {
                        let d = PanicOnDrop("drop of a discarded scope task");
                        s.spawn(move |_| drop(d));
                        // Spawned last, run first: fails, so the task above is dropped unrun.
                        s.spawn(|_| boom("scope task fails first"));
                    })
                })
            });
            assert_eq!(
                msg,
                boom_msg("scope task fails first"),
                "the first panic did not win"
            );
            assert_eq!(p.run(|| fib(15)), 610);
        }
    })
}

#[test]
fn destructor_of_a_discarded_finish_task_may_panic() {
    in_child_process("destructor_of_a_discarded_finish_task_may_panic", || {
        let p = pool(1);
        for _ in 0..3 {
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::finish(|| {
                        let d = PanicOnDrop("drop of a discarded spawned task");
                        offshoot::finish::spawn(move || drop(d));
                        offshoot::finish::spawn(|| boom("spawned task fails first"));
                    })
                })
            });
            assert_eq!(
                msg,
                boom_msg("spawned task fails first"),
                "the first panic did not win"
            );
            assert_eq!(p.run(|| fib(15)), 610);
        }
    })
}

#[test]
fn destructor_of_an_unrun_join_half_may_panic() {
    in_child_process("destructor_of_an_unrun_join_half_may_panic", || {
        let p = pool(1);
        let msg = panic_message(|| {
            p.run(|| {
                let d = PanicOnDrop("drop of the unrun b");
                offshoot::join(|| boom("a fails first"), move || drop(d))
            })
        });
        assert_eq!(
            msg,
            boom_msg("a fails first"),
            "the first panic did not win"
        );
        assert_eq!(p.run(|| fib(15)), 610);
    })
}

/// Uses the runtime in its destructor, as a value that frees itself in parallel would.
struct ParallelDrop {
    dropped: Arc<AtomicUsize>,
}

impl Drop for ParallelDrop {
    fn drop(&mut self) {
        offshoot::poll();
        let (a, b) = offshoot::join(|| fib(8), || fib(9));
        let c = AtomicUsize::new(0);
        offshoot::scope(|s| {
            for _ in 0..4 {
                s.spawn(|_| {
                    c.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        let d = self.dropped.clone();
        offshoot::finish(move || offshoot::finish::spawn(move || drop(d)));
        assert_eq!((a, b, c.load(Ordering::SeqCst)), (21, 34, 4));
        self.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn destructor_may_use_the_runtime_while_its_task_is_stopped() {
    in_child_process(
        "destructor_may_use_the_runtime_while_its_task_is_stopped",
        || {
            for n in [2, 3] {
                let p = pool(n);
                for _ in 0..3 {
                    let dropped = Arc::new(AtomicUsize::new(0));
                    let started = AtomicBool::new(false);
                    let msg = panic_message(|| {
                        p.run(|| {
                            offshoot::scope(|s| {
                                s.spawn(|_| {
                                    let _v = ParallelDrop {
                                        dropped: dropped.clone(),
                                    };
                                    started.store(true, Ordering::SeqCst);
                                    poll_until_stopped(LONG);
                                });
                                assert!(
                                    poll_until(|| started.load(Ordering::SeqCst)),
                                    "never stolen"
                                );
                                boom("the body fails")
                            })
                        })
                    });
                    assert_eq!(msg, boom_msg("the body fails"));
                    assert_eq!(
                        dropped.load(Ordering::SeqCst),
                        1,
                        "the destructor did not complete"
                    );
                    assert_eq!(p.run(|| fib(15)), 610);
                }
            }
        },
    )
}

#[test]
fn destructor_may_use_the_runtime_while_a_stolen_join_half_is_stopped() {
    in_child_process(
        "destructor_may_use_the_runtime_while_a_stolen_join_half_is_stopped",
        || {
            let p = pool(2);
            for _ in 0..3 {
                let dropped = Arc::new(AtomicUsize::new(0));
                let started = AtomicBool::new(false);
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::join(
                            || {
                                assert!(
                                    poll_until(|| started.load(Ordering::SeqCst)),
                                    "never stolen"
                                );
                                boom("a fails")
                            },
                            || {
                                let _v = ParallelDrop {
                                    dropped: dropped.clone(),
                                };
                                started.store(true, Ordering::SeqCst);
                                poll_until_stopped(LONG);
                            },
                        )
                    })
                });
                assert_eq!(msg, boom_msg("a fails"));
                assert_eq!(
                    dropped.load(Ordering::SeqCst),
                    1,
                    "the destructor did not complete"
                );
                assert_eq!(p.run(|| fib(15)), 610);
            }
        },
    )
}

/// Waits on its event when dropped: a destructor that parks.
#[cfg(feature = "sync")]
struct WaitOnDrop {
    waiting: Arc<AtomicBool>,
    until: Arc<offshoot::sync::Event<()>>,
}

#[cfg(feature = "sync")]
impl Drop for WaitOnDrop {
    fn drop(&mut self) {
        self.waiting.store(true, Ordering::SeqCst);
        self.until.wait();
    }
}

/// std's "this thread is panicking" state is per thread. A destructor that waits while its
/// task unwinds must keep that state to itself: a task that its worker ran meanwhile would
/// see `std::thread::panicking()`, so the runtime would ignore its stops and give none of
/// its work away, and a mutex guard it drops would poison the mutex.
#[test]
#[cfg(feature = "sync")]
fn a_destructor_that_waits_while_unwinding_keeps_its_panicking_state_to_itself() {
    in_child_process(
        "a_destructor_that_waits_while_unwinding_keeps_its_panicking_state_to_itself",
        || {
            // Not 1 worker: that one worker is the destructor's, blocked until the other
            // thread's tasks have run, which they cannot (see `Waiter::prepare`).
            for n in [2, 3] {
                let p = Arc::new(pool(n));
                for round in 0..3 {
                    let waiting = Arc::new(AtomicBool::new(false));
                    let until = Arc::new(offshoot::sync::Event::new());
                    let saw_panicking = Arc::new(AtomicUsize::new(0));
                    let ran = Arc::new(AtomicUsize::new(0));
                    // Another thread keeps the pool busy with tasks while the destructor
                    // waits, then lets it go on.
                    let other = {
                        let (p, waiting, until) = (p.clone(), waiting.clone(), until.clone());
                        let (saw, ran) = (saw_panicking.clone(), ran.clone());
                        let outside = offshoot::sync::ExternalWaker::new();
                        std::thread::spawn(move || {
                            let _outside = outside;
                            assert!(
                                poll_until(|| waiting.load(Ordering::SeqCst)),
                                "the destructor never started waiting"
                            );
                            p.run(|| {
                                offshoot::finish(|| {
                                    for _ in 0..64 {
                                        let (saw, ran) = (saw.clone(), ran.clone());
                                        offshoot::finish::spawn(move || {
                                            if std::thread::panicking() {
                                                saw.fetch_add(1, Ordering::SeqCst);
                                            }
                                            ran.fetch_add(1, Ordering::SeqCst);
                                        });
                                    }
                                })
                            });
                            until.set(()).expect("set once");
                        })
                    };
                    let what =
                        format!("unwinding past a waiting destructor, {n} workers, round {round}");
                    let msg = panic_message(|| {
                        p.run(|| {
                            let _g = WaitOnDrop {
                                waiting: waiting.clone(),
                                until: until.clone(),
                            };
                            boom(&what)
                        })
                    });
                    other.join().expect("the other thread failed");
                    assert_eq!(msg, boom_msg(&what));
                    assert_eq!(ran.load(Ordering::SeqCst), 64);
                    assert_eq!(
                        saw_panicking.load(Ordering::SeqCst),
                        0,
                        "tasks run while a destructor waited in an unwinding task saw the \
                         thread panicking"
                    );
                    assert_eq!(p.run(|| fib(15)), 610);
                }
            }
        },
    )
}
