//! `mandelbrot`: escape counts of the Mandelbrot iteration `z ← z² + c` over a W×H grid of
//! the region [-2, 1] × [-1.5, 1.5], one row per item (Umatani's OPA thesis ch.6's imbalanced loop: rows
//! through the set cost up to the iteration limit per pixel, rows outside it almost
//! nothing).
//!
//! - serial: a plain loop over the rows;
//! - offshoot: `rows.par_iter_mut().enumerate().for_each(..)`, split on request;
//! - rayon: the same with rayon's `par_iter_mut`;
//! - chili: recursive halving with `Scope::join` down to single rows.
//!
//! Inputs: test 64×64 (limit 100), quick and full 1000×1000 (limit 256, 1000 for full).
//! Check: every pixel is computed again by an independently written complex-number
//! version whose arithmetic is the same operation by operation (so the counts agree
//! exactly), and the image must be symmetric about the real axis.

use super::items::{self, ItemWork, ItemsInstance, Plan, Strategy};
use super::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "mandelbrot",
    about: "Mandelbrot escape counts over a 1000x1000 grid, one row per item (imbalanced rows)",
    cutoff: "none (chili: single rows)",
    source: "OPA thesis ch.6 / ch.9 loops",
};

/// The grid and the iteration limit.
pub struct Mandelbrot {
    width: usize,
    height: usize,
    limit: u32,
}

impl Mandelbrot {
    /// The point of pixel `(x, y)`; rows `y` and `height - 1 - y` get exactly opposite
    /// imaginary parts (a half-integer offset times one step), so the image is symmetric.
    fn c(&self, x: usize, y: usize) -> (f64, f64) {
        let h = (self.height - 1) as f64;
        (
            -2.0 + 3.0 * x as f64 / self.width as f64,
            (y as f64 - h / 2.0) * (3.0 / h),
        )
    }
}

/// Iterations until `|z| > 2`, at most `limit`.
#[inline]
fn escape(cr: f64, ci: f64, limit: u32) -> u32 {
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    for k in 0..limit {
        let (zr2, zi2) = (zr * zr, zi * zi);
        if zr2 + zi2 > 4.0 {
            return k;
        }
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    limit
}

impl ItemWork for Mandelbrot {
    type Item = Vec<u32>;
    type Answer = Vec<u32>;
    fn input(&self) -> String {
        format!("{}x{} grid, limit {}", self.width, self.height, self.limit)
    }
    fn reset(&mut self) -> Vec<Vec<u32>> {
        vec![vec![0; self.width]; self.height]
    }
    fn passes(&self) -> usize {
        1
    }
    fn item(&self, y: usize, row: &mut Vec<u32>) {
        for (x, px) in row.iter_mut().enumerate() {
            let (cr, ci) = self.c(x, y);
            *px = escape(cr, ci, self.limit);
        }
    }
    fn answer(&self, out: &[Vec<u32>]) -> Vec<Vec<u32>> {
        out.to_vec()
    }
    fn oracle(&self, rows: &[Vec<u32>]) -> Result<(), String> {
        #[derive(Clone, Copy)]
        struct C {
            re: f64,
            im: f64,
        }
        for (y, row) in rows.iter().enumerate() {
            if *row != rows[self.height - 1 - y] {
                return Err(format!("rows {y} and its mirror differ"));
            }
            for (x, &got) in row.iter().enumerate() {
                let (re, im) = self.c(x, y);
                let c = C { re, im };
                let mut z = C { re: 0.0, im: 0.0 };
                let mut n = 0;
                while n < self.limit && z.re * z.re + z.im * z.im <= 4.0 {
                    // (a + bi)² + c; `ab + ab` and `2ab` are the same double exactly.
                    let p = z.re * z.im;
                    z = C {
                        re: (z.re * z.re - z.im * z.im) + c.re,
                        im: (p + p) + c.im,
                    };
                    n += 1;
                }
                if n != got {
                    return Err(format!("pixel ({x}, {y}): {got} iterations, oracle {n}"));
                }
            }
        }
        Ok(())
    }
}

fn prepare(size: Size) -> ItemsInstance<Mandelbrot> {
    let (side, limit) = match size {
        Size::Test => (64, 100),
        Size::Quick => (400, 256),
        Size::Full => (1000, 1000),
    };
    let work = Mandelbrot {
        width: side,
        height: side,
        limit,
    };
    ItemsInstance::new(
        work,
        Plan {
            offshoot: Strategy::Loop,
            rayon: Strategy::Loop,
            chili_grain: 1,
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
    fn known_points() {
        assert_eq!(escape(0.0, 0.0, 50), 50);
        assert_eq!(escape(-1.0, 0.0, 50), 50);
        assert_eq!(escape(1.0, 1.0, 50), 2);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
