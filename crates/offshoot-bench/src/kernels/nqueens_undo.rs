//! `nqueens-undo`: counts the n-queens solutions on a board kept as arrays (columns and
//! diagonals), beside the bitmask `nqueens` kernel.
//!
//! - serial: the plain backtracking search on one board (place, recurse, remove).
//! - offshoot: the same search on one shared `offshoot::search::State` board, with a
//!   spawn-request handler per row (it gives the last untried safe column, with a copy of
//!   the board, to a worker that asks) and an undo-redo clause per placement.
//! - rayon, chili: the natural fork-join version: a row's safe columns are split in halves
//!   with a join, down to single columns, and every placement works on a copy of the board.
//!
//! The solver (board, serial and handler versions) is `crates/offshoot/examples/shared/nqueens.rs`, the same
//! file the `nqueens` example runs.
//!
//! Inputs: as `nqueens` (test n=8, quick n=12, full n=13). Cutoff: none.
//! Source: LBTC's search programs; counts from OEIS A000170.
//! Check: the serial count must equal OEIS A000170(n).

use std::hint::black_box;

use super::nqueens::{accept_oeis, board_size};
use super::{About, Answer, Kernel, KernelInfo, Size, Work};
use crate::par::{Fork, Rayon};

#[path = "../../../offshoot/examples/shared/nqueens.rs"]
mod solver;

use solver::Board;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "nqueens-undo",
    about: "n-queens on an array board: one shared board with spawn-request handlers and \
            undo-redo (offshoot) against a board copy per child (rayon, chili)",
    cutoff: "none",
    source: "Yasugi et al. search programs; counts from OEIS A000170",
};

/// The safe columns of the next row, in an array on the stack, and their number.
fn free_columns(b: &Board) -> ([u8; solver::MAX], usize) {
    let mut v = [0; solver::MAX];
    let mut m = 0;
    let mut at = b.next_free(0, b.size());
    while let Some(c) = at {
        v[m] = c as u8;
        m += 1;
        at = b.next_free(c + 1, b.size());
    }
    (v, m)
}

/// The count below column `c` of the next row, on a fresh copy of `b`.
fn child(b: &Board, c: u8, rest: impl FnOnce(&Board) -> u64) -> u64 {
    let mut mine = b.clone();
    mine.place(c as usize);
    rest(&mine)
}

/// The copying version with `J::join` at every split of a row's columns.
pub fn copying<J: Fork>(b: &Board) -> u64 {
    fn split<J: Fork>(b: &Board, c: &[u8]) -> u64 {
        match c {
            [] => 0,
            [one] => child(b, *one, copying::<J>),
            _ => {
                let (lo, hi) = c.split_at(c.len() / 2);
                let (x, y) = J::join(|| split::<J>(b, lo), || split::<J>(b, hi));
                x + y
            }
        }
    }
    if b.full() {
        return 1;
    }
    let (c, m) = free_columns(b);
    split::<J>(b, &c[..m])
}

/// The copying version with chili's `Scope::join`.
pub fn chili(sc: &mut chili::Scope<'_>, b: &Board) -> u64 {
    fn split(sc: &mut chili::Scope<'_>, b: &Board, c: &[u8]) -> u64 {
        match c {
            [] => 0,
            [one] => child(b, *one, |m| chili(sc, m)),
            _ => {
                let (lo, hi) = c.split_at(c.len() / 2);
                // chili runs its second closure first: keep serial's order.
                let (y, x) = sc.join(|sc| split(sc, b, hi), |sc| split(sc, b, lo));
                x + y
            }
        }
    }
    if b.full() {
        return 1;
    }
    let (c, m) = free_columns(b);
    split(sc, b, &c[..m])
}

struct NQueensUndo {
    n: usize,
    out: Answer<u64>,
}

fn prepare(size: Size) -> NQueensUndo {
    NQueensUndo {
        n: board_size(size) as usize,
        out: Answer::new(),
    }
}

impl Work for NQueensUndo {
    fn input(&self) -> String {
        format!("n = {}", self.n)
    }
    fn reset(&mut self) {
        self.out.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        accept_oeis(&mut self.out, self.n as u32)
    }
    fn check(&self) -> Result<(), String> {
        self.out.check()
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| {
        k.out.set(solver::serial(&mut Board::new(black_box(k.n))));
    })
    .offshoot(|k| {
        let (s, after) = solver::solve(black_box(k.n));
        assert_eq!(
            after.next_free(0, k.n),
            Some(0),
            "the shared board must end empty"
        );
        k.out.set(s);
    })
    .rayon(|k| {
        k.out.set(copying::<Rayon>(&Board::new(black_box(k.n))));
    })
    .chili(|k, sc| k.out.set(chili(sc, &Board::new(black_box(k.n)))))
    .build()
}

#[cfg(test)]
mod tests {
    use super::super::nqueens::KNOWN;
    use super::*;

    #[test]
    fn serial_matches_oeis() {
        for (n, &want) in KNOWN.iter().enumerate().take(10).skip(1) {
            assert_eq!(solver::serial(&mut Board::new(n)), want, "n = {n}");
        }
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
