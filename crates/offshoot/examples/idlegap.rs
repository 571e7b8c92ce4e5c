fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}
fn main() {
    let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    for gap in [0u64, 10, 300, 300, 300] {
        std::thread::sleep(std::time::Duration::from_millis(gap));
        let before = pool.stats();
        let t = std::time::Instant::now();
        let r = pool.run(|| (fib(32), pool.current_worker_index()));
        println!(
            "gap {gap}ms: {:?} on {:?} {}",
            t.elapsed(),
            r.1,
            pool.stats() - before
        );
    }
}
