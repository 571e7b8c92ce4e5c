//! Dropping pools leaks no thread: the process's thread count (from /proc/self/status) is
//! back to where it was (a drop returns at once, and the workers exit soon after) after
//! building, using and dropping many pools — dropped right after
//! `run` returns (while idle workers may still be finishing their steal attempts), after a
//! `run` that panicked, never used at all, from a worker of another pool, and by the last
//! of several threads sharing it. This file holds a single test because the thread count is
//! process-wide: other tests running in parallel would disturb it.

mod common;

use std::sync::Arc;
use std::time::Instant;

use common::{boom, bounded, panic_message, pool, thread_count};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Waits (bounded) for the thread count to come back to `want`: a joined thread may still be
/// counted for a moment after `join` returns, while the kernel reaps it.
fn settle(want: usize) -> usize {
    let start = Instant::now();
    loop {
        let now = thread_count();
        if now <= want || start.elapsed() > common::PATIENCE {
            return now;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn dropping_pools_leaks_no_thread() {
    bounded(|| {
        // The blocked-worker watch's thread starts with the first pool and stays for the
        // process's life: start it before counting. (Its pool is joined, with `shutdown`;
        // a joined thread may be counted for a moment: `settle`.)
        let before = thread_count();
        pool(1).shutdown();
        let base = settle(before + 1);
        assert_eq!(base, before + 1, "one watch thread, no worker left");

        for round in 0..30 {
            let n = 1 + round % 4;
            // The previous round's threads are joined but may still be counted for a moment
            // (see `settle`): wait for them to go before counting this round's.
            assert_eq!(settle(base), base, "threads leaked before round {round}");
            // Used, then dropped right after `run` returns.
            let p = pool(n);
            assert_eq!(
                thread_count(),
                base + n,
                "a pool of {n} workers has {n} threads"
            );
            assert_eq!(p.run(|| fib(12)), 144);
            drop(p);

            // Never used.
            drop(pool(n));

            // After a panic.
            let p = pool(n);
            let _ = panic_message(|| p.run(|| offshoot::join(|| fib(10), || boom("pool drop"))));
            drop(p);

            // With scope and finish work right before the drop.
            let p = pool(n);
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..8 {
                        s.spawn(|_| {
                            fib(8);
                        });
                    }
                });
                offshoot::finish(|| {
                    for _ in 0..8 {
                        offshoot::finish::spawn(|| {
                            fib(8);
                        });
                    }
                })
            });
            drop(p);
        }
        let after = settle(base);
        assert_eq!(after, base, "threads leaked by dropped pools");

        // Dropped from a worker of another pool.
        let b = pool(2);
        let with_b = thread_count();
        for n in 1..=3 {
            let a = pool(n);
            assert_eq!(a.run(|| fib(10)), 55);
            b.run(move || drop(a));
        }
        assert_eq!(
            settle(with_b),
            with_b,
            "threads leaked by pools dropped inside another pool"
        );
        drop(b);

        // Dropped by whichever of several threads ends last.
        for _ in 0..10 {
            let p = Arc::new(pool(2));
            let hs: Vec<_> = (0..3)
                .map(|i| {
                    let p = p.clone();
                    std::thread::spawn(move || p.run(|| fib(6 + i)))
                })
                .collect();
            drop(p);
            for h in hs {
                h.join().unwrap();
            }
        }
        assert_eq!(settle(base), base, "threads leaked by shared pools");
    })
}
