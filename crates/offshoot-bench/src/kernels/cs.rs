//! `cs`: a nested search — a 4-D array searched block by block with a 2-D search kernel
//! that has its own termination (Imam's thesis, Fig. 4.14 "CS", hierarchical vs flat
//! termination): does finding the target in one block stop the 2-D searches running in
//! the others?
//!
//! The 2-D kernel is a library function with its own eureka ([`Search`]) or token; the
//! 4-D search runs it on every block in parallel and stops at the first block that has the
//! target. Contenders, per query:
//! * serial: block by block, row by row, stopping at the hit;
//! * offshoot (EU, hierarchical): the outer search is a eureka region; the 2-D kernel
//!   opens its own region inside and checks with `eureka::check(())`, which walks to the
//!   outer region too: once the outer search resolves, every inner search stops;
//! * offshoot-ct (flat tokens): the outer loop tests its `AtomicBool` before each block;
//!   the 2-D kernel knows only its own token, so a block's search that started runs to its
//!   end after the target was found elsewhere;
//! * offshoot-af: no termination at all;
//! * rayon: nested `find_map_any` (rayon's idiom; flat like the tokens: the inner one does
//!   not see the outer one's hit);
//! * tokio (hierarchical, tokio's way): a task per block; the 2-D kernel takes a
//!   `CancellationToken` and runs a task per block of rows (eight per worker), each
//!   testing it per row; the outer search passes each kernel a `child_token()` of its
//!   own token, so cancelling the outer one cancels every inner search.
//!
//! Inputs: `blocks` blocks of `rows`×`cols` seeded random `u32`s below 2^30, one target
//! (≥ 2^30) planted per query at a seeded position. test 4×32×32×4, quick 8×500×500×8,
//! full 16×1000×1000×8. Check: the found position holds the target (each target occurs
//! once, so it is the position a linear search finds). The input line reports rows
//! scanned per query, and those started after the hit (see `visits`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use offshoot::eureka::{self, Eureka, Search};

use super::tokio_rows;
use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "cs",
    about: "nested search: a 2-D search kernel per block of a 4-D array, hierarchical eurekas vs flat tokens",
    cutoff: "none (a check per row)",
    source: "Imam's thesis Fig. 4.14 `CS`",
};

/// (block, row, column).
type Hit = Option<(usize, usize, usize)>;

struct Cube {
    rows: usize,
    cols: usize,
    cells: Vec<u32>,
}

impl Cube {
    fn blocks(&self) -> usize {
        self.cells.len() / (self.rows * self.cols)
    }
    fn block(&self, b: usize) -> &[u32] {
        let n = self.rows * self.cols;
        &self.cells[b * n..(b + 1) * n]
    }
}

/// The 2-D kernel with its own eureka; checks walk to any enclosing region's eureka.
fn kernel_2d_eureka(
    block: &[u32],
    cols: usize,
    t: u32,
    count: Option<&Tally>,
) -> Option<(usize, usize)> {
    let found = Search::new();
    eureka::finish(&found, || {
        offshoot::par_for(0..block.len() / cols, |r| {
            eureka::check(());
            Tally::visit(count);
            if let Some(c) = block[r * cols..(r + 1) * cols].iter().position(|&v| v == t) {
                Tally::resolved(count);
                found.offer((r, c));
            }
        })
    });
    found.into_inner()
}

/// The 2-D kernel with its own token (it cannot see any other); `stop`: whether to use it.
fn kernel_2d_token(
    block: &[u32],
    cols: usize,
    t: u32,
    stop: bool,
    count: Option<&Tally>,
) -> Option<(usize, usize)> {
    let done = AtomicBool::new(false);
    let hit = Mutex::new(None);
    offshoot::par_for(0..block.len() / cols, |r| {
        if stop && done.load(Ordering::Relaxed) {
            return;
        }
        Tally::visit(count);
        if let Some(c) = block[r * cols..(r + 1) * cols].iter().position(|&v| v == t) {
            Tally::resolved(count);
            hit.lock().unwrap().get_or_insert((r, c));
            done.store(true, Ordering::Relaxed);
        }
    });
    hit.into_inner().unwrap()
}

fn serial(cube: &Cube, t: u32, count: Option<&Tally>) -> Hit {
    (0..cube.blocks()).find_map(|b| {
        let block = cube.block(b);
        (0..cube.rows).find_map(|r| {
            Tally::visit(count);
            let c = block[r * cube.cols..(r + 1) * cube.cols]
                .iter()
                .position(|&v| v == t)?;
            Some((b, r, c))
        })
    })
}

fn hierarchical(cube: &Cube, t: u32, count: Option<&Tally>) -> Hit {
    let found = Search::new();
    eureka::finish(&found, || {
        offshoot::par_for(0..cube.blocks(), |b| {
            eureka::check(());
            if let Some((r, c)) = kernel_2d_eureka(cube.block(b), cube.cols, t, count) {
                found.offer((b, r, c));
            }
        })
    });
    found.into_inner()
}

fn flat(cube: &Cube, t: u32, stop: bool, count: Option<&Tally>) -> Hit {
    let done = AtomicBool::new(false);
    let hit = Mutex::new(None);
    offshoot::par_for(0..cube.blocks(), |b| {
        if stop && done.load(Ordering::Relaxed) {
            return;
        }
        if let Some((r, c)) = kernel_2d_token(cube.block(b), cube.cols, t, stop, count) {
            hit.lock().unwrap().get_or_insert((b, r, c));
            done.store(true, Ordering::Relaxed);
        }
    });
    hit.into_inner().unwrap()
}

fn rayon_nested(cube: &Cube, t: u32, count: Option<&Tally>) -> Hit {
    use rayon::prelude::*;
    (0..cube.blocks()).into_par_iter().find_map_any(|b| {
        let block = cube.block(b);
        (0..cube.rows).into_par_iter().find_map_any(|r| {
            Tally::visit(count);
            let c = block[r * cube.cols..(r + 1) * cube.cols]
                .iter()
                .position(|&v| v == t)?;
            Tally::resolved(count);
            Some((b, r, c))
        })
    })
}

/// The 2-D kernel on tokio (see `tokio_rows`): block `b` of `cube`, tasks of `per` rows,
/// testing `token`, which it cancels at its hit.
async fn kernel_2d_tokio(
    cube: Arc<Cube>,
    b: usize,
    t: u32,
    token: CancellationToken,
    per: usize,
    count: Option<Arc<Tally>>,
) -> Option<(usize, usize)> {
    let hit = Arc::new(Mutex::new(None));
    let (rows, found) = (cube.rows, hit.clone());
    tokio_rows::search(rows, per, token, count, move |r| {
        let (block, cols) = (cube.block(b), cube.cols);
        match block[r * cols..(r + 1) * cols].iter().position(|&v| v == t) {
            Some(c) => {
                found.lock().unwrap().get_or_insert((r, c));
                true
            }
            None => false,
        }
    })
    .await;
    let found = *hit.lock().unwrap();
    found
}

/// The 4-D search on tokio: a task per block, each running the 2-D kernel with a child of
/// the outer token (hierarchical cancellation, tokio's way).
fn tokio_nested(
    rt: &tokio::runtime::Runtime,
    cube: &Arc<Cube>,
    t: u32,
    count: Option<&Arc<Tally>>,
) -> Hit {
    let outer = CancellationToken::new();
    let hit = Arc::new(Mutex::new(None));
    let per = tokio_rows::per_task(rt, cube.rows);
    rt.block_on(async {
        let tasks: Vec<_> = (0..cube.blocks())
            .map(|b| {
                let (cube, outer, hit, count) =
                    (cube.clone(), outer.clone(), hit.clone(), count.cloned());
                tokio::spawn(async move {
                    if outer.is_cancelled() {
                        return;
                    }
                    let inner = outer.child_token();
                    if let Some((r, c)) = kernel_2d_tokio(cube, b, t, inner, per, count).await {
                        hit.lock().unwrap().get_or_insert((b, r, c));
                        outer.cancel();
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a search task panicked");
        }
    });
    let found = *hit.lock().unwrap();
    found
}

struct Cs {
    cube: Arc<Cube>,
    targets: Vec<u32>,
    last: Vec<Hit>,
    reference: Option<Vec<Hit>>,
    tally: Option<Arc<Tally>>,
    label: String,
}

impl Cs {
    fn run(&mut self, f: impl Fn(&Arc<Cube>, u32, Option<&Arc<Tally>>) -> Hit) {
        let cube = &self.cube;
        self.last = visits::per_query(&self.targets, self.tally.as_ref(), |&t, c| f(cube, t, c));
    }
}

impl Counted for Cs {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

impl Work for Cs {
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let c = &self.cube;
        let n = c.rows * c.cols;
        for (&t, got) in self.targets.iter().zip(&self.last) {
            let want = c
                .cells
                .iter()
                .position(|&v| v == t)
                .map(|k| (k / n, k % n / c.cols, k % c.cols));
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
        super::check_reference(&self.last, &self.reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |k| {
        k.run(|c, t, n| serial(c, t, n.map(|n| &**n)))
    })
    .offshoot(|k| k.run(|c, t, n| hierarchical(c, t, n.map(|n| &**n))))
    .offshoot_ct(|k| k.run(|c, t, n| flat(c, t, true, n.map(|n| &**n))))
    .offshoot_af(|k| k.run(|c, t, n| flat(c, t, false, n.map(|n| &**n))))
    .rayon(|k| k.run(|c, t, n| rayon_nested(c, t, n.map(|n| &**n))))
    .tokio(|k, rt| k.run(|c, t, n| tokio_nested(rt, c, t, n)))
    .build()
}

fn prepare(size: Size, kernel: &Kernel<Cs>) -> Cs {
    let (blocks, rows, cols, queries) = match size {
        Size::Test => (4, 32, 32, 4),
        Size::Quick => (8, 500, 500, 8),
        Size::Full => (16, 1000, 1000, 8),
    };
    let (cells, targets) = super::haystack::planted(0xC5, blocks * rows * cols, queries);
    let mut cs = Cs {
        cube: Arc::new(Cube { rows, cols, cells }),
        targets,
        last: Vec::new(),
        reference: None,
        tally: None,
        label: String::new(),
    };
    let visits = visits::line(kernel, &mut cs, "rows scanned");
    cs.label = format!("{blocks} blocks of {rows}x{cols}, {queries} queries; {visits}");
    cs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_the_target() {
        super::super::verify(&info());
    }
}
