//! `matmul`: C = A·B for square f64 matrices by recursive divide and conquer
//! over quadrants, without temporaries.
//!
//! The four quadrants of C first get their first products in parallel (four
//! forks), then, after a join, their second products are added in parallel:
//! `C00 = A00·B00 + A01·B10`, `C01 = A00·B01 + A01·B11`,
//! `C10 = A10·B00 + A11·B10`, `C11 = A10·B01 + A11·B11`.
//! Matrices are stored in a quadtree ("recursive block") layout: the four
//! quadrants of a matrix are its four consecutive quarters, recursively, down
//! to 16×16 leaf blocks stored row-major. So every quadrant is a contiguous
//! slice and the parallel versions split C with `split_at_mut`.
//!
//! Summation order: every element is computed as `0 + a0·b0 + a1·b1 + ...`
//! with k ascending, whatever the schedule (the two phases cover the lower
//! and the upper half of k, leaf blocks run k ascending), which is exactly
//! the order of the naive i-k-j loop. So outputs compare bit for bit.
//!
//! Inputs: A and B with entries uniform in [0, 1) from a seeded generator,
//! n = 64 (test), 512 (quick), 1024 (full, the size in the Cilk-5 paper).
//! Cutoff: 16×16 leaf blocks, the block edge of Cilk-5's `notempmul` /
//! `blockedmul` examples; n must be a power of two >= 16.
//! Source: Cilk-5 `notempmul` (Frigo, Leiserson, Randall 1998).
//! Check: the serial product must equal, bit for bit, the naive triple loop.

use super::{check_reference, compare_slices, About, Kernel, KernelInfo, Size, Work};
use crate::harness::Contender;
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "matmul",
    about: "recursive divide-and-conquer f64 matrix multiply over quadrants, no temporaries",
    cutoff: "16x16 leaf blocks (Cilk-5 `notempmul`/`blockedmul` block edge)",
    source: "Cilk-5 `notempmul` (Frigo, Leiserson, Randall 1998)",
};

/// Edge of a leaf block.
pub const BLOCK: usize = 16;
const LEAF: usize = BLOCK * BLOCK;

/// Serial product: `c = a·b` (or `c += a·b` when `add`), all in quadtree
/// layout with the same size.
pub fn serial(c: &mut [f64], a: &[f64], b: &[f64], add: bool) {
    if c.len() == LEAF {
        leaf(c, a, b, add);
        return;
    }
    let q = c.len() / 4;
    let (a0, a1, a2, a3) = quarters(a, q);
    let (b0, b1, b2, b3) = quarters(b, q);
    let (c0, c1, c2, c3) = quarters_mut(c, q);
    serial(c0, a0, b0, add);
    serial(c1, a0, b1, add);
    serial(c2, a2, b0, add);
    serial(c3, a2, b1, add);
    serial(c0, a1, b2, true);
    serial(c1, a1, b3, true);
    serial(c2, a3, b2, true);
    serial(c3, a3, b3, true);
}

/// Parallel product with `offshoot::join`: four forks per phase, two phases.
pub fn offshoot(c: &mut [f64], a: &[f64], b: &[f64], add: bool) {
    if c.len() == LEAF {
        leaf(c, a, b, add);
        return;
    }
    let q = c.len() / 4;
    let (a0, a1, a2, a3) = quarters(a, q);
    let (b0, b1, b2, b3) = quarters(b, q);
    let (c0, c1, c2, c3) = quarters_mut(c, q);
    offshoot::join(
        || offshoot::join(|| offshoot(c0, a0, b0, add), || offshoot(c1, a0, b1, add)),
        || offshoot::join(|| offshoot(c2, a2, b0, add), || offshoot(c3, a2, b1, add)),
    );
    offshoot::join(
        || offshoot::join(|| offshoot(c0, a1, b2, true), || offshoot(c1, a1, b3, true)),
        || offshoot::join(|| offshoot(c2, a3, b2, true), || offshoot(c3, a3, b3, true)),
    );
}

/// Parallel product with `rayon::join`: four forks per phase, two phases.
pub fn rayon(c: &mut [f64], a: &[f64], b: &[f64], add: bool) {
    if c.len() == LEAF {
        leaf(c, a, b, add);
        return;
    }
    let q = c.len() / 4;
    let (a0, a1, a2, a3) = quarters(a, q);
    let (b0, b1, b2, b3) = quarters(b, q);
    let (c0, c1, c2, c3) = quarters_mut(c, q);
    rayon::join(
        || rayon::join(|| rayon(c0, a0, b0, add), || rayon(c1, a0, b1, add)),
        || rayon::join(|| rayon(c2, a2, b0, add), || rayon(c3, a2, b1, add)),
    );
    rayon::join(
        || rayon::join(|| rayon(c0, a1, b2, true), || rayon(c1, a1, b3, true)),
        || rayon::join(|| rayon(c2, a3, b2, true), || rayon(c3, a3, b3, true)),
    );
}

/// Parallel product with chili's `Scope::join`.
pub fn chili(s: &mut chili::Scope<'_>, c: &mut [f64], a: &[f64], b: &[f64], add: bool) {
    if c.len() == LEAF {
        leaf(c, a, b, add);
        return;
    }
    let q = c.len() / 4;
    let (a0, a1, a2, a3) = quarters(a, q);
    let (b0, b1, b2, b3) = quarters(b, q);
    let (c0, c1, c2, c3) = quarters_mut(c, q);
    // chili runs its second closure first: keep serial's order.
    s.join(
        |s| s.join(|s| chili(s, c3, a2, b1, add), |s| chili(s, c2, a2, b0, add)),
        |s| s.join(|s| chili(s, c1, a0, b1, add), |s| chili(s, c0, a0, b0, add)),
    );
    s.join(
        |s| {
            s.join(
                |s| chili(s, c3, a3, b3, true),
                |s| chili(s, c2, a3, b2, true),
            )
        },
        |s| {
            s.join(
                |s| chili(s, c1, a1, b3, true),
                |s| chili(s, c0, a1, b2, true),
            )
        },
    );
}

fn quarters(m: &[f64], q: usize) -> (&[f64], &[f64], &[f64], &[f64]) {
    (&m[..q], &m[q..2 * q], &m[2 * q..3 * q], &m[3 * q..])
}

fn quarters_mut(m: &mut [f64], q: usize) -> (&mut [f64], &mut [f64], &mut [f64], &mut [f64]) {
    let (m01, m23) = m.split_at_mut(2 * q);
    let (m0, m1) = m01.split_at_mut(q);
    let (m2, m3) = m23.split_at_mut(q);
    (m0, m1, m2, m3)
}

/// 16×16 leaf block, row-major, i-k-j order (k ascending per element).
#[inline]
fn leaf(c: &mut [f64], a: &[f64], b: &[f64], add: bool) {
    if !add {
        c.fill(0.0);
    }
    for (c_row, a_row) in c.chunks_exact_mut(BLOCK).zip(a.chunks_exact(BLOCK)) {
        let c_row: &mut [f64; BLOCK] = c_row.try_into().expect("leaf row");
        for (&a_ik, b_row) in a_row.iter().zip(b.chunks_exact(BLOCK)) {
            let b_row: &[f64; BLOCK] = b_row.try_into().expect("leaf row");
            for j in 0..BLOCK {
                c_row[j] += a_ik * b_row[j];
            }
        }
    }
}

/// Position of element (i, j) of an n×n matrix in quadtree layout.
pub fn quadtree_index(n: usize, i: usize, j: usize) -> usize {
    if n == BLOCK {
        return i * BLOCK + j;
    }
    let h = n / 2;
    let quadrant = (i >= h) as usize * 2 + (j >= h) as usize;
    quadrant * h * h + quadtree_index(h, i % h, j % h)
}

/// Converts a row-major n×n matrix to quadtree layout.
pub fn to_quadtree(n: usize, row_major: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            out[quadtree_index(n, i, j)] = row_major[i * n + j];
        }
    }
    out
}

/// The oracle: the naive i-k-j product of row-major matrices.
pub fn naive(n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        let c_row = &mut c[i * n..(i + 1) * n];
        for k in 0..n {
            let a_ik = a[i * n + k];
            for (c_ij, b_kj) in c_row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *c_ij += a_ik * b_kj;
            }
        }
    }
    c
}

/// The input generator's seed (the peers get it on their command line).
const SEED: u64 = 0x6d61_746d;

/// The answer the peers print: FNV-1a (64 bits) over the bit patterns of the product's
/// elements in quadtree order, as 16 hex digits.
pub fn digest(c: &[f64]) -> String {
    crate::peers::digest_words(c.iter().map(|x| x.to_bits()))
}

struct MatMul {
    n: usize,
    a_rows: Vec<f64>,
    b_rows: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    reference: Option<Vec<f64>>,
}

fn prepare(size: Size) -> MatMul {
    let n = match size {
        Size::Test => 64,
        Size::Quick => 512,
        Size::Full => 1024,
    };
    let mut rng = SplitMix64::new(SEED);
    let a_rows: Vec<f64> = (0..n * n).map(|_| rng.next_f64()).collect();
    let b_rows: Vec<f64> = (0..n * n).map(|_| rng.next_f64()).collect();
    MatMul {
        n,
        a: to_quadtree(n, &a_rows),
        b: to_quadtree(n, &b_rows),
        a_rows,
        b_rows,
        c: vec![f64::NAN; n * n],
        reference: None,
    }
}

impl Work for MatMul {
    fn input(&self) -> String {
        format!("{n}x{n} f64", n = self.n)
    }
    fn reset(&mut self) {
        self.c.fill(f64::NAN);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let want = to_quadtree(self.n, &naive(self.n, &self.a_rows, &self.b_rows));
        compare_slices(&self.c, &want)
            .map_err(|e| format!("serial product differs from the naive product: {e}"))?;
        self.reference = Some(want);
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        check_reference(&self.c, &self.reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| serial(&mut k.c, &k.a, &k.b, false))
        .offshoot(|k| offshoot(&mut k.c, &k.a, &k.b, false))
        .rayon(|k| rayon(&mut k.c, &k.a, &k.b, false))
        .chili(|k, s| chili(s, &mut k.c, &k.a, &k.b, false))
        .peers(Contender::PEERS, |k| {
            let want = k
                .reference
                .as_ref()
                .ok_or("no reference answer (serial run missing)")?;
            Ok(crate::peers::PeerInput {
                args: vec![k.n.to_string(), SEED.to_string()],
                answer: digest(want),
            })
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadtree_layout_is_a_permutation() {
        let n = 64;
        let mut seen = vec![false; n * n];
        for i in 0..n {
            for j in 0..n {
                let p = quadtree_index(n, i, j);
                assert!(!seen[p]);
                seen[p] = true;
            }
        }
        assert_eq!(quadtree_index(32, 16, 0), 2 * 16 * 16);
    }

    #[test]
    fn serial_equals_naive_bit_for_bit() {
        for n in [16, 32, 64] {
            let mut rng = SplitMix64::new(n as u64);
            let a: Vec<f64> = (0..n * n).map(|_| rng.next_f64() - 0.5).collect();
            let b: Vec<f64> = (0..n * n).map(|_| rng.next_f64() - 0.5).collect();
            let mut c = vec![f64::NAN; n * n];
            serial(&mut c, &to_quadtree(n, &a), &to_quadtree(n, &b), false);
            assert_eq!(c, to_quadtree(n, &naive(n, &a, &b)), "n = {n}");
        }
    }

    #[test]
    fn identity_product() {
        let n = 32;
        let mut id = vec![0.0; n * n];
        for i in 0..n {
            id[i * n + i] = 1.0;
        }
        let m: Vec<f64> = (0..n * n).map(|x| x as f64).collect();
        let mut c = vec![0.0; n * n];
        serial(&mut c, &to_quadtree(n, &m), &to_quadtree(n, &id), false);
        assert_eq!(c, to_quadtree(n, &m));
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
