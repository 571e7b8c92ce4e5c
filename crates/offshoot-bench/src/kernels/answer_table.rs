//! `answer-table`: the search of OPA's Fig. 3.9 (Umatani's thesis §3.6.3; issue 46). A
//! parallel search of a complete binary tree of depth D (node p has children 2p + 1 and
//! 2p + 2) looks for two answers (leaves whose hash falls below a threshold) and records
//! them in one shared table. Every node first reads the table (a read-mostly load: one read
//! per node, one write per answer) and stops when it already holds two; the write that adds
//! the second answer ends the whole search.
//!
//! - serial: a depth-first walk with the table in a local variable;
//! - offshoot: the table is an `offshoot::sync::Object` with a read operation `count` and a
//!   write operation `add`; `add` of the second answer flushes (`Call::flush`: the answers
//!   are published) and then throws, as Fig. 3.9's `vflush; throw new Found(this)`: the
//!   unwind stops every other branch of the `join` tree at its next poll, the flushed answers
//!   stay in the table (a panic after a flush keeps what was flushed), and the caller catches
//!   `Found`;
//! - offshoot-ct: the same search with the table behind `offshoot::sync::RwLock` and no
//!   throw: each node's read of the count is the stop test (a hand-threaded token);
//! - rayon: the same as offshoot-ct with the table behind `std::sync::RwLock` (rayon has no
//!   cancellation: a branch stops only when it reads the count).
//!
//! Reads never wait in the offshoot version (no lock: a snapshot); in the other two a read
//! waits while an `add` holds the lock, and every read writes the lock's reader count.
//!
//! Inputs: depth 12 (test), 20 (quick), 23 (full), with the threshold set so that about 6
//! leaves are answers. Cutoff: none (a join per inner node). Check: the table holds exactly
//! two distinct answers, each a leaf whose hash is below the threshold; which two depends
//! on the schedule (the serial walk finds the two leftmost).

use std::hint::black_box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use offshoot::sync::{Object, Op};

use super::{About, Kernel, KernelInfo, Size, Work};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "answer-table",
    about: "a parallel tree search recording two answers in one shared table (OPA Fig. 3.9)",
    cutoff: "none",
    source: "Umatani's OPA thesis §3.6.3, Fig. 3.9 (search with a table that throws Found)",
};

/// Expected answers in the tree (the threshold is set from it).
const ANSWERS: u64 = 6;

/// The search space.
#[derive(Clone, Copy, Debug)]
pub struct Tree {
    /// Depth D: leaves are the nodes at depth D.
    pub depth: u32,
    /// A leaf p is an answer when `mix(p) < threshold`.
    pub threshold: u64,
}

impl Tree {
    fn new(depth: u32) -> Tree {
        Tree {
            depth,
            threshold: u64::MAX / (1u64 << depth) * ANSWERS,
        }
    }

    /// Whether leaf `p` is an answer.
    fn is_answer(&self, p: u64) -> bool {
        mix(p) < self.threshold
    }

    /// The leaves, in depth-first (left to right) order.
    fn leaves(&self) -> std::ops::Range<u64> {
        let first = (1u64 << self.depth) - 1;
        first..2 * first + 1
    }

    /// How many leaves are answers (at least 2 by construction).
    fn count_answers(&self) -> u64 {
        self.leaves().filter(|&p| self.is_answer(p)).count() as u64
    }
}

/// A 64-bit finaliser (splitmix64's): the per-leaf hash.
fn mix(p: u64) -> u64 {
    let mut z = p.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The table of Fig. 3.9: two answer slots and how many are filled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// The answers found, in the order they were added.
    pub answers: [u64; 2],
    /// How many of `answers` are filled.
    pub n: usize,
}

impl Table {
    /// Adds `p` if a slot is free; returns whether the table is now full.
    fn add(&mut self, p: u64) -> bool {
        if self.n < 2 {
            self.answers[self.n] = p;
            self.n += 1;
        }
        self.n == 2
    }
}

/// The exception of Fig. 3.9 (`Found`): thrown by the write that fills the table.
struct Found;

/// The plain depth-first walk.
pub fn serial(tree: Tree) -> Table {
    fn walk(tree: &Tree, p: u64, depth: u32, t: &mut Table) {
        if black_box(t.n) >= 2 {
            return;
        }
        if depth == tree.depth {
            if tree.is_answer(p) {
                t.add(p);
            }
            return;
        }
        walk(tree, 2 * p + 1, depth + 1, t);
        walk(tree, 2 * p + 2, depth + 1, t);
    }
    let mut t = Table::default();
    walk(&tree, 0, 0, &mut t);
    t
}

/// offshoot: the table is an `Object` whose `add` flushes and throws `Found` at the second
/// answer; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(tree: Tree) -> Table {
    struct Search<'a> {
        tree: Tree,
        table: &'a Object<Table>,
        count: Op<(), usize>,
        add: Op<u64, ()>,
    }
    fn walk(s: &Search<'_>, p: u64, depth: u32) {
        if s.table.call(s.count, ()) >= 2 {
            return;
        }
        if depth == s.tree.depth {
            if s.tree.is_answer(p) {
                s.table.call(s.add, p);
            }
            return;
        }
        offshoot::join(
            || walk(s, 2 * p + 1, depth + 1),
            || walk(s, 2 * p + 2, depth + 1),
        );
    }
    let mut b = Object::builder(Table::default()).named("answers");
    let count = b.op::<(), usize>("count");
    let add = b.op::<u64, ()>("add");
    b.read(count, |t, ()| t.n);
    b.write(add, |call, p| {
        if call.add(p) {
            // Fig. 3.9's `vflush; throw new Found(this)`: publish, then leave. No panic
            // hook runs for `resume_unwind`, so nothing is printed per run.
            call.flush();
            resume_unwind(Box::new(Found));
        }
    });
    let table = b.build();
    let search = Search {
        tree,
        table: &table,
        count,
        add,
    };
    match catch_unwind(AssertUnwindSafe(|| walk(&search, 0, 0))) {
        Ok(()) => {}
        Err(e) if e.is::<Found>() => {}
        Err(e) => resume_unwind(e),
    }
    *table.snapshot()
}

/// offshoot-ct: the table behind offshoot's `RwLock`; each node's read is the stop test.
pub fn offshoot_ct(tree: Tree) -> Table {
    fn walk(tree: &Tree, t: &offshoot::sync::RwLock<Table>, p: u64, depth: u32) {
        if t.read().n >= 2 {
            return;
        }
        if depth == tree.depth {
            if tree.is_answer(p) {
                t.write().add(p);
            }
            return;
        }
        offshoot::join(
            || walk(tree, t, 2 * p + 1, depth + 1),
            || walk(tree, t, 2 * p + 2, depth + 1),
        );
    }
    let t = offshoot::sync::RwLock::new(Table::default());
    walk(&tree, &t, 0, 0);
    t.into_inner()
}

/// rayon: the table behind `std::sync::RwLock`; each node's read is the stop test.
pub fn rayon(tree: Tree) -> Table {
    fn walk(tree: &Tree, t: &std::sync::RwLock<Table>, p: u64, depth: u32) {
        if t.read().expect("table poisoned").n >= 2 {
            return;
        }
        if depth == tree.depth {
            if tree.is_answer(p) {
                t.write().expect("table poisoned").add(p);
            }
            return;
        }
        rayon::join(
            || walk(tree, t, 2 * p + 1, depth + 1),
            || walk(tree, t, 2 * p + 2, depth + 1),
        );
    }
    let t = std::sync::RwLock::new(Table::default());
    walk(&tree, &t, 0, 0);
    t.into_inner().expect("table poisoned")
}

/// Whether `t` holds exactly two distinct answers of `tree`.
fn valid(tree: &Tree, t: &Table) -> Result<(), String> {
    if t.n != 2 {
        return Err(format!("{} answers in the table, expected 2", t.n));
    }
    let [a, b] = t.answers;
    for p in [a, b] {
        if !tree.leaves().contains(&p) || !tree.is_answer(p) {
            return Err(format!("{p} is not an answer of the tree"));
        }
    }
    if a == b {
        return Err(format!("answer {a} recorded twice"));
    }
    Ok(())
}

/// The kernel's state: the tree, how many of its leaves are answers, and the last run's
/// table.
pub struct AnswerTable {
    tree: Tree,
    answers: u64,
    last: Option<Table>,
    accepted: bool,
}

impl Work for AnswerTable {
    fn input(&self) -> String {
        format!(
            "depth {} ({} leaves, {} answers)",
            self.tree.depth,
            1u64 << self.tree.depth,
            self.answers
        )
    }
    fn reset(&mut self) {
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let got = self.last.ok_or("the serial run recorded no answer")?;
        valid(&self.tree, &got)?;
        // The serial walk finds the two leftmost answers.
        let leftmost: Vec<u64> = self
            .tree
            .leaves()
            .filter(|&p| self.tree.is_answer(p))
            .take(2)
            .collect();
        if got.answers[..] != leftmost[..] {
            return Err(format!(
                "serial answers {:?}, the two leftmost are {leftmost:?}",
                got.answers
            ));
        }
        self.accepted = true;
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        if !self.accepted {
            return Err("no reference answer (serial run missing)".to_string());
        }
        let got = self.last.ok_or("the run recorded no answer")?;
        valid(&self.tree, &got)
    }
}

fn prepare(size: Size) -> AnswerTable {
    let depth = match size {
        Size::Test => 12,
        Size::Quick => 20,
        Size::Full => 23,
    };
    let tree = Tree::new(depth);
    let answers = tree.count_answers();
    assert!(
        answers >= 2,
        "answer-table: the tree of depth {depth} has fewer than two answers"
    );
    AnswerTable {
        tree,
        answers,
        last: None,
        accepted: false,
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| k.last = Some(serial(black_box(k.tree))))
        .offshoot(|k| k.last = Some(offshoot(black_box(k.tree))))
        .offshoot_ct(|k| k.last = Some(offshoot_ct(black_box(k.tree))))
        .rayon(|k| k.last = Some(rayon(black_box(k.tree))))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }

    #[test]
    fn the_check_rejects_a_wrong_table() {
        let tree = Tree::new(12);
        let good = serial(tree);
        assert!(valid(&tree, &good).is_ok());
        let one = Table { n: 1, ..good };
        assert!(valid(&tree, &one).is_err());
        let twice = Table {
            answers: [good.answers[0]; 2],
            n: 2,
        };
        assert!(valid(&tree, &twice).is_err());
        let inner = Table {
            answers: [0, good.answers[1]],
            n: 2,
        };
        assert!(valid(&tree, &inner).is_err());
    }

    #[test]
    fn the_flushed_answers_survive_the_throw() {
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        for depth in [8, 12] {
            let tree = Tree::new(depth);
            if tree.count_answers() < 2 {
                continue;
            }
            for _ in 0..20 {
                let t = pool.run(|| offshoot(tree));
                valid(&tree, &t).unwrap();
            }
        }
    }
}
