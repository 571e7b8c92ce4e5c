//! The parallel-iterator pipelines users write, each as a plain serial
//! loop (the baseline), an offshoot `par_iter` pipeline and the same rayon pipeline,
//! character for character apart from the import:
//!
//! - `iter-sum`: `(0..n).into_par_iter().map(|x| x * x % 7).sum::<u64>()`, a cheap
//!   arithmetic body the compiler vectorises in the serial loop;
//! - `iter-dot`: `a.par_iter().zip(&b).map(|(x, y)| x * y).sum::<f64>()` over two `f64`
//!   slices (the values make every partial sum exact, so any order gives the same answer);
//! - `iter-filter-count`: `v.par_iter().filter(|x| *x % 3 == 0).count()` over `u32`s;
//! - `iter-collect`: `(0..n).into_par_iter().map(f).collect::<Vec<u64>>()`;
//! - `iter-minmax`: `items.par_iter().min_by_key(|it| it.key)` over a slice of structs
//!   (ties: the first, as `Iterator::min_by_key`).
//!
//! Inputs: test 10^4–10^5 items; quick and full 10^8 (sum), 10^7 (dot, filter-count,
//! collect) and 4·10^6 (minmax) items, from the suite's seeded generator. Each kernel's
//! serial answer is checked by an independent oracle (a closed form, or a loop written
//! differently); every other contender must give the same answer. The pipelines have no
//! grain size or cutoff: offshoot splits on request, rayon adaptively.

// Every version has the signature `fn(&D) -> T` of its kernel's input type `D`, which is a
// `Vec` for the slice kernels.
#![allow(clippy::ptr_arg)]

use std::fmt::Debug;
use std::hint::black_box;

use super::{About, Answer, Kernel, KernelInfo, Size, Work};
use crate::rng::SplitMix64;

/// What `iter-sum` is.
pub const ABOUT_SUM: About = About {
    name: "iter-sum",
    about: "(0..n).into_par_iter().map(|x| x * x % 7).sum() over 10^8 integers",
    cutoff: "none",
    source: "parallel-iterator pipelines as users write them, against the plain loop",
};

/// What `iter-dot` is.
pub const ABOUT_DOT: About = About {
    name: "iter-dot",
    about: "dot product of two f64 slices of 10^7: zip, map, sum",
    cutoff: "none",
    source: "parallel-iterator pipelines as users write them, against the plain loop",
};

/// What `iter-filter-count` is.
pub const ABOUT_FILTER_COUNT: About = About {
    name: "iter-filter-count",
    about: "count the multiples of 3 among 10^7 random u32s: filter, count",
    cutoff: "none",
    source: "parallel-iterator pipelines as users write them, against the plain loop",
};

/// What `iter-collect` is.
pub const ABOUT_COLLECT: About = About {
    name: "iter-collect",
    about: "map 10^7 integers and collect them into a Vec, in order",
    cutoff: "none",
    source: "parallel-iterator pipelines as users write them, against the plain loop",
};

/// What `iter-minmax` is.
pub const ABOUT_MINMAX: About = About {
    name: "iter-minmax",
    about: "min_by_key over a slice of 4*10^6 structs (first of equal keys)",
    cutoff: "none",
    source: "parallel-iterator pipelines as users write them, against the plain loop",
};

/// One contender's version of a kernel.
pub(crate) type Version<D, T> = fn(&D) -> T;

/// A prepared iterator kernel's state: its input and its oracle.
pub(crate) struct IterKernel<D, T> {
    data: D,
    label: String,
    /// The independent check of the serial answer.
    oracle: Version<D, T>,
    out: Answer<T>,
}

impl<D: Send + Sync + 'static, T: Copy + PartialEq + Debug + Send + 'static> Work
    for IterKernel<D, T>
{
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.out.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let want = (self.oracle)(&self.data);
        self.out.accept(|got| {
            if got == want {
                Ok(())
            } else {
                Err(format!("answer {got:?}, expected {want:?}"))
            }
        })
    }
    fn check(&self) -> Result<(), String> {
        self.out.check()
    }
}

/// A kernel's state from its input, input line and oracle; `iter_apps.rs` builds its
/// kernels with it too.
pub(crate) fn state<D, T: Copy + PartialEq + Debug + Send>(
    data: D,
    label: String,
    oracle: Version<D, T>,
) -> IterKernel<D, T> {
    IterKernel {
        data,
        label,
        oracle,
        out: Answer::new(),
    }
}

/// The declaration of an iterator kernel whose state `prepare` builds, with its serial,
/// offshoot and rayon versions.
pub(crate) fn declare<D: Send + Sync + 'static, T: Copy + PartialEq + Debug + Send + 'static>(
    about: About,
    prepare: fn(Size) -> IterKernel<D, T>,
    [serial, offshoot, rayon]: [Version<D, T>; 3],
) -> KernelInfo {
    let call = |f: Version<D, T>| move |k: &mut IterKernel<D, T>| k.out.set(f(black_box(&k.data)));
    Kernel::new(about, prepare, call(serial))
        .offshoot(call(offshoot))
        .rayon(call(rayon))
        .build()
}

// ---- iter-sum ----

/// The plain loop.
pub fn sum_serial(n: &u64) -> u64 {
    let mut s = 0u64;
    for x in 0..*n {
        s += x * x % 7;
    }
    s
}

/// offshoot's pipeline.
pub fn sum_offshoot(n: &u64) -> u64 {
    use offshoot::prelude::*;
    (0..*n).into_par_iter().map(|x| x * x % 7).sum::<u64>()
}

/// rayon's pipeline.
pub fn sum_rayon(n: &u64) -> u64 {
    use rayon::prelude::*;
    (0..*n).into_par_iter().map(|x| x * x % 7).sum::<u64>()
}

/// `x * x % 7` has period 7 in `x`: 0, 1, 4, 2, 2, 4, 1.
fn sum_oracle(n: &u64) -> u64 {
    const PERIOD: [u64; 7] = [0, 1, 4, 2, 2, 4, 1];
    n / 7 * PERIOD.iter().sum::<u64>() + PERIOD[..(n % 7) as usize].iter().sum::<u64>()
}

fn prepare_sum(size: Size) -> IterKernel<u64, u64> {
    let n: u64 = match size {
        Size::Test => 100_000,
        Size::Quick => 20_000_000,
        Size::Full => 100_000_000,
    };
    state(n, format!("{n} integers"), sum_oracle)
}

// ---- iter-dot ----

/// Two vectors whose products and partial sums are small integers (exact in `f64`).
pub struct Vectors {
    a: Vec<f64>,
    b: Vec<f64>,
}

/// The plain loop.
pub fn dot_serial(v: &Vectors) -> f64 {
    let mut s = 0.0;
    for (x, y) in v.a.iter().zip(&v.b) {
        s += x * y;
    }
    s
}

/// offshoot's pipeline.
pub fn dot_offshoot(v: &Vectors) -> f64 {
    use offshoot::prelude::*;
    v.a.par_iter().zip(&v.b).map(|(x, y)| x * y).sum::<f64>()
}

/// rayon's pipeline.
pub fn dot_rayon(v: &Vectors) -> f64 {
    use rayon::prelude::*;
    v.a.par_iter().zip(&v.b).map(|(x, y)| x * y).sum::<f64>()
}

fn dot_oracle(v: &Vectors) -> f64 {
    // Integer arithmetic on the same values, walked backwards.
    let s: u64 = (0..v.a.len())
        .rev()
        .map(|i| v.a[i] as u64 * v.b[i] as u64)
        .sum();
    s as f64
}

fn prepare_dot(size: Size) -> IterKernel<Vectors, f64> {
    let n = match size {
        Size::Test => 10_000,
        Size::Quick | Size::Full => 10_000_000,
    };
    let mut rng = SplitMix64::new(12);
    let a = (0..n).map(|_| (rng.next_u64() % 1024) as f64).collect();
    let b = (0..n).map(|_| (rng.next_u64() % 1024) as f64).collect();
    state(Vectors { a, b }, format!("2 x {n} f64"), dot_oracle)
}

// ---- iter-filter-count ----

/// The plain loop.
pub fn filter_count_serial(v: &Vec<u32>) -> usize {
    let mut c = 0;
    for x in v {
        if x % 3 == 0 {
            c += 1;
        }
    }
    c
}

/// offshoot's pipeline.
pub fn filter_count_offshoot(v: &Vec<u32>) -> usize {
    use offshoot::prelude::*;
    v.par_iter().filter(|x| *x % 3 == 0).count()
}

/// rayon's pipeline.
pub fn filter_count_rayon(v: &Vec<u32>) -> usize {
    use rayon::prelude::*;
    v.par_iter().filter(|x| *x % 3 == 0).count()
}

fn filter_count_oracle(v: &Vec<u32>) -> usize {
    v.len() - v.iter().filter(|x| **x % 3 != 0).count()
}

fn prepare_filter_count(size: Size) -> IterKernel<Vec<u32>, usize> {
    let n = match size {
        Size::Test => 10_000,
        Size::Quick | Size::Full => 10_000_000,
    };
    let mut rng = SplitMix64::new(13);
    let v: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    state(v, format!("{n} u32"), filter_count_oracle)
}

// ---- iter-collect ----

#[inline]
fn hash(x: u64) -> u64 {
    (x ^ (x >> 3)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The answer of `iter-collect`: the length and a position-weighted checksum (so that
/// any reordering changes it).
fn digest(v: &[u64]) -> (usize, u64) {
    let mut h = 0u64;
    for (i, x) in v.iter().enumerate() {
        h = h.wrapping_add(x.wrapping_mul(i as u64 | 1));
    }
    (v.len(), h)
}

/// The plain loop.
pub fn collect_serial(n: &u64) -> (usize, u64) {
    let mut out = Vec::with_capacity(*n as usize);
    for x in 0..*n {
        out.push(hash(x));
    }
    digest(&out)
}

/// offshoot's pipeline.
pub fn collect_offshoot(n: &u64) -> (usize, u64) {
    use offshoot::prelude::*;
    let out: Vec<u64> = (0..*n).into_par_iter().map(hash).collect();
    digest(&out)
}

/// rayon's pipeline.
pub fn collect_rayon(n: &u64) -> (usize, u64) {
    use rayon::prelude::*;
    let out: Vec<u64> = (0..*n).into_par_iter().map(hash).collect();
    digest(&out)
}

fn collect_oracle(n: &u64) -> (usize, u64) {
    let h = (0..*n).fold(0u64, |h, i| h.wrapping_add(hash(i).wrapping_mul(i | 1)));
    (*n as usize, h)
}

fn prepare_collect(size: Size) -> IterKernel<u64, (usize, u64)> {
    let n: u64 = match size {
        Size::Test => 10_000,
        Size::Quick => 5_000_000,
        Size::Full => 10_000_000,
    };
    state(n, format!("{n} integers"), collect_oracle)
}

// ---- iter-minmax ----

/// A record with a key (many equal keys, so ties matter).
#[derive(Clone, Copy, Debug)]
pub struct Item {
    id: u32,
    key: u32,
    _payload: u64,
}

/// The plain loop: the first item with the smallest key.
pub fn minmax_serial(v: &Vec<Item>) -> Option<u32> {
    let mut best: Option<&Item> = None;
    for it in v {
        match best {
            Some(b) if b.key <= it.key => {}
            _ => best = Some(it),
        }
    }
    best.map(|b| b.id)
}

/// offshoot's pipeline.
pub fn minmax_offshoot(v: &Vec<Item>) -> Option<u32> {
    use offshoot::prelude::*;
    v.par_iter().min_by_key(|it| it.key).map(|it| it.id)
}

/// rayon's pipeline.
pub fn minmax_rayon(v: &Vec<Item>) -> Option<u32> {
    use rayon::prelude::*;
    v.par_iter().min_by_key(|it| it.key).map(|it| it.id)
}

fn minmax_oracle(v: &Vec<Item>) -> Option<u32> {
    let min = v.iter().map(|it| it.key).min()?;
    v.iter().position(|it| it.key == min).map(|i| v[i].id)
}

fn prepare_minmax(size: Size) -> IterKernel<Vec<Item>, Option<u32>> {
    let n = match size {
        Size::Test => 10_000,
        Size::Quick | Size::Full => 4_000_000,
    };
    let mut rng = SplitMix64::new(14);
    let v: Vec<Item> = (0..n)
        .map(|i| Item {
            id: i as u32,
            // Keys from a range much smaller than n: the minimum occurs many times.
            key: 5 + (rng.next_u64() % 100_000) as u32,
            _payload: rng.next_u64(),
        })
        .collect();
    state(v, format!("{n} structs"), minmax_oracle)
}

/// The registry entry of `iter-sum`.
pub fn info_sum() -> KernelInfo {
    declare(
        ABOUT_SUM,
        prepare_sum,
        [sum_serial, sum_offshoot, sum_rayon],
    )
}

/// The registry entry of `iter-dot`.
pub fn info_dot() -> KernelInfo {
    declare(
        ABOUT_DOT,
        prepare_dot,
        [dot_serial, dot_offshoot, dot_rayon],
    )
}

/// The registry entry of `iter-filter-count`.
pub fn info_filter_count() -> KernelInfo {
    declare(
        ABOUT_FILTER_COUNT,
        prepare_filter_count,
        [
            filter_count_serial,
            filter_count_offshoot,
            filter_count_rayon,
        ],
    )
}

/// The registry entry of `iter-collect`.
pub fn info_collect() -> KernelInfo {
    declare(
        ABOUT_COLLECT,
        prepare_collect,
        [collect_serial, collect_offshoot, collect_rayon],
    )
}

/// The registry entry of `iter-minmax`.
pub fn info_minmax() -> KernelInfo {
    declare(
        ABOUT_MINMAX,
        prepare_minmax,
        [minmax_serial, minmax_offshoot, minmax_rayon],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracles_agree_with_serial() {
        for n in [0u64, 1, 6, 7, 13, 1000] {
            assert_eq!(sum_serial(&n), sum_oracle(&n));
            assert_eq!(collect_serial(&n), collect_oracle(&n));
        }
    }

    #[test]
    fn contenders_agree_with_serial() {
        for info in [
            info_sum(),
            info_dot(),
            info_filter_count(),
            info_collect(),
            info_minmax(),
        ] {
            super::super::verify(&info);
        }
    }
}
