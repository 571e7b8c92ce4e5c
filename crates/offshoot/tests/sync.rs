//! Waiting without blocking: events, promises, futures, locks, monitors, channels,
//! barriers, data-driven tasks — each on 1 worker (where any blocking wait would deadlock)
//! and on more.
#![cfg(feature = "sync")]

mod common;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{
    boom, boom_msg, bounded, install_panic_hook, monitor_push, panic_message, pool, random_mix,
    times_raised, Rng, POOL_SIZES,
};
use offshoot::sync::{
    self, spawn_future, spawn_when, Barrier, Condvar, Event, ExternalWaker, Monitor, Mutex,
    Promise, Semaphore,
};

/// Imam's thesis Fig. 3.1: a ring of 64 tasks, each waiting for its neighbour's value.
#[test]
fn ring_of_64_tasks_each_waiting_on_its_neighbour() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let total = p.run(|| {
                let ring: Vec<Promise<u64>> = (0..=64).map(|_| Promise::new()).collect();
                offshoot::scope(|s| {
                    for i in 0..64 {
                        let (mine, next) = (ring[i].clone(), ring[i + 1].clone());
                        s.spawn(move |_| next.put(mine.get() + i as u64).unwrap());
                    }
                    ring[0].put(0).unwrap();
                });
                *ring[64].get()
            });
            assert_eq!(total, (0..64).sum::<u64>(), "{n} workers");
        }
    });
}

/// rayon #592: a task holds the lock around a nested parallel computation while other
/// tasks contend for the lock.
#[test]
fn lock_held_around_a_nested_parallel_computation_completes() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let m = Mutex::new(0u64);
            p.run(|| {
                offshoot::par_for(0..64, |i| {
                    let mut g = m.lock();
                    let inner = offshoot::par_reduce(0..1000, || 0u64, |j| j as u64, |a, b| a + b);
                    *g += inner + i as u64;
                });
            });
            assert_eq!(
                m.into_inner(),
                64 * 499_500 + (0..64).sum::<u64>(),
                "{n} workers"
            );
        }
    });
}

#[test]
fn producers_and_consumers_over_bounded_channels() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let (tx, rx) = sync::bounded::<u64>(3);
            let got = AtomicUsize::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    for prod in 0..8u64 {
                        let tx = tx.clone();
                        s.spawn(move |_| {
                            for k in 0..100 {
                                tx.send(prod * 1000 + k).unwrap();
                            }
                        });
                    }
                    for _ in 0..8 {
                        let rx = rx.clone();
                        let got = &got;
                        s.spawn(move |_| {
                            for v in rx.iter() {
                                got.fetch_add(v as usize, Ordering::Relaxed);
                            }
                        });
                    }
                    drop(tx);
                    drop(rx);
                });
            });
            let want: u64 = (0..8u64)
                .flat_map(|p| (0..100).map(move |k| p * 1000 + k))
                .sum();
            assert_eq!(got.load(Ordering::Relaxed) as u64, want, "{n} workers");
        }
    });
}

#[test]
fn channel_errors_when_the_other_side_is_gone() {
    let (tx, rx) = sync::unbounded::<u8>();
    drop(rx);
    assert_eq!(tx.send(3), Err(sync::SendError(3)));
    let (tx, rx) = sync::bounded::<u8>(1);
    tx.send(1).unwrap();
    drop(tx);
    assert_eq!(rx.recv(), Ok(1));
    assert_eq!(rx.recv(), Err(sync::RecvError));
}

#[test]
fn monitor_bounded_buffer_with_many_producers_and_consumers() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let buf = Monitor::new(RefCell::new(VecDeque::<u32>::new()));
            let sum = AtomicUsize::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..6 {
                        s.spawn(|_| (0..50).for_each(|i| monitor_push(&buf, 2, i)));
                        s.spawn(|_| {
                            for _ in 0..50 {
                                let g = buf.enter();
                                // Re-entry by the same task.
                                let g2 = buf.enter();
                                while g2.borrow().is_empty() {
                                    g2.wait();
                                }
                                let v = g.borrow_mut().pop_front().unwrap();
                                sum.fetch_add(v as usize, Ordering::Relaxed);
                                g.notify_all();
                            }
                        });
                    }
                });
            });
            assert_eq!(
                sum.load(Ordering::Relaxed),
                6 * (0..50).sum::<usize>(),
                "{n} workers"
            );
        }
    });
}

/// Runs `work(seed, in_pool)` on 2 threads outside `p` and 6 tasks of `p` at once. The
/// outside threads hold no [`ExternalWaker`]: they only lock, and the deadlock watch reads
/// a lock's holder. A thread preempted while it holds the lock leaves every worker idle with
/// tasks waiting for it; the watch must see that the holder is a thread not blocked in
/// offshoot and wait (before it read holders, it reported a deadlock here under load).
fn by_tasks_and_threads(p: &offshoot::ThreadPool, work: &(impl Fn(u64, bool) + Sync)) {
    std::thread::scope(|s| {
        for t in 0..2 {
            s.spawn(move || work(1000 + t, false));
        }
        p.run(|| {
            offshoot::scope(|s| {
                for t in 0..6 {
                    s.spawn(move |_| work(t, true));
                }
            })
        });
    });
}

/// A mutex and a monitor contended by the tasks of a pool and by threads outside it at once,
/// some holders parking inside their critical section (a nested join that waits for a
/// stolen side), some only trying: no two holders ever overlap, no update is lost, and a
/// holder's nested re-entry into the monitor keeps it.
#[test]
fn mutex_and_monitor_contended_by_tasks_and_threads_lose_nothing() {
    const ROUNDS: usize = 2_000;
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let m = Mutex::new(0usize);
            let mon = Monitor::new(std::cell::Cell::new(0usize));
            let inside = AtomicUsize::new(0);
            let tried = AtomicUsize::new(0);
            let work = |seed: u64, in_pool: bool| {
                let mut rng = Rng::new(seed);
                for _ in 0..ROUNDS {
                    let guard = if rng.range(0, 3) == 0 {
                        m.try_lock()
                    } else {
                        Some(m.lock())
                    };
                    if let Some(mut g) = guard {
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two holders");
                        if in_pool && rng.range(0, 7) == 0 {
                            // Park (or run both sides) while holding the lock.
                            let (a, b) = offshoot::join(|| 1, || 1);
                            *g += a + b - 2;
                        }
                        *g += 1;
                        tried.fetch_add(1, Ordering::Relaxed);
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                    let outer = mon.enter();
                    let inner = mon.enter();
                    inner.set(outer.get() + 1);
                }
            };
            by_tasks_and_threads(&p, &work);
            assert_eq!(m.into_inner(), tried.into_inner(), "{n} workers");
            assert_eq!(mon.into_inner().get(), 8 * ROUNDS, "{n} workers");
        }
    });
}

/// Tasks of a pool and threads outside it read, write, try to read and try to write one
/// `RwLock`, some tasks joining (and so maybe parking) inside their critical sections: a
/// writer is never beside anyone, readers see the data whole, and no write is lost.
#[test]
fn rwlock_contended_by_tasks_and_threads_loses_nothing() {
    const ROUNDS: usize = 2_000;
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let l = offshoot::sync::RwLock::new((0usize, 0usize));
            let readers = AtomicUsize::new(0);
            let writers = AtomicUsize::new(0);
            let written = AtomicUsize::new(0);
            let work = |seed: u64, in_pool: bool| {
                let mut rng = Rng::new(seed);
                for _ in 0..ROUNDS {
                    let park = in_pool && rng.range(0, 7) == 0;
                    match rng.range(0, 8) {
                        0 | 1 => {
                            let w = if rng.range(0, 2) == 0 {
                                l.try_write()
                            } else {
                                Some(l.write())
                            };
                            if let Some(mut g) = w {
                                assert_eq!(writers.fetch_add(1, Ordering::SeqCst), 0);
                                assert_eq!(readers.load(Ordering::SeqCst), 0);
                                if park {
                                    let (a, b) = offshoot::join(|| 1, || 1);
                                    g.0 += a + b - 2;
                                }
                                g.0 += 1;
                                g.1 += 2;
                                written.fetch_add(1, Ordering::Relaxed);
                                writers.fetch_sub(1, Ordering::SeqCst);
                            }
                        }
                        k => {
                            let r = if k == 2 { l.try_read() } else { Some(l.read()) };
                            if let Some(g) = r {
                                readers.fetch_add(1, Ordering::SeqCst);
                                assert_eq!(writers.load(Ordering::SeqCst), 0);
                                if park {
                                    offshoot::join(|| (), || ());
                                }
                                assert_eq!(g.1, 2 * g.0, "a torn read");
                                readers.fetch_sub(1, Ordering::SeqCst);
                            }
                        }
                    }
                }
            };
            by_tasks_and_threads(&p, &work);
            let w = written.into_inner();
            assert_eq!(l.into_inner(), (w, 2 * w), "{n} workers");
        }
    });
}

/// Tasks parked at once below: fewer under ThreadSanitizer (`scripts/tsan.sh`), whose
/// shadow call stack of a worker (65,536 entries) keeps about 15 entries per parked fiber
/// (the instrumented frames of corosensei's switch, see `tests/parking.rs`): 10,000 fibers
/// split unevenly over two workers overflowed it now and then (a SIGSEGV in
/// `__tsan_func_entry` at a fiber's start). The parking itself is the same code.
const MANY: usize = if cfg!(offshoot_tsan) { 2_000 } else { 10_000 };

#[test]
fn ten_thousand_tasks_parked_at_once_then_all_woken() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let go = Event::new();
            let all_started = Event::new();
            let parked = AtomicUsize::new(0);
            let woke = AtomicUsize::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..MANY {
                        s.spawn(|_| {
                            if parked.fetch_add(1, Ordering::SeqCst) == MANY - 1 {
                                all_started.set(()).unwrap();
                            }
                            go.wait();
                            woke.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                    // Wait (parking too) until every task has started.
                    all_started.wait();
                    assert!(!go.is_set());
                    go.set(()).unwrap();
                });
            });
            assert_eq!(woke.load(Ordering::SeqCst), MANY, "{n} workers");
        }
    });
}

#[test]
fn a_panic_in_a_resumed_task_surfaces_once() {
    install_panic_hook();
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let what = format!("resumed task panics ({n})");
            let msg = panic_message(|| {
                p.run(|| {
                    let e = Event::new();
                    offshoot::scope(|s| {
                        s.spawn(|_| {
                            e.wait();
                            boom(&what);
                        });
                        s.spawn(|_| {
                            e.set(()).unwrap();
                        });
                    });
                })
            });
            assert_eq!(msg, boom_msg(&what));
            assert_eq!(times_raised(&boom_msg(&what)), 1);
        }
    });
}

#[test]
fn promise_put_twice_is_an_error_and_get_sees_the_first_value() {
    let p = Promise::new();
    assert!(p.put(1).is_ok());
    assert_eq!(p.put(2), Err(sync::AlreadyPut(2)));
    assert_eq!(*p.get(), 1);
}

#[test]
fn futures_run_inline_when_not_started_and_park_when_stolen() {
    fn fib(n: u64) -> u64 {
        if n < 2 {
            return n;
        }
        let a = spawn_future(move || fib(n - 1));
        let b = fib(n - 2);
        *a.get() + b
    }
    bounded(|| {
        for n in POOL_SIZES {
            assert_eq!(
                pool(n).run(|| offshoot::finish(|| fib(18))),
                2584,
                "{n} workers"
            );
        }
    });
}

#[test]
fn a_future_can_be_awaited_by_async_code() {
    use std::future::Future;
    use std::task::{Context, Poll, Wake, Waker};
    struct Flag(std::sync::atomic::AtomicBool);
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    bounded(|| {
        let p = pool(2);
        let (tx, rx) = std::sync::mpsc::channel();
        let gate = Arc::new(Event::new());
        let g2 = gate.clone();
        // This thread sets the gate the pool's task waits on: it tells the deadlock watch
        // (from before the task can wait until after the set).
        let outside = ExternalWaker::new();
        std::thread::scope(|s| {
            s.spawn(|| {
                p.run(|| {
                    offshoot::finish(|| {
                        let f = spawn_future(move || {
                            g2.wait();
                            7u32
                        });
                        tx.send(f.clone()).unwrap();
                        f.get();
                    })
                })
            });
            let mut fut = rx.recv().unwrap();
            let flag = Arc::new(Flag(std::sync::atomic::AtomicBool::new(false)));
            let waker = Waker::from(flag.clone());
            let mut cx = Context::from_waker(&waker);
            let first = std::pin::Pin::new(&mut fut).poll(&mut cx);
            assert!(first.is_pending() || first == Poll::Ready(7));
            gate.set(()).unwrap();
            drop(outside);
            // A pending poll registered the waker: it must be called (the watchdog catches
            // a waker that never is).
            while first.is_pending() && !flag.0.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            assert_eq!(std::pin::Pin::new(&mut fut).poll(&mut cx), Poll::Ready(7));
        });
    });
}

#[test]
fn data_driven_task_starts_only_after_all_its_promises() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let out = p.run(|| {
                let (a, b, c) = (
                    Promise::<usize>::new(),
                    Promise::<usize>::new(),
                    Promise::<usize>::new(),
                );
                let seen = Arc::new(AtomicUsize::new(usize::MAX));
                offshoot::finish(|| {
                    let (a2, b2, s2) = (a.clone(), b.clone(), seen.clone());
                    spawn_when(&[&a, &b, &c], move || {
                        s2.store(*a2.get() + *b2.get(), Ordering::SeqCst);
                    });
                    offshoot::finish::spawn(move || a.put(40).unwrap());
                    assert_eq!(seen.load(Ordering::SeqCst), usize::MAX);
                    b.put(2).unwrap();
                    c.put(0).unwrap();
                });
                seen.load(Ordering::SeqCst)
            });
            assert_eq!(out, 42, "{n} workers");
        }
    });
}

/// A data-driven task that becomes ready while the body of its finish waits (parked on a
/// promise that the task puts) goes to the finish's inbox: it must run, also after the
/// body's parked chain was found empty (its other task was taken by a thief) — it used to
/// be stranded there, the body waiting forever.
#[test]
fn a_data_driven_task_fired_while_its_finish_body_waits_runs() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for rep in 0..100u32 {
                let got = p.run(|| {
                    offshoot::finish(|| {
                        let (v, q) = (Promise::new(), Promise::<()>::new());
                        let (v2, q2) = (v.clone(), q.clone());
                        spawn_when(&[&q], move || v2.put(rep).unwrap());
                        offshoot::finish::spawn(move || q2.put(()).unwrap());
                        *v.get()
                    })
                });
                assert_eq!(got, rep, "{n} workers");
            }
        }
    });
}

#[test]
fn semaphore_bounds_concurrency_and_barrier_separates_rounds() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let sem = Semaphore::new(2);
            let inside = AtomicUsize::new(0);
            let bar = Barrier::new(8);
            let phase = AtomicUsize::new(0);
            let leaders = AtomicUsize::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..8 {
                        s.spawn(|_| {
                            for round in 0..3 {
                                {
                                    let _p = sem.acquire();
                                    assert!(inside.fetch_add(1, Ordering::SeqCst) < 2);
                                    inside.fetch_sub(1, Ordering::SeqCst);
                                }
                                phase.fetch_add(1, Ordering::SeqCst);
                                if bar.wait().is_leader() {
                                    leaders.fetch_add(1, Ordering::SeqCst);
                                }
                                assert!(phase.load(Ordering::SeqCst) >= 8 * (round + 1));
                                bar.wait();
                            }
                        });
                    }
                });
            });
            assert_eq!(leaders.load(Ordering::SeqCst), 3, "{n} workers");
        }
    });
}

#[test]
fn condvar_handshake_between_tasks() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let m = Mutex::new(0u32);
            let cv = Condvar::new();
            p.run(|| {
                offshoot::scope(|s| {
                    for i in 0..10u32 {
                        let (m, cv) = (&m, &cv);
                        s.spawn(move |_| {
                            let mut g = cv.wait_while(m.lock(), |v| *v != i);
                            *g += 1;
                            cv.notify_all();
                        });
                    }
                });
            });
            assert_eq!(*m.lock(), 10, "{n} workers");
        }
    });
}

#[test]
fn task_ids_are_stable_across_parking_and_distinct_between_tasks() {
    bounded(|| {
        let p = pool(2);
        p.run(|| {
            let ids = Mutex::new(Vec::new());
            let e = Event::new();
            offshoot::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|_| {
                        let before = sync::task_id();
                        e.wait();
                        assert_eq!(before, sync::task_id());
                        ids.lock().push(before);
                    });
                }
                s.spawn(|_| e.set(()).unwrap());
            });
            let mut v = ids.into_inner();
            v.sort();
            v.dedup();
            assert_eq!(v.len(), 4);
        });
    });
}

/// Random programs mixing joins, locks, promises and channels, against a serial oracle.
#[test]
fn random_mixes_of_joins_locks_promises_and_channels_match_the_oracle() {
    bounded(|| {
        for seed in 0..40u64 {
            let total = |m: Vec<Mutex<u64>>| m.into_iter().map(Mutex::into_inner).sum::<u64>();
            let serial_m: Vec<Mutex<u64>> = (0..7).map(|_| Mutex::new(0)).collect();
            let want = random_mix(&mut Rng::new(seed), 6, &serial_m) + total(serial_m);
            for n in [1, 2, 3] {
                let m: Vec<Mutex<u64>> = (0..7).map(|_| Mutex::new(0)).collect();
                let got = pool(n).run(|| random_mix(&mut Rng::new(seed), 6, &m)) + total(m);
                assert_eq!(got, want, "seed {seed}, {n} workers");
            }
        }
    });
}

#[test]
fn rwlock_readers_share_and_writers_exclude() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let l = offshoot::sync::RwLock::new((0u64, 0u64));
            let readers_in = AtomicUsize::new(0);
            p.run(|| {
                offshoot::par_for(0..400, |i| {
                    if i % 5 == 0 {
                        let mut g = l.write();
                        assert_eq!(readers_in.load(Ordering::SeqCst), 0);
                        g.0 += 1;
                        g.1 += 2;
                    } else {
                        let g = l.read();
                        readers_in.fetch_add(1, Ordering::SeqCst);
                        assert_eq!(g.1, 2 * g.0);
                        readers_in.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            });
            assert_eq!(l.into_inner(), (80, 160), "{n} workers");
        }
    });
}
