//! Parking probe (issue 4's figures): the park-and-resume round trip, the resident memory of
//! 10,000 tasks parked at once, and `futures-fib` (fib where every call makes a future and
//! gets it) against the plain serial fib, with both kinds of future: `spawn_future` (a
//! handle that may outlive its caller) and `with_future` (a future scoped to a body).
//!
//! Run: `cargo run --release -p offshoot --example parking`

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use offshoot::sync::{spawn_future, with_future, Event};
use offshoot::ThreadPool;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn rss_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn ffib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = spawn_future(move || ffib(n - 1));
    let b = ffib(n - 2);
    *a.get() + b
}

fn sfib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    with_future(
        move || sfib(n - 1),
        |a| {
            let b = sfib(n - 2);
            *a.get() + b
        },
    )
}

fn main() {
    // 1. Round trip: two tasks on one worker hand a token back and forth through events;
    //    each hand-over is one park of the waiter and one resume.
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let rounds = 100_000usize;
    let mut per = Vec::new();
    for _ in 0..7 {
        let evs: Arc<Vec<Event<()>>> =
            Arc::new((0..2 * rounds + 2).map(|_| Event::new()).collect());
        let t = pool.run(|| {
            let t0 = Instant::now();
            offshoot::scope(|s| {
                let e = evs.clone();
                s.spawn(move |_| {
                    for i in 0..rounds {
                        e[2 * i].wait();
                        e[2 * i + 1].set(()).unwrap();
                    }
                });
                let e = evs.clone();
                s.spawn(move |_| {
                    for i in 0..rounds {
                        e[2 * i].set(()).unwrap();
                        e[2 * i + 1].wait();
                    }
                });
            });
            t0.elapsed()
        });
        per.push(t.as_nanos() as f64 / (2 * rounds) as f64);
    }
    println!(
        "park+resume round trip (1 worker, event ping-pong): median {:.0} ns per hand-over",
        median(per)
    );

    // 2. 10,000 tasks parked at once.
    for workers in [1, 2] {
        let pool = ThreadPool::builder().workers(workers).build().unwrap();
        let before = rss_kib("VmRSS:");
        let go = Event::new();
        let all = Event::new();
        let started = AtomicUsize::new(0);
        let mut peak_during = 0;
        pool.run(|| {
            offshoot::scope(|s| {
                for _ in 0..10_000 {
                    s.spawn(|_| {
                        if started.fetch_add(1, Ordering::SeqCst) == 9_999 {
                            all.set(()).unwrap();
                        }
                        go.wait();
                    });
                }
                all.wait();
                peak_during = rss_kib("VmRSS:");
                go.set(()).unwrap();
            });
        });
        println!(
            "10,000 tasks parked ({workers} workers): resident {:.1} MB while parked ({:.1} MB before)",
            peak_during as f64 / 1024.0,
            before as f64 / 1024.0
        );
    }

    // 3. futures-fib.
    let n = 30;
    let want = fib(n);
    let mut serial = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        assert_eq!(black_box(fib(black_box(n))), want);
        serial.push(t.elapsed().as_secs_f64());
    }
    let serial = median(serial);
    type Kind = (&'static str, fn(u64) -> u64);
    let kinds: [Kind; 2] = [
        ("spawn_future", |n| offshoot::finish(|| ffib(n))),
        ("with_future", sfib),
    ];
    for (kind, f) in kinds {
        for workers in [1, 2] {
            let pool = ThreadPool::builder().workers(workers).build().unwrap();
            let mut v = Vec::new();
            for _ in 0..7 {
                let t = Instant::now();
                let got = pool.run(|| f(black_box(n)));
                v.push(t.elapsed().as_secs_f64());
                assert_eq!(got, want);
            }
            let m = median(v);
            println!(
                "futures-fib({n}), {kind}, {workers} worker(s): {:.1} ms, {:.2}x serial ({:.2} ms); {:.1} ns per future",
                m * 1e3,
                m / serial,
                serial * 1e3,
                m * 1e9 / (want as f64 * 1.618)
            );
        }
    }
}
