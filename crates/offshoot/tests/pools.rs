//! Thread pools: nested pools (running on pool B from a worker of pool A and back into A),
//! `run` called from inside a worker of the same pool (directly, from stolen join halves
//! and from spawned tasks) — none of which may deadlock; the builder's errors and their
//! messages; the builder's options; `current_worker_index`; dropping a pool from a worker
//! of another pool, and dropping one whose detached task never ends (the drop returns, the
//! queued work still runs); and the scheduler statistics (only invariants, never amounts that
//! depend on timing — except that a 1-worker pool can never hand out a task).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{bounded, pool, POOL_SIZES};
use offshoot::{BuildError, Stats, ThreadPool, MAX_WORKERS};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn run_on_another_pool_from_a_worker_and_back() {
    bounded(|| {
        for (na, nb) in [(2, 1), (2, 2), (3, 2)] {
            let a = pool(na);
            let b = pool(nb);
            for _ in 0..20 {
                let r = a.run(|| {
                    assert!(a.current_worker_index().is_some());
                    let inner = b.run(|| {
                        assert!(b.current_worker_index().is_some());
                        assert!(a.current_worker_index().is_none());
                        // Back into A, from a worker of B.
                        let back = a.run(|| {
                            assert!(a.current_worker_index().is_some());
                            fib(10)
                        });
                        back + fib(10)
                    });
                    inner + fib(10)
                });
                assert_eq!(r, 3 * 55, "pools of {na} and {nb} workers");
            }
        }
    })
}

/// With a 1-worker pool A, A's only worker waits inside `B.run` while B's worker calls
/// `A.run`: someone must run that job.
#[test]
fn run_back_into_a_one_worker_pool_from_another_pool() {
    bounded(|| {
        let a = pool(1);
        let b = pool(1);
        let r = a.run(|| b.run(|| a.run(|| fib(10))));
        assert_eq!(r, 55);
    })
}

/// Every worker of A waits in `B.run` (the two halves of a join, one stolen) while B's
/// workers call back into A.
#[test]
fn run_back_into_a_pool_whose_workers_all_wait_in_another_pool() {
    bounded(|| {
        let a = pool(2);
        let b = pool(2);
        for _ in 0..50 {
            let started = AtomicUsize::new(0);
            let r = a.run(|| {
                offshoot::join(
                    || {
                        started.fetch_add(1, Ordering::SeqCst);
                        common::poll_until(|| started.load(Ordering::SeqCst) == 2);
                        b.run(|| a.run(|| fib(8)))
                    },
                    || {
                        started.fetch_add(1, Ordering::SeqCst);
                        b.run(|| a.run(|| fib(9)))
                    },
                )
            });
            assert_eq!(r, (21, 34));
        }
    })
}

#[test]
fn parallel_work_in_both_pools_while_nested() {
    bounded(|| {
        let a = pool(2);
        let b = pool(3);
        for _ in 0..10 {
            let (x, y) = a.run(|| offshoot::join(|| b.run(|| fib(14)), || fib(14)));
            assert_eq!((x, y), (377, 377));
            let v = b.run(|| {
                let mut r = 0;
                offshoot::scope(|s| {
                    s.spawn(|_| r = a.run(|| fib(12)));
                    s.spawn(|_| {
                        fib(12);
                    });
                });
                r
            });
            assert_eq!(v, 144);
        }
    })
}

#[test]
fn run_from_inside_a_worker_of_the_same_pool_does_not_deadlock() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            // Directly.
            assert_eq!(p.run(|| p.run(|| p.run(|| fib(12)))), 144);
            // From both halves of joins (one of them possibly stolen).
            let (x, y) = p.run(|| offshoot::join(|| p.run(|| fib(12)), || p.run(|| fib(13))));
            assert_eq!((x, y), (144, 233));
            // From scope tasks and spawned tasks; `spawn` inside the inner run is joined by it.
            let count = Arc::new(AtomicUsize::new(0));
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..8 {
                        s.spawn(|_| {
                            let c = count.clone();
                            p.run(move || {
                                for _ in 0..4 {
                                    let c = c.clone();
                                    offshoot::finish::spawn(move || {
                                        c.fetch_add(1, Ordering::SeqCst);
                                    });
                                }
                            });
                        });
                    }
                })
            });
            assert_eq!(count.load(Ordering::SeqCst), 32, "on {n} workers");
        }
    })
}

#[test]
fn panic_in_inner_run_of_the_same_pool_resumes_in_the_outer_caller() {
    bounded(|| {
        let p = pool(2);
        let msg =
            common::panic_message(|| p.run(|| p.run(|| -> u32 { common::boom("inner run") })));
        assert_eq!(msg, common::boom_msg("inner run"));
        assert_eq!(p.run(|| fib(10)), 55);
    })
}

#[test]
fn many_threads_use_one_pool_concurrently() {
    bounded(|| {
        let p = pool(2);
        std::thread::scope(|ts| {
            for t in 0..4u64 {
                let p = &p;
                ts.spawn(move || {
                    for i in 0..20 {
                        assert_eq!(
                            p.run(|| fib(10 + (t + i) % 4)),
                            [55, 89, 144, 233][((t + i) % 4) as usize]
                        );
                    }
                });
            }
        });
    })
}

#[test]
fn builder_rejects_zero_and_too_many_workers_and_says_why() {
    bounded(|| {
        let e = ThreadPool::builder().workers(0).build().unwrap_err();
        assert!(matches!(e, BuildError::ZeroWorkers), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("at least one worker"),
            "unhelpful message: {msg}"
        );

        let e = ThreadPool::builder()
            .workers(MAX_WORKERS + 1)
            .build()
            .unwrap_err();
        assert!(
            matches!(e, BuildError::TooManyWorkers { requested } if requested == MAX_WORKERS + 1),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains(&(MAX_WORKERS + 1).to_string()),
            "unhelpful message: {msg}"
        );
        assert!(
            msg.contains(&MAX_WORKERS.to_string()),
            "the message does not say the limit: {msg}"
        );

        let e = ThreadPool::builder()
            .workers(usize::MAX)
            .build()
            .unwrap_err();
        assert!(matches!(e, BuildError::TooManyWorkers { .. }), "{e:?}");

        // An absurd stack is refused before any thread starts (tests/stack_size.rs has the
        // rest: the limit, a mapping the system refuses, the global pool).
        let e = ThreadPool::builder()
            .workers(2)
            .stack_size(1 << 46)
            .build()
            .unwrap_err();
        assert!(matches!(e, BuildError::StackTooLarge { .. }), "{e:?}");
        assert!(e.to_string().contains("Builder::stack_size"), "{e}");

        // The errors are proper errors.
        let e: Box<dyn std::error::Error> = Box::new(BuildError::ZeroWorkers);
        assert!(e.source().is_none());
        assert!(!format!("{:?}", ThreadPool::builder().workers(3)).is_empty());
    })
}

#[test]
fn builder_options_apply() {
    bounded(|| {
        let p = ThreadPool::builder()
            .workers(3)
            .thread_name(|i| format!("custom-{i}"))
            .stack_size(4 << 20)
            .build()
            .unwrap();
        assert_eq!(p.workers(), 3);
        assert!(format!("{p:?}").contains('3'));
        let name = p.run(|| std::thread::current().name().map(str::to_string));
        let idx = p
            .run(|| p.current_worker_index())
            .expect("run ran outside the pool");
        assert!(idx < 3);
        let name = name.expect("worker threads have names");
        assert!(name.starts_with("custom-"), "thread name {name:?}");

        // The default names.
        let p = pool(1);
        assert_eq!(
            p.run(|| std::thread::current().name().map(str::to_string))
                .as_deref(),
            Some("offshoot-0")
        );

        // A deep recursion that needs the bigger stack (about 1 KiB a level in debug builds).
        let p = ThreadPool::builder()
            .workers(2)
            .stack_size(64 << 20)
            .build()
            .unwrap();
        fn deep(n: u32) -> u32 {
            let pad = std::hint::black_box([n; 64]);
            if n == 0 {
                0
            } else {
                deep(n - 1) + pad[7] - n + 1
            }
        }
        assert_eq!(p.run(|| deep(20_000)), 20_000);
    })
}

#[test]
fn current_worker_index_is_per_pool() {
    bounded(|| {
        let a = pool(3);
        let b = pool(2);
        assert_eq!(a.current_worker_index(), None);
        let seen = a.run(|| {
            let mine = a.current_worker_index();
            let other = b.current_worker_index();
            let (x, y) = offshoot::join(|| a.current_worker_index(), || a.current_worker_index());
            (mine, other, x, y)
        });
        assert!(matches!(seen.0, Some(i) if i < 3));
        assert_eq!(seen.1, None);
        assert!(matches!(seen.2, Some(i) if i < 3));
        assert!(matches!(seen.3, Some(i) if i < 3));
        let in_b = a.run(|| b.run(|| (a.current_worker_index(), b.current_worker_index())));
        assert_eq!(in_b.0, None);
        assert!(matches!(in_b.1, Some(i) if i < 2));
    })
}

/// How long the drop tests wait for a drop before they fail (a drop that waits for a task
/// that never ends never returns).
const DROP_LIMIT: Duration = Duration::from_secs(60);

/// Drops `pool` on a helper thread and waits, at most [`DROP_LIMIT`], for the drop to
/// return; returns whether it did.
fn drop_returns(pool: ThreadPool) -> bool {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(pool);
        let _ = tx.send(());
    });
    rx.recv_timeout(DROP_LIMIT).is_ok()
}

/// Dropping a pool whose detached task never ends (here: until the test releases it, after
/// the drop) returns at once, as rayon's drop does; the task goes on, and ends when
/// released. So does a drop from a task of another pool.
#[test]
fn dropping_a_pool_whose_detached_task_never_ends_returns() {
    bounded(|| {
        for from_a_task in [false, true] {
            let p = pool(2);
            let (release, blocked) = std::sync::mpsc::channel::<()>();
            let (started_tx, started) = std::sync::mpsc::channel();
            let (ended_tx, ended) = std::sync::mpsc::channel();
            p.spawn(move || {
                started_tx.send(()).unwrap();
                let _ = blocked.recv();
                ended_tx.send(()).unwrap();
            });
            started.recv_timeout(DROP_LIMIT).expect("the task started");
            let returned = if from_a_task {
                let other = pool(1);
                let (tx, rx) = std::sync::mpsc::channel();
                other.spawn(move || {
                    drop(p);
                    let _ = tx.send(());
                });
                let r = rx.recv_timeout(DROP_LIMIT).is_ok();
                drop(other);
                r
            } else {
                drop_returns(p)
            };
            // Released whatever happened, so that nothing stays blocked.
            release.send(()).unwrap();
            assert!(
                returned,
                "the drop of a pool whose detached task runs did not return within 60 s                  (from a task of another pool: {from_a_task})"
            );
            ended
                .recv_timeout(DROP_LIMIT)
                .expect("the released task ended after its pool's drop");
        }
    })
}

/// Work queued before a drop still runs after it: a detached task waiting in the injector
/// behind one that blocks the pool's only worker runs once that one is released, although
/// the drop returned long before.
#[test]
fn a_dropped_pool_runs_the_work_queued_before_its_drop() {
    bounded(|| {
        let p = pool(1);
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let (ran_tx, ran) = std::sync::mpsc::channel();
        p.spawn(move || {
            let _ = blocked.recv();
        });
        p.spawn(move || ran_tx.send(42).unwrap());
        let returned = drop_returns(p);
        release.send(()).unwrap();
        assert!(returned, "the drop did not return within 60 s");
        assert_eq!(
            ran.recv_timeout(DROP_LIMIT),
            Ok(42),
            "the queued task ran after the drop"
        );
    })
}

#[test]
fn drop_a_pool_from_a_worker_of_another_pool() {
    bounded(|| {
        let b = pool(2);
        for n in [1, 2, 3] {
            let a = pool(n);
            assert_eq!(a.run(|| fib(12)), 144);
            b.run(move || drop(a));
        }
        assert_eq!(b.run(|| fib(12)), 144);
    })
}

#[test]
fn pool_dropped_by_the_last_of_several_threads() {
    bounded(|| {
        for _ in 0..10 {
            let p = Arc::new(pool(2));
            let handles: Vec<_> = (0..3)
                .map(|i| {
                    let p = p.clone();
                    std::thread::spawn(move || p.run(|| fib(8 + i)))
                })
                .collect();
            drop(p); // one of the threads drops the pool, whichever ends last
            let r: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            assert_eq!(r, [21, 34, 55]);
        }
    })
}

/// Waits (bounded) until the pool's counters stop changing: its workers have gone to sleep.
fn quiescent_stats(p: &ThreadPool) -> Option<Stats> {
    let start = Instant::now();
    let mut last = p.stats();
    let mut same = 0;
    while start.elapsed() < common::PATIENCE {
        std::thread::sleep(Duration::from_millis(5));
        let now = p.stats();
        if now == last {
            same += 1;
            if same >= 10 {
                return Some(now);
            }
        } else {
            same = 0;
            last = now;
        }
    }
    None
}

fn check_invariants(s: &Stats) {
    assert!(
        s.tasks_materialized <= s.requests_answered_work,
        "more tasks materialized than requests answered with work: {s:?}"
    );
    assert!(
        s.requests_answered_work + s.requests_answered_empty <= s.requests_sent,
        "more requests answered than sent: {s:?}"
    );
}

/// At rest every request sent was answered (with work or empty) or withdrawn.
fn check_quiescent_invariants(s: &Stats) {
    check_invariants(s);
    assert_eq!(
        s.requests_answered_work + s.requests_answered_empty + s.requests_withdrawn,
        s.requests_sent,
        "requests neither answered nor withdrawn: {s:?}"
    );
}

#[test]
fn stats_invariants_hold() {
    bounded(|| {
        for n in [2, 3, 4] {
            let p = pool(n);
            let before = quiescent_stats(&p).expect("a new idle pool kept sending requests");
            check_quiescent_invariants(&before);
            assert_eq!(p.run(|| fib(20)), 6765);
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..50 {
                        s.spawn(|_| {
                            fib(8);
                        });
                    }
                })
            });
            let mid = p.stats();
            assert!(
                mid.tasks_materialized <= mid.requests_answered_work,
                "{mid:?}"
            );
            let after = quiescent_stats(&p).expect("an idle pool kept sending requests");
            check_quiescent_invariants(&after);
            let delta = after - before;
            check_quiescent_invariants(&delta);
            assert!(after.requests_sent >= before.requests_sent);
            assert!(!delta.to_string().is_empty());
            assert!(delta.to_string().contains("materialized"), "{delta}");
        }
    })
}

#[test]
fn one_worker_pool_never_hands_out_a_task() {
    bounded(|| {
        let p = pool(1);
        assert_eq!(p.run(|| fib(20)), 6765);
        p.run(|| {
            offshoot::scope(|s| {
                for _ in 0..20 {
                    s.spawn(|_| {
                        fib(5);
                    });
                }
            });
            offshoot::finish(|| {
                for _ in 0..20 {
                    offshoot::finish::spawn(|| {
                        fib(5);
                    });
                }
            });
        });
        let s = p.stats();
        assert_eq!(s.tasks_materialized, 0, "{s:?}");
        assert_eq!(s.requests_sent, 0, "{s:?}");
        assert_eq!(s.requests_answered_work, 0, "{s:?}");
        assert_eq!(s.steal_backs, 0, "{s:?}");
    })
}

#[test]
fn stats_subtraction_saturates() {
    let mut a = Stats::default();
    a.tasks_materialized = 1;
    a.requests_sent = 5;
    a.requests_answered_work = 1;
    a.requests_answered_empty = 2;
    let mut b = a;
    b.steal_backs = 3;
    let mut want = Stats::default();
    want.steal_backs = 3;
    assert_eq!(b - a, want);
    assert_eq!(a - b, Stats::default());
}
