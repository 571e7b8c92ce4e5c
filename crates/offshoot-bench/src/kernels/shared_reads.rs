//! `shared-reads`: a read-mostly table (OPA's instant methods, issue 46). T tasks each
//! make N operations on one table of 64 equal numbers; 1 in 100 of them (spread by a hash of
//! the operation's index) is a write that adds 1 to every entry, the others read the first
//! and last entries and check that they are equal (a torn read would not be).
//!
//! - serial: the same operations in one loop on a plain array;
//! - offshoot: T tasks (`Scope::spawn`) on an `offshoot::sync::Shared`: reads take a
//!   snapshot without any lock, writes work on a private copy and commit it;
//! - threads: T OS threads on a `std::sync::RwLock` (readers wait for a writer).
//!
//! Per operation: divide the time by T·N. Inputs (T, N): test 4, 2,000; quick 8, 50,000;
//! full 16, 1,000,000. Cutoff: none (one task per T). Check: the writes and the reads
//! counted, and the table's final value (the number of writes: none lost).
//! `examples/shared_objects.rs` compares more contenders (offshoot's `RwLock` and `Mutex`,
//! `arc-swap`), 90/10 too, and read latencies with and without a writer.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use offshoot::sync::Shared;

use super::plain::{call, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::par::Spawn;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "shared-reads",
    about: "99% reads, 1% writes of one 64-entry table from many tasks",
    cutoff: "none",
    source: "Umatani's OPA thesis §3.2 (instant methods); issue 46",
};

const WIDTH: usize = 64;
/// Writes per 100 operations.
const WRITE_PCT: u64 = 1;

/// Tasks and operations per task.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    /// T.
    pub tasks: u64,
    /// N.
    pub ops: u64,
}

/// The answer: writes, reads, and the table's final value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Writes made.
    pub writes: u64,
    /// Reads made.
    pub reads: u64,
    /// The table's entries at the end (all equal).
    pub value: u64,
}

/// Whether operation `i` (over all tasks) is a write.
fn is_write(i: u64) -> bool {
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % 100 < WRITE_PCT
}

fn read(t: &[u64; WIDTH]) -> u64 {
    assert_eq!(t[0], t[WIDTH - 1], "a torn read");
    t[0]
}

fn bump(t: &mut [u64; WIDTH]) {
    t.iter_mut().for_each(|x| *x += 1);
}

/// The plain loop.
pub fn serial(load: Load) -> Tally {
    let mut t = [0u64; WIDTH];
    let (mut writes, mut reads) = (0, 0);
    for i in 0..load.tasks * load.ops {
        if is_write(i) {
            bump(&mut t);
            writes += 1;
        } else {
            black_box(read(black_box(&t)));
            reads += 1;
        }
    }
    Tally {
        writes,
        reads,
        value: t[0],
    }
}

/// Runs task `k`'s operations with `op(is_write)`, counting them into `counts`.
fn start<'s>(
    scope: impl Spawn<'s>,
    load: Load,
    op: &'s (impl Fn(bool) + Sync),
    counts: &'s [AtomicU64; 2],
) {
    for k in 0..load.tasks {
        scope.spawn_task(move || {
            let (mut w, mut r) = (0, 0);
            for i in k * load.ops..(k + 1) * load.ops {
                let write = is_write(i);
                op(write);
                if write {
                    w += 1;
                } else {
                    r += 1;
                }
            }
            // Relaxed: read after the scope has joined every task.
            counts[0].fetch_add(w, Ordering::Relaxed);
            counts[1].fetch_add(r, Ordering::Relaxed);
        });
    }
}

/// offshoot: a task per T on a `Shared`; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(load: Load) -> Tally {
    let s = Shared::new([0u64; WIDTH]);
    let counts = [AtomicU64::new(0), AtomicU64::new(0)];
    let op = |write: bool| {
        if write {
            s.write(|t| bump(t));
        } else {
            black_box(s.read(read));
        }
    };
    offshoot::scope(|sc| start(sc, load, &op, &counts));
    let [w, r] = counts.map(AtomicU64::into_inner);
    Tally {
        writes: w,
        reads: r,
        value: s.read(read),
    }
}

/// An OS thread per T on a `std::sync::RwLock`.
pub fn threads(load: Load) -> Tally {
    let l = std::sync::RwLock::new([0u64; WIDTH]);
    let counts = [AtomicU64::new(0), AtomicU64::new(0)];
    let op = |write: bool| {
        if write {
            bump(&mut l.write().expect("poisoned"));
        } else {
            black_box(read(&l.read().expect("poisoned")));
        }
    };
    std::thread::scope(|sc| start(sc, load, &op, &counts));
    let [w, r] = counts.map(AtomicU64::into_inner);
    let value = read(&l.into_inner().expect("poisoned"));
    Tally {
        writes: w,
        reads: r,
        value,
    }
}

fn prepare(size: Size) -> Plain<Load, Tally> {
    let (tasks, ops) = match size {
        Size::Test => (4, 2_000),
        Size::Quick => (8, 50_000),
        Size::Full => (16, 1_000_000),
    };
    let load = Load { tasks, ops };
    let writes = (0..tasks * ops).filter(|&i| is_write(i)).count() as u64;
    let want = Tally {
        writes,
        reads: tasks * ops - writes,
        value: writes,
    };
    Plain::new(
        load,
        format!("{tasks} tasks × {ops} operations, {WRITE_PCT}% writes"),
        want,
        "tally",
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(serial))
        .offshoot(call(offshoot))
        .threads(call(threads))
        .build()
}

#[cfg(test)]
mod tests {
    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&super::info());
    }
}
