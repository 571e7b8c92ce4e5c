//! 004 Fig. 8: fib with a spawn-request handler instead of `join`, to show that the
//! mechanism is the same: the body computes `fib(n - 1)`; a request while it runs makes the
//! handler spawn `fib(n - 2)` for the thief; if nobody asked, `fib(n - 2)` runs inline after
//! the block, like the second half of a join. Prints both against the serial program.
//!
//! `cargo run --release --example fib_handler -- [N] [RUNS]` (default N = 30).

use std::cell::Cell;

#[path = "shared/timing.rs"]
mod timing;

fn fib_handler(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let taken = Cell::new(false);
    let (x, stolen) = offshoot::search::handle(
        || fib_handler(n - 1),
        |req| {
            if taken.replace(true) {
                req.decline()
            } else {
                req.spawn(move || fib_handler(n - 2))
            }
        },
    );
    let y = if taken.get() {
        stolen[0]
    } else {
        fib_handler(n - 2)
    };
    x + y
}

fn fib_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (x, y) = offshoot::join(|| fib_join(n - 1), || fib_join(n - 2));
    x + y
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn main() {
    const USAGE: &str = "fib_handler [N] [RUNS]";
    let n = timing::arg(1, 30, USAGE) as u64;
    let runs = timing::arg(2, 5, USAGE);
    println!("fib({n}) with a spawn-request handler (004 Fig. 8)");
    timing::compare(
        runs,
        || fib(std::hint::black_box(n)),
        || fib_handler(std::hint::black_box(n)),
    );
    println!("fib({n}) with join, for comparison");
    timing::compare(
        runs,
        || fib(std::hint::black_box(n)),
        || fib_join(std::hint::black_box(n)),
    );
}
