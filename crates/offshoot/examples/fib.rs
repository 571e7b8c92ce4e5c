//! fib(n) with no cutoff — the pure-overhead test of a fork — run serially, on offshoot with
//! one worker and with every core; prints times and the ratio to the serial program.
//!
//! `cargo run --release --example fib -- 35`

use std::time::{Duration, Instant};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn serial_fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    serial_fib(n - 1) + serial_fib(n - 2)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let n: u64 = match std::env::args().nth(1) {
        None => 32,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("usage: fib [N]   (N: a whole number, default 32)");
            std::process::exit(2)
        }),
    };
    let cores = std::thread::available_parallelism()
        .map(|c| c.get())
        .unwrap_or(1);
    let pools: Vec<_> = [1, cores]
        .iter()
        .map(|&w| {
            offshoot::ThreadPool::builder()
                .workers(w)
                .build()
                .expect("pool")
        })
        .collect();
    let expect = serial_fib(n);
    let runs = 7;
    let mut serial = Vec::new();
    let mut par = vec![Vec::new(); pools.len()];
    // Interleave the contenders so that drift hits them alike.
    for _ in 0..runs {
        let t = Instant::now();
        assert_eq!(serial_fib(std::hint::black_box(n)), expect);
        serial.push(t.elapsed());
        for (p, times) in pools.iter().zip(par.iter_mut()) {
            let t = Instant::now();
            assert_eq!(
                p.run(|| fib(std::hint::black_box(n))),
                expect,
                "wrong answer"
            );
            times.push(t.elapsed());
        }
    }
    let s = median(serial);
    println!("fib({n}) = {expect}, median of {runs} runs");
    println!("serial            {:>10.2?}   1.00", s);
    for (p, times) in pools.iter().zip(par) {
        let t = median(times);
        println!(
            "offshoot {:>2} worker{} {:>10.2?}   {:.2}   ({})",
            p.workers(),
            if p.workers() == 1 { " " } else { "s" },
            t,
            t.as_secs_f64() / s.as_secs_f64(),
            p.stats()
        );
    }
}
