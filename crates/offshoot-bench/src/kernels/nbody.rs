//! `nbody`: N bodies under softened gravity, a few time steps of the direct O(N²) method.
//!
//! Each step computes every body's acceleration (one item per body: a loop over all
//! other bodies, in index order) in parallel, then moves the bodies (a serial O(N) update,
//! the same code for every contender). Since each body's sum is computed by one item in
//! the same order everywhere, every contender's positions equal the serial ones bit for
//! bit.
//!
//! - serial: a plain loop over the bodies;
//! - offshoot: `acc.par_iter_mut().enumerate().for_each(..)`, split on request;
//! - rayon: the same with rayon's `par_iter_mut`;
//! - chili: recursive halving with `Scope::join` down to 8 bodies.
//!
//! Inputs: N = 1024 (Umatani's OPA thesis ch.9's nbody), test 64 bodies × 2 steps, quick 30 steps, full 100.
//! Check: an independent pairwise version (each pair once, Newton's third law) sums in
//! another order, so it is compared with a tolerance: positions within 1e-9 (they are of
//! order 1; rounding differences of ~1e-16 per sum grow far less than that in a few
//! steps of dt = 1e-3).

use super::items::{self, ItemWork, ItemsInstance, Plan, Strategy};
use super::{About, KernelInfo, Size};
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "nbody",
    about: "direct O(N^2) gravity, N = 1024 bodies, one item per body per step",
    cutoff: "none (chili: 8 bodies)",
    source: "OPA thesis ch.9 loops",
};

const DT: f64 = 1e-3;
const SOFT2: f64 = 1e-4;

/// The bodies.
pub struct NBody {
    n: usize,
    steps: usize,
    pos: Vec<[f64; 3]>,
    vel: Vec<[f64; 3]>,
    mass: Vec<f64>,
}

fn initial(n: usize) -> (Vec<[f64; 3]>, Vec<f64>) {
    let mut rng = SplitMix64::new(1024);
    let pos = (0..n)
        .map(|_| [rng.next_f64(), rng.next_f64(), rng.next_f64()])
        .collect();
    let mass = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
    (pos, mass)
}

/// The pull of body `j` on body `i`, added to `a`.
#[inline]
fn pull(a: &mut [f64; 3], pi: &[f64; 3], pj: &[f64; 3], mj: f64) {
    let d = [pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]];
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFT2;
    let s = mj / (r2 * r2.sqrt());
    for k in 0..3 {
        a[k] += d[k] * s;
    }
}

fn advance(pos: &mut [[f64; 3]], vel: &mut [[f64; 3]], acc: &[[f64; 3]]) {
    for ((p, v), a) in pos.iter_mut().zip(vel.iter_mut()).zip(acc) {
        for k in 0..3 {
            v[k] += DT * a[k];
            p[k] += DT * v[k];
        }
    }
}

impl ItemWork for NBody {
    type Item = [f64; 3];
    type Answer = [f64; 3];
    fn input(&self) -> String {
        format!("{} bodies, {} steps", self.n, self.steps)
    }
    fn reset(&mut self) -> Vec<[f64; 3]> {
        (self.pos, self.mass) = initial(self.n);
        self.vel = vec![[0.0; 3]; self.n];
        vec![[0.0; 3]; self.n]
    }
    fn passes(&self) -> usize {
        self.steps
    }
    fn item(&self, i: usize, a: &mut [f64; 3]) {
        let pi = &self.pos[i];
        let mut acc = [0.0; 3];
        for (j, (pj, &mj)) in self.pos.iter().zip(&self.mass).enumerate() {
            if j != i {
                pull(&mut acc, pi, pj, mj);
            }
        }
        *a = acc;
    }
    fn after_pass(&mut self, acc: &mut [[f64; 3]]) {
        advance(&mut self.pos, &mut self.vel, acc);
    }
    fn answer(&self, _: &[[f64; 3]]) -> Vec<[f64; 3]> {
        self.pos.clone()
    }
    fn oracle(&self, got: &[[f64; 3]]) -> Result<(), String> {
        let (mut pos, mass) = initial(self.n);
        let mut vel = vec![[0.0; 3]; self.n];
        for _ in 0..self.steps {
            let mut acc = vec![[0.0f64; 3]; self.n];
            for i in 0..self.n {
                for j in i + 1..self.n {
                    let d: Vec<f64> = (0..3).map(|k| pos[j][k] - pos[i][k]).collect();
                    let r2 = d.iter().map(|x| x * x).sum::<f64>() + SOFT2;
                    let r3 = r2 * r2.sqrt();
                    for k in 0..3 {
                        acc[i][k] += d[k] * (mass[j] / r3);
                        acc[j][k] -= d[k] * (mass[i] / r3);
                    }
                }
            }
            advance(&mut pos, &mut vel, &acc);
        }
        for (i, (g, w)) in got.iter().zip(&pos).enumerate() {
            if (0..3).any(|k| (g[k] - w[k]).abs() > 1e-9) {
                return Err(format!("body {i} at {g:?}, oracle {w:?}"));
            }
        }
        Ok(())
    }
}

fn prepare(size: Size) -> ItemsInstance<NBody> {
    let (n, steps) = match size {
        Size::Test => (64, 2),
        Size::Quick => (1024, 5),
        Size::Full => (1024, 100),
    };
    let work = NBody {
        n,
        steps,
        pos: Vec::new(),
        vel: Vec::new(),
        mass: Vec::new(),
    };
    ItemsInstance::new(
        work,
        Plan {
            offshoot: Strategy::Loop,
            rayon: Strategy::Loop,
            chili_grain: 8,
        },
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    items::declare(ABOUT, prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
