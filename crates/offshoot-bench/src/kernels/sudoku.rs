//! `sudoku`: solve hard 9×9 puzzles by backtracking, any solution will do (Imam's thesis,
//! Fig. 4.14 "Sudoku", a Search eureka): the search should stop once one worker has a
//! filled grid.
//!
//! The search: a node is a partly filled grid (digits, and the digits used in each row,
//! column and box as bit sets); it branches on the empty cell with the fewest candidates
//! (a dead end when one has none), trying its candidates in increasing order. Contenders,
//! all with this order, per puzzle:
//! * serial: depth-first, stopping at the first filled grid;
//! * offshoot (EU): `eureka::finish` with a [`Search`](offshoot::eureka::Search); a `check` per node, an `offer`
//!   of the filled grid; a node's candidates split in halves with `join`;
//! * offshoot-ct: the same with a hand-threaded `AtomicBool` tested per node;
//! * offshoot-af: no termination: every solution is found, the first kept;
//! * rayon: `rayon::join` with the same token.
//!
//! Inputs: published hard puzzles (17-clue puzzles of Gordon Royle's collection and
//! puzzles from Peter Norvig's "hardest" list, as quoted in his essay "Solving Every
//! Sudoku Puzzle"), each with a unique solution; test: the 2 easiest, quick: 4 of middle
//! hardness (ranks 9–12 of the 16), full: all 16.
//! Check: each answer is a filled grid that keeps every clue and has each digit once per
//! row, column and box. The input line reports nodes visited per puzzle, and those started
//! after the solution was offered (see `visits`).

use std::sync::Arc;

use super::first;
use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par::{Fork, Offshoot, Rayon};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "sudoku",
    about: "solve hard sudoku puzzles by backtracking: a Search eureka vs a token, no termination, rayon::join with a token",
    cutoff: "none",
    source: "Imam's thesis Fig. 4.14 `Sudoku`",
};

/// The puzzles, row by row, `.` for an empty cell; the hardest for this solver first (the
/// nodes its serial search visits).
const PUZZLES: [&str; 16] = [
    "......52..8.4......3...9...5.1...6..2..7........3.....6...1..........7.4.......3.", // 359,069 nodes
    "48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5....", // 128,756 nodes
    "6.2.5.........3.4..........43...8....1....2........7..5..27...........81...6.....", // 125,163 nodes
    ".923.........8.1...........1.7.4...........658.........6.5.2...4.....7.....9.....", // 123,818 nodes
    "6.2.5.........4.3..........43...8....1....2........7..5..27...........81...6.....", // 102,556 nodes
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9", // 58,234 nodes
    "....14....3....2...7..........9...3.6.1.............8.2.....1.4....5.6.....7.8...", // 34,427 nodes
    "3.6.7...........518.........1.4.5...7.....6.....2......2.....4.....8.3.....5.....", // 30,740 nodes
    "6..3.2....5.....1..........7.26............543.........8.15........4.2........7..", // 15,716 nodes
    "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..", // 13,811 nodes
    "1.....3.8.7.4..............2.3.1...........958.........5.6...7.....8.2...4.......", // 4,640 nodes
    "..5...987.4..5...1..7......2...48....9.1.....6..2.....3..6..2.......9.7.......5..", // 3,784 nodes
    "6.....8.3.4.7.................5.4.7.3..2.....1.6.......2.....5.....8.6......1....", // 2,147 nodes
    "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....", // 1,877 nodes
    ".524.........7.1..............8.2...3.....6...9.5.....1.6.3...........897........", // 1,339 nodes
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......", // 719 nodes
];

/// The nine digits as bits 1..=9.
const DIGITS: u16 = 0b11_1111_1110;

/// A partly filled grid and the digits each row, column and box already has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Grid {
    cell: [u8; 81],
    row: [u16; 9],
    col: [u16; 9],
    boxed: [u16; 9],
}

impl Grid {
    /// Parses 81 characters, digits or `.`; `None` if two clues clash.
    fn parse(s: &str) -> Option<Grid> {
        let mut g = Grid {
            cell: [0; 81],
            row: [0; 9],
            col: [0; 9],
            boxed: [0; 9],
        };
        assert_eq!(s.len(), 81, "a puzzle is 81 characters");
        for (i, ch) in s.bytes().enumerate() {
            if ch.is_ascii_digit() && ch != b'0' {
                let d = ch - b'0';
                if g.candidates(i) & (1 << d) == 0 {
                    return None;
                }
                g.place(i, d);
            }
        }
        Some(g)
    }

    #[inline]
    fn place(&mut self, i: usize, d: u8) {
        let (r, c) = (i / 9, i % 9);
        self.cell[i] = d;
        self.row[r] |= 1 << d;
        self.col[c] |= 1 << d;
        self.boxed[r / 3 * 3 + c / 3] |= 1 << d;
    }

    #[inline]
    fn candidates(&self, i: usize) -> u16 {
        let (r, c) = (i / 9, i % 9);
        DIGITS & !(self.row[r] | self.col[c] | self.boxed[r / 3 * 3 + c / 3])
    }

    /// The empty cell with the fewest candidates and its candidates (none: a dead end),
    /// or `None` when the grid is full.
    #[inline]
    fn pick(&self) -> Option<(usize, u16)> {
        let mut best: Option<(usize, u16)> = None;
        let mut fewest = u32::MAX;
        for i in 0..81 {
            if self.cell[i] == 0 {
                let m = self.candidates(i);
                let k = m.count_ones();
                if k < fewest {
                    (best, fewest) = (Some((i, m)), k);
                    if k <= 1 {
                        break;
                    }
                }
            }
        }
        best
    }

    /// With digit `d` at cell `i`.
    #[inline]
    fn with(&self, i: usize, d: u8) -> Grid {
        let mut g = *self;
        g.place(i, d);
        g
    }

    /// Whether this is a solution of `puzzle`: full, each digit once per row, column and
    /// box, every clue kept.
    fn solves(&self, puzzle: &Grid) -> bool {
        let units_ok = (0..9).all(|u| {
            let (mut r, mut c, mut b) = (0u16, 0u16, 0u16);
            for k in 0..9 {
                r |= 1 << self.cell[u * 9 + k];
                c |= 1 << self.cell[k * 9 + u];
                b |= 1 << self.cell[(u / 3 * 3 + k / 3) * 9 + u % 3 * 3 + k % 3];
            }
            r == DIGITS && c == DIGITS && b == DIGITS
        });
        units_ok && (0..81).all(|i| puzzle.cell[i] == 0 || puzzle.cell[i] == self.cell[i])
    }
}

fn serial(p: &Grid, count: Option<&Tally>) -> Option<Grid> {
    fn rec(g: &Grid, count: Option<&Tally>) -> Option<Grid> {
        Tally::visit(count);
        let Some((i, mut m)) = g.pick() else {
            return Some(*g);
        };
        while m != 0 {
            let d = m.trailing_zeros() as u8;
            m &= m - 1;
            if let Some(s) = rec(&g.with(i, d), count) {
                return Some(s);
            }
        }
        None
    }
    rec(p, count)
}

/// The parallel search: `go()` per node (false: stop this branch), `hit(grid)` per
/// solution; a node's candidates split in halves with `join`.
fn search<J: Fork>(p: &Grid, go: &(dyn Fn() -> bool + Sync), hit: &(dyn Fn(Grid) + Sync)) {
    fn node<J: Fork>(g: &Grid, go: &(dyn Fn() -> bool + Sync), hit: &(dyn Fn(Grid) + Sync)) {
        if !go() {
            return;
        }
        match g.pick() {
            None => hit(*g),
            Some((i, m)) => split::<J>(g, i, m, go, hit),
        }
    }
    fn split<J: Fork>(
        g: &Grid,
        i: usize,
        m: u16,
        go: &(dyn Fn() -> bool + Sync),
        hit: &(dyn Fn(Grid) + Sync),
    ) {
        match m.count_ones() {
            0 => {}
            1 => node::<J>(&g.with(i, m.trailing_zeros() as u8), go, hit),
            k => {
                // The lowest half of the candidates and the rest.
                let mut low = 0;
                let mut rest = m;
                for _ in 0..k / 2 {
                    let bit = rest & rest.wrapping_neg();
                    low |= bit;
                    rest ^= bit;
                }
                J::join(
                    || split::<J>(g, i, low, go, hit),
                    || split::<J>(g, i, rest, go, hit),
                );
            }
        }
    }
    node::<J>(p, go, hit);
}

fn eureka_solve(p: &Grid, count: Option<&Tally>) -> Option<Grid> {
    first::eureka(count, |go, hit| search::<Offshoot>(p, go, hit))
}

fn token_solve<J: Fork>(p: &Grid, stop: bool, count: Option<&Tally>) -> Option<Grid> {
    first::token(stop, count, |go, hit| search::<J>(p, go, hit))
}

struct Sudoku {
    puzzles: Vec<Grid>,
    last: Vec<Option<Grid>>,
    tally: Option<Arc<Tally>>,
    visits: String,
}

impl Sudoku {
    fn run(&mut self, f: impl Fn(&Grid, Option<&Tally>) -> Option<Grid>) {
        self.last = visits::per_query(&self.puzzles, self.tally.as_ref(), |p, c| {
            f(p, c.map(|c| &**c))
        });
    }
}

impl Counted for Sudoku {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

impl Work for Sudoku {
    fn input(&self) -> String {
        format!("{} hard puzzles; {}", self.puzzles.len(), self.visits)
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        // The oracle is the check itself (each puzzle has a solution: see the test).
        self.check()
    }
    fn check(&self) -> Result<(), String> {
        if self.last.len() != self.puzzles.len() {
            return Err(format!(
                "{} answers for {} puzzles",
                self.last.len(),
                self.puzzles.len()
            ));
        }
        for (k, (p, got)) in self.puzzles.iter().zip(&self.last).enumerate() {
            match got {
                None => return Err(format!("puzzle {k}: no solution found")),
                Some(g) if !g.solves(p) => {
                    return Err(format!("puzzle {k}: {:?} is not a solution", g.cell))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |k| k.run(serial))
        .offshoot(|k| k.run(eureka_solve))
        .offshoot_ct(|k| k.run(|p, c| token_solve::<Offshoot>(p, true, c)))
        .offshoot_af(|k| k.run(|p, c| token_solve::<Offshoot>(p, false, c)))
        .rayon(|k| k.run(|p, c| token_solve::<Rayon>(p, true, c)))
        .build()
}

fn prepare(size: Size, kernel: &Kernel<Sudoku>) -> Sudoku {
    // The list is hardest first.
    let chosen = match size {
        Size::Test => &PUZZLES[14..],
        Size::Quick => &PUZZLES[8..12],
        Size::Full => &PUZZLES[..],
    };
    let mut s = Sudoku {
        puzzles: chosen
            .iter()
            .map(|p| Grid::parse(p).expect("the puzzles' clues do not clash"))
            .collect(),
        last: Vec::new(),
        tally: None,
        visits: String::new(),
    };
    s.visits = visits::line(kernel, &mut s, "nodes visited");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_solves_every_puzzle() {
        super::super::verify(&info());
    }

    #[test]
    fn the_solution_check_rejects_broken_grids() {
        let p = Grid::parse(PUZZLES[15]).unwrap();
        let s = serial(&p, None).expect("a solution");
        assert!(s.solves(&p));
        let mut swapped = s;
        swapped.cell.swap(0, 1); // breaks two columns (and maybe a clue)
        assert!(!swapped.solves(&p));
        let mut clue = s;
        let i = (0..81).find(|&i| p.cell[i] != 0).unwrap();
        let j = (0..81).find(|&j| p.cell[j] == 0 && j / 9 == i / 9).unwrap();
        clue.cell.swap(i, j); // still a permutation of the row, but a clue moved
        assert!(!clue.solves(&p));
        assert_eq!(Grid::parse(&format!("11{}", &".".repeat(79))), None);
    }
}
