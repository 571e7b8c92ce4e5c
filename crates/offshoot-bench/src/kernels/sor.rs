//! `sor`: successive over-relaxation on an `n`×`n` grid, in place, for a fixed number of
//! iterations (the Java Grande Forum SOR benchmark, which Imam's thesis ch. 3 runs with
//! phasers), red-black ordered: each iteration is a red half-sweep (the interior
//! cells with `i + j` even) then a black one (`i + j` odd), each cell becoming
//! `ω/4 · (up + down + left + right) + (1 − ω) · itself` with ω = 1.25. A cell's four
//! neighbours have the other colour, so a half-sweep reads one colour and writes the other:
//! its result does not depend on how the rows are split or in which order they are done,
//! and every contender computes the serial grid bit for bit. The rows are split into 64
//! bands (32 tasks per worker on 2 workers), which meet after every half-sweep (two phases
//! per iteration).
//!
//! Contenders (the drivers are `bands.rs`'s, shared with `jacobi-2d`):
//! * serial: the half-sweeps, row by row;
//! * offshoot: one task per band for the whole run (`Scope::spawn`), each with a phaser
//!   registration; a half-sweep of its band, then `next()` — a waiting task parks;
//! * offshoot-fj: the rayon program on offshoot (`offshoot::prelude`), a fork-join per
//!   half-sweep;
//! * rayon: a fork-join per half-sweep (a `par_iter` over the bands), rayon's idiom;
//! * tokio: one task per band with a `tokio::sync::Barrier` awaited after each half-sweep;
//! * threads: one OS thread per band with a `std::sync::Barrier` (the blocking baseline).
//!
//! The grid: JGF's random matrix (seeded uniform values in [0, 10⁻⁶)), its border fixed;
//! `reset` (untimed) writes it back into the one shared buffer. Inputs: test 24² × 4
//! iterations, quick 600² × 50, full 1000² × 100 (JGF's size A).
//! Check: the final grid equals the serial one exactly, and the serial one equals an
//! independent plain loop over a `Vec<Vec<f64>>` (a red loop, then a black loop).

use std::cell::UnsafeCell;
use std::sync::Arc;

use super::bands::{self, Steps};
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par;
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "sor",
    about: "red-black SOR, 64 bands meeting after every half-sweep: phasers vs a fork-join per half-sweep, tokio and OS-thread barriers",
    cutoff: "64 bands of rows",
    source: "Imam's thesis ch. 3 (phasers); Java Grande Forum SOR, red-black ordered",
};

/// The over-relaxation factor (JGF's).
const OMEGA: f64 = 1.25;

/// Bands of rows (tasks).
const BANDS: usize = 64;

/// The new value of a cell from its four neighbours and itself (every version uses this).
#[inline(always)]
fn relaxed(up: f64, down: f64, left: f64, right: f64, own: f64) -> f64 {
    OMEGA / 4.0 * (up + down + left + right) + (1.0 - OMEGA) * own
}

/// The `n`×`n` grid, updated in place by the band tasks; step `s` is the half-sweep of
/// colour `s % 2` (the cells with `(i + j) % 2 == s % 2`).
///
/// Invariant (what makes the unsynchronised access sound): in step `s` a task writes only
/// the interior cells of colour `s % 2` in its own band's rows (bands are disjoint) and
/// reads only those cells and cells of the other colour (a cell's four neighbours have the
/// other colour), which nobody writes in step `s`; every task ends step `s` before any
/// starts step `s + 1` (the phaser, barrier or fork-join between them orders the
/// accesses). So concurrent accesses are reads, or to distinct cells. During a step the
/// cells are accessed one by one through raw pointers, never through a slice of a row: a
/// row's owner writes one colour while the neighbouring band reads the other.
struct Grid {
    n: usize,
    cells: Box<[UnsafeCell<f64>]>,
}

// SAFETY: see the invariant: concurrent accesses are to distinct cells, or reads only.
unsafe impl Sync for Grid {}

impl Grid {
    fn new(init: &[f64], n: usize) -> Grid {
        assert_eq!(init.len(), n * n);
        Grid {
            n,
            cells: init.iter().map(|&x| UnsafeCell::new(x)).collect(),
        }
    }

    /// Writes `init` back (no task holds the grid: `&mut`).
    fn load(&mut self, init: &[f64]) {
        for (c, &x) in self.cells.iter_mut().zip(init) {
            *c.get_mut() = x;
        }
    }

    /// The grid's values.
    fn values(&self) -> Vec<f64> {
        // SAFETY: called after every task ended (by `check` and `accept_reference`).
        unsafe { bands::snapshot(&self.cells) }
    }
}

impl Steps for Grid {
    fn rows(&self) -> usize {
        self.n
    }

    /// Half-sweep `s` (colour `s % 2`) of rows `lo..hi` (interior cells only).
    ///
    /// # Safety
    /// The caller keeps the type's invariant: no other task writes these rows' cells of
    /// colour `s % 2`, and nobody writes the other colour, during step `s`.
    unsafe fn step(&self, s: usize, lo: usize, hi: usize) {
        let n = self.n;
        let colour = s % 2;
        // `UnsafeCell<f64>` has `f64`'s layout.
        let p = self.cells.as_ptr() as *mut f64;
        for i in lo.max(1)..hi.min(n - 1) {
            // The first interior column of this row with (i + j) % 2 == colour.
            let first = if (i + 1) % 2 == colour { 1 } else { 2 };
            for j in (first..n - 1).step_by(2) {
                // SAFETY: (i, j) is an interior cell of colour `s % 2` in this task's band,
                // written by this task alone; its neighbours (i ± 1, j), (i, j ± 1) have the
                // other colour, which nobody writes in this step (the contract); all five
                // indices are inside the n×n buffer as 1 <= i, j < n - 1.
                unsafe {
                    let c = p.add(i * n + j);
                    *c = relaxed(*c.sub(n), *c.add(n), *c.sub(1), *c.add(1), *c);
                }
            }
        }
    }
}

/// The oracle: the same iterations over a `Vec<Vec<f64>>`, a red loop then a black loop
/// over the whole interior, no sharing.
fn reference(init: &[f64], n: usize, iters: usize) -> Vec<f64> {
    let mut g: Vec<Vec<f64>> = init.chunks(n).map(<[f64]>::to_vec).collect();
    for _ in 0..iters {
        for colour in [0, 1] {
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    if (i + j) % 2 == colour {
                        g[i][j] =
                            relaxed(g[i - 1][j], g[i + 1][j], g[i][j - 1], g[i][j + 1], g[i][j]);
                    }
                }
            }
        }
    }
    g.concat()
}

/// JGF's random matrix: seeded values in [0, 10⁻⁶).
fn random_grid(n: usize) -> Vec<f64> {
    let mut rng = SplitMix64::new(0x50F);
    (0..n * n).map(|_| rng.next_f64() * 1e-6).collect()
}

struct Sor {
    n: usize,
    iters: usize,
    init: Vec<f64>,
    grid: Arc<Grid>,
    /// Whether a contender ran since the last `reset`.
    ran: bool,
    reference: Option<Vec<f64>>,
}

impl Sor {
    /// Two steps (half-sweeps) per iteration.
    fn steps(&self) -> usize {
        2 * self.iters
    }
}

impl Work for Sor {
    fn input(&self) -> String {
        format!(
            "{}x{} grid, {} iterations, {BANDS} bands",
            self.n, self.n, self.iters
        )
    }
    fn reset(&mut self) {
        Arc::get_mut(&mut self.grid)
            .expect("no task holds the grid between runs")
            .load(&self.init);
        self.ran = false;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        if !self.ran {
            return Err("the serial run recorded no answer".into());
        }
        let got = self.grid.values();
        super::compare_slices(&got, &reference(&self.init, self.n, self.iters))?;
        self.reference = Some(got);
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        if !self.ran {
            return Err("the run recorded no answer".into());
        }
        super::check_reference(&self.grid.values(), &self.reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| {
        bands::serial(&*k.grid, k.steps());
        k.ran = true;
    })
    .offshoot(|k| {
        bands::phasers(&*k.grid, k.steps(), BANDS);
        k.ran = true;
    })
    .offshoot_fj(|k| {
        bands::per_step::<par::Offshoot>(&*k.grid, k.steps(), BANDS);
        k.ran = true;
    })
    .rayon(|k| {
        bands::per_step::<par::Rayon>(&*k.grid, k.steps(), BANDS);
        k.ran = true;
    })
    .tokio(|k, rt| {
        bands::tokio_barrier(rt, k.grid.clone(), k.steps(), BANDS);
        k.ran = true;
    })
    .threads(|k| {
        bands::threads_barrier(&*k.grid, k.steps(), BANDS);
        k.ran = true;
    })
    .build()
}

fn prepare(size: Size) -> Sor {
    let (n, iters) = match size {
        Size::Test => (24, 4),
        Size::Quick => (600, 25),
        Size::Full => (1000, 100),
    };
    let init = random_grid(n);
    Sor {
        n,
        iters,
        grid: Arc::new(Grid::new(&init, n)),
        init,
        ran: false,
        reference: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_computes_the_serial_grid() {
        super::super::verify(&info());
    }

    #[test]
    fn one_iteration_by_hand() {
        // 4×4, border 1.0, interior 0.0. Red: (1,1) and (2,2) see two 1.0 and two 0.0
        // neighbours: 0.3125 · 2 = 0.625. Black: (1,2) and (2,1) see two 1.0 and the two
        // new red cells: 0.3125 · 3.25 = 1.015625.
        let n = 4;
        let init: Vec<f64> = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let mut want = init.clone();
        want[n + 1] = 0.625;
        want[2 * n + 2] = 0.625;
        want[n + 2] = 1.015625;
        want[2 * n + 1] = 1.015625;
        let g = Grid::new(&init, n);
        bands::serial(&g, 2);
        assert_eq!(g.values(), want);
        assert_eq!(reference(&init, n, 1), want);
        // Split into bands, any order of the bands within a half-sweep: the same grid.
        let g = Grid::new(&init, n);
        for s in 0..2 {
            for b in (0..3).rev() {
                let (lo, hi) = bands::band(n, 3, b);
                // SAFETY: one thread, the steps in order.
                unsafe { g.step(s, lo, hi) };
            }
        }
        assert_eq!(g.values(), want);
    }
}
