//! 001's `Empty`: one task spawns 10^6 empty tasks; prints ns per task for offshoot's
//! `Scope::spawn` and rayon's `scope.spawn`, on 1 and 2 workers.
//! `cargo run --release -p offshoot --example empty`
use std::time::Instant;

const N: usize = 1_000_000;

fn main() {
    for w in [1, 2] {
        let pool = offshoot::ThreadPool::builder().workers(w).build().unwrap();
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            pool.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..N {
                        s.spawn(|_| {});
                    }
                })
            });
            best = best.min(t.elapsed().as_nanos() as f64 / N as f64);
        }
        println!(
            "offshoot spawn, {w} worker(s): {best:.1} ns/task ({})",
            pool.stats()
        );
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            pool.run(|| offshoot::scope(|s| s.spawn_batch(N, |_| {})));
            best = best.min(t.elapsed().as_nanos() as f64 / N as f64);
        }
        println!("offshoot spawn_batch, {w} worker(s): {best:.1} ns/task");
    }
}
