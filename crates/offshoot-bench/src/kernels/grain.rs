//! `grain-1`, `grain-4`, `grain-16`, `grain-64`, `grain-256`, `grain-1024`: the synthetic
//! *grain* benchmark of lazy task creation (Mohr, Kranz, Halstead 1991), as Goldstein,
//! Schauser and Culler (seed 003, §6, Fig. 9) sweep it: a doubly recursive sum over a
//! complete binary tree whose every leaf runs a loop of `g` iterations, so that `g` sets the
//! grain a fork pays for. One kernel per `g`, all declared as points of the curve `grain`
//! ([`crate::curve`]): the report prints the curve, efficiency = serial time ÷ contender
//! time per `g`, at every worker count (003: "over 90% efficiency when the grain size is as
//! little as 400 cycles", one fib call being about 30).
//!
//! The tree has `2^d` leaves and a `join` per inner node (`2^d - 1`); node `i` in heap
//! numbering (root 1, children `2i` and `2i + 1`) is a leaf at depth `d`, where it returns
//! [`leaf`]`(g, i)`: `g` dependent xor-multiplies on a 64-bit word seeded by `i` (an `xor`
//! and an `imul` each, a chain that neither vectorises nor folds: `g` passes through
//! `black_box`, each step needs the one before, and xor and multiply do not distribute, so
//! unrolled steps cannot be merged; a step costs the chain's latency, about 4 cycles on
//! x86-64: `imul` 3, `xor` 1). The leaf is one out-of-line function
//! that every contender calls, so each runs the very same leaf code and the difference is
//! the fork. `scripts/grain.sh` counts instructions per leaf with callgrind (the figure
//! that holds on a loaded machine).
//!
//! Inputs: depth `d = base - log4(g)` (each step of the sweep has half the leaves, of 4
//! times the grain: the leaf work doubles per step, the joins halve), base: test 10, quick 19, full 24 (so quick grain-1 is 2^19 leaves,
//! grain-1024 2^14).
//! Cutoff: none (a join at every inner node).
//! Source: Mohr, Kranz, Halstead, "Lazy task creation" (1991) *grain*; Goldstein,
//! Schauser, Culler (003) Fig. 9.
//! Check: the serial sum must equal the wrapping sum of [`leaf`]`(g, i)` over the leaf
//! indices `2^d .. 2^(d+1)`, computed by a loop (a lost or repeated leaf changes it).

use std::hint::black_box;

use super::plain::{call, scoped, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::curve::Point;

/// The grains swept, in leaf-loop iterations.
pub const GRAINS: [u64; 6] = [1, 4, 16, 64, 256, 1024];

/// The multiplier of the leaf's chain (an odd constant: Knuth's MMIX LCG multiplier).
const MUL: u64 = 6_364_136_223_846_793_005;

/// One kernel's input: the tree's depth and the leaves' grain.
#[derive(Clone, Copy, Debug)]
pub struct Grain {
    /// Levels below the root: `2^depth` leaves.
    pub depth: u32,
    /// Iterations of each leaf's loop.
    pub g: u64,
}

/// A leaf's work: `g` dependent xor-multiplies seeded by the leaf's index `i` (a step
/// `x = (x ^ k) * MUL`: xor and multiply do not distribute, so the compiler cannot merge
/// unrolled steps into one multiply, as it does with a multiply-add's affine chain). Out of
/// line, so that every contender runs the same machine code per leaf.
#[inline(never)]
pub fn leaf(g: u64, i: u64) -> u64 {
    let mut x = i;
    for k in 0..black_box(g) {
        x = (x ^ k).wrapping_mul(MUL);
    }
    x
}

/// Plain recursion from node `i` with `depth` levels below it.
pub fn serial_rec(depth: u32, i: u64, g: u64) -> u64 {
    if depth == 0 {
        leaf(g, i)
    } else {
        serial_rec(depth - 1, 2 * i, g).wrapping_add(serial_rec(depth - 1, 2 * i + 1, g))
    }
}

/// The serial program on `t`'s tree.
pub fn serial(t: Grain) -> u64 {
    serial_rec(t.depth, 1, t.g)
}

// Each runtime's version is its own plain function, as a user writes it (see `fib.rs`).

/// Forks the two subtrees with `offshoot::join`.
pub fn offshoot_rec(depth: u32, i: u64, g: u64) -> u64 {
    if depth == 0 {
        leaf(g, i)
    } else {
        let (a, b) = offshoot::join(
            || offshoot_rec(depth - 1, 2 * i, g),
            || offshoot_rec(depth - 1, 2 * i + 1, g),
        );
        a.wrapping_add(b)
    }
}

/// offshoot's version on `t`'s tree.
pub fn offshoot(t: Grain) -> u64 {
    offshoot_rec(t.depth, 1, t.g)
}

/// Forks the two subtrees with `rayon::join`.
pub fn rayon_rec(depth: u32, i: u64, g: u64) -> u64 {
    if depth == 0 {
        leaf(g, i)
    } else {
        let (a, b) = rayon::join(
            || rayon_rec(depth - 1, 2 * i, g),
            || rayon_rec(depth - 1, 2 * i + 1, g),
        );
        a.wrapping_add(b)
    }
}

/// rayon's version on `t`'s tree.
pub fn rayon(t: Grain) -> u64 {
    rayon_rec(t.depth, 1, t.g)
}

/// Forks the two subtrees with chili's `Scope::join`.
pub fn chili_rec(s: &mut chili::Scope<'_>, depth: u32, i: u64, g: u64) -> u64 {
    if depth == 0 {
        leaf(g, i)
    } else {
        // chili runs its second closure first: keep serial's order.
        let (b, a) = s.join(
            |s| chili_rec(s, depth - 1, 2 * i + 1, g),
            |s| chili_rec(s, depth - 1, 2 * i, g),
        );
        a.wrapping_add(b)
    }
}

/// chili's version on `t`'s tree.
pub fn chili(s: &mut chili::Scope<'_>, t: Grain) -> u64 {
    chili_rec(s, t.depth, 1, t.g)
}

/// The oracle: the leaves' values summed by a loop over their indices.
pub fn expected(t: Grain) -> u64 {
    (1u64 << t.depth..2u64 << t.depth).fold(0u64, |sum, i| sum.wrapping_add(leaf(t.g, i)))
}

/// How many joins the parallel versions make (`forkcost`): one per inner node.
pub fn forks(depth: u32) -> u64 {
    (1u64 << depth) - 1
}

/// The tree's depth for grain `g` at `size`: `base - log4(g)`.
///
/// # Panics
/// If `g` is not a power of 4 below `4^base`.
pub fn depth_of(size: Size, g: u64) -> u32 {
    let base = match size {
        Size::Test => 10,
        Size::Quick => 19,
        Size::Full => 24,
    };
    assert!(
        g.is_power_of_two() && g.trailing_zeros().is_multiple_of(2),
        "grain {g} is not a power of 4"
    );
    let log4 = g.trailing_zeros() / 2;
    assert!(log4 < base, "grain {g} leaves no tree at base depth {base}");
    base - log4
}

/// The kernels' names, one per grain of [`GRAINS`].
const NAMES: [&str; 6] = [
    "grain-1",
    "grain-4",
    "grain-16",
    "grain-64",
    "grain-256",
    "grain-1024",
];

/// The registry entry of the `k`-th grain of [`GRAINS`].
fn info(k: usize) -> KernelInfo {
    let g = GRAINS[k];
    let about = About {
        name: NAMES[k],
        about: "doubly recursive sum over a complete binary tree, each leaf g dependent \
                xor-multiplies; a join per inner node",
        cutoff: "none",
        source: "grain (Mohr, Kranz, Halstead 1991) as swept by Goldstein et al. (003) Fig. 9",
    };
    let prepare = move |size| {
        let t = Grain {
            depth: depth_of(size, g),
            g,
        };
        let label = format!(
            "g = {g} ({g} xor-multiplies per leaf), depth {} ({} leaves)",
            t.depth,
            1u64 << t.depth
        );
        Plain::new(t, label, expected(t), "sum")
    };
    Kernel::new(about, prepare, call(serial))
        .offshoot(call(offshoot))
        .rayon(call(rayon))
        .chili(scoped(chili))
        .curve(Point::new("grain", "g (leaf iterations)", g))
        .build()
}

/// The registry entries, one per grain of [`GRAINS`].
pub fn infos() -> Vec<KernelInfo> {
    (0..GRAINS.len()).map(info).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Work;

    #[test]
    fn serial_matches_the_loop_over_the_leaves() {
        for depth in 0..8 {
            for g in [0, 1, 7] {
                let t = Grain { depth, g };
                assert_eq!(serial(t), expected(t), "depth {depth}, g {g}");
            }
        }
        // Leaf 1 of grain 0 is its seed; a tree of depth 1 has leaves 2 and 3.
        assert_eq!(leaf(0, 1), 1);
        assert_eq!(expected(Grain { depth: 1, g: 0 }), 5);
    }

    #[test]
    fn names_follow_the_grains() {
        for (name, g) in NAMES.iter().zip(GRAINS) {
            assert_eq!(*name, format!("grain-{g}"));
        }
    }

    #[test]
    fn depth_falls_by_one_per_factor_of_four() {
        assert_eq!(depth_of(Size::Quick, 1), 19);
        assert_eq!(depth_of(Size::Quick, 1024), 14);
        assert_eq!(depth_of(Size::Test, 16), 8);
    }

    #[test]
    #[should_panic(expected = "not a power of 4")]
    fn a_grain_off_the_sweep_is_refused() {
        depth_of(Size::Test, 8);
    }

    #[test]
    fn every_grain_agrees_with_serial() {
        for info in infos() {
            super::super::verify(&info);
        }
    }

    #[test]
    fn the_check_rejects_a_lost_leaf() {
        let t = Grain { depth: 4, g: 3 };
        let mut wrong = Plain::new(t, "t".to_string(), expected(t), "sum");
        // The sum without the last leaf: what a runtime that dropped one would answer.
        call(|t: Grain| serial(t).wrapping_sub(leaf(t.g, (2 << t.depth) - 1)))(&mut wrong);
        assert!(wrong.accept_reference().is_err());
        let mut right = Plain::new(t, "t".to_string(), expected(t), "sum");
        call(serial)(&mut right);
        right.accept_reference().unwrap();
        call(offshoot)(&mut right);
        right.check().unwrap();
        call(|t: Grain| offshoot(Grain { g: t.g + 1, ..t }))(&mut right);
        assert!(right.check().is_err(), "a wrong grain must fail the check");
    }
}
