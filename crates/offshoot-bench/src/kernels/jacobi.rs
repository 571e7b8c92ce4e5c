//! `jacobi-2d` / `jacobi-2d-coarse`: a 5-point Jacobi relaxation on an `n`×`n` grid for `t`
//! sweeps, its rows split into bands, a task per band that meets the others at the end of
//! every sweep (Imam's thesis ch. 3, the phaser kernels; issue 17). `jacobi-2d` has 64
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
//! The grid: fixed boundary values (1.0 on the top row, 0.0 elsewhere on the border), the
//! interior starting at 0.0; two buffers, swapped each sweep. Inputs: test 24² × 4 sweeps,
//! quick 400² × 40, full 1500² × 100. Check: the final grid equals the serial one exactly,
//! and the serial one equals a plain reference loop over a `Vec<Vec<f64>>`.

use std::cell::UnsafeCell;
use std::sync::Arc;

use offshoot::phaser::{Mode, Phaser};

use super::{Instance, KernelInfo, Size};
use crate::harness::Contender;

/// Registry entry of `jacobi-2d` (64 bands).
pub const INFO: KernelInfo = KernelInfo {
    name: "jacobi-2d",
    about: "Jacobi relaxation, 64 bands meeting after every sweep: phasers vs a fork-join per sweep, tokio and OS-thread barriers",
    cutoff: "64 bands of rows",
    source: "Imam's thesis ch. 3 (phasers; SOR/Jacobi stencils) (issue 17)",
    contenders: CONTENDERS,
    prepare: prepare_fine,
};

/// Registry entry of `jacobi-2d-coarse` (8 bands).
pub const INFO_COARSE: KernelInfo = KernelInfo {
    name: "jacobi-2d-coarse",
    about: "Jacobi relaxation, 8 bands meeting after every sweep: phasers vs a fork-join per sweep, tokio and OS-thread barriers",
    cutoff: "8 bands of rows",
    source: "Imam's thesis ch. 3 (phasers; SOR/Jacobi stencils) (issue 17)",
    contenders: CONTENDERS,
    prepare: prepare_coarse,
};

const CONTENDERS: &[Contender] = Contender::PHASED;

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

    /// Computes rows `lo..hi` (interior rows only) of sweep `s`.
    ///
    /// # Safety
    /// The caller keeps the type's invariant: no other task writes these rows of buffer
    /// `(s + 1) % 2` or any row of buffer `s % 2` during sweep `s`.
    unsafe fn sweep_rows(&self, s: usize, lo: usize, hi: usize) {
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

    /// The grid after `t` sweeps.
    fn result(&self, t: usize) -> Vec<f64> {
        self.cells[t % 2]
            .iter()
            // SAFETY: called after every task ended.
            .map(|c| unsafe { *c.get() })
            .collect()
    }
}

/// The rows of band `b` of `bands`.
fn band(n: usize, bands: usize, b: usize) -> (usize, usize) {
    (b * n / bands, (b + 1) * n / bands)
}

fn serial(n: usize, t: usize) -> Vec<f64> {
    let g = Grids::new(n);
    for s in 0..t {
        // SAFETY: one thread.
        unsafe { g.sweep_rows(s, 0, n) };
    }
    g.result(t)
}

fn phasers(n: usize, t: usize, bands: usize) -> Vec<f64> {
    let g = Grids::new(n);
    let ph = Phaser::new();
    let me = ph.register(Mode::SigWait);
    offshoot::scope(|sc| {
        for b in 0..bands {
            let mut r = me.child(Mode::SigWait);
            let g = &g;
            sc.spawn(move |_| {
                let (lo, hi) = band(n, bands, b);
                for s in 0..t {
                    // SAFETY: the band is this task's; `next` ends the sweep for everyone.
                    unsafe { g.sweep_rows(s, lo, hi) };
                    r.next();
                }
            });
        }
        drop(me);
    });
    g.result(t)
}

fn offshoot_per_sweep(n: usize, t: usize, bands: usize) -> Vec<f64> {
    use offshoot::prelude::*;
    let g = Grids::new(n);
    for s in 0..t {
        (0..bands).into_par_iter().for_each(|b| {
            let (lo, hi) = band(n, bands, b);
            // SAFETY: bands are disjoint; the fork-join ends the sweep.
            unsafe { g.sweep_rows(s, lo, hi) };
        });
    }
    g.result(t)
}

fn rayon_per_sweep(n: usize, t: usize, bands: usize) -> Vec<f64> {
    use rayon::prelude::*;
    let g = Grids::new(n);
    for s in 0..t {
        (0..bands).into_par_iter().for_each(|b| {
            let (lo, hi) = band(n, bands, b);
            // SAFETY: bands are disjoint; the fork-join ends the sweep.
            unsafe { g.sweep_rows(s, lo, hi) };
        });
    }
    g.result(t)
}

fn tokio_barrier(rt: &tokio::runtime::Runtime, n: usize, t: usize, bands: usize) -> Vec<f64> {
    let g = Arc::new(Grids::new(n));
    let barrier = Arc::new(tokio::sync::Barrier::new(bands));
    rt.block_on(async {
        let tasks: Vec<_> = (0..bands)
            .map(|b| {
                let (g, barrier) = (g.clone(), barrier.clone());
                tokio::spawn(async move {
                    let (lo, hi) = band(n, bands, b);
                    for s in 0..t {
                        // SAFETY: the band is this task's; the barrier ends the sweep.
                        unsafe { g.sweep_rows(s, lo, hi) };
                        barrier.wait().await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a band task panicked");
        }
    });
    g.result(t)
}

fn threads_barrier(n: usize, t: usize, bands: usize) -> Vec<f64> {
    let g = Grids::new(n);
    let barrier = std::sync::Barrier::new(bands);
    std::thread::scope(|sc| {
        for b in 0..bands {
            let (g, barrier) = (&g, &barrier);
            sc.spawn(move || {
                let (lo, hi) = band(n, bands, b);
                for s in 0..t {
                    // SAFETY: the band is this thread's; the barrier ends the sweep.
                    unsafe { g.sweep_rows(s, lo, hi) };
                    barrier.wait();
                }
            });
        }
    });
    g.result(t)
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

impl Instance for Jacobi {
    fn input(&self) -> String {
        format!(
            "{}x{} grid, {} sweeps, {} bands",
            self.n, self.n, self.t, self.bands
        )
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn serial(&mut self) {
        self.last = serial(self.n, self.t);
    }
    fn offshoot(&mut self) {
        self.last = phasers(self.n, self.t, self.bands);
    }
    fn offshoot_fj(&mut self) {
        self.last = offshoot_per_sweep(self.n, self.t, self.bands);
    }
    fn rayon(&mut self) {
        self.last = rayon_per_sweep(self.n, self.t, self.bands);
    }
    fn tokio(&mut self, rt: &tokio::runtime::Runtime) {
        self.last = tokio_barrier(rt, self.n, self.t, self.bands);
    }
    fn threads(&mut self) {
        self.last = threads_barrier(self.n, self.t, self.bands);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        super::compare_slices(&self.last, &reference(self.n, self.t))?;
        self.reference = Some(self.last.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        match &self.reference {
            None => Err("no reference".into()),
            Some(r) => super::compare_slices(&self.last, r),
        }
    }
}

fn prepare(size: Size, bands: usize) -> Box<dyn Instance> {
    let (n, t) = match size {
        Size::Test => (24, 4),
        Size::Quick => (400, 40),
        Size::Full => (1500, 100),
    };
    Box::new(Jacobi {
        n,
        t,
        bands,
        last: Vec::new(),
        reference: None,
    })
}

fn prepare_fine(size: Size) -> Box<dyn Instance> {
    prepare(size, 64)
}

fn prepare_coarse(size: Size) -> Box<dyn Instance> {
    prepare(size, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_computes_the_serial_grid() {
        for prepare in [prepare_fine, prepare_coarse] {
            super::super::verify_contenders(prepare(Size::Test), CONTENDERS);
        }
    }

    #[test]
    fn bands_cover_the_rows_once() {
        for (n, bands) in [(24, 64), (24, 8), (1500, 64), (7, 3)] {
            let mut next = 0;
            for b in 0..bands {
                let (lo, hi) = band(n, bands, b);
                assert_eq!(lo, next);
                assert!(hi >= lo);
                next = hi;
            }
            assert_eq!(next, n);
        }
    }
}
