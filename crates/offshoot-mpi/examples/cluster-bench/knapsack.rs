//! 0/1 knapsack by branch and bound, with the run's shared bound (`offshoot_mpi::Bound`,
//! negated: the best value so far is its minimum): a branch whose fractional relaxation
//! cannot beat the best known value, on any rank, is pruned.

use std::sync::Arc;

use offshoot_mpi::Bound;

/// Items sorted by value density, as (weight, value).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Branch {
    pub items: Arc<Vec<(u32, u32)>>,
    pub i: usize,
    pub room: u32,
    pub value: u32,
}

impl offshoot_mpi::Task for Branch {
    const NAME: &'static str = "knapsack-branch";
    type Output = u32;
    fn run(self) -> u32 {
        solve(&self.items, self.i, self.room, self.value)
    }
}

/// Rows above this fork with `offshoot_mpi::join`.
const DIST_DEPTH: usize = 10;

/// A reproducible instance of the hard kind for branch and bound (after Avis): `n` items
/// whose weights are even numbers in 2,000..200,000 (xorshift from `seed`), each worth its
/// weight, and an odd capacity, half the total weight: no packing fills it exactly, so the
/// fractional bound always promises one more than the best packing, and the search is
/// nearly exhaustive where the items left can still overflow the room.
pub fn instance(n: usize, seed: u64) -> (Arc<Vec<(u32, u32)>>, u32) {
    let mut s = seed.max(1);
    let mut items: Vec<(u32, u32)> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let w = ((s % 99_000 + 1_000) * 2) as u32;
            (w, w)
        })
        .collect();
    items.sort_by_key(|i| std::cmp::Reverse(i.0));
    let cap = (items.iter().map(|i| i.0).sum::<u32>() / 2) | 1;
    (Arc::new(items), cap)
}

fn upper(items: &[(u32, u32)], i: usize, room: u32, value: u32) -> f64 {
    let (mut room, mut v) = (room as f64, value as f64);
    for &(w, val) in &items[i..] {
        if (w as f64) <= room {
            room -= w as f64;
            v += val as f64;
        } else {
            return v + val as f64 * room / w as f64;
        }
    }
    v
}

pub fn solve(items: &Arc<Vec<(u32, u32)>>, i: usize, room: u32, value: u32) -> u32 {
    if upper(items, i, room, value) <= -(Bound::get() as f64) {
        return 0;
    }
    if i == items.len() {
        Bound::lower(-(value as i64));
        return value;
    }
    let (w, v) = items[i];
    if w > room {
        return solve(items, i + 1, room, value);
    }
    let (a, b) = if i < DIST_DEPTH {
        offshoot_mpi::join(
            || solve(items, i + 1, room - w, value + v),
            Branch {
                items: items.clone(),
                i: i + 1,
                room,
                value,
            },
        )
    } else {
        offshoot::join(
            || solve(items, i + 1, room - w, value + v),
            || solve(items, i + 1, room, value),
        )
    };
    a.max(b)
}

/// The optimum by dynamic programming (the check).
pub fn dp(items: &[(u32, u32)], cap: u32) -> u32 {
    let mut best = vec![0u32; cap as usize + 1];
    for &(w, v) in items {
        for c in (w as usize..=cap as usize).rev() {
            best[c] = best[c].max(best[c - w as usize] + v);
        }
    }
    best[cap as usize]
}

/// Plain serial branch and bound (the baseline), with a local bound.
pub fn serial(items: &[(u32, u32)], i: usize, room: u32, value: u32, best: &mut u32) {
    if upper(items, i, room, value) <= *best as f64 {
        return;
    }
    if i == items.len() {
        *best = (*best).max(value);
        return;
    }
    let (w, v) = items[i];
    if w <= room {
        serial(items, i + 1, room - w, value + v, best);
    }
    serial(items, i + 1, room, value, best);
}
