//! `dls-and` / `dls-or`: find two targets in a large 2-D array (Imam's thesis, Fig. 4.14
//! "DLS-AND" / "DLS-OR"): stop once **both** are found, or once **either** is — one
//! search over the array, its termination an AND / OR of two searches.
//!
//! Contenders, per query (a pair of targets):
//! * serial: the row-major scan, stopping when both (AND) / either (OR) was seen;
//! * offshoot (EU): `eureka::finish` with [`And`] / [`Or`] of two [`Search`]es; `par_for`
//!   over the rows, a `check` per row, an `offer` to the part a hit belongs to;
//! * offshoot-ct: two hand-threaded `AtomicBool`s, tested per row;
//! * offshoot-af: no termination (every row scanned);
//! * rayon: `par_iter().try_for_each` over the rows with the same two flags (rayon has no
//!   AND of two searches; its early exit is `try_for_each`'s `Err`);
//! * tokio: a task per block of rows (eight per worker) with the two flags, testing a
//!   `CancellationToken` per row, cancelled once the flags are enough.
//!
//! Inputs: as `sls` (seeded random `u32`s below 2^30), with two targets per query planted
//! at seeded positions (values ≥ 2^30, each once). test 64×64×4, quick 2000×1000×8, full
//! 4000×2000×16. Check: both positions (AND), or one of the two (OR), hold their target.
//! The input line reports rows scanned per query, and those started after the query was
//! resolved (see `visits`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use offshoot::eureka::{self, And, Eureka, Or, Search};

use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};

/// What `dls-and` is.
pub const ABOUT_AND: About = About {
    name: "dls-and",
    about: "find both of two targets in a 2-D array: an AND of two Search eurekas vs two tokens",
    cutoff: "none (a check per row)",
    source: "Imam's thesis Fig. 4.14 `DLS-AND`",
};

/// What `dls-or` is.
pub const ABOUT_OR: About = About {
    name: "dls-or",
    about: "find either of two targets in a 2-D array: an OR of two Search eurekas vs two tokens",
    cutoff: "none (a check per row)",
    source: "Imam's thesis Fig. 4.14 `DLS-OR`",
};

/// Where each target of a query was found (row, column).
type Found = [Option<(usize, usize)>; 2];

struct Grid {
    cols: usize,
    cells: Vec<u32>,
}

impl Grid {
    fn rows(&self) -> usize {
        self.cells.len() / self.cols
    }
    /// The hits of row `r`: for each target, its column there.
    #[inline]
    fn scan(&self, r: usize, t: [u32; 2]) -> [Option<usize>; 2] {
        let row = &self.cells[r * self.cols..(r + 1) * self.cols];
        let mut hit = [None, None];
        for (c, &v) in row.iter().enumerate() {
            if v == t[0] {
                hit[0] = Some(c);
            } else if v == t[1] {
                hit[1] = Some(c);
            }
        }
        hit
    }
}

fn done(all: bool, f: &Found) -> bool {
    if all {
        f[0].is_some() && f[1].is_some()
    } else {
        f[0].is_some() || f[1].is_some()
    }
}

fn serial(g: &Grid, t: [u32; 2], all: bool, count: Option<&Tally>) -> Found {
    let mut f = [None, None];
    for r in 0..g.rows() {
        Tally::visit(count);
        for (k, c) in g.scan(r, t).into_iter().enumerate() {
            if let Some(c) = c {
                f[k].get_or_insert((r, c));
            }
        }
        if done(all, &f) {
            break;
        }
    }
    f
}

/// The eureka version over either composite.
fn eureka_rows<E>(g: &Grid, t: [u32; 2], e: &E, count: Option<&Tally>)
where
    E: Eureka<
        Offer = (Option<(usize, usize)>, Option<(usize, usize)>),
        Check = (Option<()>, Option<()>),
    >,
{
    offshoot::par_for(0..g.rows(), |r| {
        e.check((Some(()), Some(())));
        Tally::visit(count);
        let [a, b] = g.scan(r, t);
        if a.is_some() || b.is_some() {
            e.offer((a.map(|c| (r, c)), b.map(|c| (r, c))));
            if e.is_resolved() {
                Tally::resolved(count);
            }
        }
    });
}

fn eureka_and(g: &Grid, t: [u32; 2], count: Option<&Tally>) -> Found {
    let both = And::new(Search::new(), Search::new());
    eureka::finish(&both, || eureka_rows(g, t, &both, count));
    let (a, b) = both.get();
    [a.copied(), b.copied()]
}

fn eureka_or(g: &Grid, t: [u32; 2], count: Option<&Tally>) -> Found {
    let either = Or::new(Search::new(), Search::new());
    eureka::finish(&either, || eureka_rows(g, t, &either, count));
    let (a, b) = either.get();
    [a.copied(), b.copied()]
}

/// The token versions: `stop` says when the flags are enough; `run` drives the rows.
fn token(
    g: &Grid,
    t: [u32; 2],
    all: bool,
    rayon: bool,
    stop: bool,
    count: Option<&Tally>,
) -> Found {
    let seen = [AtomicBool::new(false), AtomicBool::new(false)];
    let found = Mutex::new([None, None]);
    let enough = || {
        let (a, b) = (
            seen[0].load(Ordering::Relaxed),
            seen[1].load(Ordering::Relaxed),
        );
        if all {
            a && b
        } else {
            a || b
        }
    };
    let row = |r: usize| {
        Tally::visit(count);
        for (k, c) in g.scan(r, t).into_iter().enumerate() {
            if let Some(c) = c {
                found.lock().unwrap()[k].get_or_insert((r, c));
                seen[k].store(true, Ordering::Relaxed);
                if enough() {
                    Tally::resolved(count);
                }
            }
        }
    };
    if rayon {
        use rayon::prelude::*;
        let _ = (0..g.rows()).into_par_iter().try_for_each(|r| {
            if enough() {
                return Err(());
            }
            row(r);
            Ok(())
        });
    } else {
        offshoot::par_for(0..g.rows(), |r| {
            if stop && enough() {
                return;
            }
            row(r);
        });
    }
    found.into_inner().unwrap()
}

/// tokio's idiom (see `tokio_rows`): a task per block of rows, the two flags, and a
/// `CancellationToken` cancelled once the flags are enough.
fn tokio_rows(
    rt: &tokio::runtime::Runtime,
    g: &Arc<Grid>,
    t: [u32; 2],
    all: bool,
    count: Option<&Arc<Tally>>,
) -> Found {
    let found = Arc::new(Mutex::new([None, None]));
    let seen = Arc::new([AtomicBool::new(false), AtomicBool::new(false)]);
    let (grid, out) = (g.clone(), found.clone());
    rt.block_on(super::tokio_rows::search(
        g.rows(),
        super::tokio_rows::per_task(rt, g.rows()),
        CancellationToken::new(),
        count.cloned(),
        move |r| {
            let mut resolved = false;
            for (k, c) in grid.scan(r, t).into_iter().enumerate() {
                if let Some(c) = c {
                    out.lock().unwrap()[k].get_or_insert((r, c));
                    seen[k].store(true, Ordering::Relaxed);
                    let (a, b) = (
                        seen[0].load(Ordering::Relaxed),
                        seen[1].load(Ordering::Relaxed),
                    );
                    resolved |= if all { a && b } else { a || b };
                }
            }
            resolved
        },
    ));
    let f = *found.lock().unwrap();
    f
}

struct Dls {
    all: bool,
    grid: Arc<Grid>,
    queries: Vec<[u32; 2]>,
    last: Vec<Found>,
    reference: Option<Vec<Found>>,
    tally: Option<Arc<Tally>>,
    label: String,
}

impl Dls {
    fn run(&mut self, f: impl Fn(&Arc<Grid>, [u32; 2], Option<&Arc<Tally>>) -> Found) {
        let g = &self.grid;
        self.last = visits::per_query(&self.queries, self.tally.as_ref(), |&t, c| f(g, t, c));
    }
}

impl Counted for Dls {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

impl Work for Dls {
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        // Each target occurs once: the oracle is where a linear search finds it.
        let g = &self.grid;
        let want: Vec<Found> = self
            .queries
            .iter()
            .map(|t| {
                t.map(|v| {
                    g.cells
                        .iter()
                        .position(|&x| x == v)
                        .map(|k| (k / g.cols, k % g.cols))
                })
            })
            .collect();
        self.reference = Some(want);
        self.check()
    }
    fn check(&self) -> Result<(), String> {
        let want = self.reference.as_ref().ok_or("no reference")?;
        if self.last.len() != want.len() {
            return Err(format!(
                "{} answers for {} queries",
                self.last.len(),
                want.len()
            ));
        }
        for (q, (got, want)) in self.last.iter().zip(want).enumerate() {
            // What was found must be right; and enough must have been found.
            for k in 0..2 {
                if got[k].is_some() && got[k] != want[k] {
                    return Err(format!(
                        "query {q}: target {k} at {:?}, it is at {:?}",
                        got[k], want[k]
                    ));
                }
            }
            if done(self.all, want) && !done(self.all, got) {
                return Err(format!(
                    "query {q}: found {got:?}, not enough (targets at {want:?})"
                ));
            }
        }
        Ok(())
    }
}

/// The declaration of the kernel's variants, each with its own input.
fn declare(about: About, prepare: fn(Size, &Kernel<Dls>) -> Dls) -> KernelInfo {
    Kernel::new_with(about, prepare, |k| {
        let all = k.all;
        k.run(|g, t, c| serial(g, t, all, c.map(|c| &**c)));
    })
    .offshoot(|k| {
        if k.all {
            k.run(|g, t, c| eureka_and(g, t, c.map(|c| &**c)));
        } else {
            k.run(|g, t, c| eureka_or(g, t, c.map(|c| &**c)));
        }
    })
    .offshoot_ct(|k| {
        let all = k.all;
        k.run(|g, t, c| token(g, t, all, false, true, c.map(|c| &**c)));
    })
    .offshoot_af(|k| {
        let all = k.all;
        k.run(|g, t, c| token(g, t, all, false, false, c.map(|c| &**c)));
    })
    .rayon(|k| {
        let all = k.all;
        k.run(|g, t, c| token(g, t, all, true, true, c.map(|c| &**c)));
    })
    .tokio(|k, rt| {
        let all = k.all;
        k.run(|g, t, c| tokio_rows(rt, g, t, all, c));
    })
    .build()
}

/// The registry entry of `dls-and`.
pub fn info_and() -> KernelInfo {
    declare(ABOUT_AND, prepare_and)
}

/// The registry entry of `dls-or`.
pub fn info_or() -> KernelInfo {
    declare(ABOUT_OR, prepare_or)
}

fn prepare(size: Size, all: bool, kernel: &Kernel<Dls>) -> Dls {
    let (rows, cols, queries) = match size {
        Size::Test => (64, 64, 4),
        Size::Quick => (2000, 1000, 8),
        Size::Full => (4000, 2000, 16),
    };
    let (cells, targets) = super::haystack::planted(0xD15, rows * cols, 2 * queries);
    let pairs = targets.chunks(2).map(|t| [t[0], t[1]]).collect();
    let mut dls = Dls {
        all,
        grid: Arc::new(Grid { cols, cells }),
        queries: pairs,
        last: Vec::new(),
        reference: None,
        tally: None,
        label: String::new(),
    };
    let visits = visits::line(kernel, &mut dls, "rows scanned");
    dls.label = format!("{rows}x{cols} array, {queries} queries of two targets; {visits}");
    dls
}

fn prepare_and(size: Size, kernel: &Kernel<Dls>) -> Dls {
    prepare(size, true, kernel)
}

fn prepare_or(size: Size, kernel: &Kernel<Dls>) -> Dls {
    prepare(size, false, kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_enough() {
        for info in [info_and(), info_or()] {
            super::super::verify(&info);
        }
    }
}
