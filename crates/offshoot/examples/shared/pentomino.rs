//! Pentomino: every way to tile a rectangle of 60 cells with the 12 pentominoes, as in 004
//! Fig. 9. Shared by `examples/pentomino.rs` and the benchmark kernels `pentomino` and
//! `pentomino-copy` (included with `#[path]`, so there is one copy of the solver).
//!
//! The board is an array of cells with walls around the rectangle (0 = empty, 0xFF = wall,
//! `p + 1` = piece `p`), wide enough that a piece anchored at any cell never wraps: 4 wall
//! columns at the right (which are also the left neighbours of the next row) and 4 wall rows
//! below. It is stored with its short side as the row (a 6×10 board as 10 rows of 6), so the
//! search fills it along the short side. The search always fills the first empty cell `k`
//! in row-major order, with some orientation of an unused piece whose first cell (in
//! row-major order) lands on `k`.
//!
//! Invariants: `Board::place`/`remove` are exact inverses; `next_empty(k)` finds the first
//! empty cell at or after `k`, or [`Board::end`] when the board is full (a sentinel 0 sits
//! there, beyond every cell a piece can reach).

#![allow(dead_code)] // each includer uses part of it

use std::cell::Cell;

use offshoot::search::State;

/// The 12 pentominoes, as (row, column) cells.
const BASE: [[(i32, i32); 5]; 12] = [
    [(0, 1), (0, 2), (1, 0), (1, 1), (2, 1)], // F
    [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)], // I
    [(0, 0), (1, 0), (2, 0), (3, 0), (3, 1)], // L
    [(0, 1), (1, 1), (2, 0), (2, 1), (3, 0)], // N
    [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)], // P
    [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)], // T
    [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)], // U
    [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)], // V
    [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)], // W
    [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)], // X
    [(0, 1), (1, 0), (1, 1), (2, 1), (3, 1)], // Y
    [(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)], // Z
];

/// Number of pieces.
pub const PIECES: usize = 12;
/// Cells of the largest board array (3×20: 24 rows of 7, plus the sentinel).
const CAP: usize = 176;
const WALL: u8 = 0xFF;

/// Solutions counting every orientation of the rectangle as different, for the boards of
/// 60 cells (4 × the counts up to symmetry: 2, 368, 1010, 2339).
pub fn known_solutions(rows: usize) -> Option<u64> {
    match rows {
        3 => Some(8),
        4 => Some(1472),
        5 => Some(4040),
        6 => Some(9356),
        _ => None,
    }
}

/// The distinct rotations and reflections of every piece (63 in all): each as its 5 cells
/// (row, column) relative to its first cell in row-major order, which comes first and is
/// (0, 0) (a later cell may lie left of it).
pub fn orientations() -> Vec<Vec<Vec<(i32, i32)>>> {
    BASE.iter()
        .map(|cells| {
            let mut seen: Vec<Vec<(i32, i32)>> = Vec::new();
            for t in 0..8 {
                let mut v: Vec<(i32, i32)> = cells
                    .iter()
                    .map(|&(r, c)| {
                        let (r, c) = if t & 4 != 0 { (c, r) } else { (r, c) };
                        let r = if t & 1 != 0 { -r } else { r };
                        let c = if t & 2 != 0 { -c } else { c };
                        (r, c)
                    })
                    .collect();
                v.sort();
                let (r0, c0) = v[0];
                let v: Vec<(i32, i32)> = v.iter().map(|&(r, c)| (r - r0, c - c0)).collect();
                if !seen.contains(&v) {
                    seen.push(v);
                }
            }
            seen
        })
        .collect()
}

/// The orientations of every piece, as offsets of the 4 other cells from the first one, for
/// one board width.
pub struct Shapes {
    /// `of[p]`: the orientations of piece `p`.
    of: Vec<Vec<[isize; 4]>>,
}

impl Shapes {
    /// All distinct rotations and reflections (63 in all), for rows of `width` cells.
    pub fn new(width: usize) -> Shapes {
        let w = width as isize;
        let of = orientations()
            .iter()
            .map(|seen| {
                seen.iter()
                    .map(|v| {
                        let mut o = [0isize; 4];
                        for (i, &(r, c)) in v[1..].iter().enumerate() {
                            o[i] = r as isize * w + c as isize;
                        }
                        o
                    })
                    .collect()
            })
            .collect();
        Shapes { of }
    }

    /// The orientations of piece `p`.
    #[inline]
    pub fn of(&self, p: usize) -> &[[isize; 4]] {
        &self.of[p]
    }
}

/// A board of `rows × cols = 60` cells with walls, and the set of pieces on it.
#[derive(Clone)]
pub struct Board {
    cells: [u8; CAP],
    /// Bit `p`: piece `p` is on the board.
    pub used: u16,
    width: usize,
    end: usize,
}

impl Board {
    /// An empty `rows × (60 / rows)` board; `rows` is 3, 4, 5 or 6. (Stored transposed:
    /// `60 / rows` rows of `rows` cells.)
    pub fn new(short: usize) -> Board {
        assert!(
            known_solutions(short).is_some(),
            "pentomino boards have 3 to 6 rows"
        );
        let (rows, cols) = (60 / short, short);
        let width = cols + 4;
        let end = (rows + 4) * width;
        assert!(end < CAP);
        let mut cells = [WALL; CAP];
        for r in 0..rows {
            for c in 0..cols {
                cells[r * width + c] = 0;
            }
        }
        cells[end] = 0;
        Board {
            cells,
            used: 0,
            width,
            end,
        }
    }

    /// Cells per row of the array (the shapes are built for it).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The sentinel index [`next_empty`](Board::next_empty) returns for a full board.
    #[inline]
    pub fn end(&self) -> usize {
        self.end
    }

    /// The first empty cell at or after `k`.
    #[inline]
    pub fn next_empty(&self, mut k: usize) -> usize {
        while self.cells[k] != 0 {
            k += 1;
        }
        k
    }

    /// Whether piece `p` is on the board.
    #[inline]
    pub fn has(&self, p: usize) -> bool {
        self.used & (1 << p) != 0
    }

    /// The first placement on the empty cell `k` at or after orientation `i` of piece `p`,
    /// in (piece, orientation) order, among the unused pieces below `end`.
    #[inline]
    pub fn next_fit(
        &self,
        s: &Shapes,
        k: usize,
        mut p: usize,
        mut i: usize,
        end: usize,
    ) -> Option<(usize, usize)> {
        while p < end {
            if !self.has(p) {
                let os = s.of(p);
                while i < os.len() {
                    if self.fits(k, &os[i]) {
                        return Some((p, i));
                    }
                    i += 1;
                }
            }
            p += 1;
            i = 0;
        }
        None
    }

    /// Whether orientation `o` fits with its first cell on the empty cell `k`.
    #[inline]
    pub fn fits(&self, k: usize, o: &[isize; 4]) -> bool {
        o.iter()
            .all(|&d| self.cells[(k as isize + d) as usize] == 0)
    }

    /// Puts piece `p` in orientation `o` at `k` (it must fit).
    #[inline]
    pub fn place(&mut self, k: usize, p: usize, o: &[isize; 4]) {
        let v = p as u8 + 1;
        self.cells[k] = v;
        for &d in o {
            self.cells[(k as isize + d) as usize] = v;
        }
        self.used |= 1 << p;
    }

    /// Takes piece `p` in orientation `o` at `k` off again.
    #[inline]
    pub fn remove(&mut self, k: usize, p: usize, o: &[isize; 4]) {
        self.cells[k] = 0;
        for &d in o {
            self.cells[(k as isize + d) as usize] = 0;
        }
        self.used &= !(1 << p);
    }
}

/// The plain sequential search on one board: the number of tilings of the empty cells
/// from the first empty cell `k` on.
pub fn serial(b: &mut Board, s: &Shapes, k: usize) -> u64 {
    walk::<false>(b, s, k, &mut 0)
}

/// [`serial`]; with `COUNT`, it also counts in `nodes` the nodes of the search tree where
/// some piece fits: the handler version enters one `handle` block at each, a place where a
/// task could have been made.
pub fn walk<const COUNT: bool>(b: &mut Board, s: &Shapes, k: usize, nodes: &mut u64) -> u64 {
    let mut n = 0;
    let mut at = b.next_fit(s, k, 0, 0, PIECES);
    if COUNT && at.is_some() {
        *nodes += 1;
    }
    while let Some((p, i)) = at {
        let o = &s.of(p)[i];
        b.place(k, p, o);
        let kk = b.next_empty(k);
        n += if kk == b.end() {
            1
        } else {
            walk::<COUNT>(b, s, kk, nodes)
        };
        b.remove(k, p, o);
        at = b.next_fit(s, k, p, i + 1, PIECES);
    }
    n
}

/// 004 Fig. 9 on one shared board: `search` tries the placements on cell `k` piece by
/// piece under a spawn-request handler; the handler gives the last untried piece that fits,
/// with a copy of the board as it was when this `search` was entered, to the worker that
/// asks. Every placement's recursion runs under an undo-redo clause that takes the piece
/// off while an older handler copies the board. A cell where nothing fits enters neither a
/// handler block nor an undo-redo clause: the parent looks for the first fit before it
/// recurses (the serial search does the same tests, one call later).
pub fn search(st: &State<Board>, s: &Shapes, k: usize) -> u64 {
    match st.with(|b| b.next_fit(s, k, 0, 0, PIECES)) {
        Some(first) => search_from(st, s, k, first),
        None => 0,
    }
}

/// [`search`] at cell `k`, whose first fitting placement is `first`.
fn search_from(st: &State<Board>, s: &Shapes, k: usize, first: (usize, usize)) -> u64 {
    // Pieces below `next` are the body's; pieces from `end` on were given away.
    let next = Cell::new(first.0 + 1);
    let end = Cell::new(PIECES);
    let (mine, stolen) = st.handle(
        || placements(st, s, k, Some(first), &next, &end),
        |b, req| {
            let mut e = end.get();
            while e > next.get() {
                e -= 1;
                if b.next_fit(s, k, e, 0, e + 1).is_some() {
                    end.set(e);
                    let mine = b.clone();
                    return req.spawn(move || {
                        let st = State::new(mine);
                        let at = st.with(|b| b.next_fit(s, k, e, 0, e + 1));
                        placements(&st, s, k, at, &Cell::new(e + 1), &Cell::new(e + 1))
                    });
                }
            }
            req.decline()
        },
    );
    mine + stolen.iter().sum::<u64>()
}

/// Every placement on cell `k` from `at` on, among the pieces below `end`, each followed by
/// the search of the rest under an undo-redo clause. Claims a piece (moves `next` past it)
/// before its first placement.
fn placements(
    st: &State<Board>,
    s: &Shapes,
    k: usize,
    mut at: Option<(usize, usize)>,
    next: &Cell<usize>,
    end: &Cell<usize>,
) -> u64 {
    let mut n = 0;
    while let Some((p, i)) = at {
        if p >= next.get() {
            next.set(p + 1);
        }
        let o = &s.of(p)[i];
        let (kk, last, below) = st.with(|b| {
            b.place(k, p, o);
            let kk = b.next_empty(k);
            let below = if kk == b.end() {
                None
            } else {
                b.next_fit(s, kk, 0, 0, PIECES)
            };
            (kk, b.end(), below)
        });
        n += match below {
            _ if kk == last => 1,
            None => 0,
            Some(f) => st.undo_redo(
                || search_from(st, s, kk, f),
                |b| b.remove(k, p, o),
                |b| b.place(k, p, o),
            ),
        };
        at = st.with(|b| {
            b.remove(k, p, o);
            b.next_fit(s, k, p, i + 1, end.get())
        });
    }
    n
}

/// All tilings of the empty `rows`-row board, with the handler version; returns the count and
/// the board as the search left it (empty again).
pub fn solve(rows: usize, s: &Shapes) -> (u64, Board) {
    let st = State::new(Board::new(rows));
    let n = search(&st, s, 0);
    (n, st.into_inner())
}
