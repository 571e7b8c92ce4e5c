//! The band kernels' drivers (`jacobi-2d`, `jacobi-2d-coarse`, `sor`; Imam's thesis ch. 3):
//! a computation in a fixed number of steps over the `n` rows of a grid, its
//! rows split into bands, every band's part of step `s` done before any band starts step
//! `s + 1`. One driver per contender, shared by those kernels so that each contender meets
//! the others in the same way in each of them:
//! * [`serial`]: the steps, each over all rows;
//! * [`phasers`]: one offshoot task per band for the whole run (`Scope::spawn`), each with
//!   a phaser registration, `next()` after each step — a waiting task parks;
//! * [`per_step`]: a fork-join (a parallel loop over the bands) per step, on offshoot or
//!   rayon, each written with its own parallel iterators (`crate::par::ParLoop`);
//! * [`tokio_barrier`]: one tokio task per band with a `tokio::sync::Barrier` awaited
//!   after each step;
//! * [`threads_barrier`]: one OS thread per band with a `std::sync::Barrier`.
//!
//! Invariant: each driver runs every (step, band) once, with the rows of [`band`] (disjoint,
//! covering `0..n`), and orders all of step `s` before any of step `s + 1` (phaser, barrier
//! or the end of a fork-join) — the contract of [`Steps::step`].

use std::cell::UnsafeCell;
use std::sync::Arc;

use offshoot::phaser::{Mode, Phaser};

use crate::par::ParLoop;

/// A grid computed step by step in bands of rows.
pub(crate) trait Steps: Sync {
    /// The number of rows (what the bands split).
    fn rows(&self) -> usize;

    /// Computes rows `lo..hi` of step `s`.
    ///
    /// # Safety
    /// Concurrent calls are for the same `s` and disjoint row ranges, and every call of step
    /// `s` returns before any call of step `s + 1` starts (the implementor's invariant says
    /// why that makes its unsynchronised accesses sound).
    unsafe fn step(&self, s: usize, lo: usize, hi: usize);
}

/// The rows of band `b` of `bands`, for `n` rows.
pub(crate) fn band(n: usize, bands: usize, b: usize) -> (usize, usize) {
    (b * n / bands, (b + 1) * n / bands)
}

/// The plain serial program: each step over all rows.
pub(crate) fn serial(g: &impl Steps, steps: usize) {
    for s in 0..steps {
        // SAFETY: one thread, the steps in order.
        unsafe { g.step(s, 0, g.rows()) };
    }
}

/// One offshoot task per band, meeting at a phaser after every step.
pub(crate) fn phasers(g: &impl Steps, steps: usize, bands: usize) {
    let n = g.rows();
    let ph = Phaser::new();
    let me = ph.register(Mode::SigWait);
    offshoot::scope(|sc| {
        for b in 0..bands {
            let mut r = me.child(Mode::SigWait);
            sc.spawn(move |_| {
                let (lo, hi) = band(n, bands, b);
                for s in 0..steps {
                    // SAFETY: the band is this task's; `next` ends the step for everyone.
                    unsafe { g.step(s, lo, hi) };
                    r.next();
                }
            });
        }
        drop(me);
    });
}

/// A fork-join per step: a parallel loop over the bands, written with the parallel
/// iterators of `P` (offshoot's `prelude`, or rayon's idiom).
pub(crate) fn per_step<P: ParLoop>(g: &impl Steps, steps: usize, bands: usize) {
    let n = g.rows();
    for s in 0..steps {
        P::for_each(bands, |b| {
            let (lo, hi) = band(n, bands, b);
            // SAFETY: bands are disjoint; the fork-join ends the step.
            unsafe { g.step(s, lo, hi) };
        });
    }
}

/// The values of `cells`.
///
/// # Safety
/// No task writes `cells` during the call (the run has ended).
pub(crate) unsafe fn snapshot(cells: &[UnsafeCell<f64>]) -> Vec<f64> {
    cells
        .iter()
        // SAFETY: per the contract, no write races with these reads.
        .map(|c| unsafe { *c.get() })
        .collect()
}

/// One tokio task per band, awaiting a `tokio::sync::Barrier` after every step.
pub(crate) fn tokio_barrier<G: Steps + Send + 'static>(
    rt: &tokio::runtime::Runtime,
    g: Arc<G>,
    steps: usize,
    bands: usize,
) {
    let n = g.rows();
    let barrier = Arc::new(tokio::sync::Barrier::new(bands));
    rt.block_on(async {
        let tasks: Vec<_> = (0..bands)
            .map(|b| {
                let (g, barrier) = (g.clone(), barrier.clone());
                tokio::spawn(async move {
                    let (lo, hi) = band(n, bands, b);
                    for s in 0..steps {
                        // SAFETY: the band is this task's; the barrier ends the step.
                        unsafe { g.step(s, lo, hi) };
                        barrier.wait().await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a band task panicked");
        }
    });
}

/// One OS thread per band, waiting at a `std::sync::Barrier` after every step.
pub(crate) fn threads_barrier(g: &impl Steps, steps: usize, bands: usize) {
    let n = g.rows();
    let barrier = std::sync::Barrier::new(bands);
    std::thread::scope(|sc| {
        for b in 0..bands {
            let barrier = &barrier;
            sc.spawn(move || {
                let (lo, hi) = band(n, bands, b);
                for s in 0..steps {
                    // SAFETY: the band is this thread's; the barrier ends the step.
                    unsafe { g.step(s, lo, hi) };
                    barrier.wait();
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

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
