//! Steady-state cost of one message sent to one actor and processed, on 2 workers:
//! offshoot's `actor` beside ractor's on a 2-worker tokio runtime (the suite's actor
//! peer). It runs the suite's `counting` kernel (the same functions the suite times):
//! one sender (a task of the pool; the `block_on` future for ractor) sends M
//! increments to one counter actor, then asks for the total and waits for it; the
//! time ÷ M is the cost per message (send, queue, process, plus the start and the ask
//! spread over M), the best of 5 runs after one warm-up.
//!
//! `cargo run --release -p offshoot-bench --example actor_send_cost -- [MESSAGES]`

use std::time::Instant;

use offshoot_bench::kernels::savina::counting;

/// The best of 5 timed runs (after a warm-up) of `run`, in ns per message.
fn best(m: u64, mut run: impl FnMut() -> u64) -> f64 {
    assert_eq!(run(), counting::expected(m));
    (0..5)
        .map(|_| {
            let t = Instant::now();
            assert_eq!(run(), counting::expected(m));
            t.elapsed().as_secs_f64() * 1e9 / m as f64
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let m: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("MESSAGES: a whole number"))
        .unwrap_or(1_000_000);
    let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let o = best(m, || pool.run(|| counting::offshoot(m)));
    let r = best(m, || counting::tokio(&rt, m));
    let t = best(m, || counting::threads(m));
    println!("one counter actor, one sender, {m} messages, best of 5:");
    println!("  offshoot actor, 2 workers          {o:7.1} ns per message");
    println!("  ractor on tokio, 2 workers         {r:7.1} ns per message");
    println!("  std::sync::mpsc, a counter thread  {t:7.1} ns per message");
}
