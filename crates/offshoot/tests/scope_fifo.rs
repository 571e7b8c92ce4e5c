//! `scope_fifo` and `spawn_fifo` (rayon's): tasks a worker holds run oldest first (on one
//! worker exactly in spawn order, nested spawns after the earlier ones; on several there is
//! no order across workers, and a worker that waits may take back older tasks handed to
//! another), every task runs once and may borrow, a panic surfaces once and stops the
//! rest; `spawn_fifo` is detached (also from inside a pool) and its tasks start in spawn
//! order.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use common::{boom, boom_msg, bounded, pool, Tally, POOL_SIZES};

#[test]
fn one_worker_runs_the_tasks_in_spawn_order() {
    bounded(|| {
        let p = pool(1);
        let order = Mutex::new(Vec::new());
        p.scope_fifo(|s| {
            for i in 0..10u32 {
                let order = &order;
                s.spawn_fifo(move |s| {
                    order.lock().unwrap().push(i);
                    if i < 2 {
                        // Spawned after 0..10: runs after them, in its own order.
                        s.spawn_fifo(move |_| order.lock().unwrap().push(100 + i));
                    }
                });
            }
        });
        let got = order.into_inner().unwrap();
        let mut want: Vec<u32> = (0..10).collect();
        want.extend([100, 101]);
        assert_eq!(got, want);
        // A plain scope runs them newest first: the difference is the fifo flag.
        let order = Mutex::new(Vec::new());
        p.scope(|s| {
            for i in 0..10u32 {
                let order = &order;
                s.spawn(move |_| order.lock().unwrap().push(i));
            }
        });
        let got = order.into_inner().unwrap();
        assert_eq!(got, (0..10).rev().collect::<Vec<_>>());
        // The free function and in_place_scope_fifo inside the pool: the same order.
        let order = Mutex::new(Vec::new());
        p.install(|| {
            offshoot::in_place_scope_fifo(|s| {
                for i in 0..5u32 {
                    let order = &order;
                    s.spawn_fifo(move |_| order.lock().unwrap().push(i));
                }
            })
        });
        assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 4]);
    })
}

/// A tree of nested fifo spawns that borrow from the caller: every node once.
#[test]
fn nested_spawns_borrow_and_all_run() {
    fn node<'s>(s: &offshoot::ScopeFifo<'s>, depth: u32, count: &'s AtomicUsize) {
        count.fetch_add(1, Ordering::Relaxed);
        if depth > 0 {
            for _ in 0..3 {
                s.spawn_fifo(move |s| node(s, depth - 1, count));
            }
        }
    }
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let count = AtomicUsize::new(0);
            p.scope_fifo(|s| node(s, 6, &count));
            // 1 + 3 + ... + 3^6
            assert_eq!(count.into_inner(), (3usize.pow(7) - 1) / 2, "{n} workers");
            let mut v = vec![0u64; 1000];
            p.in_place_scope_fifo(|s| {
                for (i, x) in v.iter_mut().enumerate() {
                    s.spawn_fifo(move |_| *x = i as u64 * 3);
                }
            });
            assert!(v.iter().enumerate().all(|(i, x)| *x == i as u64 * 3));
        }
    })
}

#[test]
fn a_panic_surfaces_once_and_stops_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let tally = Tally::new();
            let ran = AtomicUsize::new(0);
            let msg = format!("fifo task failed on {n}");
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.scope_fifo(|s| {
                    for i in 0..10_000usize {
                        let (g, ran, msg) = (tally.guard(), &ran, &msg);
                        s.spawn_fifo(move |_| {
                            let _g = g;
                            if i == 50 {
                                boom(msg);
                            }
                            ran.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                })
            }));
            let payload = r.expect_err("the scope must fail");
            assert_eq!(common::payload_str(&*payload), Some(&*boom_msg(&msg)));
            assert_eq!(common::times_raised(&boom_msg(&msg)), 1);
            assert!(ran.load(Ordering::Relaxed) < 10_000, "not stopped on {n}");
            assert_eq!(tally.made(), tally.dropped(), "tasks leaked on {n} workers");
        }
    })
}

#[test]
fn spawn_fifo_is_detached_and_starts_in_order() {
    bounded(|| {
        let p = pool(1);
        let (tx, rx) = mpsc::channel();
        for i in 0..5 {
            let tx = tx.clone();
            p.spawn_fifo(move || tx.send(i).unwrap());
        }
        drop(tx);
        assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
        // From inside the pool it does not join `install`: install returns while the task
        // still waits for the gate this thread opens afterwards.
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        let p2 = pool(2);
        p2.install(move || {
            offshoot::spawn_fifo(move || {
                gate_rx.recv().unwrap();
                done_tx.send(42).unwrap();
            })
        });
        gate_tx.send(()).unwrap();
        assert_eq!(done_rx.recv().unwrap(), 42);
        // Outside every pool: the global pool.
        let (tx, rx) = mpsc::channel();
        offshoot::spawn_fifo(move || tx.send(offshoot::current_thread_index().is_some()).unwrap());
        assert!(rx.recv().unwrap());
    })
}
