// Instruction-count probe: `valgrind --tool=callgrind target/release/examples/icount serial|pool N`.
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
    let mode = std::env::args().nth(1).unwrap();
    let n: u64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    let r = if mode == "serial" {
        sfib(std::hint::black_box(n))
    } else {
        pool.run(|| fib(std::hint::black_box(n)))
    };
    println!("{r}");
}
