//! Pentomino (004 Fig. 9): all tilings of a 60-cell rectangle with the 12 pentominoes, on
//! one shared board with spawn-request handlers and undo-redo — no copy of the board is
//! made unless an idle worker asks. Runs the plain serial search and the handler version
//! on offshoot with one worker and with every core; prints the times, the ratios to the
//! serial program, and how few tasks were made compared with the places one could have been.
//!
//! `cargo run --release --example pentomino -- [ROWS] [RUNS]` (ROWS: 3, 4, 5 or 6; default 6,
//! the 6×10 board: 2,339 solutions up to symmetry, 9,356 counting every orientation).

#[path = "shared/pentomino.rs"]
mod pentomino;
#[path = "shared/timing.rs"]
mod timing;

use pentomino::{known_solutions, serial, solve, walk, Board, Shapes};

fn main() {
    const USAGE: &str = "pentomino [ROWS (3..=6)] [RUNS]";
    let rows = timing::arg(1, 6, USAGE);
    let runs = timing::arg(2, 5, USAGE);
    let Some(want) = known_solutions(rows) else {
        eprintln!("usage: {USAGE}");
        std::process::exit(2)
    };
    let shapes = Shapes::new(Board::new(rows).width());
    let mut nodes = 0;
    let n = walk::<true>(&mut Board::new(rows), &shapes, 0, &mut nodes);
    assert_eq!(n, want, "the serial search disagrees with the known count");
    println!(
        "pentomino {rows}×{}: {n} solutions ({} up to symmetry); {nodes} search nodes with a \
         fitting piece, each a handle block where a task could have been made",
        60 / rows,
        n / 4
    );
    timing::compare(
        runs,
        || serial(&mut Board::new(std::hint::black_box(rows)), &shapes, 0),
        || {
            let (n, after) = solve(std::hint::black_box(rows), &shapes);
            assert_eq!(after.used, 0, "the shared board ends empty");
            n
        },
    );
}
