//! `empty-spawn` and `empty-batch`: Venetis et al.'s Empty — 10^6 empty tasks created by one task —
//! the cost of making, queueing and starting a task. Each task calls an `#[inline(never)]`
//! function that bumps its own counter (through `black_box`), so that the check can tell
//! that every task ran exactly once.
//!
//! - serial: a loop of 10^6 calls of that function;
//! - offshoot: `empty-spawn` calls `Scope::spawn` in a loop (Venetis et al.'s Natural), `empty-batch`
//!   one `Scope::spawn_batch` (Venetis et al.'s Batch);
//! - rayon: `scope.spawn` in a loop, in both;
//! - chili: no spawn; recursive halving with `Scope::join` down to single calls.
//!
//! Per task: divide the time by 10^6 (T = 10 ms is 10 ns per task). Inputs: test 10^4
//! tasks, quick and full 10^6. Check: every counter is 1.

use std::hint::black_box;

use super::items::{self, ItemWork, ItemsInstance, Plan, Strategy};
use super::{About, KernelInfo, Size};

/// What the kernel is: `spawn` in a loop.
pub const ABOUT_SPAWN: About = About {
    name: "empty-spawn",
    about: "10^6 empty tasks created by one task, offshoot: Scope::spawn in a loop",
    cutoff: "none (one task per call; chili: joins down to single calls)",
    source: "Batches of threads (Venetis et al.) Empty, Natural",
};

/// What the kernel is: one batch.
pub const ABOUT_BATCH: About = About {
    name: "empty-batch",
    about: "10^6 empty tasks created by one task, offshoot: one Scope::spawn_batch",
    cutoff: "none (one batch of all tasks; chili: joins down to single calls)",
    source: "Batches of threads (Venetis et al.) Empty, Batch",
};

/// The tasks' counters.
pub struct Empty {
    n: usize,
}

/// The task body: (almost) nothing.
#[inline(never)]
fn task(x: &mut u8) {
    *x = black_box(*x).wrapping_add(1);
}

impl ItemWork for Empty {
    type Item = u8;
    type Answer = u8;
    fn input(&self) -> String {
        format!("{} tasks", self.n)
    }
    fn reset(&mut self) -> Vec<u8> {
        vec![0; self.n]
    }
    fn passes(&self) -> usize {
        1
    }
    #[inline]
    fn item(&self, _: usize, x: &mut u8) {
        task(x);
    }
    fn answer(&self, out: &[u8]) -> Vec<u8> {
        out.to_vec()
    }
    fn oracle(&self, got: &[u8]) -> Result<(), String> {
        match got.iter().position(|&c| c != 1) {
            None if got.len() == self.n => Ok(()),
            None => Err(format!("{} counters, expected {}", got.len(), self.n)),
            Some(i) => Err(format!("task {i} ran {} times", got[i])),
        }
    }
}

fn prepare(size: Size, offshoot: Strategy) -> ItemsInstance<Empty> {
    let n = match size {
        Size::Test => 10_000,
        Size::Quick => 200_000,
        Size::Full => 1_000_000,
    };
    ItemsInstance::new(
        Empty { n },
        Plan {
            offshoot,
            rayon: Strategy::Spawn,
            chili_grain: 1,
        },
    )
}

/// The registry entry of `empty-spawn`.
pub fn info_spawn() -> KernelInfo {
    items::declare(ABOUT_SPAWN, |size| prepare(size, Strategy::Spawn))
}

/// The registry entry of `empty-batch`.
pub fn info_batch() -> KernelInfo {
    items::declare(ABOUT_BATCH, |size| prepare(size, Strategy::Batch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_variants_agree_with_serial() {
        for info in [info_spawn(), info_batch()] {
            super::super::verify(&info);
        }
    }
}
