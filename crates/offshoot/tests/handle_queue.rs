//! Owned handles started on a pool worker (issue 45): the computation waits in that worker's
//! queue of detached jobs, as lazily as a join's seed. A handle waited for on its worker
//! takes it back and calls it — no lock, no wake-up, no allocation once the worker's block
//! cache is warm (checked with a counting allocator on the worker's thread) — whatever the
//! order of the waits; a thief that asks takes the oldest from a busy worker; and a queued
//! computation always runs: dropped handles before `shutdown` returns, and the one a parked
//! task waits for. Every body runs under the watchdog of `common::bounded` (60 s), values
//! are checked, and nothing asserts on time.
#![cfg(feature = "sync")]
#![cfg(not(loom))]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{bounded, fib, mix, pool, Noted};
use offshoot::sync::{spawn_async, Event, Handle};

/// The system allocator, counting the allocations of a thread while its `COUNTING` is set.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn note_alloc() {
    // `try_with`: an allocation while the thread's locals are torn down is not counted.
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            ALLOCS.with(|a| a.set(a.get() + 1));
        }
    });
}

// SAFETY: every call is passed on to `System` unchanged; the counting touches no memory the
// allocator hands out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        // SAFETY: as above.
        unsafe { System.realloc(p, layout, new_size) }
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(p, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// fib with an owned handle per call, as the `handle-futures-fib` kernel.
fn hfib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = spawn_async(move || hfib(n - 1));
    let b = hfib(n - 2);
    a.wait() + b
}

#[test]
fn a_handle_waited_for_on_its_worker_allocates_nothing() {
    bounded(|| {
        let p = pool(1);
        // The allocations the worker's thread makes while it computes `hfib(n)`.
        let count = |n: u64| {
            p.run(move || {
                COUNTING.with(|c| c.set(true));
                let v = hfib(n);
                COUNTING.with(|c| c.set(false));
                (v, ALLOCS.with(|a| a.replace(0)))
            })
        };
        // Warms the worker's block cache and queue up to what the recursion needs.
        assert_eq!(count(16).0, fib(16));
        let (v, allocs) = count(16);
        assert_eq!(v, fib(16));
        // 1596 handles: each one's job lives in a recycled task block and waits in the
        // worker's queue, from which its wait takes it back (an `Arc` and the injector's
        // queue would allocate at least once per handle).
        assert_eq!(allocs, 0, "allocations for {} handles", fib(17) - 1);
    });
}

/// The number of values `body` drops, given a counter for them, on an `n`-worker pool it
/// runs on, counted after the pool's `shutdown` (which waits for its workers: every
/// detached computation ran).
fn drops_on(n: usize, body: impl FnOnce(&offshoot::ThreadPool, Arc<AtomicUsize>)) -> usize {
    let p = pool(n);
    let drops = Arc::new(AtomicUsize::new(0));
    body(&p, drops.clone());
    p.shutdown();
    drops.load(Ordering::SeqCst)
}

#[test]
fn handles_waited_for_in_any_order_on_their_worker() {
    bounded(|| {
        for n in [1, 2] {
            let drops = drops_on(n, |p, d| {
                let sum = p.run(move || {
                    let mut hs: Vec<Option<Handle<(u64, Noted)>>> = (0..64u64)
                        .map(|i| {
                            let d = d.clone();
                            Some(spawn_async(move || (mix(i), Noted(d))))
                        })
                        .collect();
                    // Newest, oldest, then strides through the middle: the queue's two ends
                    // and entries deep in it (claimed and run inline, left for the worker).
                    let mut order = vec![63, 0, 62, 1];
                    order.extend((0..64).map(|k| (k * 37) % 64));
                    let mut sum = 0u64;
                    for i in order {
                        if let Some(h) = hs[i].take() {
                            let v = h.wait();
                            assert_eq!(v.0, mix(i as u64), "{n} workers, handle {i}");
                            sum = sum.wrapping_add(v.0);
                        }
                    }
                    assert!(hs.iter().all(Option::is_none));
                    sum
                });
                let want = (0..64u64).map(mix).fold(0u64, u64::wrapping_add);
                assert_eq!(sum, want, "{n} workers");
            });
            assert_eq!(drops, 64, "{n} workers");
        }
    });
}

#[test]
fn dropped_handles_started_on_a_worker_run_before_shutdown_returns() {
    bounded(|| {
        for n in [1, 2] {
            let drops = drops_on(n, |p, d| {
                p.run(move || {
                    for _ in 0..32 {
                        let d = d.clone();
                        // Detached: nobody waits, the task returns with them queued.
                        drop(spawn_async(move || Noted(d)));
                    }
                })
            });
            // The worker ran its queue before it exited.
            assert_eq!(drops, 32, "{n} workers");
        }
    });
}

#[test]
fn a_busy_worker_hands_its_queued_handle_to_a_thief() {
    bounded(|| {
        let p = pool(2);
        for round in 0..20 {
            let done = p.run(|| {
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                let h = spawn_async(move || f.store(true, Ordering::SeqCst));
                // This task never waits for the handle until its computation has run: only
                // the other worker can run it, asking for work at this task's polls (a
                // `join` is one), which hand it the queued job.
                let mut joins = 0u64;
                while !flag.load(Ordering::SeqCst) {
                    let (a, b) = offshoot::join(|| mix(joins), || mix(joins + 1));
                    joins = joins.wrapping_add(1 + (a ^ b) % 2);
                    std::thread::yield_now();
                }
                h.wait();
                true
            });
            assert!(done, "round {round}");
        }
    });
}

#[test]
fn a_parked_task_does_not_hold_back_the_handle_it_waits_for() {
    bounded(|| {
        let p = pool(1);
        for round in 0..20u64 {
            let v = p.run(move || {
                let ev = Arc::new(Event::new());
                let e = ev.clone();
                let h = spawn_async(move || e.set(fib(10 + round % 5)).unwrap());
                // Parks the task: the one worker runs its queue meanwhile, so the event is set.
                let v = *ev.wait();
                h.wait();
                v
            });
            assert_eq!(v, fib(10 + round % 5), "round {round}");
        }
    });
}
