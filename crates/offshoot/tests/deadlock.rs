//! Deadlock reports: when every worker is idle and tasks wait on `sync` constructs that
//! nothing running can wake, each such wait panics with a report (`offshoot: deadlock:`)
//! naming the waiting tasks and what they wait on; the panic comes out of `ThreadPool::run`
//! once, and nothing hangs. Equally important: no report while something can still wake
//! the tasks — a busy pool, a contended workload, a thread outside the pool that announced
//! itself with an `ExternalWaker`.
//!
//! The watch is process-wide (a task of one pool may wait on one of another), so a test
//! here is reported only once every pool of this test binary is idle: the tests stay short.
#![cfg(all(feature = "phaser", feature = "sync"))]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{
    bounded, monitor_pop, monitor_push, panic_message, payload_str, pool, random_mix,
    MonitorBuffer, Rng,
};
use offshoot::sync::{
    self, task_id, Barrier, Condvar, Event, ExternalWaker, Monitor, Mutex, Promise, RwLock,
    Semaphore,
};

const DEADLOCK: &str = "offshoot: deadlock:";

/// The address as the report prints it.
fn addr<T: ?Sized>(x: &T) -> String {
    format!("{:#x}", x as *const T as *const () as usize)
}

/// Asserts that `msg` is a deadlock report, with context on failure.
fn assert_report(msg: &str) {
    assert!(msg.starts_with(DEADLOCK), "not a deadlock report: {msg}");
}

/// Two tasks of `p` lock `m1` and `m2` in opposite orders, each holding its first lock
/// until both hold one: the deadlock report, and the two tasks' identities.
fn lock_in_opposite_orders(
    p: &offshoot::ThreadPool,
    m1: &Mutex<u32>,
    m2: &Mutex<u32>,
) -> (String, u64, u64) {
    let bar = Barrier::new(2);
    let (ta, tb) = (AtomicU64::new(0), AtomicU64::new(0));
    let msg = panic_message(|| {
        p.run(|| {
            offshoot::join(
                || {
                    let g1 = m1.lock();
                    ta.store(task_id().as_u64(), Ordering::SeqCst);
                    bar.wait();
                    let g2 = m2.lock();
                    *g1 + *g2
                },
                || {
                    let g2 = m2.lock();
                    tb.store(task_id().as_u64(), Ordering::SeqCst);
                    bar.wait();
                    let g1 = m1.lock();
                    *g1 + *g2
                },
            )
        })
    });
    assert_report(&msg);
    (msg, ta.load(Ordering::SeqCst), tb.load(Ordering::SeqCst))
}

#[test]
fn two_tasks_locking_two_mutexes_in_opposite_orders_are_reported() {
    bounded(|| {
        for n in [1, 2] {
            for rep in 0..3 {
                let p = pool(n);
                let (m1, m2) = (Mutex::new(1u32), Mutex::new(2u32));
                let (msg, a, b) = lock_in_opposite_orders(&p, &m1, &m2);
                assert_ne!(a, b, "the two sides ran as one task");
                let (a1, a2) = (addr(&m1), addr(&m2));
                for want in [
                    format!("task {a} "),
                    format!("task {b} "),
                    format!("Mutex {a1}, held by task {a}"),
                    format!("Mutex {a2}, held by task {b}"),
                ] {
                    assert!(
                        msg.contains(&want),
                        "{n} workers, rep {rep}: the report lacks {want:?}:\n{msg}"
                    );
                }
                // The tasks unwound: their guards released both locks.
                assert!(m1.try_lock().is_some() && m2.try_lock().is_some());
                // The pool still works.
                assert_eq!(p.run(|| offshoot::join(|| 1, || 2)), (1, 2));
            }
        }
    })
}

#[test]
fn a_promise_nobody_puts_is_reported() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let never = Promise::<u32>::new();
            let msg = panic_message(|| p.run(|| *never.get()));
            assert_report(&msg);
            let want = format!("Promise {}", addr(never.event()));
            assert!(msg.contains(&want), "the report lacks {want:?}:\n{msg}");
            // The waiter was taken off the promise: a put now wakes nobody and works.
            never.put(1).unwrap();
            assert_eq!(p.run(|| *never.get()), 1);
        }
    })
}

/// Depth `depth` of joins, then a join whose first closure waits for a promise that its
/// second puts.
fn consumer_before_producer(depth: u32, p: &Promise<u64>) -> u64 {
    if depth == 0 {
        return offshoot::join(|| *p.get(), || p.put(7).unwrap()).0;
    }
    let (a, b) = offshoot::join(|| consumer_before_producer(depth - 1, p), || 1);
    a + b
}

/// The same with the producer started as a task.
fn producer_as_a_task(depth: u32, p: &Promise<u64>) -> u64 {
    if depth == 0 {
        return offshoot::scope(|s| {
            s.spawn(|_| p.put(7).unwrap());
            *p.get()
        });
    }
    let (a, b) = offshoot::join(|| producer_as_a_task(depth - 1, p), || 1);
    a + b
}

/// A join's second closure may start only after its first returns (past the seed limit
/// the join plants no seed): a first closure that waits for its second is reported, and
/// the report says why and what to do. Started as a task, the producer is always offered.
#[test]
fn a_join_whose_first_closure_waits_for_its_second_is_reported_with_the_reason() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            // 40 joins deep: on one worker the last join plants no seed, so the consumer
            // waits for ever. On two, the thief may take a seed at each of the owner's
            // polls, so the last join may plant one after all (then the producer runs and
            // the call returns 40 + 7); when it plants none, the report carries the hint
            // (the chain held the limit when it parked, or when a poll handed a seed out).
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.run(|| consumer_before_producer(40, &Promise::new()))
            }));
            match r {
                Ok(v) if n > 1 => assert_eq!(v, 47),
                Ok(v) => panic!("one worker: the consumer was expected to wait for ever, got {v}"),
                Err(e) => {
                    let msg = payload_str(&*e).expect("a string payload");
                    assert_report(msg);
                    assert!(
                        msg.contains("inside joins that planted no seed")
                            && msg.contains("s.spawn"),
                        "the report lacks the join hint:\n{msg}"
                    );
                }
            }
            assert_eq!(p.run(|| producer_as_a_task(12, &Promise::new())), 19);
            // A promise nobody puts, reached through no join: no join hint.
            let never = Promise::<u32>::new();
            let msg = panic_message(|| p.run(|| *never.get()));
            assert!(!msg.contains("planted no seed"), "{msg}");
            never.put(1).unwrap();
        }
    })
}

/// Imam's thesis Fig. 2.13: a cycle of data-driven tasks, each declared to run once the previous one
/// has put its promise. None can start, none is parked (a pending task holds no fiber):
/// Imam's thesis §2.4 counts them as blocked, and the report names all three and the promise each
/// waits on; the finish that waits for them fails with it instead of hanging. A lone
/// data-driven task on a promise nobody puts is reported the same way, and one whose
/// promise a long serial task puts later is not.
#[test]
fn a_cycle_of_data_driven_tasks_is_reported() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let d: Vec<Promise<u32>> = (0..3).map(|_| Promise::new()).collect();
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::finish(|| {
                        for i in 0..3 {
                            let (mine, next) = (d[i].clone(), d[(i + 1) % 3].clone());
                            sync::spawn_when(&[&d[i]], move || {
                                next.put(*mine.get() + 1).unwrap();
                            });
                        }
                    })
                })
            });
            assert_report(&msg);
            // (Other tests' waits may be in the same report: the watch is process-wide.)
            for promise in &d {
                let want = format!("not started) waits on Promise {}", addr(promise.event()));
                assert!(
                    msg.contains(&want),
                    "{n} workers: the report lacks {want:?}:\n{msg}"
                );
            }
            // The failed tasks are gone: putting the promises now starts nothing.
            for promise in &d {
                promise.put(0).unwrap();
            }

            // One task on two promises, one of them put: the report names the other.
            let (put, never) = (Promise::<u32>::new(), Promise::<u32>::new());
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::finish(|| {
                        put.put(1).unwrap();
                        sync::spawn_when(&[&put, &never], || unreachable!("never ready"));
                    })
                })
            });
            assert_report(&msg);
            let want = format!("waits on Promise {}\n", addr(never.event()));
            assert!(
                msg.contains(&want),
                "{n} workers: the report lacks {want:?}:\n{msg}"
            );
            assert!(
                !msg.contains(&addr(put.event())),
                "{n} workers: a put promise is not waited on:\n{msg}"
            );

            // Not a deadlock: the dependency is put by a task that runs a while first.
            let late = Promise::<u64>::new();
            let got = std::sync::Arc::new(AtomicU64::new(0));
            p.run(|| {
                offshoot::finish(|| {
                    let (late2, got2) = (late.clone(), got.clone());
                    sync::spawn_when(&[&late], move || got2.store(*late2.get(), Ordering::SeqCst));
                    let late = late.clone();
                    offshoot::finish::spawn(move || {
                        let start = Instant::now();
                        let mut x = 0u64;
                        while start.elapsed() < Duration::from_millis(30) {
                            x = std::hint::black_box(x.wrapping_add(1));
                        }
                        late.put(x.max(1)).unwrap();
                    });
                })
            });
            assert!(got.load(Ordering::SeqCst) > 0, "{n} workers");
        }
    })
}

/// Waits across pools: a task of pool `a` that enters pool `b` (`b.run`) and waits there
/// forever, and pools waiting on each other (`a` → `b` → `a`, the innermost task waiting
/// forever), are reported like waits inside one pool: the report names the
/// `ThreadPool::run` waits and the stuck wait, whose panic comes back out of every `run`.
#[test]
fn waits_across_pools_are_reported() {
    bounded(|| {
        for n in [1, 2] {
            let (a, b) = (pool(n), pool(n));
            let never = Promise::<u32>::new();
            let msg = panic_message(|| a.run(|| b.run(|| *never.get())));
            assert_report(&msg);
            for want in ["ThreadPool::run", "Promise"] {
                assert!(msg.contains(want), "the report lacks {want:?}:\n{msg}");
            }

            let never = Event::<()>::new();
            let msg = panic_message(|| a.run(|| b.run(|| a.run(|| never.wait()))));
            assert_report(&msg);
            assert_eq!(
                msg.matches("ThreadPool::run").count(),
                2,
                "the report lacks a pool's wait:\n{msg}"
            );
            assert!(msg.contains("Event"), "{msg}");
            // Both pools still work.
            assert_eq!(a.run(|| b.run(|| offshoot::join(|| 1, || 2))), (1, 2));
        }
    })
}

/// Each construct names itself (and, for locks and monitors, the holder) in the report.
#[test]
fn every_kind_of_wait_is_named_in_the_report() {
    bounded(|| {
        let p = pool(2);
        let never = Promise::<u32>::new();
        let unset = Event::<()>::new();
        // Both channel ends stay alive out here: the waits inside never end on their own.
        let (tx, rx) = sync::unbounded::<u32>();
        let (full_tx, full_rx) = sync::bounded::<u32>(1);
        full_tx.send(0).unwrap();
        let m = Mutex::new(0u32);
        let mon = Monitor::new(());
        let quiet = Monitor::new(());
        let cv = Condvar::new();
        let sem = Semaphore::new(0);
        let bar = Barrier::new(3);
        let rw = RwLock::new(0u32);
        let body = AtomicU64::new(0);
        let msg = panic_message(|| {
            p.run(|| {
                offshoot::scope(|s| {
                    body.store(task_id().as_u64(), Ordering::SeqCst);
                    let _m = m.lock();
                    let _mon = mon.enter();
                    let _r = rw.read();
                    s.spawn(|_| {
                        never.get();
                    });
                    s.spawn(|_| *unset.wait());
                    s.spawn(|_| {
                        let _ = rx.recv();
                    });
                    s.spawn(|_| {
                        let _ = full_tx.send(1);
                    });
                    s.spawn(|_| drop(m.lock()));
                    s.spawn(|_| drop(mon.enter()));
                    s.spawn(|_| quiet.enter().wait());
                    s.spawn(|_| {
                        let own = Mutex::new(());
                        drop(cv.wait(own.lock()));
                    });
                    s.spawn(|_| drop(sem.acquire()));
                    s.spawn(|_| {
                        bar.wait();
                    });
                    s.spawn(|_| drop(rw.write()));
                    // The body waits too, holding the mutex, the monitor and a read lock.
                    never.get();
                })
            })
        });
        assert_report(&msg);
        let b = body.load(Ordering::SeqCst);
        for want in [
            format!("Promise {}", addr(never.event())),
            format!("Event {}", addr(&unset)),
            "Channel::recv ".to_string(),
            "Channel::send ".to_string(),
            format!("Mutex {}, held by task {b}", addr(&m)),
            format!("Monitor {}, held by task {b}", addr(&mon)),
            format!("Monitor::wait {}", addr(&quiet)),
            format!("Condvar {}", addr(&cv)),
            format!("Semaphore {}", addr(&sem)),
            format!("Barrier {}", addr(&bar)),
            format!("RwLock::write {}", addr(&rw)),
            format!("task {b} "),
        ] {
            assert!(msg.contains(&want), "the report lacks {want:?}:\n{msg}");
        }
        // (Tests of this binary that deadlock at the same time share one report.)
        // Everything was released while the tasks unwound.
        assert!(m.try_lock().is_some());
        p.run(|| {
            drop(rw.write());
            drop(mon.enter());
        });
        drop((tx, full_rx));
    })
}

/// A thread outside the pool that announced itself sets the value the pool's only task
/// waits on, well after the pool has gone idle: no report.
#[test]
fn an_outside_thread_holding_an_external_waker_is_waited_for() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            for rep in 0..3 {
                let value = Promise::new();
                let (ready_tx, ready_rx) = std::sync::mpsc::channel();
                // Announced before the pool can wait for the thread.
                let guard = ExternalWaker::new();
                let v2 = value.clone();
                let setter = std::thread::spawn(move || {
                    ready_rx.recv().unwrap();
                    // Not needed for correctness: it leaves the pool idle for a while, so
                    // that a watch ignoring the guard would report the wait.
                    std::thread::sleep(Duration::from_millis(20));
                    v2.put(rep).unwrap();
                    drop(guard);
                });
                let got = p.run(|| {
                    ready_tx.send(()).unwrap();
                    *value.get()
                });
                assert_eq!(got, rep, "{n} workers");
                setter.join().unwrap();
            }
        }
    })
}

/// With the watch off, a pool leaves a wait alone even when the pool is idle and nothing
/// announced the outside thread that ends it.
#[test]
fn a_pool_without_the_watch_waits_for_an_unannounced_outside_thread() {
    bounded(|| {
        let p = offshoot::ThreadPool::builder()
            .workers(2)
            .deadlock_detection(false)
            .build()
            .unwrap();
        let value = Promise::new();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let v2 = value.clone();
        let setter = std::thread::spawn(move || {
            ready_rx.recv().unwrap();
            std::thread::sleep(Duration::from_millis(20));
            v2.put(5u32).unwrap();
        });
        let got = p.run(|| {
            ready_tx.send(()).unwrap();
            *value.get()
        });
        assert_eq!(got, 5);
        setter.join().unwrap();
    })
}

/// A task that runs a long serial loop (no poll) is awake all along: the tasks waiting for
/// it are not reported, on one worker (where the loop runs on the waiter's own worker) and
/// on more (where the other workers are idle meanwhile).
#[test]
fn tasks_waiting_for_a_long_serial_loop_are_not_reported() {
    bounded(|| {
        for n in [1, 2, 3] {
            let p = pool(n);
            let done = Promise::new();
            let (got, ()) = p.run(|| {
                offshoot::join(
                    || *done.get(),
                    || {
                        let start = Instant::now();
                        let mut x = 0u64;
                        while start.elapsed() < Duration::from_millis(30) {
                            x = std::hint::black_box(x.wrapping_add(1));
                        }
                        done.put(x.max(1)).unwrap();
                    },
                )
            });
            assert!(got > 0, "{n} workers");
        }
    })
}

/// Heavily contended waits of every kind, for a while (seconds), on pools of 1 to 3 workers
/// — workers go idle and wake up all the time, each time running the watch — and
/// tasks of one pool waiting on values that tasks of another pool put: never a report.
#[test]
fn contended_workloads_are_never_reported() {
    bounded(|| {
        for seed in 0..200u64 {
            let n = 1 + (seed % 3) as usize;
            let m: Vec<Mutex<u64>> = (0..8).map(|_| Mutex::new(0)).collect();
            let serial_m: Vec<Mutex<u64>> = (0..8).map(|_| Mutex::new(0)).collect();
            let want = random_mix(&mut Rng::new(seed), 7, &serial_m);
            assert_eq!(pool(n).run(|| random_mix(&mut Rng::new(seed), 7, &m)), want);
        }
        for n in [1, 2, 3] {
            let p = pool(n);
            for _ in 0..10 {
                contended_waits(&p);
            }
        }
        // A task of pool `a` waits inside pool `b` for a value that another task of `a`
        // puts (pool `a` needs two workers: one waits in `b.run`).
        let (a, b) = (pool(2), pool(2));
        for rep in 0..20u64 {
            let v = Promise::new();
            let (got, ()) = a.run(|| {
                offshoot::join(
                    || b.run(|| *v.get()),
                    || {
                        offshoot::par_for(0..1000, |_| offshoot::poll());
                        v.put(rep).unwrap();
                    },
                )
            });
            assert_eq!(got, rep);
        }
    })
}

/// Many tasks waiting on each other in every way that cannot deadlock: producers and
/// consumers over a small bounded channel and over a monitor-guarded buffer, a semaphore
/// around a mutex, a condition variable handing a counter from task to task in order, and
/// barrier rounds.
fn contended_waits(p: &offshoot::ThreadPool) {
    const ITEMS: u64 = 100;
    let (tx, rx) = sync::bounded::<u64>(2);
    let received = Mutex::new(0u64);
    let buf: MonitorBuffer<u64> = Monitor::new(Default::default());
    let taken = Mutex::new(0u64);
    let sem = Semaphore::new(2);
    let count = Mutex::new(0u64);
    let turn = Mutex::new(0u64);
    let cv = Condvar::new();
    let bar = Barrier::new(6);
    p.run(|| {
        offshoot::scope(|s| {
            for _ in 0..4 {
                let tx = tx.clone();
                s.spawn(move |_| (0..ITEMS).for_each(|i| tx.send(i).unwrap()));
            }
            drop(tx);
            for _ in 0..3 {
                let (rx, received) = (&rx, &received);
                s.spawn(move |_| *received.lock() += rx.iter().count() as u64);
            }
            for _ in 0..3 {
                s.spawn(|_| (0..ITEMS).for_each(|i| monitor_push(&buf, 2, i)));
                s.spawn(|_| {
                    for _ in 0..ITEMS {
                        monitor_pop(&buf);
                        *taken.lock() += 1;
                    }
                });
            }
            for _ in 0..6 {
                s.spawn(|_| {
                    for _ in 0..ITEMS {
                        let _p = sem.acquire();
                        *count.lock() += 1;
                    }
                });
            }
            for t in 0..8u64 {
                let (turn, cv) = (&turn, &cv);
                s.spawn(move |_| {
                    for round in 0..10 {
                        let mut g = cv.wait_while(turn.lock(), |v| *v != round * 8 + t);
                        *g += 1;
                        cv.notify_all();
                    }
                });
            }
            for _ in 0..6 {
                s.spawn(|_| {
                    for _ in 0..20 {
                        bar.wait();
                    }
                });
            }
        });
    });
    assert_eq!(received.into_inner(), 4 * ITEMS);
    assert_eq!(taken.into_inner(), 3 * ITEMS);
    assert_eq!(count.into_inner(), 6 * ITEMS);
    assert_eq!(turn.into_inner(), 80);
}

/// Named objects: the report prints the name, quoted, before the address
/// (`Promise "name" (0x…)`). A cycle of three data-driven tasks on named promises (Imam's thesis
/// Fig. 2.13) names each promise.
#[test]
fn a_cycle_of_data_driven_tasks_on_named_promises_names_each_promise() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let names = ["config loaded", "cache warm", "peers known"];
            let d: Vec<Promise<u32>> = names.iter().map(|&s| Promise::named(s)).collect();
            let msg = panic_message(|| {
                p.run(|| {
                    offshoot::finish(|| {
                        for i in 0..3 {
                            let (mine, next) = (d[i].clone(), d[(i + 1) % 3].clone());
                            sync::spawn_when(&[&d[i]], move || {
                                next.put(*mine.get() + 1).unwrap();
                            });
                        }
                    })
                })
            });
            assert_report(&msg);
            for (promise, name) in d.iter().zip(names) {
                let want = format!(
                    "not started) waits on Promise {name:?} ({})",
                    addr(promise.event())
                );
                assert!(
                    msg.contains(&want),
                    "{n} workers: the report lacks {want:?}:\n{msg}"
                );
            }
            for promise in &d {
                promise.put(0).unwrap();
            }
        }
    })
}

/// Two named mutexes locked in opposite orders: each wait names its mutex and its holder.
#[test]
fn named_mutexes_locked_in_opposite_orders_are_reported_by_name() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let (m1, m2) = (Mutex::named("accounts", 1u32), Mutex::named("ledger", 2u32));
            let (msg, a, b) = lock_in_opposite_orders(&p, &m1, &m2);
            for want in [
                format!(
                    "waits on Mutex \"accounts\" ({}), held by task {a}",
                    addr(&m1)
                ),
                format!(
                    "waits on Mutex \"ledger\" ({}), held by task {b}",
                    addr(&m2)
                ),
            ] {
                assert!(
                    msg.contains(&want),
                    "{n} workers: the report lacks {want:?}:\n{msg}"
                );
            }
            assert!(m1.try_lock().is_some() && m2.try_lock().is_some());
        }
    })
}

/// Every kind of object that can be named shows its name in the report; a name with a
/// quote in it is escaped as `{:?}` writes it.
#[test]
fn every_kind_of_named_wait_shows_its_name() {
    bounded(|| {
        let p = pool(2);
        let never = Promise::<u32>::named("answer");
        let unset = Event::<()>::named("go \"now\"");
        let (_tx, rx) = sync::unbounded_named::<u32>("inbox");
        let (full_tx, _full_rx) = sync::bounded_named::<u32>("outbox", 1);
        full_tx.send(0).unwrap();
        let m = Mutex::named("m", 0u32);
        let mon = Monitor::named("mon", ());
        let quiet = Monitor::named("quiet", ());
        let cv = Condvar::named("cv");
        let sem = Semaphore::named("sem", 0);
        let bar = Barrier::named("bar", 2);
        let rw = RwLock::named("rw", 0u32);
        let count = sync::EventCount::named("count");
        let ph = offshoot::phaser::Phaser::named("ph");
        let msg = panic_message(|| {
            p.run(|| {
                offshoot::scope(|s| {
                    let _m = m.lock();
                    let _mon = mon.enter();
                    let _r = rw.read();
                    // A member that never signals holds the phase back.
                    let _idle = ph.register(offshoot::phaser::Mode::SigWait);
                    let mut waiter = ph.register(offshoot::phaser::Mode::SigWait);
                    s.spawn(|_| {
                        never.get();
                    });
                    s.spawn(|_| *unset.wait());
                    s.spawn(|_| {
                        let _ = rx.recv();
                    });
                    s.spawn(|_| {
                        let _ = full_tx.send(1);
                    });
                    s.spawn(|_| drop(m.lock()));
                    s.spawn(|_| drop(mon.enter()));
                    s.spawn(|_| quiet.enter().wait());
                    s.spawn(|_| {
                        let own = Mutex::new(());
                        drop(cv.wait(own.lock()));
                    });
                    s.spawn(|_| drop(sem.acquire()));
                    s.spawn(|_| {
                        bar.wait();
                    });
                    s.spawn(|_| drop(rw.write()));
                    s.spawn(|_| count.wait_until(1));
                    s.spawn(move |_| waiter.next());
                    never.get();
                })
            })
        });
        assert_report(&msg);
        for want in [
            format!("Promise \"answer\" ({})", addr(never.event())),
            format!("Event \"go \\\"now\\\"\" ({})", addr(&unset)),
            "Channel::recv \"inbox\" (0x".to_string(),
            "Channel::send \"outbox\" (0x".to_string(),
            format!("Mutex \"m\" ({}), held by task", addr(&m)),
            format!("Monitor \"mon\" ({}), held by task", addr(&mon)),
            format!("Monitor::wait \"quiet\" ({})", addr(&quiet)),
            format!("Condvar \"cv\" ({})", addr(&cv)),
            format!("Semaphore \"sem\" ({})", addr(&sem)),
            format!("Barrier \"bar\" ({})", addr(&bar)),
            format!("RwLock::write \"rw\" ({})", addr(&rw)),
            format!("EventCount \"count\" ({})", addr(&count)),
            "Phaser \"ph\" (0x".to_string(),
        ] {
            assert!(msg.contains(&want), "the report lacks {want:?}:\n{msg}");
        }
    })
}

/// How a thread outside the pool holds a lock that the pool's tasks then contend for.
#[derive(Clone, Copy, Debug)]
enum Held {
    Mutex,
    Monitor,
    /// The thread writes; the tasks read.
    RwWrite,
    /// The thread reads; the tasks write.
    RwRead,
}

/// The locks of one [`Held`] case, shared by the thread and the tasks.
struct Locks {
    mutex: Mutex<u64>,
    monitor: Monitor<std::cell::Cell<u64>>,
    rw: RwLock<u64>,
}

/// A guard of one of [`Locks`], held until dropped.
#[allow(dead_code)] // held for its drop only
enum Guard<'a> {
    Mutex(sync::MutexGuard<'a, u64>),
    Monitor(sync::MonitorGuard<'a, std::cell::Cell<u64>>),
    Write(sync::RwLockWriteGuard<'a, u64>),
    Read(sync::RwLockReadGuard<'a, u64>),
}

/// Takes the lock as the thread does in case `how`, and returns its guard.
fn hold(how: Held, l: &Locks) -> Guard<'_> {
    match how {
        Held::Mutex => Guard::Mutex(l.mutex.lock()),
        Held::Monitor => Guard::Monitor(l.monitor.enter()),
        Held::RwWrite => Guard::Write(l.rw.write()),
        Held::RwRead => Guard::Read(l.rw.read()),
    }
}

/// Takes the lock as the tasks do in case `how`, and adds one to its value when it may.
fn contend(how: Held, l: &Locks) -> u64 {
    match how {
        Held::Mutex => {
            let mut g = l.mutex.lock();
            *g += 1;
            *g
        }
        Held::Monitor => {
            let g = l.monitor.enter();
            g.set(g.get() + 1);
            g.get()
        }
        Held::RwWrite => *l.rw.read(),
        Held::RwRead => {
            let mut g = l.rw.write();
            *g += 1;
            *g
        }
    }
}

/// A thread outside the pool that holds a lock, without an `ExternalWaker`, while the
/// pool's tasks queue for it and every worker goes idle: the watch sees that the lock's
/// holder is a thread that is not blocked in offshoot, so it reports nothing, and the tasks
/// get the lock once the thread lets it go. (Before the watch read lock holders, an OS
/// thread preempted while it held such a lock made the watch report a deadlock.)
#[test]
fn locks_held_by_an_unannounced_outside_thread_are_waited_for() {
    bounded(|| {
        for how in [Held::Mutex, Held::Monitor, Held::RwWrite, Held::RwRead] {
            for n in [1, 2] {
                let p = pool(n);
                let locks = std::sync::Arc::new(Locks {
                    mutex: Mutex::new(0),
                    monitor: Monitor::new(std::cell::Cell::new(0)),
                    rw: RwLock::new(0),
                });
                let (held_tx, held_rx) = std::sync::mpsc::channel();
                let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
                let l2 = locks.clone();
                let holder = std::thread::spawn(move || {
                    let g = hold(how, &l2);
                    held_tx.send(()).unwrap();
                    go_rx.recv().unwrap();
                    // Not needed for correctness: it leaves the tasks parked on the lock
                    // and every worker idle for a while, so that a watch that ignored the
                    // holder would report them.
                    std::thread::sleep(Duration::from_millis(30));
                    drop(g);
                });
                held_rx.recv().unwrap();
                let got = p.run(|| {
                    go_tx.send(()).unwrap();
                    let (a, (b, c)) = offshoot::join(
                        || contend(how, &locks),
                        || offshoot::join(|| contend(how, &locks), || contend(how, &locks)),
                    );
                    a.max(b).max(c)
                });
                holder.join().unwrap();
                let want = if matches!(how, Held::RwWrite) { 0 } else { 3 };
                assert_eq!(got, want, "{how:?} on {n} workers");
            }
        }
    })
}

/// A thread that holds a lock across `ThreadPool::run` of a job that waits for that lock
/// waits for ever, and so does the job: the watch sees that the holder is blocked in
/// offshoot, and reports the task's wait, naming the thread (or, for a read share, which
/// a lock counts but does not name, saying that a blocked outside thread reads it).
#[test]
fn a_lock_held_across_run_of_a_job_that_waits_for_it_is_reported() {
    bounded(|| {
        for how in [Held::Mutex, Held::Monitor, Held::RwWrite, Held::RwRead] {
            for n in [1, 2] {
                let p = pool(n);
                let locks = Locks {
                    mutex: Mutex::new(0),
                    monitor: Monitor::new(std::cell::Cell::new(0)),
                    rw: RwLock::new(0),
                };
                let g = hold(how, &locks);
                let msg = panic_message(|| p.run(|| contend(how, &locks)));
                drop(g);
                assert_report(&msg);
                let me = task_id().as_u64();
                let want = match how {
                    Held::RwRead => "read by 1 thread outside the pools".to_string(),
                    _ => format!("held by thread {me} outside the pools"),
                };
                assert!(
                    msg.contains(&want),
                    "{how:?} on {n} workers: the report lacks {want:?}: {msg}"
                );
            }
        }
    })
}

/// A thread outside the pool and a task lock two mutexes in opposite orders: the thread
/// blocks on the task's mutex (recording itself blocked) and the task parks on the
/// thread's. Whichever parks last, the watch reports the task's wait (the task's unwinding
/// then releases its mutex and the thread goes on).
#[test]
fn an_outside_thread_and_a_task_locking_in_opposite_orders_are_reported() {
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let m = std::sync::Arc::new((Mutex::new(1u64), Mutex::new(2u64)));
            let (held_tx, held_rx) = std::sync::mpsc::channel();
            let (task_tx, task_rx) = std::sync::mpsc::channel::<()>();
            let m2 = m.clone();
            let thread = std::thread::spawn(move || {
                let g1 = m2.0.lock();
                held_tx.send(task_id().as_u64()).unwrap();
                task_rx.recv().unwrap();
                let g2 = m2.1.lock();
                *g1 + *g2
            });
            let thread_id = held_rx.recv().unwrap();
            let msg = panic_message(|| {
                p.run(|| {
                    let g2 = m.1.lock();
                    task_tx.send(()).unwrap();
                    let g1 = m.0.lock();
                    *g1 + *g2
                })
            });
            assert_report(&msg);
            assert!(
                msg.contains(&format!("held by thread {thread_id} outside the pools")),
                "{n} workers: {msg}"
            );
            assert_eq!(thread.join().unwrap(), 3, "{n} workers");
        }
    })
}

/// Two threads outside the pool read a lock that the pool's task waits to write: one is
/// blocked in `run` of that task, the other is free and lets its share go later. No report
/// while the free reader holds its share; once it lets go, only the blocked reader is left,
/// and the watch (asked by the release, since no worker goes idle again) reports the wait.
#[test]
fn a_lock_read_by_a_blocked_and_a_free_outside_thread_is_reported_once_only_the_blocked_one_reads()
{
    bounded(|| {
        for n in [1, 2] {
            let p = pool(n);
            let lock = std::sync::Arc::new(RwLock::new(5u64));
            let (held_tx, held_rx) = std::sync::mpsc::channel();
            let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
            let l2 = lock.clone();
            let reader = std::thread::spawn(move || {
                let g = l2.read();
                held_tx.send(()).unwrap();
                go_rx.recv().unwrap();
                // Not needed for correctness: the task waits, every worker idle, while
                // this free reader holds its share, which a watch must not report.
                std::thread::sleep(Duration::from_millis(30));
                drop(g);
            });
            held_rx.recv().unwrap();
            let mine = lock.read();
            let msg = panic_message(|| {
                p.run(|| {
                    go_tx.send(()).unwrap();
                    *lock.write() += 1;
                })
            });
            drop(mine);
            reader.join().unwrap();
            assert_report(&msg);
            assert!(
                msg.contains("read by 1 thread outside the pools"),
                "{n} workers: {msg}"
            );
            assert_eq!(*lock.read(), 5, "the write never happened");
        }
    })
}

#[test]
fn the_report_names_where_each_wait_was_called() {
    bounded(|| {
        let p = pool(2);
        let never = Promise::<u32>::new();
        let m = Mutex::new(0u32);
        let ph = offshoot::phaser::Phaser::new();
        let mut member = ph.register(offshoot::phaser::Mode::SigWait);
        // Never signals while the report is made: phase 0 cannot end.
        let _late = member.child(offshoot::phaser::Mode::SigWait);
        let line_get = line!() + 7;
        let line_lock = line!() + 10;
        let line_next = line!() + 11;
        let msg = panic_message(move || {
            p.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        let _ = *never.get();
                    });
                    s.spawn(|_| {
                        let _g = m.lock();
                        let _h = m.lock(); // not reentrant: waits for itself
                    });
                    s.spawn(move |_| member.next());
                })
            })
        });
        assert_report(&msg);
        for line in [line_get, line_lock, line_next] {
            let want = format!("; called at {}:{line}:", file!());
            assert!(msg.contains(&want), "the report lacks {want:?}:\n{msg}");
        }
    });
}
