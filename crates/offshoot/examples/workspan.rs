//! Work and span: a pool built with `Builder::metrics` measures how much a program does in
//! all (work), how long its longest chain of dependent steps is (span), and so how much
//! parallelism it has — in time (as OpenCilk's Cilkscale) or in units the program charges
//! with `metrics::do_work` (as HJlib). This program measures shapes whose span is known and
//! prints each next to its analytic value:
//!
//! * a balanced tree of joins with 64 equal leaves: span ≈ one leaf, parallelism ≈ 64;
//! * a chain of 32 futures, each waiting for the one before: span ≈ work, parallelism ≈ 1;
//! * `fib(n)` with a join per call and one unit per call: in units, work = the number of
//!   calls and span = n exactly; in time, the span is the path through n calls;
//! * a parallel loop of 256 equal iterations: span ≈ one iteration.
//!
//! Then it prints the report as a table and as Cilkscale's CSV, and how long `fib` took with
//! and without measuring.
//!
//! `cargo run --release --example workspan [WORKERS]`

use std::time::{Duration, Instant};

use offshoot::metrics::{self, Mode, Row};
use offshoot::ThreadPool;

/// Busy work for about `d`.
fn spin(d: Duration) {
    let t = Instant::now();
    let mut x = 0u64;
    while t.elapsed() < d {
        for i in 0..100 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
    }
}

fn tree(depth: u32, leaf: Duration) {
    if depth == 0 {
        spin(leaf);
        return;
    }
    offshoot::join(|| tree(depth - 1, leaf), || tree(depth - 1, leaf));
}

fn fib(n: u32) -> u64 {
    metrics::do_work(1);
    if n < 2 {
        return n as u64;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn fib_plain(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = offshoot::join(|| fib_plain(n - 1), || fib_plain(n - 2));
    a + b
}

fn row<'a>(rows: &'a [Row], tag: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.tag == tag)
        .expect("a row for every measured call")
}

fn main() {
    let workers = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let pool = ThreadPool::builder()
        .workers(workers)
        .metrics(Mode::Measured)
        .build()
        .expect("a pool");
    let leaf = Duration::from_micros(200);
    let n = 25;
    pool.run(|| {
        metrics::measure("tree of 64 leaves", || tree(6, leaf));
        metrics::measure("chain of 32 futures", || {
            offshoot::finish(|| {
                let mut prev: Option<offshoot::sync::TaskFuture<u32>> = None;
                for _ in 0..32 {
                    let before = prev.take();
                    prev = Some(offshoot::sync::spawn_future(move || {
                        let v = before.map_or(0, |f| *f.get());
                        spin(leaf);
                        v + 1
                    }));
                }
                assert_eq!(*prev.expect("32 futures").get(), 32);
            })
        });
        metrics::measure("fib", || assert_eq!(fib(n), 75_025));
        metrics::measure("loop of 256", || offshoot::par_for(0..256, |_| spin(leaf)));
    });
    let report = pool.metrics().expect("a measuring pool");
    println!("{report}");
    let rows = report.rows();
    let pct = |got: f64, want: f64| 100.0 * (got - want) / want;

    let t = row(rows, "tree of 64 leaves");
    let leaf_ms = leaf.as_secs_f64() * 1e3;
    println!(
        "tree: span {:.3} ms, one leaf {leaf_ms:.3} ms ({:+.1}%); parallelism {:.1}, analytic 64 ({:+.1}%)",
        t.span.as_secs_f64() * 1e3,
        pct(t.span.as_secs_f64() * 1e3, leaf_ms),
        t.parallelism(),
        pct(t.parallelism(), 64.0)
    );
    let c = row(rows, "chain of 32 futures");
    println!(
        "future chain: parallelism {:.3}, analytic 1 ({:+.1}%)",
        c.parallelism(),
        pct(c.parallelism(), 1.0)
    );
    let f = row(rows, "fib");
    let calls = 2 * 121_393 - 1; // 2 fib(n + 1) - 1
    println!(
        "fib({n}): {} units of work (analytic {calls}), span {} units (analytic {n}); time parallelism {:.0}",
        f.work_units,
        f.span_units,
        f.parallelism()
    );
    let l = row(rows, "loop of 256");
    println!(
        "loop: span {:.3} ms, one iteration {leaf_ms:.3} ms ({:+.1}%); parallelism {:.1}, analytic 256",
        l.span.as_secs_f64() * 1e3,
        pct(l.span.as_secs_f64() * 1e3, leaf_ms),
        l.parallelism()
    );
    println!("\n{}", report.to_csv());

    // What measuring costs: fib without a cutoff, the worst case (every call is a strand).
    let plain = ThreadPool::builder()
        .workers(workers)
        .build()
        .expect("a pool");
    let abs = ThreadPool::builder()
        .workers(workers)
        .metrics(Mode::Abstract)
        .build()
        .expect("a pool");
    let time = |p: &ThreadPool| {
        let mut best = Duration::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            assert_eq!(p.run(|| fib_plain(30)), 832_040);
            best = best.min(t.elapsed());
        }
        best
    };
    let (t_plain, t_measured, t_abstract) = (time(&plain), time(&pool), time(&abs));
    println!(
        "fib(30) on {workers} workers, best of 5: plain {:.1} ms, measured {:.1} ms ({:.1}x), abstract {:.1} ms ({:.1}x)",
        t_plain.as_secs_f64() * 1e3,
        t_measured.as_secs_f64() * 1e3,
        t_measured.as_secs_f64() / t_plain.as_secs_f64(),
        t_abstract.as_secs_f64() * 1e3,
        t_abstract.as_secs_f64() / t_plain.as_secs_f64()
    );
}
