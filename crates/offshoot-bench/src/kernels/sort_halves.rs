//! `sort-halves`: one `join` of two long serial calls — each half of an array
//! sorted with std's `sort_unstable` — the way user code often forks: a few
//! coarse pieces of plain serial code, with no fork and no poll inside them.
//!
//! A runtime that creates a task only when an idle worker asks for one must
//! hand out the second half at the join's one poll, before the first half's
//! serial call starts: a worker that asks a moment later is not answered
//! until that call returns, and by then the caller runs the second half
//! itself. The kernel shows whether the second worker gets the second half.
//!
//! Inputs: keys from a seeded SplitMix64: test 20,000, quick 1,000,000, full
//! 20,000,000.
//! Cutoffs: none (one join; each half is one call of std's sort).
//! Check: each half sorted and holding its input's keys; every contender's
//! output equal to the serial one.

use std::hint::black_box;

use super::{
    check_reference, cilksort::keys, par_sort::sorted_permutation, About, Kernel, KernelInfo, Size,
    Work,
};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "sort-halves",
    about: "one join of two serial calls: std's sort_unstable on each half of random u64 keys",
    cutoff: "none (one join of two serial sorts)",
    source: "the coarse `join(|| left.sort(), || right.sort())` of user code",
};

struct Halves {
    input: Vec<u64>,
    data: Vec<u64>,
    reference: Option<Vec<u64>>,
}

fn prepare(size: Size) -> Halves {
    let n = match size {
        Size::Test => 20_000,
        Size::Quick => 1_000_000,
        Size::Full => 20_000_000,
    };
    let input = keys(n, 0x4841_4C46);
    Halves {
        data: input.clone(),
        input,
        reference: None,
    }
}

/// Sorts both halves of `v`, forking once with `J`.
pub fn offshoot(v: &mut [u64]) {
    let (left, right) = v.split_at_mut(v.len() / 2);
    offshoot::join(|| left.sort_unstable(), || right.sort_unstable());
}

/// Sorts both halves of `v`, forking once with `J`.
pub fn rayon(v: &mut [u64]) {
    let (left, right) = v.split_at_mut(v.len() / 2);
    rayon::join(|| left.sort_unstable(), || right.sort_unstable());
}

impl Work for Halves {
    fn input(&self) -> String {
        format!("{} random u64 keys in two halves", self.input.len())
    }
    fn reset(&mut self) {
        self.data.copy_from_slice(&self.input);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let mid = self.input.len() / 2;
        sorted_permutation(
            &self.data[..mid],
            &self.input[..mid],
            "the serial left half",
        )?;
        sorted_permutation(
            &self.data[mid..],
            &self.input[mid..],
            "the serial right half",
        )?;
        self.reference = Some(self.data.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        check_reference(&self.data, &self.reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| {
        let (left, right) = black_box(&mut k.data[..]).split_at_mut(k.input.len() / 2);
        left.sort_unstable();
        right.sort_unstable();
    })
    .offshoot(|k| offshoot(black_box(&mut k.data)))
    .rayon(|k| rayon(black_box(&mut k.data)))
    .chili(|k, s| {
        let (left, right) = black_box(&mut k.data[..]).split_at_mut(k.input.len() / 2);
        // chili runs its second closure itself and offers the first (see mod.rs).
        s.join(|_| right.sort_unstable(), |_| left.sort_unstable());
    })
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }

    #[test]
    fn the_check_catches_an_unsorted_half_and_a_lost_key() {
        let mut bad = Halves {
            input: vec![3, 1, 2, 0],
            data: vec![3, 1, 0, 2],
            reference: None,
        };
        assert!(bad.accept_reference().is_err());
        let mut lost = Halves {
            input: vec![3, 1, 2, 0],
            data: vec![1, 3, 0, 0],
            reference: None,
        };
        assert!(lost.accept_reference().is_err());
    }
}
