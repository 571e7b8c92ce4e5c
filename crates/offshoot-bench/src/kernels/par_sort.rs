//! `par-sort` and `par-sort-unstable`: sort random 64-bit keys with the
//! library sorts each runtime ships, against std's sequential sorts.
//!
//! Unlike `cilksort` (one algorithm written out for every contender), these
//! kernels measure what a user gets from one call: `slice::sort` /
//! `slice::sort_unstable` (serial), offshoot's `ParallelSliceMut::par_sort` /
//! `par_sort_unstable`, and rayon's methods of the same names.
//!
//! Inputs: keys from a seeded SplitMix64: test 50,000, quick 1,000,000, full
//! 10,000,000.
//! Cutoffs: each library's own.
//! Check: the serial output must be sorted and hold the input's keys (same
//! count, sum and xor of mixed keys); every later output must equal it.

use super::{check_reference, cilksort::keys, About, Kernel, KernelInfo, Size, Work};

/// What the stable sort is.
pub const ABOUT: About = About {
    name: "par-sort",
    about: "stable sort of random u64 keys with each library's sort",
    cutoff: "each library's own (offshoot: std's sort on leaves of at least 4096 keys)",
    source: "rayon's `ParallelSliceMut::par_sort`; std's `slice::sort` as serial",
};

/// What the unstable sort is.
pub const ABOUT_UNSTABLE: About = About {
    name: "par-sort-unstable",
    about: "unstable sort of random u64 keys with each library's sort",
    cutoff: "each library's own (offshoot: std's sort_unstable on leaves of at least 4096 keys)",
    source: "rayon's `ParallelSliceMut::par_sort_unstable`; std's `slice::sort_unstable` as serial",
};

struct SortKernel {
    stable: bool,
    input: Vec<u64>,
    data: Vec<u64>,
    reference: Option<Vec<u64>>,
}

fn prepare(size: Size, stable: bool) -> SortKernel {
    let n = match size {
        Size::Test => 50_000,
        Size::Quick => 1_000_000,
        Size::Full => 10_000_000,
    };
    let input = keys(n, 0x5047 + stable as u64);
    SortKernel {
        stable,
        data: input.clone(),
        input,
        reference: None,
    }
}

fn prepare_stable(size: Size) -> SortKernel {
    prepare(size, true)
}

fn prepare_unstable(size: Size) -> SortKernel {
    prepare(size, false)
}

/// Checks that `got` (described by `what`) is sorted and holds the keys of `input`.
pub(crate) fn sorted_permutation(got: &[u64], input: &[u64], what: &str) -> Result<(), String> {
    if !got.windows(2).all(|w| w[0] <= w[1]) {
        return Err(format!("{what} is not sorted"));
    }
    if fingerprint(got) != fingerprint(input) {
        return Err(format!("{what} does not hold the input's keys"));
    }
    Ok(())
}

/// Count, wrapping sum and xor of mixed keys: equal for permutations of each
/// other (and very unlikely to be equal otherwise).
fn fingerprint(v: &[u64]) -> (usize, u64, u64) {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    v.iter().fold((0, 0, 0), |(n, s, x), &k| {
        (n + 1, s.wrapping_add(k), x ^ mix(k))
    })
}

impl Work for SortKernel {
    fn input(&self) -> String {
        format!("{} random u64 keys", self.input.len())
    }
    fn reset(&mut self) {
        self.data.copy_from_slice(&self.input);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        sorted_permutation(&self.data, &self.input, "the serial output")?;
        self.reference = Some(self.data.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        check_reference(&self.data, &self.reference)
    }
}

/// The declaration of the kernel's variants, each with its own input.
fn declare(about: About, prepare: fn(Size) -> SortKernel) -> KernelInfo {
    Kernel::new(about, prepare, |k| {
        if k.stable {
            k.data.sort();
        } else {
            k.data.sort_unstable();
        }
    })
    .offshoot(|k| {
        use offshoot::slice::ParallelSliceMut;
        if k.stable {
            k.data.par_sort();
        } else {
            k.data.par_sort_unstable();
        }
    })
    .rayon(|k| {
        use rayon::slice::ParallelSliceMut;
        if k.stable {
            k.data.par_sort();
        } else {
            k.data.par_sort_unstable();
        }
    })
    .build()
}

/// The registry entry of `par-sort`.
pub fn info() -> KernelInfo {
    declare(ABOUT, prepare_stable)
}

/// The registry entry of `par-sort-unstable`.
pub fn info_unstable() -> KernelInfo {
    declare(ABOUT_UNSTABLE, prepare_unstable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
        super::super::verify(&info_unstable());
    }

    #[test]
    fn the_check_catches_a_lost_key() {
        let mut bad = SortKernel {
            stable: true,
            input: vec![3, 1, 2],
            data: vec![1, 2, 2],
            reference: None,
        };
        assert!(bad.accept_reference().is_err());
    }
}
