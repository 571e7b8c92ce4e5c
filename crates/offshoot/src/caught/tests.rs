//! A panic that comes before a eureka's resolution wins, in every construct that holds a
//! panic while the rest of it ends. Each test orders the two events exactly, without
//! timing: the side that resolves waits (without polling, which would stop it) until its
//! worker's stop bit is raised — which the runtime does only after it caught the panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::time::{Duration, Instant};

use crate::eureka::{self, Eureka, Search};
use crate::worker::Worker;
use crate::ThreadPool;

/// A pool of two workers of the test's own: each side below occupies a worker.
fn pool2() -> ThreadPool {
    ThreadPool::builder().workers(2).build().unwrap()
}

/// Spins until this worker's stop bit is raised, without taking it (no poll).
fn wait_for_stop_bit() {
    let t0 = Instant::now();
    loop {
        let w = Worker::current();
        assert!(!w.is_null(), "runs on a worker");
        // SAFETY: the current worker is run by this thread.
        if unsafe { (*w).stop_raised() } {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no stop reached this worker after the other side panicked"
        );
        std::hint::spin_loop();
    }
}

/// Polls until `flag` is set (so that this worker answers the request for the other side).
fn poll_until(flag: &AtomicBool) {
    let t0 = Instant::now();
    while !flag.load(SeqCst) {
        crate::poll();
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the other side never started on another worker"
        );
        std::hint::spin_loop();
    }
}

/// Spins until `flag` is set, without polling.
fn spin_until(flag: &AtomicBool) {
    let t0 = Instant::now();
    while !flag.load(SeqCst) {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the other side never got there"
        );
        std::hint::spin_loop();
    }
}

/// Runs `region` in a eureka region on two workers; it must panic with "first failure",
/// after the search was resolved with 2.
fn expect_first_failure(region: impl Fn(&Search<u32>) + Sync) {
    let pool = pool2();
    for _ in 0..20 {
        let s = Search::new();
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.run(|| eureka::finish(&s, || region(&s)))
        }));
        let p = r.expect_err("the panic before the resolution was lost");
        assert_eq!(
            p.downcast_ref::<&str>().copied(),
            Some("first failure"),
            "another payload came out"
        );
        assert_eq!(s.get(), Some(&2), "the resolution happened too");
    }
}

#[test]
fn join_owner_panics_then_thief_resolves() {
    expect_first_failure(|s| {
        let b_ran = AtomicBool::new(false);
        crate::join(
            || {
                poll_until(&b_ran);
                panic!("first failure")
            },
            || {
                b_ran.store(true, SeqCst);
                wait_for_stop_bit();
                s.offer(2);
            },
        );
    });
}

#[test]
fn join_thief_panics_then_owner_resolves() {
    expect_first_failure(|s| {
        let (b_ran, a_saw) = (AtomicBool::new(false), AtomicBool::new(false));
        crate::join(
            || {
                poll_until(&b_ran);
                // No poll from here on: one after `b`'s panic would stop this side.
                a_saw.store(true, SeqCst);
                wait_for_stop_bit();
                s.offer(2);
            },
            || {
                b_ran.store(true, SeqCst);
                spin_until(&a_saw);
                panic!("first failure")
            },
        );
    });
}

#[test]
fn scope_task_panics_then_sibling_resolves() {
    expect_first_failure(|s| {
        let started = AtomicBool::new(false);
        crate::scope(|sc| {
            sc.spawn(|_| {
                started.store(true, SeqCst);
                wait_for_stop_bit();
                s.offer(2);
            });
            poll_until(&started);
            panic!("first failure")
        });
    });
}

#[test]
fn nested_finish_task_panics_then_sibling_resolves() {
    expect_first_failure(|s| {
        let started = AtomicBool::new(false);
        crate::scope(|outer| {
            outer.spawn(|_| {
                started.store(true, SeqCst);
                wait_for_stop_bit();
                s.offer(2);
            });
            crate::finish(|| {
                poll_until(&started);
                panic!("first failure")
            });
        });
    });
}

/// Runs its closure when dropped (here: while a panic unwinds through the frame).
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

#[test]
fn a_panic_passed_on_before_the_resolution_keeps_its_place_at_the_next_region() {
    // The inner finish records the panic and passes it on while the eureka is still
    // unresolved; the resolution comes while the panic unwinds through the scope's body,
    // before the scope records it: the scope and the eureka region must still take it as
    // the first failure.
    expect_first_failure(|s| {
        let (started, inner_done) = (AtomicBool::new(false), AtomicBool::new(false));
        crate::scope(|outer| {
            outer.spawn(|_| {
                started.store(true, SeqCst);
                wait_for_stop_bit();
                spin_until(&inner_done);
                s.offer(2);
            });
            let _then = OnDrop(|| {
                while !s.is_resolved() {
                    std::hint::spin_loop();
                }
            });
            let _first = OnDrop(|| inner_done.store(true, SeqCst));
            crate::finish(|| {
                poll_until(&started);
                panic!("first failure")
            });
        });
    });
}

#[test]
fn loop_piece_panics_then_another_piece_resolves() {
    expect_first_failure(|s| {
        // The first iteration to start panics once an iteration has started on the other
        // worker (which took a piece of the loop); that one resolves after the panic.
        let panicker = AtomicUsize::new(usize::MAX);
        let second = AtomicBool::new(false);
        crate::par_for(0..1 << 16, |_| {
            let me = crate::current_thread_index().expect("on a worker");
            match panicker.compare_exchange(usize::MAX, me, SeqCst, SeqCst) {
                Ok(_) => {
                    poll_until(&second);
                    panic!("first failure")
                }
                Err(p) if p != me && !second.swap(true, SeqCst) => {
                    wait_for_stop_bit();
                    s.offer(2);
                }
                Err(_) => {}
            }
        });
    });
}

#[test]
fn scoped_future_panics_then_body_resolves() {
    expect_first_failure(|s| {
        let (f_ran, body_saw) = (AtomicBool::new(false), AtomicBool::new(false));
        crate::sync::with_future(
            || {
                f_ran.store(true, SeqCst);
                spin_until(&body_saw);
                panic!("first failure")
            },
            |_| {
                poll_until(&f_ran);
                body_saw.store(true, SeqCst);
                wait_for_stop_bit();
                s.offer(2);
            },
        );
    });
}

#[test]
fn a_panic_after_the_resolution_is_still_dropped() {
    let pool = pool2();
    for _ in 0..20 {
        let s = Search::new();
        let b_ran = AtomicBool::new(false);
        let r = pool.run(|| {
            eureka::finish(&s, || {
                crate::join(
                    || {
                        poll_until(&b_ran);
                        // The resolution reaches this worker as a stop; the panic comes
                        // after it, from code that was being stopped.
                        wait_for_stop_bit();
                        panic!("second")
                    },
                    || {
                        b_ran.store(true, SeqCst);
                        s.offer(2);
                    },
                )
            })
        });
        assert!(r.is_none());
        assert_eq!(s.get(), Some(&2));
    }
}
