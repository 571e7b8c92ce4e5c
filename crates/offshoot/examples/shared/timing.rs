//! Timing for the search examples (`pentomino`, `nqueens`, `fib_handler`): the serial program
//! against offshoot with one worker and with every core, interleaved, medians, the ratio to
//! the serial time, and offshoot's counters of the last run.

#![allow(dead_code)] // each includer uses part of it

use std::fmt::Debug;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `serial` and `par` (inside each pool) `runs` times each, interleaved, checks that
/// every answer equals the first serial one, and prints the medians and ratios.
pub fn compare<T, S, P>(runs: usize, mut serial: S, par: P)
where
    T: PartialEq + Debug + Send,
    S: FnMut() -> T,
    P: Fn() -> T + Sync,
{
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let pools: Vec<_> = [1, cores.max(2)]
        .iter()
        .map(|&w| {
            offshoot::ThreadPool::builder()
                .workers(w)
                .build()
                .expect("pool")
        })
        .collect();
    let mut want = None;
    let mut serial_t = Vec::new();
    let mut par_t = vec![Vec::new(); pools.len()];
    let mut stats = vec![None; pools.len()];
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let got = serial();
        serial_t.push(t.elapsed());
        let want = want.get_or_insert(got);
        for (i, p) in pools.iter().enumerate() {
            let before = p.stats();
            let t = Instant::now();
            let got = p.run(&par);
            par_t[i].push(t.elapsed());
            assert_eq!(&got, want, "wrong answer on {} workers", p.workers());
            stats[i] = Some(p.stats() - before);
        }
    }
    let s = median(serial_t);
    println!("median of {runs} runs");
    println!("serial              {s:>10.2?}   1.00");
    for ((p, times), st) in pools.iter().zip(par_t).zip(stats) {
        let t = median(times);
        let st = st.expect("one run at least");
        println!(
            "offshoot {:>2} worker{} {:>10.2?}   {:.3}   last run: {} tasks made, {} requests \
             answered with work, {} answered empty",
            p.workers(),
            if p.workers() == 1 { " " } else { "s" },
            t,
            t.as_secs_f64() / s.as_secs_f64(),
            st.tasks_materialized,
            st.requests_answered_work,
            st.requests_answered_empty,
        );
    }
}

/// The `i`-th command-line argument as a number, or `default`; exits with `usage` if it is
/// not one.
pub fn arg(i: usize, default: usize, usage: &str) -> usize {
    std::env::args().nth(i).map_or(default, |s| {
        s.parse().unwrap_or_else(|_| {
            eprintln!("usage: {usage}");
            std::process::exit(2)
        })
    })
}
