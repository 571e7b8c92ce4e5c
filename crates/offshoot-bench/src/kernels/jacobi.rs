//! `jacobi-2d` / `jacobi-2d-coarse`: a 5-point Jacobi relaxation on an `n`×`n` grid for `t`
//! sweeps, its rows split into bands, a task per band that meets the others at the end of
//! every sweep (Imam's thesis ch. 3, the phaser kernels). `jacobi-2d` has 64
//! bands (32 tasks per worker on 2 workers), `jacobi-2d-coarse` 8 (4 per worker).
//!
//! Contenders, each computing the same cells in the same way (so the grids agree bit for
//! bit):
//! * serial: the sweeps, row by row;
//! * offshoot: one task per band for the whole run (`Scope::spawn`), each with a phaser
//!   registration; a sweep of its band, then `next()` — a waiting task parks;
//! * offshoot-fj: the rayon program on offshoot (`offshoot::prelude`), a fork-join per
//!   sweep;
//! * rayon: a fork-join per sweep (a `par_iter` over the bands), rayon's idiom;
//! * tokio: one task per band with a `tokio::sync::Barrier` awaited after each sweep;
//! * threads: one OS thread per band with a `std::sync::Barrier` (the blocking baseline).
//!
//! (The contenders' drivers are `bands.rs`'s, shared with `sor`.) The grid: fixed boundary values (1.0 on the top row, 0.0 elsewhere on the border), the
//! interior starting at 0.0; two buffers, swapped each sweep. Inputs: test 24² × 4 sweeps,
//! quick 400² × 40, full 1500² × 100. Check: the final grid equals the serial one exactly,
//! and the serial one equals a plain reference loop over a `Vec<Vec<f64>>`.

use std::cell::UnsafeCell;
use std::sync::Arc;

use super::bands::{self, Steps};
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par;

/// What `jacobi-2d` (64 bands) is.
pub const ABOUT: About = About {
    name: "jacobi-2d",
    about: "Jacobi relaxation, 64 bands meeting after every sweep: phasers vs a fork-join per sweep, tokio and OS-thread barriers",
    cutoff: "64 bands of rows",
    source: "Imam's thesis ch. 3 (phasers; SOR/Jacobi stencils)",
};

/// What `jacobi-2d-coarse` (8 bands) is.
pub const ABOUT_COARSE: About = About {
    name: "jacobi-2d-coarse",
    about: "Jacobi relaxation, 8 bands meeting after every sweep: phasers vs a fork-join per sweep, tokio and OS-thread barriers",
    cutoff: "8 bands of rows",
    source: "Imam's thesis ch. 3 (phasers; SOR/Jacobi stencils)",
};

/// Two `n`×`n` buffers shared by the band tasks.
///
/// Invariant (what makes the unsynchronised access sound): in sweep `s`, buffer `s % 2` is
/// only read and buffer `(s + 1) % 2` is written only in the rows of the writing task's own
/// band (bands are disjoint); every task ends sweep `s` before any starts sweep `s + 1`
/// (the phaser, barrier or fork-join between them orders the accesses).
struct Grids {
    n: usize,
    cells: [Box<[UnsafeCell<f64>]>; 2],
}

// SAFETY: see the invariant: concurrent accesses are to distinct cells, or reads only.
unsafe impl Sync for Grids {}

impl Grids {
    fn new(n: usize) -> Grids {
        let make = || {
            (0..n * n)
                .map(|k| UnsafeCell::new(if k < n { 1.0 } else { 0.0 }))
                .collect::<Box<[_]>>()
        };
        Grids {
            n,
            cells: [make(), make()],
        }
    }

    /// The grid after `t` sweeps.
    fn result(&self, t: usize) -> Vec<f64> {
        // SAFETY: called after every task ended.
        unsafe { bands::snapshot(&self.cells[t % 2]) }
    }
}

impl Steps for Grids {
    fn rows(&self) -> usize {
        self.n
    }

    /// Computes rows `lo..hi` (interior rows only) of sweep `s`.
    ///
    /// # Safety
    /// The caller keeps the type's invariant: no other task writes these rows of buffer
    /// `(s + 1) % 2` or any row of buffer `s % 2` during sweep `s`.
    unsafe fn step(&self, s: usize, lo: usize, hi: usize) {
        let n = self.n;
        let src = self.cells[s % 2].as_ptr() as *const f64;
        let dst = self.cells[(s + 1) % 2].as_ptr() as *mut f64;
        for i in lo.max(1)..hi.min(n - 1) {
            // SAFETY: per the contract, rows i-1..=i+1 of `src` are not written, and row i
            // of `dst` is this task's alone; indices stay inside the n×n buffers.
            unsafe {
                let up = std::slice::from_raw_parts(src.add((i - 1) * n), n);
                let mid = std::slice::from_raw_parts(src.add(i * n), n);
                let down = std::slice::from_raw_parts(src.add((i + 1) * n), n);
                let out = std::slice::from_raw_parts_mut(dst.add(i * n), n);
                for j in 1..n - 1 {
                    out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
                }
            }
        }
    }
}

/// The oracle: the same sweeps over a `Vec<Vec<f64>>`, no sharing.
fn reference(n: usize, t: usize) -> Vec<f64> {
    let mut a: Vec<Vec<f64>> = (0..n)
        .map(|i| vec![if i == 0 { 1.0 } else { 0.0 }; n])
        .collect();
    let mut b = a.clone();
    for _ in 0..t {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
            }
        }
        std::mem::swap(&mut a, &mut b);
    }
    a.concat()
}

struct Jacobi {
    n: usize,
    t: usize,
    bands: usize,
    last: Vec<f64>,
    reference: Option<Vec<f64>>,
}

impl Work for Jacobi {
    fn input(&self) -> String {
        format!(
            "{}x{} grid, {} sweeps, {} bands",
            self.n, self.n, self.t, self.bands
        )
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        super::compare_slices(&self.last, &reference(self.n, self.t))?;
        self.reference = Some(self.last.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        super::check_reference(&self.last, &self.reference)
    }
}

/// The declaration of the kernel's variants, each with its own input.
fn declare(about: About, prepare: fn(Size) -> Jacobi) -> KernelInfo {
    Kernel::new(about, prepare, |k| {
        let g = Grids::new(k.n);
        bands::serial(&g, k.t);
        k.last = g.result(k.t);
    })
    .offshoot(|k| {
        let g = Grids::new(k.n);
        bands::phasers(&g, k.t, k.bands);
        k.last = g.result(k.t);
    })
    .offshoot_fj(|k| {
        let g = Grids::new(k.n);
        bands::per_step::<par::Offshoot>(&g, k.t, k.bands);
        k.last = g.result(k.t);
    })
    .rayon(|k| {
        let g = Grids::new(k.n);
        bands::per_step::<par::Rayon>(&g, k.t, k.bands);
        k.last = g.result(k.t);
    })
    .tokio(|k, rt| {
        let g = Arc::new(Grids::new(k.n));
        bands::tokio_barrier(rt, g.clone(), k.t, k.bands);
        k.last = g.result(k.t);
    })
    .threads(|k| {
        let g = Grids::new(k.n);
        bands::threads_barrier(&g, k.t, k.bands);
        k.last = g.result(k.t);
    })
    .build()
}

/// The registry entry of `jacobi-2d`.
pub fn info() -> KernelInfo {
    declare(ABOUT, prepare_fine)
}

/// The registry entry of `jacobi-2d-coarse`.
pub fn info_coarse() -> KernelInfo {
    declare(ABOUT_COARSE, prepare_coarse)
}

fn prepare(size: Size, bands: usize) -> Jacobi {
    let (n, t) = match size {
        Size::Test => (24, 4),
        Size::Quick => (400, 40),
        Size::Full => (1500, 100),
    };
    Jacobi {
        n,
        t,
        bands,
        last: Vec::new(),
        reference: None,
    }
}

fn prepare_fine(size: Size) -> Jacobi {
    prepare(size, 64)
}

fn prepare_coarse(size: Size) -> Jacobi {
    prepare(size, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_computes_the_serial_grid() {
        for info in [info(), info_coarse()] {
            super::super::verify(&info);
        }
    }
}
