//! `EventCount` (waits for a monotone count, no entry kept per reached value) and
//! `Promise::put_same` (an equal re-put is a no-op, an unequal one an error) on 1-4 workers.
#![cfg(feature = "sync")]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use common::{bounded, mix, pool, POOL_SIZES};
use offshoot::sync::{EventCount, Promise, PutConflict};
use offshoot::ThreadPool;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| POOL_SIZES.iter().map(|&n| pool(n)).collect())
}

#[test]
fn waiters_wake_when_the_count_reaches_their_value_and_leave_no_entry() {
    bounded(|| {
        for p in pools() {
            for seed in 0..20u64 {
                let c = EventCount::new();
                // Each waiter records the count it saw on waking; it must be at least its value.
                let woke_low = AtomicU64::new(0);
                let n = 1 + mix(seed) % 40;
                p.run(|| {
                    offshoot::scope(|s| {
                        for i in 0..3 * n {
                            let v = 1 + mix(seed ^ i) % n;
                            let (c, woke_low) = (&c, &woke_low);
                            s.spawn(move |_| {
                                c.wait_until(v);
                                if c.read() < v {
                                    woke_low.fetch_add(1, Ordering::Relaxed);
                                }
                            });
                        }
                        s.spawn(|_| {
                            for _ in 0..n {
                                c.advance();
                            }
                        });
                    })
                });
                assert_eq!(woke_low.into_inner(), 0, "a waiter woke before its value");
                assert_eq!(c.read(), n);
                assert_eq!(c.waiting_values(), 0, "reached values keep no entry");
            }
        }
    });
}

#[test]
fn a_waiter_for_a_value_never_reached_keeps_one_entry() {
    bounded(|| {
        let c = EventCount::new();
        c.advance();
        c.wait_until(1);
        assert_eq!(c.waiting_values(), 0);
        let waiter = std::thread::scope(|s| {
            let h = s.spawn(|| c.wait_until(3));
            while c.waiting_values() == 0 {
                std::thread::yield_now();
            }
            assert_eq!(c.waiting_values(), 1);
            c.advance();
            assert_eq!(c.waiting_values(), 1, "value 3 is not reached at 2");
            c.advance();
            h.join()
        });
        assert!(waiter.is_ok());
        assert_eq!(c.waiting_values(), 0);
    });
}

#[test]
fn racing_equal_puts_are_no_ops_and_unequal_ones_errors() {
    bounded(|| {
        for p in pools() {
            for round in 0..50u64 {
                let pr = Promise::new();
                let conflicts = AtomicU64::new(0);
                p.run(|| {
                    offshoot::par_for(0..64, |i| {
                        // Most put the same answer; a few a different one.
                        let v = if i % 16 == 5 { round + 1 } else { round };
                        if let Err(PutConflict(x)) = pr.put_same(v) {
                            assert_ne!(x, *pr.get());
                            conflicts.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                });
                let got = *pr.get();
                assert!(got == round || got == round + 1);
                // Every put that differs from the stored value failed; every equal one passed.
                let differing = if got == round { 4 } else { 60 };
                assert_eq!(conflicts.into_inner(), differing, "round {round}");
            }
        }
    });
}
