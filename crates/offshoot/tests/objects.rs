//! `sync::Object`, OPA's objects with operations replaced at run time, and the I-store,
//! FIFO and barrier written on it (`sync::opa`): each suspended operation has its own
//! queue (wake-ups counted), a write that fails before its commit replaces nothing,
//! misuse is a clear panic, and callers left waiting for ever are reported by the deadlock
//! watch with the object's and the operation's names. On 1-4 workers.
#![cfg(feature = "sync")]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use common::{bounded, panic_message, payload_str, pool, spin_until, POOL_SIZES};
use offshoot::sync::opa::{Barrier, Fifo, IStore};
use offshoot::sync::{ExternalWaker, Object, Op};
use offshoot::ThreadPool;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| POOL_SIZES.iter().map(|&n| pool(n)).collect())
}

/// Runs `n` tasks `task(i)` in pool `p` (from another thread) while this thread runs
/// `outside`, which typically waits until they wait and then lets them go (holding an
/// `ExternalWaker` meanwhile, so that the deadlock watch knows that the tasks' waits can
/// still end).
fn tasks_while(p: &ThreadPool, n: usize, task: impl Fn(usize) + Sync, outside: impl FnOnce()) {
    let _waker = ExternalWaker::new();
    std::thread::scope(|t| {
        t.spawn(|| {
            p.run(|| {
                offshoot::scope(|s| {
                    for i in 0..n {
                        let task = &task;
                        s.spawn(move |_| task(i));
                    }
                })
            })
        });
        outside();
    });
}

/// Two gates, each a suspended read operation with a write that restores it.
struct Gates {
    o: Object<u32>,
    a: Op<(), u32>,
    b: Op<(), u32>,
    open_a: Op<(), ()>,
    open_b: Op<(), ()>,
}

fn gates() -> Gates {
    let mut bld = Object::builder(0u32).named("gates");
    let (a, b) = (bld.op("a"), bld.op("b"));
    let (open_a, open_b) = (bld.op("open a"), bld.op("open b"));
    bld.read(a, |v, ()| *v).read(b, |v, ()| *v);
    bld.write(open_a, move |c, ()| {
        **c += 1;
        c.restore(a);
    });
    bld.write(open_b, move |c, ()| {
        **c += 10;
        c.restore(b);
    });
    bld.suspended(a).suspended(b);
    Gates {
        o: bld.build(),
        a,
        b,
        open_a,
        open_b,
    }
}

#[test]
fn each_operation_has_its_own_queue() {
    bounded(|| {
        for p in pools() {
            let g = gates();
            let task = |i: usize| {
                // A caller reads at least the version its restoring write published (1 for
                // `a`, 11 for `b`); an `a` caller woken but not yet through when `b` opens
                // reads the later one.
                if i.is_multiple_of(2) {
                    let v = g.o.call(g.a, ());
                    assert!(v == 1 || v == 11, "an `a` caller read {v}");
                } else {
                    assert_eq!(g.o.call(g.b, ()), 11);
                }
            };
            tasks_while(p, 6, task, || {
                assert!(spin_until(|| g.o.waiting(g.a) == 3 && g.o.waiting(g.b) == 3));
                // Restoring `a` wakes its three callers, one after the other, and none of
                // `b`'s.
                g.o.call(g.open_a, ());
                assert!(spin_until(|| g.o.waiting(g.a) == 0 && g.o.woken(g.a) == 3));
                assert_eq!((g.o.woken(g.b), g.o.waiting(g.b)), (0, 3));
                g.o.call(g.open_b, ());
            });
            assert_eq!((g.o.woken(g.a), g.o.woken(g.b)), (3, 3));
        }
    });
}

#[test]
fn a_put_wakes_one_consumer_and_never_a_producer() {
    bounded(|| {
        for p in pools() {
            let q = Fifo::new(1);
            let total = AtomicU64::new(0);
            let task = |_| {
                total.fetch_add(q.get(), Ordering::SeqCst);
            };
            tasks_while(p, 4, task, || {
                assert!(spin_until(|| q.waiting() == (0, 4)));
                // This thread is the only producer: a put into the full queue blocks it
                // until a consumer's get restores `put`.
                for i in 1..=4 {
                    q.put(i);
                }
            });
            assert_eq!(total.load(Ordering::SeqCst), 10);
            // Every put restored `get` and woke exactly one waiting consumer: none was woken
            // for nothing, none by a get; the producer was woken only by gets (at most once
            // per put that found the queue full).
            assert_eq!(q.woken_consumers(), 4);
            assert!(q.woken_producers() <= 3, "{}", q.woken_producers());
        }
    });
}

#[test]
fn fifo_moves_every_item_once() {
    bounded(|| {
        for p in pools() {
            for cap in [1, 2, 5] {
                let q = Fifo::new(cap);
                let (producers, items) = (4u64, 300u64);
                let sum = AtomicU64::new(0);
                p.run(|| {
                    offshoot::scope(|s| {
                        for pr in 0..producers {
                            let q = &q;
                            s.spawn(move |_| (0..items).for_each(|k| q.put((pr, k))));
                        }
                        for _ in 0..3 {
                            s.spawn(|_| {
                                for _ in 0..producers * items / 3 {
                                    let (pr, k) = q.get();
                                    sum.fetch_add(pr * items + k, Ordering::Relaxed);
                                }
                            });
                        }
                    })
                });
                let n = producers * items;
                assert_eq!(sum.load(Ordering::Relaxed), n * (n - 1) / 2, "cap {cap}");
                assert!(q.is_empty());
                // A consumer is woken by a restore of `get` or by the consumer before it,
                // never by anything a producer waits for.
                assert!(q.woken_consumers() <= 2 * n);
                assert!(q.woken_producers() <= 2 * n);
            }
        }
    });
}

#[test]
fn fifo_items_come_out_in_order() {
    bounded(|| {
        for p in pools() {
            let q = Fifo::new(3);
            let got = p.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| (0..500u32).for_each(|i| q.put(i)));
                    (0..500).map(|_| q.get()).collect::<Vec<_>>()
                })
            });
            assert_eq!(got, (0..500).collect::<Vec<_>>());
        }
    });
}

#[test]
fn istore_readers_wait_for_the_one_put() {
    bounded(|| {
        for p in pools() {
            let cell = IStore::named("answer");
            let sum = AtomicU64::new(0);
            let task = |_| {
                sum.fetch_add(cell.get(), Ordering::SeqCst);
            };
            tasks_while(p, 5, task, || {
                assert!(spin_until(|| cell.waiting() == 5));
                assert_eq!(cell.try_get(), None);
                cell.put(7).unwrap();
            });
            assert_eq!(sum.load(Ordering::SeqCst), 35);
            assert_eq!(cell.put(8).unwrap_err().0, 8, "a second put is an error");
            assert_eq!(cell.get(), 7);
        }
    });
}

#[test]
fn barrier_rounds_on_one_to_four_workers() {
    bounded(|| {
        for p in pools() {
            let (parties, rounds) = (5usize, 40usize);
            let b = Barrier::named("rounds", parties);
            let arrived: Vec<AtomicUsize> = (0..rounds).map(|_| AtomicUsize::new(0)).collect();
            let leaders: Vec<AtomicUsize> = (0..rounds).map(|_| AtomicUsize::new(0)).collect();
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..parties {
                        s.spawn(|_| {
                            for r in 0..rounds {
                                arrived[r].fetch_add(1, Ordering::SeqCst);
                                if b.wait() {
                                    leaders[r].fetch_add(1, Ordering::SeqCst);
                                }
                                assert_eq!(
                                    arrived[r].load(Ordering::SeqCst),
                                    parties,
                                    "left round {r} before everyone arrived"
                                );
                            }
                        });
                    }
                })
            });
            assert!(leaders.iter().all(|l| l.load(Ordering::SeqCst) == 1));
        }
    });
}

#[test]
fn a_write_that_fails_before_its_commit_replaces_nothing() {
    bounded(|| {
        for p in pools() {
            let mut bld = Object::builder(0u32);
            let get = bld.op::<(), u32>("get");
            let bad_open = bld.op::<(), ()>("bad open");
            let open = bld.op::<(), ()>("open");
            bld.read(get, |v, ()| *v);
            bld.write(bad_open, move |c, ()| {
                **c = 5;
                c.restore(get);
                panic!("expected: before the commit")
            });
            bld.write(open, move |c, ()| {
                **c += 1;
                c.restore(get);
            });
            bld.suspended(get);
            let o = bld.build();
            let r = catch_unwind(AssertUnwindSafe(|| p.run(|| o.call(bad_open, ()))));
            assert_eq!(
                payload_str(&*r.unwrap_err()),
                Some("expected: before the commit")
            );
            assert_eq!(*o.snapshot(), 0, "the state changed");
            let got = offshoot::sync::Promise::new();
            let got = p.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| got.put(o.call(get, ())).unwrap());
                    // `get` is still suspended: the failed write's restore never happened.
                    offshoot::poll();
                    assert!(got.try_get().is_none(), "a get ran before the restore");
                    o.call(open, ());
                    *got.get()
                })
            });
            assert_eq!(got, 1);
        }
    });
}

/// An object reachable from its own bodies, to call itself.
struct SelfCalling {
    o: Object<u32>,
    w: Op<(), ()>,
    inner: Op<(), ()>,
    shut: Op<(), u32>,
    calls_shut: Op<(), ()>,
    rewires: Op<(), ()>,
}

fn self_calling() -> &'static SelfCalling {
    static S: OnceLock<SelfCalling> = OnceLock::new();
    S.get_or_init(|| {
        let mut b = Object::builder(0u32).named("selfish");
        let w = b.op("w");
        let inner = b.op("inner");
        let shut = b.op("shut");
        let calls_shut = b.op("calls shut");
        let rewires = b.op("rewires");
        b.write(w, |_, ()| {
            let s = self_calling();
            s.o.call(s.inner, ())
        });
        b.write(inner, |c, ()| **c += 1);
        b.read(shut, |v, ()| *v).suspended(shut);
        b.write(calls_shut, |_, ()| {
            let s = self_calling();
            s.o.call(s.shut, ());
        });
        b.write(rewires, |_, ()| {
            let s = self_calling();
            s.o.restore(s.shut);
        });
        SelfCalling {
            o: b.build(),
            w,
            inner,
            shut,
            calls_shut,
            rewires,
        }
    })
}

#[test]
fn misuse_is_a_clear_error() {
    bounded(|| {
        let s = self_calling();
        let m = panic_message(|| s.o.call(s.w, ()));
        assert!(
            m.contains("write operation \"inner\" of object \"selfish\" was called by a write operation of the same object"),
            "{m}"
        );
        let m = panic_message(|| s.o.call(s.calls_shut, ()));
        assert!(
            m.contains("operation \"shut\" of object \"selfish\" is suspended and was called by a write operation of the same object"),
            "{m}"
        );
        let m = panic_message(|| s.o.call(s.rewires, ()));
        assert!(
            m.contains("use the Call's suspend, restore or replace"),
            "{m}"
        );
        // The object is usable afterwards, and unchanged.
        s.o.call(s.inner, ());
        assert_eq!(*s.o.snapshot(), 1);
        // Another object's handle.
        let other = gates();
        let m = panic_message(|| s.o.call(other.a, ()));
        assert!(m.contains("an operation handle of another object"), "{m}");
        // An operation without a body.
        let m = panic_message(|| {
            let mut b = Object::builder(0u8);
            let _ = b.op::<(), ()>("forgotten");
            b.build()
        });
        assert!(
            m.contains("\"forgotten\" was declared but given no body"),
            "{m}"
        );
    });
}

#[test]
fn callers_left_suspended_for_ever_are_reported_with_the_operation() {
    bounded(|| {
        let p = pool(2);
        let mut b = Object::builder(0u32).named("gate");
        let go = b.op::<(), u32>("go");
        let close = b.op::<(), ()>("close");
        b.read(go, |v, ()| *v);
        b.write(close, move |c, ()| c.suspend(go));
        let o = b.build();
        o.call(close, ());
        let m = panic_message(|| p.run(|| o.call(go, ())));
        assert!(m.starts_with("offshoot: deadlock:"), "{m}");
        assert!(
            m.contains("waits on Object::call \"gate\"")
                && m.contains("for operation \"go\" to be restored"),
            "{m}"
        );
        // An I-store nobody writes, read by two tasks.
        let cell = IStore::<u8>::named("never written");
        let m = panic_message(|| p.run(|| offshoot::join(|| cell.get(), || cell.get())));
        assert!(m.starts_with("offshoot: deadlock:"), "{m}");
        assert!(
            m.contains("Object::call \"never written\"") && m.contains("for operation \"get\""),
            "{m}"
        );
    });
}

#[test]
fn outside_a_pool_a_caller_blocks_its_thread() {
    bounded(|| {
        let q = Fifo::new(1);
        std::thread::scope(|t| {
            t.spawn(|| (0..100u64).for_each(|i| q.put(i)));
            let got: u64 = (0..100).map(|_| q.get()).sum();
            assert_eq!(got, 4950);
        });
        let b = Barrier::new(3);
        std::thread::scope(|t| {
            for _ in 0..3 {
                t.spawn(|| {
                    (0..20).for_each(|_| {
                        let _ = b.wait();
                    })
                });
            }
        });
    });
}

#[test]
fn an_exclusive_operation_that_panics_changes_no_route() {
    bounded(|| {
        use std::sync::{Arc, Mutex};
        let mut b = Object::builder(Arc::new(Mutex::new(0u32)));
        let get = b.op::<(), u32>("get");
        let bad = b.op::<(), ()>("bad");
        b.read(get, |v, ()| *v.lock().unwrap());
        b.exclusive(bad, move |c, ()| {
            *c.lock().unwrap() = 5;
            c.suspend(get);
            panic!("expected: an exclusive operation fails")
        });
        let o = b.build();
        let m = panic_message(|| o.call(bad, ()));
        assert!(m.contains("an exclusive operation fails"), "{m}");
        // No copy to drop: what it did in place stays; its suspension never happened.
        assert_eq!(o.call(get, ()), 5);
    });
}

/// The wait handshake without a lock on the restore side (a restore takes the wait lists'
/// mutex only when it finds a caller announced): readers of a gate that a toggler task
/// closes (suspends) and opens (restores) over and over, on 1-4 workers. Against an oracle:
/// every read runs, each after an open and never seeing the count go back, and nobody is
/// left queued. A lost wake-up leaves a reader parked, which the deadlock watch (or the
/// bound) reports.
#[test]
fn readers_racing_suspends_and_restores_are_never_lost() {
    const READERS: usize = 3;
    const READS: u64 = 200;
    const TOGGLES: u64 = 300;
    bounded(|| {
        for p in pools() {
            let mut b = Object::builder(std::sync::Arc::new(AtomicU64::new(0))).named("gate");
            let get = b.op::<(), u64>("get");
            let open = b.op::<(), ()>("open");
            let close = b.op::<(), ()>("close");
            b.read(get, |opened, ()| opened.load(Ordering::SeqCst));
            b.exclusive(open, move |o, ()| {
                o.fetch_add(1, Ordering::SeqCst);
                o.restore(get);
            });
            b.exclusive(close, move |o, ()| o.suspend(get));
            b.suspended(get);
            let gate = b.build();
            let reads = AtomicU64::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..READERS {
                        s.spawn(|_| {
                            let mut last = 0;
                            for _ in 0..READS {
                                let seen = gate.call(get, ());
                                assert!(seen >= 1 && seen >= last, "read {seen} after {last}");
                                last = seen;
                                reads.fetch_add(1, Ordering::SeqCst);
                            }
                        });
                    }
                    s.spawn(|_| {
                        for _ in 0..TOGGLES {
                            gate.call(open, ());
                            offshoot::poll();
                            gate.call(close, ());
                        }
                        gate.call(open, ());
                    });
                })
            });
            assert_eq!(reads.load(Ordering::SeqCst), READERS as u64 * READS);
            assert_eq!(gate.waiting(get), 0);
            assert_eq!(gate.snapshot().load(Ordering::SeqCst), TOGGLES + 1);
        }
    });
}
