//! `fib`: the n-th Fibonacci number by the doubly recursive definition, with a
//! fork at every call and no cutoff, so nearly all the time goes into the
//! runtime's fork/join path: the pure overhead test.
//!
//! Inputs: test fib(18), quick fib(32), full fib(40).
//! Cutoff: none (every call with n >= 2 forks).
//! Source: the `fib` example of Cilk-5 (Frigo, Leiserson, Randall, PLDI 1998)
//! and of every work-stealing paper since.
//! Check: the serial answer must equal fib(n) computed by iteration.

use super::plain::{self, call, scoped, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::harness::Contender;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "fib",
    about: "n-th Fibonacci number by the doubly recursive definition, a fork per call",
    cutoff: "none",
    source: "Cilk-5 `fib` (Frigo, Leiserson, Randall 1998)",
};

/// Plain recursion.
pub fn serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        serial(n - 1) + serial(n - 2)
    }
}

// Each runtime's version is its own plain function, written as a user writes it (no
// generic body shared through a trait): in a user's crate the user's function is the
// recursive one and each leaf `fib(0|1)` is a real call, which is what these measure.

/// Forks both recursive calls with `offshoot::join`.
pub fn offshoot(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        let (a, b) = offshoot::join(|| offshoot(n - 1), || offshoot(n - 2));
        a + b
    }
}

/// Forks both recursive calls with `rayon::join`.
pub fn rayon(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        let (a, b) = rayon::join(|| rayon(n - 1), || rayon(n - 2));
        a + b
    }
}

/// How many joins the parallel versions make for fib(`n`) (`forkcost`): one per call
/// with `n >= 2`.
pub fn forks(n: u64) -> u64 {
    // fib(n + 1) - 1 inner calls.
    iterative(n + 1).saturating_sub(1)
}

/// Forks both recursive calls with chili's `Scope::join`.
pub fn chili(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    // chili runs its second closure first: keep serial's order.
    let (b, a) = s.join(|s| chili(s, n - 2), |s| chili(s, n - 1));
    a + b
}

/// The oracle: fib(n) by iteration.
pub fn iterative(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// fib(`n`) as a [`Plain`] state, the answer checked against [`iterative`] (shared with
/// `futures-fib`).
pub(crate) fn plain(n: u64) -> Plain<u64, u64> {
    Plain::new(n, format!("fib({n})"), iterative(n), "fib =")
}

/// The input at each size.
fn n_of(size: Size) -> u64 {
    match size {
        Size::Test => 18,
        Size::Quick => 32,
        Size::Full => 40,
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, |size| plain(n_of(size)), call(serial))
        .offshoot(call(offshoot))
        .rayon(call(rayon))
        .chili(scoped(chili))
        .peers(
            Contender::PEERS,
            plain::peer_args(|n: &u64| vec![n.to_string()]),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_matches_known_values() {
        assert_eq!(serial(0), 0);
        assert_eq!(serial(1), 1);
        assert_eq!(serial(20), 6765);
        assert_eq!(iterative(32), 2_178_309);
        assert_eq!(iterative(40), 102_334_155);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
