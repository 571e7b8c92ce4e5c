//! Pentomino (004 Fig. 9): all tilings of a 60-cell rectangle with the 12 pentominoes, on
//! one shared board with spawn-request handlers and undo-redo — no copy of the board is
//! made unless an idle worker asks. Runs the plain serial search and the handler version
//! on offshoot with one worker and with every core; prints the times, the ratios to the
//! serial program, and how few tasks were made compared with the places one could have been.
//!
//! `cargo run --release --example pentomino -- [ROWS] [RUNS]` (ROWS: 3, 4, 5 or 6; default 6,
//! the 6×10 board: 2,339 solutions up to symmetry, 9,356 counting every orientation).

use std::time::{Duration, Instant};

#[path = "shared/pentomino.rs"]
mod pentomino;

use pentomino::{known_solutions, serial, solve, walk, Board, Shapes};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn arg(i: usize, default: usize) -> usize {
    std::env::args().nth(i).map_or(default, |s| {
        s.parse().unwrap_or_else(|_| {
            eprintln!("usage: pentomino [ROWS (3..=6)] [RUNS]");
            std::process::exit(2)
        })
    })
}

fn main() {
    let rows = arg(1, 6);
    let runs = arg(2, 5).max(1);
    let Some(want) = known_solutions(rows) else {
        eprintln!("usage: pentomino [ROWS (3..=6)] [RUNS]");
        std::process::exit(2)
    };
    let shapes = Shapes::new(Board::new(rows).width());
    let mut nodes = 0;
    let n = walk::<true>(&mut Board::new(rows), &shapes, 0, &mut nodes);
    assert_eq!(n, want, "the serial search disagrees with the known count");
    println!(
        "pentomino {rows}×{}: {n} solutions ({} up to symmetry), {nodes} search nodes \
         with a fitting piece (= handle blocks entered), median of {runs} runs",
        60 / rows,
        n / 4
    );

    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let pools: Vec<_> = [1, cores.max(2)]
        .iter()
        .map(|&w| {
            offshoot::ThreadPool::builder()
                .workers(w)
                .build()
                .expect("pool")
        })
        .collect();
    let mut serial_t = Vec::new();
    let mut par_t = vec![Vec::new(); pools.len()];
    let mut stats = vec![None; pools.len()];
    // Interleave the contenders so that drift hits them alike.
    for _ in 0..runs {
        let t = Instant::now();
        let mut b = Board::new(std::hint::black_box(rows));
        assert_eq!(serial(&mut b, &shapes, 0), want);
        serial_t.push(t.elapsed());
        for (i, p) in pools.iter().enumerate() {
            let before = p.stats();
            let t = Instant::now();
            let (got, after) = p.run(|| solve(std::hint::black_box(rows), &shapes));
            par_t[i].push(t.elapsed());
            assert_eq!(got, want, "wrong answer on {} workers", p.workers());
            assert_eq!(after.used, 0, "the board ends empty");
            stats[i] = Some(p.stats() - before);
        }
    }
    let s = median(serial_t);
    println!("serial              {:>10.2?}   1.00", s);
    for ((p, times), st) in pools.iter().zip(par_t).zip(stats) {
        let t = median(times);
        let st = st.expect("one run at least");
        println!(
            "offshoot {:>2} worker{} {:>10.2?}   {:.3}   last run: {} tasks made for {} requests \
             answered with work, {} answered empty ({} places a task could have been made)",
            p.workers(),
            if p.workers() == 1 { " " } else { "s" },
            t,
            t.as_secs_f64() / s.as_secs_f64(),
            st.tasks_materialized,
            st.requests_answered_work,
            st.requests_answered_empty,
            nodes
        );
    }
}
