//! `sls`: find a target value in a large 2-D array, any occurrence (Imam's thesis,
//! Fig. 4.14 "SLS", scaled to this machine): a search that should stop as soon as one
//! worker finds it.
//!
//! Contenders, one query per target, each stopping at its first hit:
//! * serial: the row-major scan, stopping at the first hit (as a user writes it);
//! * offshoot (EU): `eureka::finish` with a [`Search`]; `par_for` over the rows, a
//!   `check` per row, an `offer` at the hit;
//! * offshoot-ct: the same loop with a hand-threaded `AtomicBool` tested per row;
//! * offshoot-af: the same loop with no termination (every row is scanned);
//! * rayon: `(0..rows).into_par_iter().find_map_any(..)`, rayon's idiom.
//!
//! Inputs: a `rows`×`cols` array of seeded random `u32`s below 2^30, and `queries`
//! targets, each planted at one seeded position (values ≥ 2^30, so each occurs once).
//! test 64×64×4, quick 2000×1000×12, full 4000×2000×24. Check: every query's position
//! holds its target (the serial positions are checked against a plain linear search of
//! the flat array). The input line reports rows scanned per query, and rows started after
//! the hit was offered, counted once at preparation on a pool of every core.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use offshoot::eureka::{self, Eureka, Search};

use super::{Instance, KernelInfo, Size};
use crate::harness::Contender;

/// Registry entry.
pub const INFO: KernelInfo = KernelInfo {
    name: "sls",
    about: "find a target in a large 2-D array: a Search eureka vs a token, no termination, rayon's find_map_any",
    cutoff: "none (a check per row)",
    source: "Imam's thesis Fig. 4.14 `SLS` (issue 16)",
    contenders: Contender::SEARCH,
    prepare,
};

struct Grid {
    rows: usize,
    cols: usize,
    cells: Vec<u32>,
}

impl Grid {
    fn row(&self, r: usize) -> &[u32] {
        &self.cells[r * self.cols..(r + 1) * self.cols]
    }
    /// The column of `t` in row `r`, if it is there.
    #[inline]
    fn scan(&self, r: usize, t: u32) -> Option<usize> {
        self.row(r).iter().position(|&v| v == t)
    }
}

/// Counts rows scanned, and rows started after the hit was offered (`found`), when asked.
struct Counter<'a> {
    rows: &'a AtomicU64,
    late: &'a AtomicU64,
    found: &'a AtomicBool,
}

impl Counter<'_> {
    fn row(&self) {
        self.rows.fetch_add(1, Ordering::Relaxed);
        if self.found.load(Ordering::Relaxed) {
            self.late.fetch_add(1, Ordering::Relaxed);
        }
    }
    fn hit(&self) {
        self.found.store(true, Ordering::Relaxed);
    }
}

fn serial(g: &Grid, t: u32) -> Option<(usize, usize)> {
    (0..g.rows).find_map(|r| g.scan(r, t).map(|c| (r, c)))
}

fn eureka_search(g: &Grid, t: u32, count: Option<&Counter>) -> Option<(usize, usize)> {
    let found = Search::new();
    eureka::finish(&found, || {
        offshoot::par_for(0..g.rows, |r| {
            found.check();
            if let Some(c) = count {
                c.row();
            }
            if let Some(col) = g.scan(r, t) {
                if let Some(c) = count {
                    c.hit();
                }
                found.offer((r, col));
            }
        })
    });
    found.into_inner()
}

fn token_search(g: &Grid, t: u32, count: Option<&Counter>) -> Option<(usize, usize)> {
    let stop = AtomicBool::new(false);
    let hit = Mutex::new(None);
    offshoot::par_for(0..g.rows, |r| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if let Some(c) = count {
            c.row();
        }
        if let Some(col) = g.scan(r, t) {
            if let Some(c) = count {
                c.hit();
            }
            hit.lock().unwrap().get_or_insert((r, col));
            stop.store(true, Ordering::Relaxed);
        }
    });
    hit.into_inner().unwrap()
}

fn full_search(g: &Grid, t: u32, count: Option<&Counter>) -> Option<(usize, usize)> {
    let hit = Mutex::new(None);
    offshoot::par_for(0..g.rows, |r| {
        if let Some(c) = count {
            c.row();
        }
        if let Some(col) = g.scan(r, t) {
            if let Some(c) = count {
                c.hit();
            }
            hit.lock().unwrap().get_or_insert((r, col));
        }
    });
    hit.into_inner().unwrap()
}

fn rayon_search(g: &Grid, t: u32, count: Option<&Counter>) -> Option<(usize, usize)> {
    use rayon::prelude::*;
    (0..g.rows).into_par_iter().find_map_any(|r| {
        if let Some(c) = count {
            c.row();
        }
        let hit = g.scan(r, t).map(|col| (r, col));
        if let (Some(c), Some(_)) = (count, hit) {
            c.hit();
        }
        hit
    })
}

/// Where a query's target is: (row, column), or nowhere.
type Hit = Option<(usize, usize)>;

/// One of the searches, with its optional visit counter.
type Searcher = fn(&Grid, u32, Option<&Counter>) -> Hit;

struct Sls {
    grid: Grid,
    targets: Vec<u32>,
    label: String,
    last: Vec<Option<(usize, usize)>>,
    reference: Option<Vec<Option<(usize, usize)>>>,
}

impl Sls {
    fn run(&mut self, f: Searcher) {
        let g = &self.grid;
        self.last = self.targets.iter().map(|&t| f(g, t, None)).collect();
    }
}

impl Instance for Sls {
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn serial(&mut self) {
        let g = &self.grid;
        self.last = self.targets.iter().map(|&t| serial(g, t)).collect();
    }
    fn offshoot(&mut self) {
        self.run(eureka_search);
    }
    fn offshoot_ct(&mut self) {
        self.run(token_search);
    }
    fn offshoot_af(&mut self) {
        self.run(full_search);
    }
    fn rayon(&mut self) {
        self.run(rayon_search);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let g = &self.grid;
        for (&t, got) in self.targets.iter().zip(&self.last) {
            let flat = g.cells.iter().position(|&v| v == t);
            let want = flat.map(|k| (k / g.cols, k % g.cols));
            if *got != want {
                return Err(format!(
                    "target {t}: serial found {got:?}, linear search {want:?}"
                ));
            }
        }
        self.reference = Some(self.last.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        // Each target occurs once, so any correct search finds the same position.
        super::check_reference(&self.last, &self.reference)
    }
}

/// Rows scanned per query and rows started after the hit, for each contender, on a pool
/// of every core (the instrumented versions of the same searches).
fn visits(g: &Grid, targets: &[u32]) -> String {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let op = offshoot::ThreadPool::builder()
        .workers(workers)
        .build()
        .expect("a pool");
    let rp = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("a pool");
    let per = |run: &dyn Fn(u32, &Counter)| {
        let (rows, late) = (AtomicU64::new(0), AtomicU64::new(0));
        for &t in targets {
            let found = AtomicBool::new(false);
            run(
                t,
                &Counter {
                    rows: &rows,
                    late: &late,
                    found: &found,
                },
            );
        }
        let q = targets.len().max(1) as u64;
        (rows.into_inner() / q, late.into_inner() / q)
    };
    let serial_rows = targets
        .iter()
        .map(|&t| serial(g, t).map_or(g.rows, |(r, _)| r + 1) as u64)
        .sum::<u64>()
        / targets.len().max(1) as u64;
    let (eu, eu_late) = per(&|t, c| {
        op.run(|| eureka_search(g, t, Some(c)));
    });
    let (ct, ct_late) = per(&|t, c| {
        op.run(|| token_search(g, t, Some(c)));
    });
    let (af, af_late) = per(&|t, c| {
        op.run(|| full_search(g, t, Some(c)));
    });
    let (ry, ry_late) = per(&|t, c| {
        rp.install(|| rayon_search(g, t, Some(c)));
    });
    format!(
        "rows scanned per query (started after the hit) on {workers} workers: serial \
         {serial_rows}, offshoot {eu} ({eu_late}), offshoot-ct {ct} ({ct_late}), offshoot-af \
         {af} ({af_late}), rayon {ry} ({ry_late})"
    )
}

fn prepare(size: Size) -> Box<dyn Instance> {
    let (rows, cols, queries) = match size {
        Size::Test => (64, 64, 4),
        Size::Quick => (2000, 1000, 12),
        Size::Full => (4000, 2000, 24),
    };
    let (cells, targets) = super::haystack::planted(0x5115, rows * cols, queries);
    let grid = Grid { rows, cols, cells };
    let label = format!(
        "{rows}x{cols} array, {queries} queries; {}",
        visits(&grid, &targets)
    );
    Box::new(Sls {
        grid,
        targets,
        label,
        last: Vec::new(),
        reference: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_what_serial_finds() {
        super::super::verify_contenders(prepare(Size::Test), Contender::SEARCH);
    }
}
