//! `pentomino`: all tilings of a 60-cell rectangle with the 12 pentominoes (Yasugi et al.'s LBTC Fig. 9).
//!
//! - serial: the plain backtracking search on one board (place, recurse, remove).
//! - offshoot: the same search on one shared `offshoot::search::State` board, with a
//!   spawn-request handler per search node (it gives the last untried piece, with a copy of
//!   the board, to a worker that asks) and an undo-redo clause per placement: the board is
//!   copied only when a task is made.
//! - rayon, chili: the natural fork-join version: the placements that fit at a node are
//!   split in halves with a join, down to single placements, and every placement works on
//!   a copy of the board (as Cilk1 in Yasugi et al.'s LBTC Table 4).
//!
//! The solver (board, pieces, serial and handler versions) is `crates/offshoot/examples/shared/pentomino.rs`,
//! the same file the `pentomino` example runs.
//!
//! Inputs: test and quick 3×20 (8 solutions), full 6×10 (9,356, i.e. 2,339 up to
//! symmetry). Cutoff: none.
//! Source: Yasugi et al. Yasugi et al.'s LBTC, Fig. 9 and Tables 2 and 4.
//! Check: the serial count must equal the known count for the board.

use std::hint::black_box;

use super::{About, Answer, Kernel, KernelInfo, Size, Work};
use crate::par::{Fork, Offshoot, Rayon};

#[path = "../../../offshoot/examples/shared/pentomino.rs"]
pub(crate) mod solver;

use solver::{known_solutions, Board, Shapes, PIECES};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "pentomino",
    about: "all pentomino tilings of a 60-cell board: one shared board with spawn-request \
            handlers and undo-redo (offshoot) against a board copy per child (rayon, chili)",
    cutoff: "none",
    source: "Yasugi et al. Fig. 9",
};

/// Which offshoot program the instance runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Variant {
    /// One shared board, handlers and undo-redo.
    Handlers,
    /// A copy of the board for every child, forked with `offshoot::join`.
    Copying,
}

/// The placements that fit on cell `k`, in search order: `(piece, orientation)` pairs in
/// an array on the stack (there are 63 orientations in all) and their number.
fn placements(b: &Board, s: &Shapes, k: usize) -> ([(u8, u8); 64], usize) {
    let mut v = [(0, 0); 64];
    let mut m = 0;
    let mut at = b.next_fit(s, k, 0, 0, PIECES);
    while let Some((p, i)) = at {
        v[m] = (p as u8, i as u8);
        m += 1;
        at = b.next_fit(s, k, p, i + 1, PIECES);
    }
    (v, m)
}

/// The count below placement `(p, i)` on cell `k`, on a fresh copy of `b`.
fn child(
    b: &Board,
    s: &Shapes,
    k: usize,
    (p, i): (u8, u8),
    rest: impl FnOnce(&Board, usize) -> u64,
) -> u64 {
    let (p, i) = (p as usize, i as usize);
    let mut mine = b.clone();
    mine.place(k, p, &s.of(p)[i]);
    let kk = mine.next_empty(k);
    if kk == mine.end() {
        1
    } else {
        rest(&mine, kk)
    }
}

/// The copying version with `J::join` at every split of a node's placements.
pub fn copying<J: Fork>(b: &Board, s: &Shapes, k: usize) -> u64 {
    fn split<J: Fork>(b: &Board, s: &Shapes, k: usize, c: &[(u8, u8)]) -> u64 {
        match c {
            [] => 0,
            [one] => child(b, s, k, *one, |m, kk| copying::<J>(m, s, kk)),
            _ => {
                let (lo, hi) = c.split_at(c.len() / 2);
                let (x, y) = J::join(|| split::<J>(b, s, k, lo), || split::<J>(b, s, k, hi));
                x + y
            }
        }
    }
    let (c, m) = placements(b, s, k);
    split::<J>(b, s, k, &c[..m])
}

/// The copying version with chili's `Scope::join`.
pub fn chili(sc: &mut chili::Scope<'_>, b: &Board, s: &Shapes, k: usize) -> u64 {
    fn split(sc: &mut chili::Scope<'_>, b: &Board, s: &Shapes, k: usize, c: &[(u8, u8)]) -> u64 {
        match c {
            [] => 0,
            [one] => child(b, s, k, *one, |m, kk| chili(sc, m, s, kk)),
            _ => {
                let (lo, hi) = c.split_at(c.len() / 2);
                // chili runs its second closure first: keep serial's order.
                let (y, x) = sc.join(|sc| split(sc, b, s, k, hi), |sc| split(sc, b, s, k, lo));
                x + y
            }
        }
    }
    let (c, m) = placements(b, s, k);
    split(sc, b, s, k, &c[..m])
}

pub(crate) struct Pentomino {
    rows: usize,
    shapes: Shapes,
    variant: Variant,
    out: Answer<u64>,
}

impl Pentomino {
    pub(crate) fn new(size: Size, variant: Variant) -> Pentomino {
        let rows = match size {
            Size::Test => 3,
            Size::Quick => 3,
            Size::Full => 6,
        };
        Pentomino {
            rows,
            shapes: Shapes::new(Board::new(rows).width()),
            variant,
            out: Answer::new(),
        }
    }
}

impl Work for Pentomino {
    fn input(&self) -> String {
        format!("{}×{} board", self.rows, 60 / self.rows)
    }
    fn reset(&mut self) {
        self.out.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let want = known_solutions(self.rows).ok_or("no known count for this board")?;
        self.out.accept(|got| {
            if got == want {
                Ok(())
            } else {
                Err(format!("{got} tilings, the known count is {want}"))
            }
        })
    }
    fn check(&self) -> Result<(), String> {
        self.out.check()
    }
}

/// The declaration of the kernel and of `pentomino-copy`, which differ in their input's
/// [`Variant`].
pub(crate) fn declare(about: About, prepare: fn(Size) -> Pentomino) -> KernelInfo {
    Kernel::new(about, prepare, |k| {
        let mut b = Board::new(black_box(k.rows));
        k.out.set(solver::serial(&mut b, &k.shapes, 0));
    })
    .offshoot(|k| {
        let rows = black_box(k.rows);
        let n = match k.variant {
            Variant::Handlers => {
                let (n, after) = solver::solve(rows, &k.shapes);
                assert_eq!(after.used, 0, "the shared board must end empty");
                n
            }
            Variant::Copying => copying::<Offshoot>(&Board::new(rows), &k.shapes, 0),
        };
        k.out.set(n);
    })
    .rayon(|k| {
        let b = Board::new(black_box(k.rows));
        k.out.set(copying::<Rayon>(&b, &k.shapes, 0));
    })
    .chili(|k, sc| {
        let b = Board::new(black_box(k.rows));
        k.out.set(chili(sc, &b, &k.shapes, 0));
    })
    .build()
}

/// The registry entry.
pub fn info() -> KernelInfo {
    declare(ABOUT, |size| Pentomino::new(size, Variant::Handlers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_matches_the_known_counts() {
        for rows in [3, 4] {
            let s = Shapes::new(Board::new(rows).width());
            assert_eq!(
                solver::serial(&mut Board::new(rows), &s, 0),
                known_solutions(rows).unwrap()
            );
        }
    }

    #[test]
    fn there_are_63_orientations() {
        let s = Shapes::new(Board::new(6).width());
        assert_eq!((0..PIECES).map(|p| s.of(p).len()).sum::<usize>(), 63);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
