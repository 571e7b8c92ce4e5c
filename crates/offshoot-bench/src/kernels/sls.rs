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
//! * rayon: `(0..rows).into_par_iter().find_map_any(..)`, rayon's idiom;
//! * tokio: a task per block of rows testing a `CancellationToken` (`tokio_rows`).
//!
//! Inputs: a `rows`×`cols` array of seeded random `u32`s below 2^30, and `queries`
//! targets, each planted at one seeded position (values ≥ 2^30, so each occurs once).
//! test 64×64×4, quick 2000×1000×12, full 4000×2000×24. Check: every query's position
//! holds its target (the serial positions are checked against a plain linear search of
//! the flat array). The input line reports rows scanned per query, and rows started after
//! the hit was offered, counted once at preparation on a pool of every core.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use offshoot::eureka::{self, Eureka, Search};

use super::tokio_rows;
use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "sls",
    about: "find a target in a large 2-D array: a Search eureka vs a token, no termination, rayon's find_map_any",
    cutoff: "none (a check per row)",
    source: "Imam's thesis Fig. 4.14 `SLS`",
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

fn serial(g: &Grid, t: u32, count: Option<&Tally>) -> Option<(usize, usize)> {
    (0..g.rows).find_map(|r| {
        Tally::visit(count);
        g.scan(r, t).map(|c| (r, c))
    })
}

fn eureka_search(g: &Grid, t: u32, count: Option<&Tally>) -> Option<(usize, usize)> {
    let found = Search::new();
    eureka::finish(&found, || {
        offshoot::par_for(0..g.rows, |r| {
            found.check();
            Tally::visit(count);
            if let Some(col) = g.scan(r, t) {
                Tally::resolved(count);
                found.offer((r, col));
            }
        })
    });
    found.into_inner()
}

fn token_search(g: &Grid, t: u32, count: Option<&Tally>) -> Option<(usize, usize)> {
    let stop = AtomicBool::new(false);
    let hit = Mutex::new(None);
    offshoot::par_for(0..g.rows, |r| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        Tally::visit(count);
        if let Some(col) = g.scan(r, t) {
            Tally::resolved(count);
            hit.lock().unwrap().get_or_insert((r, col));
            stop.store(true, Ordering::Relaxed);
        }
    });
    hit.into_inner().unwrap()
}

fn full_search(g: &Grid, t: u32, count: Option<&Tally>) -> Option<(usize, usize)> {
    let hit = Mutex::new(None);
    offshoot::par_for(0..g.rows, |r| {
        Tally::visit(count);
        if let Some(col) = g.scan(r, t) {
            Tally::resolved(count);
            hit.lock().unwrap().get_or_insert((r, col));
        }
    });
    hit.into_inner().unwrap()
}

fn rayon_search(g: &Grid, t: u32, count: Option<&Tally>) -> Option<(usize, usize)> {
    use rayon::prelude::*;
    (0..g.rows).into_par_iter().find_map_any(|r| {
        Tally::visit(count);
        let hit = g.scan(r, t).map(|col| (r, col));
        if hit.is_some() {
            Tally::resolved(count);
        }
        hit
    })
}

/// tokio's idiom (see `tokio_rows`): a task per block of rows, a `CancellationToken`.
fn tokio_search(
    rt: &tokio::runtime::Runtime,
    g: &Arc<Grid>,
    t: u32,
    count: Option<&Arc<Tally>>,
) -> Option<(usize, usize)> {
    let hit = Arc::new(Mutex::new(None));
    let (grid, found) = (g.clone(), hit.clone());
    rt.block_on(tokio_rows::search(
        g.rows,
        tokio_rows::per_task(rt, g.rows),
        CancellationToken::new(),
        count.cloned(),
        move |r| match grid.scan(r, t) {
            Some(col) => {
                found.lock().unwrap().get_or_insert((r, col));
                true
            }
            None => false,
        },
    ));
    let found = *hit.lock().unwrap();
    found
}

/// Where a query's target is: (row, column), or nowhere.
type Hit = Option<(usize, usize)>;

/// One of the searches, with its optional visit counter.
type Searcher = fn(&Grid, u32, Option<&Tally>) -> Hit;

struct Sls {
    grid: Arc<Grid>,
    targets: Vec<u32>,
    label: String,
    last: Vec<Hit>,
    reference: Option<Vec<Hit>>,
    tally: Option<Arc<Tally>>,
}

impl Sls {
    fn run(&mut self, f: Searcher) {
        let g = &self.grid;
        self.last = visits::per_query(&self.targets, self.tally.as_ref(), |&t, c| {
            f(g, t, c.map(|c| &**c))
        });
    }
}

impl Counted for Sls {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

impl Work for Sls {
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.last.clear();
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

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |k| k.run(serial))
        .offshoot(|k| k.run(eureka_search))
        .offshoot_ct(|k| k.run(token_search))
        .offshoot_af(|k| k.run(full_search))
        .rayon(|k| k.run(rayon_search))
        .tokio(|k, rt| {
            let g = &k.grid;
            k.last = visits::per_query(&k.targets, k.tally.as_ref(), |&t, c| {
                tokio_search(rt, g, t, c)
            });
        })
        .build()
}

fn prepare(size: Size, kernel: &Kernel<Sls>) -> Sls {
    let (rows, cols, queries) = match size {
        Size::Test => (64, 64, 4),
        Size::Quick => (2000, 1000, 12),
        Size::Full => (4000, 2000, 24),
    };
    let (cells, targets) = super::haystack::planted(0x5115, rows * cols, queries);
    let mut sls = Sls {
        grid: Arc::new(Grid { rows, cols, cells }),
        targets,
        label: String::new(),
        last: Vec::new(),
        reference: None,
        tally: None,
    };
    let visits = visits::line(kernel, &mut sls, "rows scanned");
    sls.label = format!("{rows}x{cols} array, {queries} queries; {visits}");
    sls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_what_serial_finds() {
        super::super::verify(&info());
    }
}
