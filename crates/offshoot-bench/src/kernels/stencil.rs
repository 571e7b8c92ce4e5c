//! `stencil`: a 2-D Jacobi relaxation over the rows of a grid with `par_chunks_mut`
//! (the stencil of rayon's slice sources, as a user writes it): each of `steps` steps writes every cell of a new grid
//! from the old one, `u' = 0.25 * ((up + down) + (left + right))` inside, the old value on
//! the border; then the grids swap.
//!
//! Contenders: the plain serial loop over `chunks_mut(w)` (the baseline), and
//! `dst.par_chunks_mut(w).enumerate().for_each(step_row)` in offshoot and in rayon, written
//! alike apart from the import. No grain size: one chunk is one row, offshoot splits the
//! row range on request, rayon adaptively.
//!
//! Inputs: a `h`×`w` grid of seeded random values; test 40×33×3 steps, quick 1000×1000×10,
//! full 4000×4000×20. Check: every cell is the same expression in every version, so grids
//! compare bit for bit; the serial grid is checked against an oracle that indexes the flat
//! grid cell by cell (no rows, no chunks). `reset` restores the input grid, so a contender
//! that does nothing fails the check.

use std::hint::black_box;

use super::{About, Kernel, KernelInfo, Size, Work};
use crate::rng::SplitMix64;

/// What `stencil` is.
pub const ABOUT: About = About {
    name: "stencil",
    about: "2-D Jacobi steps over the rows of a grid: par_chunks_mut(w).enumerate().for_each",
    cutoff: "none (one chunk per row)",
    source: "rayon's slice sources as users write them: a par_chunks_mut stencil",
};

/// Row `i` of the step from `src` (the whole old grid, rows of `w`) into `row`.
#[inline]
fn step_row(src: &[f64], w: usize, i: usize, row: &mut [f64]) {
    let h = src.len() / w;
    let old = &src[i * w..(i + 1) * w];
    if i == 0 || i == h - 1 || w < 3 {
        row.copy_from_slice(old);
        return;
    }
    let up = &src[(i - 1) * w..i * w];
    let down = &src[(i + 1) * w..(i + 2) * w];
    row[0] = old[0];
    row[w - 1] = old[w - 1];
    for j in 1..w - 1 {
        row[j] = 0.25 * ((up[j] + down[j]) + (old[j - 1] + old[j + 1]));
    }
}

/// The grid and the second buffer the steps alternate with.
pub struct Grid {
    w: usize,
    steps: usize,
    cur: Vec<f64>,
    next: Vec<f64>,
}

/// The plain loop.
pub fn serial(g: &mut Grid) {
    for _ in 0..g.steps {
        for (i, row) in g.next.chunks_mut(g.w).enumerate() {
            step_row(&g.cur, g.w, i, row);
        }
        std::mem::swap(&mut g.cur, &mut g.next);
    }
}

/// offshoot's version.
pub fn offshoot(g: &mut Grid) {
    use offshoot::prelude::*;
    for _ in 0..g.steps {
        let (src, w) = (&g.cur, g.w);
        g.next
            .par_chunks_mut(w)
            .enumerate()
            .for_each(|(i, row)| step_row(src, w, i, row));
        std::mem::swap(&mut g.cur, &mut g.next);
    }
}

/// rayon's version.
pub fn rayon(g: &mut Grid) {
    use rayon::prelude::*;
    for _ in 0..g.steps {
        let (src, w) = (&g.cur, g.w);
        g.next
            .par_chunks_mut(w)
            .enumerate()
            .for_each(|(i, row)| step_row(src, w, i, row));
        std::mem::swap(&mut g.cur, &mut g.next);
    }
}

/// The same steps cell by cell on the flat grid.
fn oracle(input: &[f64], w: usize, steps: usize) -> Vec<f64> {
    let h = input.len() / w;
    let mut cur = input.to_vec();
    for _ in 0..steps {
        let mut next = vec![0.0; cur.len()];
        for (k, cell) in next.iter_mut().enumerate() {
            let (i, j) = (k / w, k % w);
            *cell = if i == 0 || i == h - 1 || j == 0 || j == w - 1 {
                cur[k]
            } else {
                0.25 * ((cur[k - w] + cur[k + w]) + (cur[k - 1] + cur[k + 1]))
            };
        }
        cur = next;
    }
    cur
}

struct Stencil {
    input: Vec<f64>,
    grid: Grid,
    reference: Option<Vec<f64>>,
}

impl Stencil {
    fn run(&mut self, f: fn(&mut Grid)) {
        f(black_box(&mut self.grid));
    }
}

fn same_bits(a: &[f64], b: &[f64]) -> Result<(), String> {
    match a
        .iter()
        .zip(b)
        .position(|(x, y)| x.to_bits() != y.to_bits())
    {
        None if a.len() == b.len() => Ok(()),
        None => Err(format!("grid of {} cells, expected {}", a.len(), b.len())),
        Some(k) => Err(format!("cell {k} is {}, expected {}", a[k], b[k])),
    }
}

impl Work for Stencil {
    fn input(&self) -> String {
        let w = self.grid.w;
        format!(
            "{}x{w} grid, {} steps",
            self.input.len() / w,
            self.grid.steps
        )
    }
    fn reset(&mut self) {
        self.grid.cur.copy_from_slice(&self.input);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        same_bits(
            &self.grid.cur,
            &oracle(&self.input, self.grid.w, self.grid.steps),
        )?;
        self.reference = Some(self.grid.cur.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        let reference = self.reference.as_ref().ok_or("no reference yet")?;
        same_bits(&self.grid.cur, reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| k.run(serial))
        .offshoot(|k| k.run(offshoot))
        .rayon(|k| k.run(rayon))
        .build()
}

fn prepare(size: Size) -> Stencil {
    let (h, w, steps) = match size {
        Size::Test => (40, 33, 3),
        Size::Quick => (1000, 1000, 10),
        Size::Full => (4000, 4000, 20),
    };
    let mut rng = SplitMix64::new(13);
    let input: Vec<f64> = (0..h * w).map(|_| (rng.next_u64() % 1024) as f64).collect();
    Stencil {
        grid: Grid {
            w,
            steps,
            cur: input.clone(),
            next: vec![0.0; h * w],
        },
        input,
        reference: None,
    }
}
