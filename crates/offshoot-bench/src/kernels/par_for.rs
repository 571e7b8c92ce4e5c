//! `par-for`: a loop of 10^8 iterations with a trivial body (a multiplicative hash of the
//! index, summed with wrapping addition) — the overhead test of a parallel loop.
//!
//! - serial: a plain `for` loop (the compiler may unroll and vectorise it);
//! - offshoot: `offshoot::par_reduce`, which splits the range only when a worker asks;
//! - rayon: `(0..n).into_par_iter().map(..).reduce(..)`, rayon's adaptive splitting;
//! - chili: chili has no loop API; a user writes a recursive halving with `Scope::join`
//!   down to blocks of 4096 iterations (the only contender with a cutoff, which chili needs).
//!
//! Inputs: test 10^5, quick and full 10^8 iterations. Source: the forall
//! loops of OPA (Umatani's OPA thesis ch.6), with a body that costs next to nothing. Check: the sum computed again by an independent loop that
//! walks the range backwards.

use rayon::prelude::*;

use super::plain::{self, call, scoped, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::harness::Contender;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "par-for",
    about: "sum a trivial function of the index over 10^8 iterations",
    cutoff: "none (chili: blocks of 4096, it has no loop API)",
    source: "the forall loops of OPA (Umatani's OPA thesis ch.6): a loop with a trivial body",
};

const CHILI_BLOCK: usize = 4096;

#[inline]
fn f(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7
}

/// The plain loop.
pub fn serial(n: usize) -> u64 {
    let mut s = 0u64;
    for i in 0..n {
        s = s.wrapping_add(f(i));
    }
    s
}

/// offshoot's lazily split loop.
pub fn offshoot(n: usize) -> u64 {
    offshoot::par_reduce(0..n, || 0u64, f, u64::wrapping_add)
}

/// rayon's parallel iterator.
pub fn rayon(n: usize) -> u64 {
    (0..n)
        .into_par_iter()
        .map(f)
        .reduce(|| 0u64, u64::wrapping_add)
}

/// Recursive halving with chili's join, down to blocks of at most `CHILI_BLOCK` indices.
pub fn chili(s: &mut chili::Scope<'_>, lo: usize, hi: usize) -> u64 {
    if hi - lo <= CHILI_BLOCK {
        return (lo..hi).fold(0u64, |a, i| a.wrapping_add(f(i)));
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = s.join(|s| chili(s, lo, mid), |s| chili(s, mid, hi));
    a.wrapping_add(b)
}

fn oracle(n: usize) -> u64 {
    (0..n).rev().fold(0u64, |a, i| a.wrapping_add(f(i)))
}

fn prepare(size: Size) -> Plain<usize, u64> {
    let n = match size {
        Size::Test => 100_000,
        Size::Quick => 50_000_000,
        Size::Full => 100_000_000,
    };
    Plain::new(n, format!("{n} iterations"), oracle(n), "sum =")
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(serial))
        .offshoot(call(offshoot))
        .rayon(call(rayon))
        .chili(scoped(|s, n| chili(s, 0, n)))
        .peers(
            Contender::PEERS,
            plain::peer_args(|n: &usize| vec![n.to_string()]),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_matches_oracle() {
        assert_eq!(serial(0), 0);
        assert_eq!(serial(12_345), oracle(12_345));
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
