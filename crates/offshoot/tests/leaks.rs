//! No memory is leaked by tasks: a counting global allocator tracks the live heap blocks
//! of the process while a pool runs rounds of joins, scopes, finish + spawn, scope spawns
//! from a thread outside the pool, and failures (panics and `Err`s that stop and discard
//! tasks). After a warm-up round, further rounds must not increase the number of live
//! blocks: every boxed task is freed whether it ran, was stopped, or was dropped unrun.
//! Also: the task blocks a burst of spawns left cached (each keeps its whole chunk of
//! blocks allocated) are given back once the pool is idle.
//! (Own test binary with a single test, since the allocator's counters are process-wide.)

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{boom, bounded, panic_message, poll_until_stopped, spin_until, LONG};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        // SAFETY: same contract as ours.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// One round of work of every kind on `p`, including failures.
fn round(p: &offshoot::ThreadPool) {
    assert_eq!(p.run(|| fib(16)), 987);
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    p.run(move || {
        offshoot::finish(|| {
            for _ in 0..50 {
                let c = c.clone();
                offshoot::finish::spawn(move || {
                    c.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        offshoot::scope(|s| {
            std::thread::scope(|ts| {
                ts.spawn(|| {
                    for _ in 0..20 {
                        s.spawn(|_| {
                            c.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                });
            });
            for _ in 0..20 {
                s.spawn(|s| {
                    s.spawn(|_| {
                        fib(6);
                    })
                });
            }
        });
    });
    assert_eq!(count.load(Ordering::Relaxed), 70);
    // A failing scope: running tasks stopped, pending ones dropped unrun.
    let msg = panic_message(|| {
        p.run(|| {
            offshoot::scope(|s| {
                for _ in 0..10 {
                    s.spawn(|_| {
                        poll_until_stopped(LONG);
                    });
                }
                s.spawn(|_| boom("leaks"));
            })
        })
    });
    assert_eq!(msg, common::boom_msg("leaks"));
    // A failing try_finish.
    let r: Result<(), u32> = p.run(|| {
        offshoot::try_finish(|| {
            for i in 0..20u32 {
                offshoot::finish::try_spawn(move || if i == 7 { Err(i) } else { Ok(()) });
            }
            Ok(())
        })
    });
    assert_eq!(r, Err(7));
    // A failing join with a stolen half.
    let _ = panic_message(|| p.run(|| offshoot::join(|| fib(12), || -> u64 { boom("leaks") })));
}

/// A pool of `n` workers, measured: its drop (`shutdown`) frees it before it returns, and
/// the blocked-worker watch never holds it (nor allocates while looking at it).
fn pool_of(n: usize) -> offshoot::ThreadPool {
    offshoot::ThreadPool::builder()
        .workers(n)
        .blocked_report(None)
        .build()
        .expect("cannot build a pool")
}

#[test]
fn tasks_leak_no_memory() {
    bounded(|| {
        for n in [1, 2, 3] {
            // Warm up: lazily allocated state of the runtime, std and the test helpers.
            let p = pool_of(n);
            for _ in 0..3 {
                round(&p);
            }
            p.shutdown();
            // Measured around a whole pool's life: a pool keeps a bounded cache of free
            // task blocks per worker, which it frees when it is dropped.
            let before = LIVE.load(Ordering::SeqCst);
            let p = pool_of(n);
            for _ in 0..20 {
                round(&p);
            }
            p.shutdown();
            let after = LIVE.load(Ordering::SeqCst);
            // A leak of one block per task would show as thousands; allow a little noise
            // from lazily initialised state.
            assert!(
                after - before <= 16,
                "{} heap blocks leaked by 20 rounds on {n} workers",
                after - before
            );
        }
        idle_pool_gives_back_a_bursts_blocks();
    })
}

/// A burst of 200,000 spawns that all wait for the spawning loop (one worker) needs about
/// 250 chunks of task blocks; when the burst ends the worker's cache and the pool's spare
/// batches keep about 20,000 blocks, spread over some 25 chunks. Once the pool is idle, its
/// worker keeps only a few hundred (one or two chunks).
fn idle_pool_gives_back_a_bursts_blocks() {
    let p = pool_of(1);
    p.run(|| fib(10));
    let before = LIVE.load(Ordering::SeqCst);
    p.run(|| {
        offshoot::scope(|s| {
            for i in 0..200_000u64 {
                s.spawn(move |_| {
                    std::hint::black_box(i);
                });
            }
        })
    });
    let extra = || LIVE.load(Ordering::SeqCst) - before;
    assert!(
        spin_until(|| extra() <= 6),
        "an idle pool still holds {} more heap blocks than before a burst of spawns",
        extra()
    );
}
