//! `loop21-rows`, `loop21-batch`, `loop21-chunks`: Venetis et al.'s Loop 21 (Livermore kernel 21), the
//! matrix product `px += vy · cx` of an N×25 by a 25×25 matrix, one item per row of `px`
//! (25 sums of 25 products each), computed three ways side by side:
//!
//! - `loop21-rows` (Venetis et al.'s Natural): offshoot spawns one task per row (`Scope::spawn` in a
//!   loop);
//! - `loop21-batch` (Venetis et al.'s Batch): offshoot enters all rows as one `Scope::spawn_batch`;
//! - `loop21-chunks` (Venetis et al.'s Equal): offshoot spawns one task per worker on equal chunks of
//!   rows; rayon likewise (`par_chunks_mut`, one chunk per thread), chili halves down to
//!   one chunk per core.
//!
//! serial: a plain loop over the rows; rayon (rows, batch): `par_iter_mut` over the rows;
//! chili (rows, batch): recursive halving with `Scope::join` down to single rows.
//!
//! Every element of `px` gets its 25 products added in the same order (k ascending) by
//! every contender, so the results agree bit for bit. Inputs: test N = 1001, quick
//! N = 50001, full N = 200001. Check: the serial result equals, exactly, the product computed by the
//! original Livermore loop order (k outermost, then the column, then the row), which adds
//! the same products to each element in the same order.

use super::items::{self, ItemWork, ItemsInstance, Plan, Strategy};
use super::{About, KernelInfo, Size};
use crate::rng::SplitMix64;

const M: usize = 25;

/// What the kernel is: one task per row.
pub const ABOUT_ROWS: About = About {
    name: "loop21-rows",
    about: "Livermore 21: N x 25 by 25 x 25 product, offshoot: one spawn per row",
    cutoff: "none (one task per row; chili: single rows)",
    source: "Batches of threads (Venetis et al.) Loop 21, Natural",
};

/// What the kernel is: the rows as one batch.
pub const ABOUT_BATCH: About = About {
    name: "loop21-batch",
    about: "Livermore 21: N x 25 by 25 x 25 product, offshoot: one spawn_batch",
    cutoff: "none (one batch of N tasks; chili: single rows)",
    source: "Batches of threads (Venetis et al.) Loop 21, Batch",
};

/// What the kernel is: one chunk per worker.
pub const ABOUT_CHUNKS: About = About {
    name: "loop21-chunks",
    about: "Livermore 21: N x 25 by 25 x 25 product, one equal chunk per worker",
    cutoff: "N / workers rows per task (chili: N / cores)",
    source: "Batches of threads (Venetis et al.) Loop 21, Equal",
};

/// The matrices.
pub struct Loop21 {
    n: usize,
    vy: Vec<[f64; M]>,
    cx: [[f64; M]; M],
}

fn px_initial(n: usize) -> Vec<[f64; M]> {
    let mut rng = SplitMix64::new(21);
    (0..n).map(|_| [(); M].map(|_| rng.next_f64())).collect()
}

impl ItemWork for Loop21 {
    type Item = [f64; M];
    type Answer = [f64; M];
    fn input(&self) -> String {
        format!("{}x{M} by {M}x{M}", self.n)
    }
    fn reset(&mut self) -> Vec<[f64; M]> {
        px_initial(self.n)
    }
    fn passes(&self) -> usize {
        1
    }
    // Not inlined: every contender calls the very same machine code per item, so the
    // ratios compare scheduling, not how the compiler happened to optimise each caller.
    #[inline(never)]
    fn item(&self, j: usize, px: &mut [f64; M]) {
        let vy = &self.vy[j];
        for (i, p) in px.iter_mut().enumerate() {
            // k ascending, starting from the old value.
            *p = vy
                .iter()
                .zip(&self.cx)
                .fold(*p, |s, (v, cx_k)| s + v * cx_k[i]);
        }
    }
    fn answer(&self, out: &[[f64; M]]) -> Vec<[f64; M]> {
        out.to_vec()
    }
    fn oracle(&self, got: &[[f64; M]]) -> Result<(), String> {
        let mut px = px_initial(self.n);
        for k in 0..M {
            for i in 0..M {
                for (row, vy) in px.iter_mut().zip(&self.vy) {
                    row[i] += vy[k] * self.cx[k][i];
                }
            }
        }
        super::compare_slices(got, &px)
    }
}

fn prepare(size: Size, offshoot: Strategy) -> ItemsInstance<Loop21> {
    let n = match size {
        Size::Test => 1001,
        Size::Quick => 50_001,
        Size::Full => 200_001,
    };
    let mut rng = SplitMix64::new(2101);
    let vy = (0..n).map(|_| [(); M].map(|_| rng.next_f64())).collect();
    let cx = [(); M].map(|_| [(); M].map(|_| rng.next_f64()));
    ItemsInstance::new(
        Loop21 { n, vy, cx },
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
