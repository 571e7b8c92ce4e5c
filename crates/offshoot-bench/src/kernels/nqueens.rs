//! `nqueens`: counts every placement of n non-attacking queens on an n×n
//! board, row by row, with the occupied columns and diagonals as bitmasks.
//!
//! The parallel versions fork at every placement: the set of free columns of
//! a row is split in two halves (by count of candidates) with a join, down to
//! single candidates, and each single candidate is placed and recursed into;
//! k candidates give k-1 joins. The serial version visits the same
//! placements in the same order (lowest column first) with a plain loop.
//!
//! Inputs: test n=8, quick n=12, full n=13.
//! Cutoff: none.
//! Source: the `queens` example of Cilk-5 (Frigo, Leiserson, Randall 1998) and
//! BOTS `nqueens` (Duran et al. 2009), here counting all solutions.
//! Check: the serial count must equal OEIS A000170(n).

use super::plain::{self, call, scoped, Plain};
use super::{About, Answer, Kernel, KernelInfo, Size};
use crate::harness::Contender;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "nqueens",
    about: "count all solutions of the n-queens problem, a fork per placement",
    cutoff: "none",
    source: "Cilk-5 `queens`, BOTS `nqueens`; counts from OEIS A000170",
};

/// OEIS A000170: number of solutions for n = 0, 1, 2, ...
pub const KNOWN: [u64; 17] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
];

/// Serial count of solutions for an n×n board (n <= 16).
pub fn serial(n: u32) -> u64 {
    fn rec(all: u32, cols: u32, d1: u32, d2: u32) -> u64 {
        if cols == all {
            return 1;
        }
        let mut free = all & !(cols | d1 | d2);
        let mut count = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            count += rec(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
        }
        count
    }
    rec(full_mask(n), 0, 0, 0)
}

// Each runtime's version is its own pair of plain functions, as a user writes them (see
// `fib.rs`): `split` captures six words in each closure, the wide-capture shape.

/// Parallel count with `offshoot::join` at every split of the candidate set.
pub fn offshoot(n: u32) -> u64 {
    fn place(all: u32, cols: u32, d1: u32, d2: u32) -> u64 {
        if cols == all {
            return 1;
        }
        split(all, cols, d1, d2, all & !(cols | d1 | d2))
    }
    fn split(all: u32, cols: u32, d1: u32, d2: u32, cand: u32) -> u64 {
        if cand == 0 {
            return 0;
        }
        if cand & (cand - 1) == 0 {
            return place(all, cols | cand, (d1 | cand) << 1, (d2 | cand) >> 1);
        }
        let lo = lower_half(cand);
        let (a, b) = offshoot::join(
            || split(all, cols, d1, d2, lo),
            || split(all, cols, d1, d2, cand ^ lo),
        );
        a + b
    }
    place(full_mask(n), 0, 0, 0)
}

/// Parallel count with `rayon::join` at every split of the candidate set.
pub fn rayon(n: u32) -> u64 {
    fn place(all: u32, cols: u32, d1: u32, d2: u32) -> u64 {
        if cols == all {
            return 1;
        }
        split(all, cols, d1, d2, all & !(cols | d1 | d2))
    }
    fn split(all: u32, cols: u32, d1: u32, d2: u32, cand: u32) -> u64 {
        if cand == 0 {
            return 0;
        }
        if cand & (cand - 1) == 0 {
            return place(all, cols | cand, (d1 | cand) << 1, (d2 | cand) >> 1);
        }
        let lo = lower_half(cand);
        let (a, b) = rayon::join(
            || split(all, cols, d1, d2, lo),
            || split(all, cols, d1, d2, cand ^ lo),
        );
        a + b
    }
    place(full_mask(n), 0, 0, 0)
}

/// How many joins the parallel versions make for an `n × n` board (`forkcost`).
pub fn forks(n: u32) -> u64 {
    fn place(all: u32, cols: u32, d1: u32, d2: u32) -> u64 {
        if cols == all {
            return 0;
        }
        split(all, cols, d1, d2, all & !(cols | d1 | d2))
    }
    fn split(all: u32, cols: u32, d1: u32, d2: u32, cand: u32) -> u64 {
        if cand == 0 {
            return 0;
        }
        if cand & (cand - 1) == 0 {
            return place(all, cols | cand, (d1 | cand) << 1, (d2 | cand) >> 1);
        }
        let lo = lower_half(cand);
        1 + split(all, cols, d1, d2, lo) + split(all, cols, d1, d2, cand ^ lo)
    }
    place(full_mask(n), 0, 0, 0)
}

/// Parallel count with chili's `Scope::join` at every split.
pub fn chili(s: &mut chili::Scope<'_>, n: u32) -> u64 {
    fn place(s: &mut chili::Scope<'_>, all: u32, cols: u32, d1: u32, d2: u32) -> u64 {
        if cols == all {
            return 1;
        }
        split(s, all, cols, d1, d2, all & !(cols | d1 | d2))
    }
    fn split(s: &mut chili::Scope<'_>, all: u32, cols: u32, d1: u32, d2: u32, cand: u32) -> u64 {
        if cand == 0 {
            return 0;
        }
        if cand & (cand - 1) == 0 {
            return place(s, all, cols | cand, (d1 | cand) << 1, (d2 | cand) >> 1);
        }
        let lo = lower_half(cand);
        // chili runs its second closure first: keep serial's order.
        let (b, a) = s.join(
            |s| split(s, all, cols, d1, d2, cand ^ lo),
            |s| split(s, all, cols, d1, d2, lo),
        );
        a + b
    }
    place(s, full_mask(n), 0, 0, 0)
}

fn full_mask(n: u32) -> u32 {
    assert!(n <= 16, "nqueens supports n <= 16");
    (1u32 << n) - 1
}

/// The lower half (by count) of the set bits of `cand`.
fn lower_half(cand: u32) -> u32 {
    let mut upper = cand;
    for _ in 0..cand.count_ones() / 2 {
        upper &= upper - 1;
    }
    cand ^ upper
}

/// The board size for an input size class (shared with `nqueens-undo`).
pub(crate) fn board_size(size: Size) -> u32 {
    match size {
        Size::Test => 8,
        Size::Quick => 12,
        Size::Full => 13,
    }
}

/// Checks a count of solutions of an `n × n` board against OEIS A000170.
fn check_oeis(n: &u32, got: u64) -> Result<(), String> {
    let want = KNOWN[*n as usize];
    if got == want {
        Ok(())
    } else {
        Err(format!("{got} solutions, OEIS A000170 says {want}"))
    }
}

/// Validates the serial count of an `n × n` board against OEIS A000170 (for
/// `nqueens-undo`).
pub(crate) fn accept_oeis(out: &mut Answer<u64>, n: u32) -> Result<(), String> {
    out.accept(|got| check_oeis(&n, got))
}

fn prepare(size: Size) -> Plain<u32, u64> {
    let n = board_size(size);
    Plain::checked(n, format!("n = {n}"), check_oeis)
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(serial))
        .offshoot(call(offshoot))
        .rayon(call(rayon))
        .chili(scoped(chili))
        .peers(
            Contender::PEERS,
            plain::peer_args(|n: &u32| vec![n.to_string()]),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_matches_oeis() {
        for n in 1..=9 {
            assert_eq!(serial(n), KNOWN[n as usize], "n = {n}");
        }
    }

    #[test]
    fn lower_half_splits_by_count() {
        assert_eq!(lower_half(0b1011_0110), 0b0000_0110);
        assert_eq!(lower_half(0b111), 0b001);
        assert_eq!(lower_half(0b1), 0);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
