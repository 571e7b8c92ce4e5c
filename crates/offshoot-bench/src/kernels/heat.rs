//! `heat`: 2-D heat diffusion by an explicit finite-difference (Jacobi)
//! scheme on an nx×ny grid over nt time steps.
//!
//! Each time step computes a new grid from the old one with the five-point
//! stencil `u' = u + dt/dx²·(u[x+1] - 2u + u[x-1]) + dt/dy²·(u[y+1] - 2u + u[y-1])`
//! in the interior and the exact solution on the boundary; the two grids
//! then swap roles. The parallel versions split the rows of each time step
//! recursively in halves with a join, down to stripes of at most `leafmaxcol`
//! rows; one time step completes before the next starts. The serial version
//! computes each time step as one stripe of all rows. Every cell is computed
//! by the same expression in every version, so the grids compare bit for bit.
//!
//! Problem (as in Cilk's `heat.cilk`): the domain is [0, π/2]² over the time
//! interval [0, 1e-7], initial value sin(x)·sin(y), boundary values from the
//! exact solution e^(-2t)·sin(x)·sin(y).
//! Inputs: nx×ny×nt = test 64×32×8, quick 1024×512×40, full 4096×512×100
//! (Cilk-5's demo defaults; the paper's table lists heat at 4096×512).
//! Cutoff: stripes of at most leafmaxcol = 10 rows (Cilk's default `-g 10`).
//! Source: Cilk-5 `heat` (Frigo, Leiserson, Randall 1998).
//! Check: the serial grid must be within 1e-9 of the exact solution.

use super::{check_reference, About, Kernel, KernelInfo, Size, Work};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "heat",
    about: "2-D heat diffusion, five-point stencil over time steps, rows split recursively",
    cutoff: "stripes of at most 10 rows (Cilk-5 heat's leafmaxcol default)",
    source: "Cilk-5 `heat` (Frigo, Leiserson, Randall 1998)",
};

/// Rows per leaf stripe.
pub const LEAFMAXCOL: usize = 10;

/// Grid size, time steps and the derived constants of the scheme.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Rows (the dimension that is split).
    pub nx: usize,
    /// Columns.
    pub ny: usize,
    /// Time steps.
    pub nt: usize,
    dx: f64,
    dy: f64,
    dt: f64,
    dtdxsq: f64,
    dtdysq: f64,
}

const XU: f64 = 0.0;
const XO: f64 = std::f64::consts::FRAC_PI_2;
const YU: f64 = 0.0;
const YO: f64 = std::f64::consts::FRAC_PI_2;
const TU: f64 = 0.0;
const TO: f64 = 0.000_000_1;

impl Params {
    /// The parameters for an nx×ny grid over nt steps.
    pub fn new(nx: usize, ny: usize, nt: usize) -> Self {
        assert!(nx >= 3 && ny >= 3 && nt >= 1);
        let dx = (XO - XU) / (nx - 1) as f64;
        let dy = (YO - YU) / (ny - 1) as f64;
        let dt = (TO - TU) / nt as f64;
        Self {
            nx,
            ny,
            nt,
            dx,
            dy,
            dt,
            dtdxsq: dt / (dx * dx),
            dtdysq: dt / (dy * dy),
        }
    }

    fn x(&self, a: usize) -> f64 {
        XU + a as f64 * self.dx
    }

    fn y(&self, b: usize) -> f64 {
        YU + b as f64 * self.dy
    }

    fn time(&self, step: usize) -> f64 {
        TU + step as f64 * self.dt
    }
}

/// The exact solution.
pub fn exact(x: f64, y: f64, t: f64) -> f64 {
    (-2.0 * t).exp() * x.sin() * y.sin()
}

/// Initial grid (time 0).
pub fn init(p: &Params, grid: &mut [f64]) {
    for a in 0..p.nx {
        let row = &mut grid[a * p.ny..(a + 1) * p.ny];
        for (b, cell) in row.iter_mut().enumerate() {
            *cell = if a == 0 || b == 0 {
                0.0
            } else if a == p.nx - 1 {
                p.y(b).sin()
            } else if b == p.ny - 1 {
                p.x(a).sin()
            } else {
                p.x(a).sin() * p.y(b).sin()
            };
        }
    }
}

/// Computes rows `lb..ub` of the new grid at time step `step`; `new` holds
/// exactly those rows, `old` the whole previous grid.
fn stripe(p: &Params, new: &mut [f64], old: &[f64], lb: usize, ub: usize, step: usize) {
    let ny = p.ny;
    let t = p.time(step);
    let decay = (-2.0 * t).exp();
    for a in lb..ub {
        let out = &mut new[(a - lb) * ny..(a - lb + 1) * ny];
        if a == 0 {
            out.fill(0.0);
            continue;
        }
        if a == p.nx - 1 {
            for (b, cell) in out.iter_mut().enumerate() {
                *cell = decay * p.y(b).sin();
            }
            continue;
        }
        let up = &old[(a - 1) * ny..a * ny];
        let cur = &old[a * ny..(a + 1) * ny];
        let down = &old[(a + 1) * ny..(a + 2) * ny];
        out[0] = 0.0;
        out[ny - 1] = decay * p.x(a).sin();
        for b in 1..ny - 1 {
            out[b] = p.dtdxsq * (down[b] - 2.0 * cur[b] + up[b])
                + p.dtdysq * (cur[b + 1] - 2.0 * cur[b] + cur[b - 1])
                + cur[b];
        }
    }
}

/// Runs the nt time steps, alternating the roles of `u` and `v`; on return
/// the result is in `u`.
fn time_steps(
    p: &Params,
    u: &mut [f64],
    v: &mut [f64],
    mut step_fn: impl FnMut(&mut [f64], &[f64], usize),
) {
    for step in 1..=p.nt {
        if step % 2 == 1 {
            step_fn(v, u, step);
        } else {
            step_fn(u, v, step);
        }
    }
    if p.nt % 2 == 1 {
        u.copy_from_slice(v);
    }
}

/// Serial: every time step is one stripe of all rows. On return the result
/// is in `u` (`v` is scratch).
pub fn serial(p: &Params, u: &mut [f64], v: &mut [f64]) {
    time_steps(p, u, v, |new, old, step| stripe(p, new, old, 0, p.nx, step));
}

/// Parallel with `offshoot::join` over halves of the rows of each time step; the
/// result is in `u`.
pub fn offshoot(p: &Params, u: &mut [f64], v: &mut [f64]) {
    fn rows(p: &Params, new: &mut [f64], old: &[f64], lb: usize, ub: usize, step: usize) {
        if ub - lb > LEAFMAXCOL {
            let mid = (lb + ub) / 2;
            let (lo, hi) = new.split_at_mut((mid - lb) * p.ny);
            offshoot::join(
                || rows(p, lo, old, lb, mid, step),
                || rows(p, hi, old, mid, ub, step),
            );
        } else {
            stripe(p, new, old, lb, ub, step);
        }
    }
    time_steps(p, u, v, |new, old, step| rows(p, new, old, 0, p.nx, step));
}

/// Parallel with `rayon::join` over halves of the rows of each time step; the
/// result is in `u`.
pub fn rayon(p: &Params, u: &mut [f64], v: &mut [f64]) {
    fn rows(p: &Params, new: &mut [f64], old: &[f64], lb: usize, ub: usize, step: usize) {
        if ub - lb > LEAFMAXCOL {
            let mid = (lb + ub) / 2;
            let (lo, hi) = new.split_at_mut((mid - lb) * p.ny);
            rayon::join(
                || rows(p, lo, old, lb, mid, step),
                || rows(p, hi, old, mid, ub, step),
            );
        } else {
            stripe(p, new, old, lb, ub, step);
        }
    }
    time_steps(p, u, v, |new, old, step| rows(p, new, old, 0, p.nx, step));
}

/// Parallel with chili's `Scope::join` over halves of the rows.
pub fn chili(s: &mut chili::Scope<'_>, p: &Params, u: &mut [f64], v: &mut [f64]) {
    fn rows(
        s: &mut chili::Scope<'_>,
        p: &Params,
        new: &mut [f64],
        old: &[f64],
        lb: usize,
        ub: usize,
        step: usize,
    ) {
        if ub - lb > LEAFMAXCOL {
            let mid = (lb + ub) / 2;
            let (lo, hi) = new.split_at_mut((mid - lb) * p.ny);
            // chili runs its second closure first: keep serial's order.
            s.join(
                |s| rows(s, p, hi, old, mid, ub, step),
                |s| rows(s, p, lo, old, lb, mid, step),
            );
        } else {
            stripe(p, new, old, lb, ub, step);
        }
    }
    time_steps(p, u, v, |new, old, step| {
        rows(s, p, new, old, 0, p.nx, step)
    });
}

/// Largest deviation of `grid` from the exact solution at the final time.
pub fn max_error(p: &Params, grid: &[f64]) -> f64 {
    let t = p.time(p.nt);
    let mut worst: f64 = 0.0;
    for a in 0..p.nx {
        for b in 0..p.ny {
            worst = worst.max((grid[a * p.ny + b] - exact(p.x(a), p.y(b), t)).abs());
        }
    }
    worst
}

struct Heat {
    p: Params,
    u: Vec<f64>,
    v: Vec<f64>,
    reference: Option<Vec<f64>>,
}

fn prepare(size: Size) -> Heat {
    let (nx, ny, nt) = match size {
        Size::Test => (64, 32, 8),
        Size::Quick => (1024, 512, 40),
        Size::Full => (4096, 512, 100),
    };
    let p = Params::new(nx, ny, nt);
    Heat {
        p,
        u: vec![0.0; nx * ny],
        v: vec![0.0; nx * ny],
        reference: None,
    }
}

impl Work for Heat {
    fn input(&self) -> String {
        format!("{}x{} grid, {} steps", self.p.nx, self.p.ny, self.p.nt)
    }
    fn reset(&mut self) {
        init(&self.p, &mut self.u);
        self.v.fill(f64::NAN);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let err = max_error(&self.p, &self.u);
        if err.is_nan() || err >= 1e-9 {
            return Err(format!(
                "serial grid deviates from the exact solution by {err:e}"
            ));
        }
        self.reference = Some(self.u.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        check_reference(&self.u, &self.reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| serial(&k.p, &mut k.u, &mut k.v))
        .offshoot(|k| offshoot(&k.p, &mut k.u, &mut k.v))
        .rayon(|k| rayon(&k.p, &mut k.u, &mut k.v))
        .chili(|k, s| chili(s, &k.p, &mut k.u, &mut k.v))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_tracks_exact_solution() {
        for (nx, ny, nt) in [(16, 16, 1), (64, 32, 8), (33, 17, 5)] {
            let p = Params::new(nx, ny, nt);
            let mut u = vec![0.0; nx * ny];
            let mut v = vec![0.0; nx * ny];
            init(&p, &mut u);
            serial(&p, &mut u, &mut v);
            let err = max_error(&p, &u);
            assert!(err < 1e-9, "{nx}x{ny}x{nt}: error {err:e}");
        }
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
