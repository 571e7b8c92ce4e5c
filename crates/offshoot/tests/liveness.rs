//! Liveness of stealing when a thief shares a core with its victim (a pool with more
//! workers than free cores: oversubscribed, a loaded CI machine, a container limited to one
//! CPU). A worker that keeps calling `offshoot::poll()` — the documented way to let idle
//! workers take its seeds — must eventually have a seed taken by the idle worker. The pool
//! is pinned to a single CPU to make the sharing certain. The bound (5 s per attempt) is
//! orders of magnitude above what a steal takes; nothing measures time.

#![cfg(target_os = "linux")]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{bounded, pool};

/// Pins the calling thread — and so every thread it starts afterwards, such as a pool's
/// workers — to the first CPU it may run on.
fn pin_to_one_cpu() {
    // SAFETY: `cpu_set_t` is plain data for which all-zero is a valid (empty) set; the
    // libc calls get valid pointers to it and its exact size; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set),
            0
        );
        let first = (0..libc::CPU_SETSIZE as usize)
            .find(|&c| libc::CPU_ISSET(c, &set))
            .expect("no CPU in the affinity mask");
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(first, &mut one);
        assert_eq!(
            libc::sched_setaffinity(0, std::mem::size_of_val(&one), &one),
            0
        );
    }
}

/// Polls as often as possible, without pausing, until `done` is set or 5 s have passed.
fn poll_hard_until(done: &AtomicBool) {
    let start = Instant::now();
    let mut i = 0u32;
    while !done.load(Ordering::SeqCst) {
        offshoot::poll();
        i = i.wrapping_add(1);
        if i.is_multiple_of(4096) && start.elapsed() > Duration::from_secs(5) {
            break;
        }
    }
}

#[test]
fn a_polling_worker_is_robbed_by_a_thief_on_the_same_cpu() {
    bounded(|| {
        pin_to_one_cpu();
        let p = pool(2);
        for attempt in 0..20 {
            // A join seed.
            let a_done = AtomicBool::new(false);
            let b_ran_in_parallel = AtomicBool::new(false);
            p.run(|| {
                offshoot::join(
                    || {
                        poll_hard_until(&b_ran_in_parallel);
                        a_done.store(true, Ordering::SeqCst);
                    },
                    || {
                        if !a_done.load(Ordering::SeqCst) {
                            b_ran_in_parallel.store(true, Ordering::SeqCst);
                        }
                    },
                )
            });
            assert!(
                b_ran_in_parallel.load(Ordering::SeqCst),
                "attempt {attempt}: the idle worker did not take the seed of a polling worker in 5 s ({})",
                p.stats()
            );

            // A spawned task.
            let body_done = AtomicBool::new(false);
            let task_ran_in_parallel = AtomicBool::new(false);
            p.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        if !body_done.load(Ordering::SeqCst) {
                            task_ran_in_parallel.store(true, Ordering::SeqCst);
                        }
                    });
                    poll_hard_until(&task_ran_in_parallel);
                    body_done.store(true, Ordering::SeqCst);
                })
            });
            assert!(
                task_ran_in_parallel.load(Ordering::SeqCst),
                "attempt {attempt}: the idle worker did not take the task of a polling worker in 5 s ({})",
                p.stats()
            );
        }
    })
}
