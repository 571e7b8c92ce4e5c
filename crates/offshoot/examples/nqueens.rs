//! n-queens with one shared board, spawn-request handlers and undo-redo: the plain
//! backtracking program, made parallel by a handler per row that gives an idle worker the
//! last untried column with a copy of the board. Prints the times against the serial
//! program and how many tasks were made.
//!
//! `cargo run --release --example nqueens -- [N] [RUNS]` (default N = 12).

#[path = "shared/nqueens.rs"]
mod nqueens;
#[path = "shared/timing.rs"]
mod timing;

fn main() {
    const USAGE: &str = "nqueens [N (1..=16)] [RUNS]";
    let n = timing::arg(1, 12, USAGE);
    let runs = timing::arg(2, 5, USAGE);
    if !(1..=nqueens::MAX).contains(&n) {
        eprintln!("usage: {USAGE}");
        std::process::exit(2)
    }
    println!("nqueens {n}×{n}");
    timing::compare(
        runs,
        || nqueens::serial(&mut nqueens::Board::new(std::hint::black_box(n))),
        || {
            let (s, after) = nqueens::solve(std::hint::black_box(n));
            assert!(
                after.next_free(0, n) == Some(0),
                "the shared board ends empty"
            );
            s
        },
    );
}
