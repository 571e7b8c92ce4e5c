// Instruction-count probe: `valgrind --tool=callgrind target/release/examples/icount MODE N`,
// MODE one of `serial` (plain recursion), `pool` (fib by `join`) or `handles` (fib by
// `sync::spawn_async` + `Handle::wait`, the `handle-futures-fib` kernel), on 1 worker.
// Counting 2 runs minus 1 run (the third argument, default 1) cancels the pool's start-up.
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}
fn hfib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = offshoot::sync::spawn_async(move || hfib(n - 1));
    let b = hfib(n - 2);
    a.wait() + b
}
fn sfib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    sfib(n - 1) + sfib(n - 2)
}
fn main() {
    let mode = std::env::args().nth(1).unwrap();
    let n: u64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let runs: u32 = std::env::args().nth(3).map_or(1, |r| r.parse().unwrap());
    let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    // The answer, computed once (so that it cancels in 2 runs minus 1).
    let want = sfib(n);
    for _ in 0..runs {
        let r = match mode.as_str() {
            "serial" => sfib(std::hint::black_box(n)),
            "pool" => pool.run(|| fib(std::hint::black_box(n))),
            "handles" => pool.run(|| hfib(std::hint::black_box(n))),
            m => panic!("icount: unknown mode {m} (serial, pool or handles)"),
        };
        assert_eq!(r, want, "icount: wrong answer");
        println!("{r}");
    }
}
