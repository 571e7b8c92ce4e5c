//! Parking probe (issue 4's and 14's figures): the park-and-resume round trip, the time per
//! task and the resident memory of 10^3, 10^4 and 10^5 tasks parked at once, and `futures-fib` (fib where every call makes a future and
//! gets it) against the plain serial fib, with both kinds of future: `spawn_future` (a
//! handle that may outlive its caller) and `with_future` (a future scoped to a body).
//!
//! Run: `cargo run --release -p offshoot --example parking` (add `parked` for part 2 only)

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use offshoot::sync::{spawn_future, with_future, Event};
use offshoot::ThreadPool;

#[path = "shared/procfs.rs"]
mod procfs;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn rss_kib(field: &str) -> u64 {
    procfs::status_kib(field).unwrap_or(0)
}

/// The number of mappings of this process (`vm.max_map_count` caps it).
fn maps() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .map(|m| m.lines().count())
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
    // `parking parked` runs only part 2.
    let only_parked = std::env::args().nth(1).as_deref() == Some("parked");
    if !only_parked {
        round_trip();
    }
    parked_at_once();
    if !only_parked {
        futures_fib();
    }
}

fn round_trip() {
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
}

fn parked_at_once() {
    // 2. N tasks parked at once (N = 10^3, 10^4, 10^5): each task parks on one event, then
    //    all resume. The time per task covers its spawn, its park and its resume; flat in N
    //    means O(1) per park+resume. Resident memory and kernel mappings are read while all
    //    are parked.
    for workers in [1, 2] {
        for n in [1_000usize, 10_000, 100_000] {
            let pool = ThreadPool::builder().workers(workers).build().unwrap();
            let before = rss_kib("VmRSS:") + rss_kib("VmPTE:");
            let maps_before = maps();
            let go = Event::new();
            let all = Event::new();
            let started = AtomicUsize::new(0);
            let (mut rss_parked, mut maps_parked) = (0, 0);
            let t0 = Instant::now();
            pool.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..n {
                        s.spawn(|_| {
                            if started.fetch_add(1, Ordering::SeqCst) == n - 1 {
                                all.set(()).unwrap();
                            }
                            go.wait();
                        });
                    }
                    all.wait();
                    rss_parked = rss_kib("VmRSS:") + rss_kib("VmPTE:");
                    maps_parked = maps();
                    go.set(()).unwrap();
                });
            });
            let t = t0.elapsed();
            println!(
                "{n:>7} tasks parked at once ({workers} worker(s)): {:.0} ns per task (spawn, \
                 park, resume); resident + page tables {:.1} KiB per parked task ({:.1} MB \
                 while parked, {:.1} MB before); {} kernel mappings while parked ({maps_before} before)",
                t.as_nanos() as f64 / n as f64,
                (rss_parked.saturating_sub(before)) as f64 / n as f64,
                rss_parked as f64 / 1024.0,
                before as f64 / 1024.0,
                maps_parked,
            );
        }
    }
}

fn futures_fib() {
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
