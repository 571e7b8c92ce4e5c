//! `finish` + `spawn`: a spawn anywhere in the dynamic extent of a `finish` — in the body,
//! in callees, in spawned tasks, in stolen halves of joins — is joined by the innermost
//! enclosing `finish` (every counter is complete when `finish` returns); a `spawn` outside
//! any `finish` is joined by the enclosing `ThreadPool::run`; `spawn` outside every pool
//! runs detached in the global pool (rayon's `spawn`) and `try_spawn` there panics with a
//! message; and `Scope::spawn` through a handle carried to a thread outside
//! the pool (or to a worker of another pool) is still joined by its scope.

mod common;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{bounded, panic_message, pool, POOL_SIZES};

/// Spawns a full binary tree of tasks of the given depth from a callee, each task bumping
/// `count` when it ends; returns without waiting.
fn spawn_tree(depth: u32, count: Arc<AtomicUsize>) {
    if depth > 0 {
        for _ in 0..2 {
            let c = count.clone();
            offshoot::finish::spawn(move || spawn_tree(depth - 1, c));
        }
    }
    // A little sequential work with poll points, so that thieves get a chance.
    for _ in 0..20 {
        offshoot::poll();
    }
    count.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn finish_joins_spawns_made_in_callees_and_in_spawned_tasks() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for depth in [0, 1, 5, 9] {
                let count = Arc::new(AtomicUsize::new(0));
                let c = count.clone();
                let seen_at_end = p.run(move || {
                    offshoot::finish(|| spawn_tree(depth, c.clone()));
                    // Still inside the run: the finish alone must have joined everything.
                    c.load(Ordering::SeqCst)
                });
                assert_eq!(
                    seen_at_end,
                    (1 << (depth + 1)) - 1,
                    "depth {depth} on {n} workers"
                );
            }
        }
    })
}

#[test]
fn finish_joins_spawns_made_inside_stolen_join_halves() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for _ in 0..20 {
                let count = Arc::new(AtomicUsize::new(0));
                let c = count.clone();
                let seen = p.run(move || {
                    fn rec(d: u32, c: &Arc<AtomicUsize>) {
                        if d == 0 {
                            let c = c.clone();
                            offshoot::finish::spawn(move || {
                                c.fetch_add(1, Ordering::SeqCst);
                            });
                            return;
                        }
                        offshoot::join(|| rec(d - 1, c), || rec(d - 1, c));
                    }
                    offshoot::finish(|| rec(8, &c));
                    c.load(Ordering::SeqCst)
                });
                assert_eq!(seen, 256, "on {n} workers");
            }
        }
    })
}

#[test]
fn innermost_finish_joins_its_own_spawns_and_outer_joins_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let inner_total = Arc::new(AtomicUsize::new(0));
            let outer_total = Arc::new(AtomicUsize::new(0));
            let (it, ot) = (inner_total.clone(), outer_total.clone());
            p.run(move || {
                offshoot::finish(|| {
                    for i in 0..10 {
                        let (it, ot) = (it.clone(), ot.clone());
                        offshoot::finish::spawn(move || {
                            // Spawned into the outer finish; runs its own inner finish.
                            let mine = Arc::new(AtomicUsize::new(0));
                            let m = mine.clone();
                            offshoot::finish(move || {
                                for _ in 0..i {
                                    let m = m.clone();
                                    offshoot::finish::spawn(move || {
                                        m.fetch_add(1, Ordering::SeqCst);
                                    });
                                }
                            });
                            assert_eq!(
                                mine.load(Ordering::SeqCst),
                                i,
                                "inner finish returned early"
                            );
                            it.fetch_add(i, Ordering::SeqCst);
                            ot.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                });
                assert_eq!(ot.load(Ordering::SeqCst), 10, "outer finish returned early");
            });
            assert_eq!(inner_total.load(Ordering::SeqCst), 45);
        }
    })
}

#[test]
fn finish_returns_the_body_value() {
    bounded(|| {
        let p = pool(2);
        let v = p.run(|| {
            offshoot::finish(|| {
                offshoot::finish::spawn(|| {});
                vec![1, 2, 3]
            })
        });
        assert_eq!(v, [1, 2, 3]);
    })
}

#[test]
fn spawn_outside_any_finish_is_joined_by_run() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let count = Arc::new(AtomicUsize::new(0));
            let c = count.clone();
            let r = p.run(move || {
                for _ in 0..100 {
                    let c = c.clone();
                    offshoot::finish::spawn(move || {
                        for _ in 0..50 {
                            offshoot::poll();
                        }
                        c.fetch_add(1, Ordering::SeqCst);
                    });
                }
                // Also from inside both halves of a join, and from a spawned task.
                let c2 = c.clone();
                offshoot::join(
                    move || offshoot::finish::spawn(move || spawn_tree(4, c2)),
                    || {
                        let c = c.clone();
                        offshoot::finish::spawn(move || {
                            c.fetch_add(1, Ordering::SeqCst);
                        })
                    },
                );
                "run value"
            });
            assert_eq!(r, "run value");
            assert_eq!(count.load(Ordering::SeqCst), 100 + 31 + 1, "on {n} workers");
        }
    })
}

#[test]
fn spawn_inside_scope_body_is_joined_by_the_scope() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let count = Arc::new(AtomicUsize::new(0));
            let c = count.clone();
            let seen = p.run(move || {
                offshoot::scope(|s| {
                    let c1 = c.clone();
                    offshoot::finish::spawn(move || spawn_tree(3, c1));
                    s.spawn(|_| {
                        // Inside a scope task the innermost finish is the scope too.
                        let c2 = c.clone();
                        offshoot::finish::spawn(move || spawn_tree(3, c2));
                    });
                });
                c.load(Ordering::SeqCst)
            });
            assert_eq!(seen, 30, "on {n} workers");
        }
    })
}

#[test]
fn spawn_outside_every_pool_detaches_and_finish_spawns_panic_with_a_message() {
    bounded(|| {
        // rayon's `spawn`: runs in the global pool, nobody joins it.
        let (tx, rx) = std::sync::mpsc::channel();
        offshoot::spawn(move || tx.send(offshoot::current_thread_index()).unwrap());
        let ran_on = rx
            .recv_timeout(common::PATIENCE)
            .expect("a detached spawn never ran");
        assert!(ran_on.is_some(), "a detached spawn ran outside the pool");
        // finish::spawn and finish::try_spawn have no finish to join them.
        let msg = panic_message(|| offshoot::finish::spawn(|| ()));
        assert!(
            msg.contains("outside every pool")
                && msg.contains("offshoot::finish::spawn")
                && msg.contains("use offshoot::spawn"),
            "unhelpful message: {msg}"
        );
        let msg = panic_message(|| offshoot::finish::try_spawn(|| Ok::<(), ()>(())));
        assert!(
            msg.contains("outside every pool") && msg.contains("offshoot::finish::try_spawn"),
            "unhelpful message: {msg}"
        );
    })
}

#[test]
fn scope_spawn_from_a_thread_outside_the_pool_is_joined() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let hits = AtomicUsize::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    std::thread::scope(|ts| {
                        for _ in 0..3 {
                            ts.spawn(|| {
                                assert!(p.current_worker_index().is_none());
                                for _ in 0..10 {
                                    s.spawn(|_| {
                                        hits.fetch_add(1, Ordering::SeqCst);
                                    });
                                }
                            });
                        }
                    });
                });
            });
            assert_eq!(hits.load(Ordering::SeqCst), 30, "on {n} workers");
        }
    })
}

/// A task that entered the scope from outside the pool spawns more tasks on the scope
/// (through its handle, or with `offshoot::finish::spawn`): they must be joined too.
#[test]
fn tasks_spawned_by_a_task_from_outside_the_pool_are_joined() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let (hits, nested, global) = (
                AtomicUsize::new(0),
                AtomicUsize::new(0),
                Arc::new(AtomicUsize::new(0)),
            );
            p.run(|| {
                offshoot::scope(|s| {
                    std::thread::scope(|ts| {
                        ts.spawn(|| {
                            for _ in 0..10 {
                                s.spawn(|s| {
                                    hits.fetch_add(1, Ordering::SeqCst);
                                    s.spawn(|_| {
                                        nested.fetch_add(1, Ordering::SeqCst);
                                    });
                                    let g = global.clone();
                                    offshoot::finish::spawn(move || {
                                        g.fetch_add(1, Ordering::SeqCst);
                                    });
                                });
                            }
                        });
                    });
                });
            });
            assert_eq!(hits.load(Ordering::SeqCst), 10, "on {n} workers");
            assert_eq!(
                nested.load(Ordering::SeqCst),
                10,
                "Scope::spawn lost on {n} workers"
            );
            assert_eq!(
                global.load(Ordering::SeqCst),
                10,
                "offshoot::finish::spawn lost on {n} workers"
            );
        }
    })
}

#[test]
fn scope_spawn_from_a_thread_that_outlives_the_body_is_joined() {
    bounded(|| {
        let p = pool(2);
        let hits = AtomicUsize::new(0);
        let hits = &hits;
        p.run(|| {
            offshoot::scope(|s| {
                // A task of the scope blocks in a plain thread that spawns on the scope: the
                // task ends only after the thread has spawned, while the body has long
                // returned and the scope is draining / waiting.
                s.spawn(move |s| {
                    std::thread::scope(|ts| {
                        ts.spawn(move || {
                            for _ in 0..20 {
                                s.spawn(move |_| {
                                    hits.fetch_add(1, Ordering::SeqCst);
                                });
                            }
                        });
                    });
                });
            });
        });
        assert_eq!(hits.load(Ordering::SeqCst), 20);
    })
}

#[test]
fn scope_spawn_from_a_worker_of_another_pool_is_joined() {
    bounded(|| {
        let a = pool(2);
        let b = pool(2);
        let total = AtomicU64::new(0);
        a.run(|| {
            offshoot::scope(|s| {
                b.run(|| {
                    for i in 0..16u64 {
                        let total = &total;
                        s.spawn(move |_| {
                            total.fetch_add(i, Ordering::SeqCst);
                        });
                    }
                });
            });
        });
        assert_eq!(total.load(Ordering::SeqCst), (0..16).sum::<u64>());
    })
}

#[test]
fn scope_and_finish_nest_in_both_orders() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let count = Arc::new(AtomicUsize::new(0));
            let c = count.clone();
            p.run(move || {
                offshoot::finish(|| {
                    for _ in 0..4 {
                        let c = c.clone();
                        offshoot::finish::spawn(move || {
                            let local = AtomicUsize::new(0);
                            offshoot::scope(|s| {
                                for _ in 0..4 {
                                    s.spawn(|_| {
                                        let c = c.clone();
                                        offshoot::finish(move || {
                                            for _ in 0..4 {
                                                let c = c.clone();
                                                offshoot::finish::spawn(move || {
                                                    c.fetch_add(1, Ordering::SeqCst);
                                                });
                                            }
                                        });
                                        local.fetch_add(1, Ordering::SeqCst);
                                    });
                                }
                            });
                            assert_eq!(local.load(Ordering::SeqCst), 4);
                        });
                    }
                });
                assert_eq!(c.load(Ordering::SeqCst), 64);
            });
            assert_eq!(count.load(Ordering::SeqCst), 64, "on {n} workers");
        }
    })
}
