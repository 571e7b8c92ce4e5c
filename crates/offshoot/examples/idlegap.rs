//! Cold-start probe: how long does a 2-worker `run` take after the pool was idle for a gap?
//! `cargo run --release -p offshoot --example idlegap`
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn sfib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    sfib(n - 1) + sfib(n - 2)
}

fn main() {
    let workers: usize = std::env::args().nth(1).map_or(2, |s| s.parse().unwrap());
    let serial = std::env::args().nth(2).is_some();
    let pool = offshoot::ThreadPool::builder()
        .workers(workers)
        .build()
        .unwrap();
    for gap in [0u64, 0, 0, 1, 5, 20, 100, 300] {
        let mut times = Vec::new();
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(gap));
            let t = std::time::Instant::now();
            if serial {
                assert_eq!(sfib(std::hint::black_box(30)), 832040);
            } else {
                assert_eq!(pool.run(|| fib(30)), 832040);
            }
            times.push(t.elapsed());
        }
        times.sort();
        println!(
            "gap {gap:>3} ms: median {:?} (min {:?}, max {:?})",
            times[2], times[0], times[4]
        );
    }
}
