//! `loop6-rows`, `loop6-batch`, `loop6-chunks`: Venetis et al.'s Loop 6 (Livermore kernel 6, the
//! general linear recurrence) with N = 7500: item `i` sums `i` products, so the items
//! grow linearly in cost and equal chunks are imbalanced (on 2 workers the upper half of
//! the items holds 3/4 of the work).
//!
//! The form computed: Livermore's `w[i] = 0.01 + Σ_{k<i} b[k][i] · w[i-k-1]` depends on
//! every earlier `w`, which Venetis et al.'s batches of threads ran with fine-grained synchronisation (Feo's version). Here
//! a pass computes a new vector from the previous one, `w'[i] = 0.01 + Σ_{k<i} b(k, i) ·
//! w[i-k-1]`, so the items of a pass are independent; a run makes a few passes. The inner
//! loops keep Loop 6's varying lengths (its imbalance) but not its synchronisation. The
//! N×N coefficients `b(k, i)` (450 MB as a matrix at N = 7500) are read from a table of
//! 1024 values at `(k + 7i) mod 1024`.
//!
//! Variants, as in `loop21`: `-rows` (Venetis et al.'s Natural: offshoot spawns a task per item),
//! `-batch` (one `spawn_batch`), `-chunks` (Venetis et al.'s Equal: one task per worker on equal
//! chunks; rayon `par_chunks_mut`, chili down to one chunk per core). rayon's peer is
//! `par_iter_mut` for rows and batch; chili halves with `Scope::join` to single items.
//!
//! Every contender adds each item's products in the same order (k ascending), so results
//! agree bit for bit. Inputs: test N = 300 × 2 passes, quick N = 7500 × 4, full 7500 × 10.
//! Check: the serial result equals, exactly, the passes recomputed with the loops
//! interchanged (k outermost), which adds the same products to each item in the same order.

use super::items::{self, ItemWork, ItemsInstance, Plan, Strategy};
use super::{About, KernelInfo, Size};
use crate::rng::SplitMix64;

const TABLE: usize = 1024;

/// What the kernel is: one task per item.
pub const ABOUT_ROWS: About = About {
    name: "loop6-rows",
    about: "Livermore 6 recurrence, N = 7500, items of growing cost, offshoot: one spawn per item",
    cutoff: "none (one task per item; chili: single items)",
    source: "Batches of threads (Venetis et al.) Loop 6, Natural",
};

/// What the kernel is: the items as one batch.
pub const ABOUT_BATCH: About = About {
    name: "loop6-batch",
    about: "Livermore 6 recurrence, N = 7500, items of growing cost, offshoot: one spawn_batch",
    cutoff: "none (one batch of N tasks; chili: single items)",
    source: "Batches of threads (Venetis et al.) Loop 6, Batch",
};

/// What the kernel is: one chunk per worker.
pub const ABOUT_CHUNKS: About = About {
    name: "loop6-chunks",
    about: "Livermore 6 recurrence, N = 7500, items of growing cost, one equal chunk per worker",
    cutoff: "N / workers items per task (chili: N / cores)",
    source: "Batches of threads (Venetis et al.) Loop 6, Equal",
};

/// The recurrence.
pub struct Loop6 {
    n: usize,
    passes: usize,
    b: Vec<f64>,
    /// The previous pass's vector.
    w: Vec<f64>,
}

impl Loop6 {
    #[inline]
    fn b(&self, k: usize, i: usize) -> f64 {
        self.b[(k + 7 * i) % TABLE]
    }

    fn w_initial(n: usize) -> Vec<f64> {
        let mut rng = SplitMix64::new(6);
        (0..n).map(|_| rng.next_f64()).collect()
    }
}

impl ItemWork for Loop6 {
    type Item = f64;
    type Answer = f64;
    fn input(&self) -> String {
        format!("N = {}, {} passes", self.n, self.passes)
    }
    fn reset(&mut self) -> Vec<f64> {
        self.w = Loop6::w_initial(self.n);
        vec![0.0; self.n]
    }
    fn passes(&self) -> usize {
        self.passes
    }
    // Not inlined: every contender calls the very same machine code per item, so the
    // ratios compare scheduling, not how the compiler happened to optimise each caller.
    #[inline(never)]
    fn item(&self, i: usize, out: &mut f64) {
        let mut s = 0.01;
        for k in 0..i {
            s += self.b(k, i) * self.w[i - k - 1];
        }
        *out = s;
    }
    fn after_pass(&mut self, out: &mut [f64]) {
        self.w.copy_from_slice(out);
    }
    fn answer(&self, _: &[f64]) -> Vec<f64> {
        self.w.clone()
    }
    fn oracle(&self, got: &[f64]) -> Result<(), String> {
        let mut w = Loop6::w_initial(self.n);
        for _ in 0..self.passes {
            let mut next = vec![0.01; self.n];
            for k in 0..self.n {
                for (i, x) in next.iter_mut().enumerate().skip(k + 1) {
                    *x += self.b(k, i) * w[i - k - 1];
                }
            }
            w = next;
        }
        super::compare_slices(got, &w)
    }
}

fn prepare(size: Size, offshoot: Strategy) -> ItemsInstance<Loop6> {
    let (n, passes) = match size {
        Size::Test => (300, 2),
        Size::Quick => (7500, 1),
        Size::Full => (7500, 10),
    };
    let mut rng = SplitMix64::new(606);
    // Small coefficients keep the vector bounded: each sum has fewer than N terms.
    let b = (0..TABLE).map(|_| rng.next_f64() / n as f64).collect();
    ItemsInstance::new(
        Loop6 {
            n,
            passes,
            b,
            w: Vec::new(),
        },
        Plan::natural_batch_or_equal(offshoot, n),
    )
}

/// The registry entries: rows, batch, chunks.
pub fn infos() -> [KernelInfo; 3] {
    items::natural_batch_equal([ABOUT_ROWS, ABOUT_BATCH, ABOUT_CHUNKS], prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_agrees_with_serial() {
        for info in infos() {
            super::super::verify(&info);
        }
    }
}
