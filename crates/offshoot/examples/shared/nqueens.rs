//! n-queens on one shared board with spawn-request handlers and undo-redo. Shared by
//! `examples/nqueens.rs` and the benchmark kernel `nqueens-undo` (included with `#[path]`).
//!
//! The board keeps, as arrays (like a C program, not bitmasks, so that copying it costs what
//! it costs in 004's programs), which columns and diagonals hold a queen, and how many rows
//! are filled. Invariant: `place(c)` then `remove(c)` restores the board exactly.

#![allow(dead_code)] // each includer uses part of it

use std::cell::Cell;

use offshoot::search::State;

/// The largest board.
pub const MAX: usize = 16;

/// Rows `0..row` hold a queen each; the arrays say which columns and diagonals are taken.
#[derive(Clone)]
pub struct Board {
    n: usize,
    row: usize,
    cols: [bool; MAX],
    /// `row + col`.
    up: [bool; 2 * MAX],
    /// `row + n - 1 - col`.
    down: [bool; 2 * MAX],
}

impl Board {
    /// An empty `n × n` board (`n <= MAX`).
    pub fn new(n: usize) -> Board {
        assert!(n <= MAX, "nqueens boards have at most {MAX} rows");
        Board {
            n,
            row: 0,
            cols: [false; MAX],
            up: [false; 2 * MAX],
            down: [false; 2 * MAX],
        }
    }

    /// Whether every row holds a queen.
    #[inline]
    pub fn full(&self) -> bool {
        self.row == self.n
    }

    /// The board size.
    pub fn size(&self) -> usize {
        self.n
    }

    /// The first column at or after `c`, below `end`, where the next row's queen is safe.
    #[inline]
    pub fn next_free(&self, mut c: usize, end: usize) -> Option<usize> {
        while c < end {
            if !self.cols[c] && !self.up[self.row + c] && !self.down[self.row + self.n - 1 - c] {
                return Some(c);
            }
            c += 1;
        }
        None
    }

    /// Puts the next row's queen in column `c` (it must be free).
    #[inline]
    pub fn place(&mut self, c: usize) {
        self.set(c, true);
        self.row += 1;
    }

    /// Takes the last row's queen, in column `c`, off again.
    #[inline]
    pub fn remove(&mut self, c: usize) {
        self.row -= 1;
        self.set(c, false);
    }

    #[inline]
    fn set(&mut self, c: usize, v: bool) {
        self.cols[c] = v;
        self.up[self.row + c] = v;
        self.down[self.row + self.n - 1 - c] = v;
    }
}

/// The plain sequential count on one board.
pub fn serial(b: &mut Board) -> u64 {
    if b.full() {
        return 1;
    }
    let mut s = 0;
    let mut at = b.next_free(0, b.size());
    while let Some(c) = at {
        b.place(c);
        s += serial(b);
        b.remove(c);
        at = b.next_free(c + 1, b.size());
    }
    s
}

/// The count on one shared board: each row's columns are tried in a loop under a
/// spawn-request handler that gives the last untried safe column, with a copy of the board
/// as this row found it, to a worker that asks; each placement's recursion runs under an
/// undo-redo clause. A row with no safe column enters neither a handler block nor an
/// undo-redo clause: the parent looks for the first safe column before it recurses.
pub fn search(st: &State<Board>) -> u64 {
    match st.with(|b| (b.full(), b.next_free(0, b.size()))) {
        (true, _) => 1,
        (false, Some(first)) => search_from(st, first),
        (false, None) => 0,
    }
}

/// [`search`] for a row that is not the last, whose first safe column is `first`.
fn search_from(st: &State<Board>, first: usize) -> u64 {
    let n = st.with(|b| b.size());
    // Columns below `next` are the body's; columns from `end` on were given away.
    let (next, end) = (Cell::new(first), Cell::new(n));
    let (mine, stolen) = st.handle(
        || columns(st, &next, &end),
        |b, req| {
            let Some(c) = (next.get()..end.get())
                .rev()
                .find(|&c| b.next_free(c, c + 1).is_some())
            else {
                return req.decline();
            };
            end.set(c);
            let mut mine = b.clone();
            req.spawn(move || {
                mine.place(c);
                search(&State::new(mine))
            })
        },
    );
    mine + stolen.iter().sum::<u64>()
}

/// The safe columns from `next` on, below `end`, each claimed (by moving `next` past it)
/// before the search below it.
fn columns(st: &State<Board>, next: &Cell<usize>, end: &Cell<usize>) -> u64 {
    let mut s = 0;
    let mut at = st.with(|b| b.next_free(next.get(), end.get()));
    while let Some(c) = at {
        next.set(c + 1);
        let (full, below) = st.with(|b| {
            b.place(c);
            (b.full(), b.next_free(0, b.size()))
        });
        s += match below {
            _ if full => 1,
            None => 0,
            Some(f) => st.undo_redo(|| search_from(st, f), |b| b.remove(c), |b| b.place(c)),
        };
        at = st.with(|b| {
            b.remove(c);
            b.next_free(next.get(), end.get())
        });
    }
    s
}

/// The count for an `n × n` board with the handler version; also returns the board as the
/// search left it (empty again).
pub fn solve(n: usize) -> (u64, Board) {
    let st = State::new(Board::new(n));
    let s = search(&st);
    (s, st.into_inner())
}
