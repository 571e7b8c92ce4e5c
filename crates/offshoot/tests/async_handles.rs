//! Futures from async code (issue 45): the owned `Handle` of `spawn_async` awaited from a
//! real tokio runtime and from `futures::executor::block_on` on plain threads, dropped
//! while its computation is blocked, and blocked on from inside a pool task (1 and 2
//! workers, where a worker that blocks on a future must not hang); the shareable
//! `TaskFuture` from outside every pool and from `block_on` in a pool task. Every body runs
//! under the watchdog of `common::bounded` (60 s), values are checked against the serial
//! answer, and nothing asserts on time. Not built for loom (tokio is no dependency there).
#![cfg(feature = "sync")]
#![cfg(not(loom))]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use common::{boom, boom_msg, bounded, fib, mix, panic_message, pool, Noted};
use futures::executor::block_on;
use offshoot::sync::{spawn_async, spawn_future, Handle};

/// A result that is neither `Clone` nor `Copy`, holding a `Vec`.
struct Series {
    seed: u64,
    values: Vec<u64>,
}

fn series(seed: u64, len: usize) -> Series {
    Series {
        seed,
        values: (0..len as u64).map(|i| mix(seed ^ i)).collect(),
    }
}

/// A multi-threaded tokio runtime of `workers` threads.
fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .expect("a tokio runtime")
}

fn checksum(s: &Series) -> u64 {
    s.values.iter().fold(s.seed, |a, &v| a.wrapping_add(v))
}

#[test]
fn tokio_tasks_await_handles_with_non_clone_values() {
    bounded(|| {
        let rt = runtime(2);
        let p = Arc::new(pool(2));
        let got: u64 = rt.block_on(async {
            let tasks: Vec<_> = (0..8u64)
                .map(|t| {
                    let p = p.clone();
                    tokio::spawn(async move {
                        // Half in an explicit pool, half in the global one (no pool here).
                        let hs: Vec<Handle<Series>> = (0..6u64)
                            .map(|i| {
                                let seed = t * 100 + i;
                                let len = 1 + (mix(seed) % 300) as usize;
                                if i % 2 == 0 {
                                    p.spawn_async(move || series(seed, len))
                                } else {
                                    spawn_async(move || series(seed, len))
                                }
                            })
                            .collect();
                        let mut sum = 0u64;
                        for h in hs {
                            sum = sum.wrapping_add(checksum(&h.await));
                        }
                        sum
                    })
                })
                .collect();
            let mut total = 0u64;
            for t in tasks {
                total = total.wrapping_add(t.await.expect("a tokio task panicked"));
            }
            total
        });
        let want = (0..8u64)
            .flat_map(|t| (0..6u64).map(move |i| t * 100 + i))
            .map(|seed| checksum(&series(seed, 1 + (mix(seed) % 300) as usize)))
            .fold(0u64, u64::wrapping_add);
        assert_eq!(got, want);
    });
}

#[test]
fn a_panic_resumes_in_the_awaiting_tokio_task() {
    bounded(|| {
        let rt = runtime(1);
        let err = rt
            .block_on(
                rt.spawn(async { spawn_async(|| -> Vec<u8> { boom("handle in tokio") }).await }),
            )
            .expect_err("the awaiting task must panic");
        let p = err.into_panic();
        assert_eq!(
            common::payload_str(&*p),
            Some(&*boom_msg("handle in tokio"))
        );
    });
}

#[test]
fn block_on_from_plain_threads_outside_every_pool() {
    bounded(|| {
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                std::thread::spawn(move || {
                    let v = block_on(spawn_async(move || series(t, 1000)));
                    assert_eq!(checksum(&v), checksum(&series(t, 1000)));
                    // The shareable form works here too, through the global pool.
                    let f = spawn_future(move || fib(18 + t));
                    assert_eq!(block_on(f.clone()), fib(18 + t));
                    assert_eq!(*f.get(), fib(18 + t));
                    // A panic resumes in the waiter, with its payload.
                    let msg = panic_message(|| block_on(spawn_async(|| boom("plain thread"))));
                    assert_eq!(msg, boom_msg("plain thread"));
                })
            })
            .collect();
        for t in threads {
            t.join().expect("a plain thread failed");
        }
    });
}

#[test]
fn dropping_a_handle_never_waits_for_its_computation() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let (go_tx, go_rx) = mpsc::channel::<()>();
            let (started_tx, started_rx) = mpsc::channel::<()>();
            let (ended_tx, ended_rx) = mpsc::channel::<()>();
            let drops = Arc::new(AtomicUsize::new(0));
            let d = drops.clone();
            let h = p.spawn_async(move || {
                started_tx.send(()).unwrap();
                // Blocks its worker's thread until the test releases it.
                go_rx.recv().unwrap();
                ended_tx.send(()).unwrap();
                Noted(d)
            });
            started_rx.recv().unwrap();
            // Returns at once although the computation is blocked (else the watchdog
            // fires: the release below comes only after the drop).
            drop(h);
            assert_eq!(drops.load(Ordering::SeqCst), 0);
            go_tx.send(()).unwrap();
            ended_rx.recv().unwrap();
            // The value nobody can take is dropped by the computation's end.
            while drops.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            assert_eq!(drops.load(Ordering::SeqCst), 1);
            // A handle dropped before its computation started: it still runs, its value
            // is dropped.
            let d = drops.clone();
            let hs: Vec<_> = (0..32)
                .map(|_| {
                    let d = d.clone();
                    p.spawn_async(move || Noted(d))
                })
                .collect();
            drop(hs);
            p.shutdown(); // waits: the pool runs its injected jobs before its workers exit
            assert_eq!(drops.load(Ordering::SeqCst), 33);
        }
    });
}

#[test]
fn block_on_inside_a_pool_task_never_hangs() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            for round in 0..50u64 {
                let k = 10 + round % 8;
                // The shape that hung 6 runs in 20: a task blocks its worker on a future.
                let v = p.run(move || block_on(spawn_async(move || fib(k))));
                assert_eq!(v, fib(k), "{n} workers, round {round}");
                let v = p.run(move || block_on(spawn_future(move || fib(k))));
                assert_eq!(v, fib(k), "{n} workers, round {round}: TaskFuture");
                // A task blocks on a handle whose computation forks while its sibling waits
                // for another (one `block_on` at a time: futures' executor guard is per
                // thread, and a parked task's worker may run the sibling).
                let (a, b) = p.run(move || {
                    offshoot::join(
                        || {
                            block_on(spawn_async(move || {
                                offshoot::join(|| fib(k), || fib(k - 1))
                            }))
                        },
                        || spawn_async(move || series(k, 64)).wait(),
                    )
                });
                assert_eq!(a, (fib(k), fib(k - 1)));
                assert_eq!(checksum(&b), checksum(&series(k, 64)));
                // A handle made outside and blocked on in a task; and `wait`.
                let h = p.spawn_async(move || series(round, 16));
                let w = p.spawn_async(move || fib(k));
                let (s, f) = p.run(move || (block_on(h), w.wait()));
                assert_eq!(checksum(&s), checksum(&series(round, 16)));
                assert_eq!(f, fib(k));
            }
        }
    });
}

#[test]
fn handles_against_a_serial_oracle() {
    // Many short computations whose end races with the awaiter's registration: a lost
    // wake-up hangs an awaiting task (the watchdog fails the test); a wrong hand-over shows
    // as a wrong sum.
    bounded(|| {
        let rt = runtime(2);
        let p = Arc::new(pool(2));
        for round in 0..20u64 {
            let p2 = p.clone();
            let got = rt.block_on(async move {
                let mut tasks = Vec::new();
                for t in 0..16u64 {
                    let p = p2.clone();
                    tasks.push(tokio::spawn(async move {
                        let mut sum = 0u64;
                        for i in 0..64u64 {
                            let x = round * 1_000_000 + t * 1000 + i;
                            let h = p.spawn_async(move || mix(x));
                            if i % 3 == 0 {
                                tokio::task::yield_now().await;
                            }
                            sum = sum.wrapping_add(h.await);
                        }
                        sum
                    }));
                }
                let mut total = 0u64;
                for t in tasks {
                    total = total.wrapping_add(t.await.unwrap());
                }
                total
            });
            let want = (0..16u64)
                .flat_map(|t| (0..64u64).map(move |i| round * 1_000_000 + t * 1000 + i))
                .map(mix)
                .fold(0u64, u64::wrapping_add);
            assert_eq!(got, want, "round {round}");
        }
    });
}

#[test]
fn a_handle_is_send_sync_and_unpin_for_a_send_only_value() {
    fn check<T: Send + Sync + Unpin + std::future::Future>(_: &T) {}
    // `Cell` is Send, not Sync: the handle needs only Send.
    let h = spawn_async(|| std::cell::Cell::new(5));
    check(&h);
    assert_eq!(block_on(h).get(), 5);
}
