//! `broadcast` and `spawn_broadcast` (rayon's): the closure runs exactly once on every
//! worker, on that worker's thread, results in worker-index order; from outside a pool,
//! from inside one of its workers, from two workers at once, nested inside a share; a
//! share's panic surfaces once in the caller after every share ran. Every test is bounded
//! (`common::bounded`), so a deadlock fails instead of hanging.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use common::{boom, boom_msg, bounded, panic_message};

/// Runs a broadcast on `pool` whose shares record their index, and checks: one result per
/// worker, in index order, each share run on the worker of its index, exactly once.
fn check_once_each(
    pool: &offshoot::ThreadPool,
    call: impl Fn(&(dyn Fn(usize) -> usize + Sync)) -> Vec<usize>,
) {
    let n = pool.workers();
    let runs: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    let got = call(&|i| {
        assert_eq!(
            offshoot::current_thread_index(),
            Some(i),
            "share ran on another worker"
        );
        runs[i].fetch_add(1, Ordering::SeqCst);
        i * 10
    });
    assert_eq!(got, (0..n).map(|i| i * 10).collect::<Vec<_>>());
    assert!(
        runs.iter().all(|r| r.load(Ordering::SeqCst) == 1),
        "a share ran twice or never"
    );
}

#[test]
fn from_outside_every_worker_once() {
    bounded(|| {
        for n in 1..=3 {
            let pool = common::pool(n);
            for _ in 0..20 {
                check_once_each(&pool, |f| {
                    pool.broadcast(|ctx| {
                        assert_eq!(ctx.num_threads(), n);
                        f(ctx.index())
                    })
                });
            }
        }
    })
}

/// Workers pop the first jobs of a broadcast from outside while the caller still injects
/// the rest: every share must still get a job (it once lost one, when the count of jobs
/// owed was read from the shares already claimed).
#[test]
fn from_outside_while_workers_take_the_first_jobs() {
    bounded(|| {
        let pool = common::pool(8);
        for _ in 0..300 {
            check_once_each(&pool, |f| pool.broadcast(|ctx| f(ctx.index())));
        }
    })
}

#[test]
fn from_inside_a_worker() {
    bounded(|| {
        for n in 1..=3 {
            let pool = common::pool(n);
            for _ in 0..20 {
                check_once_each(&pool, |f| {
                    pool.install(|| offshoot::broadcast(|ctx| f(ctx.index())))
                });
                check_once_each(&pool, |f| {
                    pool.install(|| pool.broadcast(|ctx| f(ctx.index())))
                });
            }
        }
    })
}

#[test]
fn two_workers_broadcast_at_once() {
    bounded(|| {
        for n in 1..=3 {
            let pool = common::pool(n);
            for _ in 0..20 {
                let (a, b) = pool.install(|| {
                    offshoot::join(
                        || offshoot::broadcast(|ctx| ctx.index()),
                        || offshoot::broadcast(|ctx| ctx.index() + 100),
                    )
                });
                assert_eq!(a, (0..n).collect::<Vec<_>>());
                assert_eq!(b, (100..100 + n).collect::<Vec<_>>());
            }
        }
    })
}

#[test]
fn nested_inside_a_share() {
    bounded(|| {
        for n in 1..=3 {
            let pool = common::pool(n);
            let v = pool.broadcast(|outer| {
                let inner = offshoot::broadcast(|ctx| ctx.index());
                (outer.index(), inner)
            });
            let want: Vec<(usize, Vec<usize>)> = (0..n).map(|i| (i, (0..n).collect())).collect();
            assert_eq!(v, want);
        }
    })
}

#[test]
fn a_share_panic_surfaces_once_after_all_ran() {
    bounded(|| {
        for n in 1..=3 {
            let pool = common::pool(n);
            let ran = AtomicUsize::new(0);
            let msg = panic_message(|| {
                pool.broadcast(|ctx| {
                    ran.fetch_add(1, Ordering::SeqCst);
                    if ctx.index() == n - 1 {
                        boom("broadcast share");
                    }
                })
            });
            assert_eq!(msg, boom_msg("broadcast share"));
            assert_eq!(ran.load(Ordering::SeqCst), n);
            assert_eq!(common::times_raised(&boom_msg("broadcast share")), n);
            // The pool still works.
            assert_eq!(pool.broadcast(|ctx| ctx.index()).len(), n);
        }
    })
}

#[test]
fn outside_every_pool_uses_the_global_pool() {
    bounded(|| {
        let v = offshoot::broadcast(|ctx| ctx.num_threads());
        assert_eq!(v.len(), offshoot::ThreadPool::global().workers());
        assert!(v.iter().all(|&k| k == v.len()));
    })
}

#[test]
fn spawn_broadcast_runs_on_each_worker_once() {
    bounded(|| {
        for n in 1..=3 {
            let pool = common::pool(n);
            let (tx, rx) = mpsc::channel();
            let tx = Mutex::new(tx);
            let count = Arc::new(AtomicUsize::new(0));
            let c = count.clone();
            pool.spawn_broadcast(move |ctx| {
                c.fetch_add(1, Ordering::SeqCst);
                tx.lock()
                    .unwrap()
                    .send((ctx.index(), offshoot::current_thread_index()))
                    .unwrap();
            });
            let mut got: Vec<(usize, Option<usize>)> = rx.iter().take(n).collect();
            got.sort();
            assert_eq!(got, (0..n).map(|i| (i, Some(i))).collect::<Vec<_>>());
            drop(pool);
            assert_eq!(count.load(Ordering::SeqCst), n);
        }
    })
}

#[test]
fn dropping_a_pool_right_after_spawn_broadcast_ends() {
    // The pool's workers may exit before some of them got to their share; the drop must
    // still end (no share job left circulating among the workers that remain).
    bounded(|| {
        for round in 0..60 {
            let pool = common::pool(1 + round % 3);
            let ran = Arc::new(AtomicUsize::new(0));
            let r = ran.clone();
            pool.spawn_broadcast(move |_| {
                r.fetch_add(1, Ordering::SeqCst);
            });
            drop(pool);
            assert!(ran.load(Ordering::SeqCst) <= 1 + round % 3);
        }
    })
}

/// `Scope::spawn_broadcast` and `ScopeFifo::spawn_broadcast`: once per worker, on that
/// worker, as part of the scope (which waits for every share and for the tasks the shares
/// spawn through the handle they get); a share's panic fails the scope.
#[test]
fn scope_spawn_broadcast_runs_once_per_worker_inside_the_scope() {
    bounded(|| {
        for n in 1..=4 {
            let pool = common::pool(n);
            let runs: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let spawned = AtomicUsize::new(0);
            pool.scope(|s| {
                s.spawn_broadcast(|s, ctx| {
                    assert_eq!(offshoot::current_thread_index(), Some(ctx.index()));
                    assert_eq!(ctx.num_threads(), n);
                    runs[ctx.index()].fetch_add(1, Ordering::SeqCst);
                    s.spawn(|_| {
                        spawned.fetch_add(1, Ordering::SeqCst);
                    });
                })
            });
            // The scope returned: every share and every task they spawned has run.
            assert!(runs.iter().all(|r| r.load(Ordering::SeqCst) == 1), "{n}");
            assert_eq!(spawned.load(Ordering::SeqCst), n);
            let fifo_runs = AtomicUsize::new(0);
            pool.scope_fifo(|s| {
                s.spawn_broadcast(|s, _| {
                    fifo_runs.fetch_add(1, Ordering::SeqCst);
                    s.spawn_fifo(|_| {
                        fifo_runs.fetch_add(1, Ordering::SeqCst);
                    });
                })
            });
            assert_eq!(fifo_runs.into_inner(), 2 * n);
            let msg = panic_message(|| {
                pool.scope(|s| {
                    s.spawn_broadcast(|_, ctx| {
                        if ctx.index() == n - 1 {
                            boom("a scope's broadcast share failed");
                        }
                    })
                })
            });
            assert_eq!(msg, boom_msg("a scope's broadcast share failed"));
        }
    })
}
