//! The input of the array-search kernels (`sls`, `dls-and`/`dls-or`, `cs`): seeded random
//! cells below 2^30 with target values planted, each exactly once.
//!
//! Invariant: target `i` is the value `2^30 + i`, which no random cell can hold, planted at
//! a seeded position no other target took; so every target occurs exactly once, and any
//! correct search finds the same position.

use std::collections::HashSet;

use crate::rng::SplitMix64;

/// `n` random cells from `seed` with `targets` target values planted (see the module
/// invariant); returns the cells and the targets in planting order.
pub(crate) fn planted(seed: u64, n: usize, targets: usize) -> (Vec<u32>, Vec<u32>) {
    let mut rng = SplitMix64::new(seed);
    let mut cells: Vec<u32> = (0..n)
        .map(|_| (rng.next_u64() % (1 << 30)) as u32)
        .collect();
    let mut used = HashSet::new();
    let values = (0..targets as u32)
        .map(|i| {
            let t = (1 << 30) + i;
            let mut at = (rng.next_u64() % n as u64) as usize;
            while !used.insert(at) {
                at = (at + 1) % n;
            }
            cells[at] = t;
            t
        })
        .collect();
    (cells, values)
}
