//! `knapsack-bb`: the `knapsack` kernel's branch and bound with the bound as a eureka
//! (Imam's thesis, Fig. 4.14 "Knapsack-BB", a Minima eureka; here its Maxima form).
//!
//! Contenders, all on the same instance, bound and node order as `knapsack`:
//! * serial: `knapsack::serial` (a plain `i64` best-so-far);
//! * offshoot (EU): `eureka::finish` with [`Minima::maxima`]; a node prunes when
//!   `check(v + c * value / weight)` says its upper bound cannot beat the best, and offers
//!   what it returns;
//! * offshoot-ct: `knapsack::offshoot`, the hand-written shared bound (an
//!   `AtomicI64` raised with `fetch_max`) — the token version of branch and bound;
//! * rayon: the same on `rayon::join`.
//!
//! There is no "no termination" version: without pruning the search is the full binary
//! tree of 2^items nodes. Inputs, cutoff and check: as `knapsack`. The input line reports
//! the nodes each contender expanded (a Maxima never resolves: none is "late").

use offshoot::eureka::{self, Descending, Eureka, Minima};

use std::sync::Arc;

use super::knapsack::{self, accept_optimum, par_visiting, serial, serial_visiting, sized, Item};
use super::visits::{self, Counted, Tally};
use super::{About, Answer, Kernel, KernelInfo, Size, Work};
use crate::par::{Offshoot, Rayon};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "knapsack-bb",
    about:
        "0/1 knapsack branch and bound: the bound as a Maxima eureka vs a hand-written atomic bound",
    cutoff: "none",
    source: "Imam's thesis Fig. 4.14 `Knapsack-BB` on Cilk-5's `knapsack`",
};

/// Branch and bound with the best-so-far in a Maxima eureka.
pub fn eureka_bb(items: &[Item], capacity: i64) -> i64 {
    eureka_bb_visiting(items, capacity, &|| ())
}

/// [`eureka_bb`], calling `visit` at every node it expands (as `knapsack`'s
/// `serial_visiting`).
pub fn eureka_bb_visiting<V: Fn() + Sync>(items: &[Item], capacity: i64, visit: &V) -> i64 {
    fn rec<V: Fn() + Sync>(
        items: &[Item],
        c: i64,
        v: i64,
        best: &Minima<i64, Descending>,
        visit: &V,
    ) -> i64 {
        if c < 0 {
            return i64::MIN;
        }
        let Some((e, rest)) = items.split_first() else {
            return v;
        };
        if c == 0 {
            return v;
        }
        // `knapsack` prunes when the bound is below the best; a Maxima's check goes on
        // only if the bound beats it, so ask with one more (ties go on, as there).
        if !best.check(v + c * e.value / e.weight + 1) {
            return i64::MIN;
        }
        visit();
        let (with, without) = offshoot::join(
            || rec(rest, c - e.weight, v + e.value, best, visit),
            || rec(rest, c, v, best, visit),
        );
        let b = with.max(without);
        best.offer(b); // rejected (a load and a compare) unless it raises the best
        b
    }
    let best = Minima::maxima(i64::MIN);
    let top = eureka::finish(&best, || rec(items, capacity, 0, &best, visit));
    top.expect("a Maxima never resolves, so the body always ends")
}

struct KnapsackBb {
    items: Vec<Item>,
    capacity: i64,
    out: Answer<i64>,
    tally: Option<Arc<Tally>>,
    visits: String,
}

impl KnapsackBb {
    /// Runs `plain` (timed runs), or `counted` with a visitor that counts (see `visits`).
    fn run(
        &mut self,
        plain: impl Fn(&[Item], i64) -> i64,
        counted: impl Fn(&[Item], i64, &(dyn Fn() + Sync)) -> i64,
    ) {
        let answer = match visits::one_query(&self.tally) {
            None => plain(&self.items, self.capacity),
            Some(t) => counted(&self.items, self.capacity, &|| Tally::visit(Some(t))),
        };
        self.out.set(answer);
    }
}

impl Counted for KnapsackBb {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

fn prepare(size: Size, kernel: &Kernel<KnapsackBb>) -> KnapsackBb {
    let (items, capacity) = sized(size);
    let mut k = KnapsackBb {
        items,
        capacity,
        out: Answer::new(),
        tally: None,
        visits: String::new(),
    };
    k.visits = visits::line(kernel, &mut k, "nodes expanded");
    k
}

impl Work for KnapsackBb {
    fn input(&self) -> String {
        format!(
            "{} items, capacity {}; {}",
            self.items.len(),
            self.capacity,
            self.visits
        )
    }
    fn reset(&mut self) {
        self.out.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        accept_optimum(&mut self.out, &self.items, self.capacity)
    }
    fn check(&self) -> Result<(), String> {
        self.out.check()
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |k| {
        k.run(serial, |i, c, v| serial_visiting(i, c, &v))
    })
    .offshoot(|k| k.run(eureka_bb, |i, c, v| eureka_bb_visiting(i, c, &v)))
    .offshoot_ct(|k| {
        k.run(knapsack::offshoot, |i, c, v| {
            par_visiting::<Offshoot, _>(i, c, &v)
        });
    })
    .rayon(|k| {
        k.run(knapsack::rayon, |i, c, v| {
            par_visiting::<Rayon, _>(i, c, &v)
        })
    })
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_the_optimum() {
        super::super::verify(&info());
    }
}
