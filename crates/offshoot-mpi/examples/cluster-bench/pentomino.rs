//! Pentomino: every tiling of a rectangle of 60 cells (3×20, 4×15, 5×12, 6×10) with the 12
//! pentominoes, on a bit board, written in the search shape (Yasugi et al.'s Fig. 9): each
//! node's candidates — the placements of unused pieces that cover its first empty cell —
//! are iterated by a block whose handler gives the upper half of those not yet tried to a
//! thief that asks, and, near the root, whose exporter gives them to another rank as a
//! [`Part`].
//!
//! The board is a `u64` with one bit per cell, row-major along the short side (a 6×10
//! board is 10 rows of 6), so the search fills it along the short side. Invariants: a
//! placement's lowest bit is the cell it is indexed under (`Table::at`); a node's first
//! empty cell is the lowest clear bit below `cells`; the serial count and the parallel one
//! visit the same nodes.

use std::cell::Cell;
use std::sync::OnceLock;

use offshoot::search::{Reply, Request, State};

/// The pieces and their orientations: the solver shared by offshoot's examples and its
/// benchmark suite (this kernel uses its piece table only).
#[path = "../../../offshoot/examples/shared/pentomino.rs"]
mod shared;

/// Pieces placed before a node stops forking (its subtree is counted serially).
const SERIAL_DEPTH: u32 = 6;
/// Pieces placed before a node's block stops offering work to other ranks.
const DIST_DEPTH: u32 = 3;

/// Tilings of the board `width` cells wide, every orientation of the rectangle counted
/// (4 × the counts up to symmetry).
pub fn known(width: u32) -> Option<u64> {
    shared::known_solutions(width as usize)
}

/// Every placement of every piece on a board `width` cells wide and `60 / width` long,
/// grouped by the cell its lowest bit covers.
struct Table {
    width: u32,
    /// (mask, piece), sorted by lowest cell.
    all: Vec<(u64, u8)>,
    /// `all[start[c]..start[c + 1]]`: the placements whose lowest cell is `c`.
    start: Vec<u32>,
}

impl Table {
    fn new(width: u32) -> Table {
        let (w, h) = (width as i32, (60 / width) as i32);
        let mut all = Vec::new();
        for (p, shapes) in shared::orientations().iter().enumerate() {
            for s in shapes {
                for r in 0..h {
                    for c in 0..w {
                        let fits =
                            |&(dr, dc): &(i32, i32)| r + dr < h && (0..w).contains(&(c + dc));
                        if s.iter().all(fits) {
                            let mask = s
                                .iter()
                                .fold(0u64, |m, &(dr, dc)| m | 1 << ((r + dr) * w + c + dc));
                            all.push((mask, p as u8));
                        }
                    }
                }
            }
        }
        all.sort_by_key(|&(m, p)| (m.trailing_zeros(), p, m));
        let mut start = vec![0u32; 61];
        for c in 0..=60u32 {
            start[c as usize] = all.partition_point(|&(m, _)| m.trailing_zeros() < c) as u32;
        }
        Table { width, all, start }
    }

    /// The placements whose lowest cell is `c`, as indices into `all`.
    fn at(&self, c: u32) -> std::ops::Range<u32> {
        self.start[c as usize]..self.start[c as usize + 1]
    }
}

static TABLES: [OnceLock<Table>; 4] = [const { OnceLock::new() }; 4];

fn table(width: u32) -> &'static Table {
    assert!((3..=6).contains(&width), "pentomino: a width of 3 to 6");
    TABLES[width as usize - 3].get_or_init(|| Table::new(width))
}

const FULL: u64 = (1 << 60) - 1;
const ALL_PIECES: u16 = (1 << 12) - 1;

/// The candidates of a node: the placements of unused pieces that fit and cover its first
/// empty cell.
fn candidates(t: &Table, board: u64, used: u16) -> Vec<u16> {
    let c = (!board & FULL).trailing_zeros();
    t.at(c)
        .filter(|&i| {
            let (m, p) = t.all[i as usize];
            m & board == 0 && used & (1 << p) == 0
        })
        .map(|i| i as u16)
        .collect()
}

/// Some of a node's candidates: the work one rank gives another.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Part {
    pub width: u32,
    pub board: u64,
    pub used: u16,
    pub depth: u32,
    pub cands: Vec<u16>,
}

impl offshoot_mpi::Task for Part {
    const NAME: &'static str = "pentomino-part";
    type Output = u64;
    fn run(self) -> u64 {
        part(
            table(self.width),
            self.board,
            self.used,
            self.depth,
            self.cands,
        )
    }
}

/// Every tiling of the board `width` cells wide, in parallel.
pub fn solve(width: u32) -> u64 {
    let t = table(width);
    node(t, 0, 0, 0)
}

fn node(t: &'static Table, board: u64, used: u16, depth: u32) -> u64 {
    if used == ALL_PIECES {
        return 1;
    }
    if depth >= SERIAL_DEPTH {
        return count(t, board, used);
    }
    let cands = candidates(t, board, used);
    if cands.is_empty() {
        return 0;
    }
    part(t, board, used, depth, cands)
}

/// The tilings below `cands`, children of one node; a thief that asks gets the upper half
/// of those not yet started.
fn part(t: &'static Table, board: u64, used: u16, depth: u32, cands: Vec<u16>) -> u64 {
    let st = State::new(());
    let (next, end) = (Cell::new(0usize), Cell::new(cands.len()));
    let cands = &cands;
    let body = || {
        let mut s = 0;
        while next.get() < end.get() {
            let (m, p) = t.all[cands[next.get()] as usize];
            next.set(next.get() + 1);
            s += node(t, board | m, used | 1 << p, depth + 1);
        }
        s
    };
    // Gives away the upper half of the candidates not yet started, if there are two.
    let split = || {
        let (n, e) = (next.get(), end.get());
        if e - n < 2 {
            return None;
        }
        let mid = n + (e - n) / 2;
        end.set(mid);
        Some(cands[mid..e].to_vec())
    };
    let (mine, local, remote) = if depth < DIST_DEPTH {
        offshoot_mpi::handle(
            &st,
            body,
            |_, req| give(req, split(), t, board, used, depth),
            |_| {
                split().map(|cands| Part {
                    width: t.width,
                    board,
                    used,
                    depth,
                    cands,
                })
            },
        )
    } else {
        let (mine, local) = st.handle(body, |_, req| give(req, split(), t, board, used, depth));
        (mine, local, Vec::new())
    };
    mine + local.iter().sum::<u64>() + remote.iter().sum::<u64>()
}

/// A thief's answer: a task for `cands`, or none.
fn give<'r, 'a>(
    req: Request<'r, 'a, u64>,
    cands: Option<Vec<u16>>,
    t: &'static Table,
    board: u64,
    used: u16,
    depth: u32,
) -> Reply<'r, 'a, u64> {
    match cands {
        Some(v) => req.spawn(move || part(t, board, used, depth, v)),
        None => req.decline(),
    }
}

/// The tilings below a node, serially.
fn count(t: &Table, board: u64, used: u16) -> u64 {
    if used == ALL_PIECES {
        return 1;
    }
    let c = (!board & FULL).trailing_zeros();
    let mut s = 0;
    for &(m, p) in &t.all[t.at(c).start as usize..t.at(c).end as usize] {
        if m & board == 0 && used & (1 << p) == 0 {
            s += count(t, board | m, used | 1 << p);
        }
    }
    s
}

/// Every tiling, serially (the plain program).
pub fn serial(width: u32) -> u64 {
    count(table(width), 0, 0)
}
