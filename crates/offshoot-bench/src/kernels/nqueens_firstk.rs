//! `nqueens-firstk`: the first `k` solutions of the n-queens problem, any `k` of them
//! (Imam's thesis, Fig. 4.14 "NQueens-FirstK"): a search that stops once `k` came in.
//!
//! Contenders (a `join` per split of a row's free columns, as in `nqueens`):
//! * serial: the backtracking search, stopping after `k` solutions;
//! * offshoot (EU): `eureka::finish` with a [`Count`]`(k)`; a `check` per placement, an
//!   `offer` per solution;
//! * offshoot-ct: a hand-threaded token: an `AtomicUsize` of solutions kept and an
//!   `AtomicBool` tested per placement;
//! * offshoot-af: no termination: every solution is found, the first `k` kept;
//! * rayon: `rayon::join` with the same token (rayon has no first-k idiom).
//!
//! Inputs: test n=8 k=10, quick n=13 k=1000, full n=14 k=5000.
//! Check: `k` (or all, if fewer) distinct solutions, each a valid placement. The input
//! line reports placements made per search, and those started after the `k`-th solution
//! (see `visits`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use offshoot::eureka::{self, Count, Eureka};

use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par::{Fork, Offshoot, Rayon};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "nqueens-firstk",
    about: "the first k solutions of n-queens: a Count(k) eureka vs a token, no termination, rayon::join with a token",
    cutoff: "none",
    source: "Imam's thesis Fig. 4.14 `NQueens-FirstK`",
};

/// A solution: the column of each row's queen, row by row (n <= 16; a copy per
/// placement costs no allocation).
type Board = [u8; 16];

fn full_mask(n: u32) -> u32 {
    (1u32 << n) - 1
}

fn serial(n: u32, k: usize, count: Option<&Tally>) -> Vec<Board> {
    #[allow(clippy::too_many_arguments)]
    fn rec(
        all: u32,
        cols: u32,
        d1: u32,
        d2: u32,
        row: usize,
        b: &mut Board,
        out: &mut Vec<Board>,
        k: usize,
        count: Option<&Tally>,
    ) {
        Tally::visit(count);
        if cols == all {
            out.push(*b);
            return;
        }
        let mut free = all & !(cols | d1 | d2);
        while free != 0 && out.len() < k {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            b[row] = bit.trailing_zeros() as u8;
            rec(
                all,
                cols | bit,
                (d1 | bit) << 1,
                (d2 | bit) >> 1,
                row + 1,
                b,
                out,
                k,
                count,
            );
        }
    }
    let mut out = Vec::new();
    rec(full_mask(n), 0, 0, 0, 0, &mut [0; 16], &mut out, k, count);
    out
}

/// The parallel search: `visit(board)` is called per placement (false: stop this branch),
/// `found(board)` per solution.
fn search<J: Fork>(n: u32, visit: &(dyn Fn() -> bool + Sync), found: &(dyn Fn(Board) + Sync)) {
    fn place<J: Fork>(
        all: u32,
        (cols, d1, d2): (u32, u32, u32),
        b: Board,
        visit: &(dyn Fn() -> bool + Sync),
        found: &(dyn Fn(Board) + Sync),
    ) {
        if !visit() {
            return;
        }
        if cols == all {
            found(b);
            return;
        }
        split::<J>(
            all,
            (cols, d1, d2),
            all & !(cols | d1 | d2),
            b,
            visit,
            found,
        );
    }
    fn split<J: Fork>(
        all: u32,
        (cols, d1, d2): (u32, u32, u32),
        free: u32,
        b: Board,
        visit: &(dyn Fn() -> bool + Sync),
        found: &(dyn Fn(Board) + Sync),
    ) {
        match free.count_ones() {
            0 => {}
            1 => {
                let mut b = b;
                b[cols.count_ones() as usize] = free.trailing_zeros() as u8;
                place::<J>(
                    all,
                    (cols | free, (d1 | free) << 1, (d2 | free) >> 1),
                    b,
                    visit,
                    found,
                );
            }
            c => {
                // The lowest half of the candidates (by count) and the rest.
                let mut low = 0;
                let mut rest = free;
                for _ in 0..c / 2 {
                    let bit = rest & rest.wrapping_neg();
                    low |= bit;
                    rest ^= bit;
                }
                J::join(
                    || split::<J>(all, (cols, d1, d2), low, b, visit, found),
                    || split::<J>(all, (cols, d1, d2), rest, b, visit, found),
                );
            }
        }
    }
    place::<J>(full_mask(n), (0, 0, 0), [0; 16], visit, found);
}

fn eureka_firstk(n: u32, k: usize, count: Option<&Tally>) -> Vec<Board> {
    let first = Count::new(k);
    eureka::finish(&first, || {
        search::<Offshoot>(
            n,
            &|| {
                first.check();
                Tally::visit(count);
                true
            },
            &|b| {
                first.offer(b);
                if first.is_resolved() {
                    Tally::resolved(count);
                }
            },
        )
    });
    first.into_inner()
}

fn token_firstk<J: Fork>(n: u32, k: usize, count: Option<&Tally>) -> Vec<Board> {
    let stop = AtomicBool::new(false);
    let kept = AtomicUsize::new(0);
    let out = Mutex::new(Vec::with_capacity(k));
    search::<J>(
        n,
        &|| {
            let go = !stop.load(Ordering::Relaxed);
            if go {
                Tally::visit(count);
            }
            go
        },
        &|b| {
            let i = kept.fetch_add(1, Ordering::Relaxed);
            if i < k {
                out.lock().unwrap().push(b);
            }
            if i + 1 >= k {
                Tally::resolved(count);
                stop.store(true, Ordering::Relaxed);
            }
        },
    );
    out.into_inner().unwrap()
}

fn all_then_firstk(n: u32, k: usize, count: Option<&Tally>) -> Vec<Board> {
    let out = Mutex::new(Vec::with_capacity(k));
    search::<Offshoot>(
        n,
        &|| {
            Tally::visit(count);
            true
        },
        &|b| {
            let mut o = out.lock().unwrap();
            if o.len() < k {
                o.push(b);
                if o.len() == k {
                    Tally::resolved(count);
                }
            }
        },
    );
    out.into_inner().unwrap()
}

struct FirstK {
    n: u32,
    k: usize,
    last: Vec<Board>,
    expect: usize,
    tally: Option<Arc<Tally>>,
    visits: String,
}

impl Counted for FirstK {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

fn valid(n: u32, b: &Board) -> bool {
    let cols: Vec<u32> = b[..n as usize].iter().map(|&c| u32::from(c)).collect();
    b[n as usize..].iter().all(|&c| c == 0)
        && (0..cols.len()).all(|i| {
            cols[i] < n
                && (0..i).all(|j| {
                    cols[i] != cols[j] && (cols[i] as i64 - cols[j] as i64).abs() != (i - j) as i64
                })
        })
}

impl Work for FirstK {
    fn input(&self) -> String {
        format!("n={}, first k={}; {}", self.n, self.k, self.visits)
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let all = super::nqueens::KNOWN[self.n as usize] as usize;
        self.expect = self.k.min(all);
        self.check()
    }
    fn check(&self) -> Result<(), String> {
        if self.last.len() != self.expect {
            return Err(format!(
                "{} solutions, expected {}",
                self.last.len(),
                self.expect
            ));
        }
        if let Some(b) = self.last.iter().find(|b| !valid(self.n, b)) {
            return Err(format!("not a solution: {b:?}"));
        }
        let distinct: HashSet<&Board> = self.last.iter().collect();
        if distinct.len() != self.last.len() {
            return Err("a solution was reported twice".into());
        }
        Ok(())
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |f| {
        f.last = serial(f.n, f.k, visits::one_query(&f.tally))
    })
    .offshoot(|f| f.last = eureka_firstk(f.n, f.k, visits::one_query(&f.tally)))
    .offshoot_ct(|f| f.last = token_firstk::<Offshoot>(f.n, f.k, visits::one_query(&f.tally)))
    .offshoot_af(|f| f.last = all_then_firstk(f.n, f.k, visits::one_query(&f.tally)))
    .rayon(|f| f.last = token_firstk::<Rayon>(f.n, f.k, visits::one_query(&f.tally)))
    .build()
}

fn prepare(size: Size, kernel: &Kernel<FirstK>) -> FirstK {
    let (n, k) = match size {
        Size::Test => (8, 10),
        Size::Quick => (13, 1000),
        Size::Full => (14, 5000),
    };
    let mut firstk = FirstK {
        n,
        k,
        last: Vec::new(),
        expect: 0,
        tally: None,
        visits: String::new(),
    };
    firstk.visits = visits::line(kernel, &mut firstk, "placements");
    firstk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_what_serial_finds() {
        super::super::verify(&info());
    }
}
