use std::time::Instant;
fn fib(n: u64) -> u64 { if n < 2 { return n; } let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2)); a + b }
fn sfib(n: u64) -> u64 { if n < 2 { return n; } sfib(n - 1) + sfib(n - 2) }
fn main() {
    let n = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(30);
    let t = Instant::now(); let s = sfib(std::hint::black_box(n)); let ts = t.elapsed();
    println!("serial {s} {:?}", ts);
    for w in [1, 2] {
        let pool = offshoot::ThreadPool::builder().workers(w).build().unwrap();
        for _ in 0..3 {
        let t = Instant::now(); let r = pool.run(|| fib(std::hint::black_box(n))); let tp = t.elapsed();
        assert_eq!(r, s);
        println!("w={w} {:?} ratio {:.2} {}", tp, tp.as_secs_f64()/ts.as_secs_f64(), pool.stats());
        }
    }
}
