//! fib(n) with no cutoff — the pure-overhead test of a fork — run serially, on offshoot with
//! one worker and with every core; prints times and the ratio to the serial program.
//!
//! `cargo run --release --example fib -- 35`

#[path = "shared/timing.rs"]
mod timing;

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

fn main() {
    let n = timing::arg(1, 32, "fib [N]   (N: a whole number, default 32)") as u64;
    println!("fib({n}) = {}", serial_fib(n));
    timing::compare(
        7,
        || serial_fib(std::hint::black_box(n)),
        || fib(std::hint::black_box(n)),
    );
}
