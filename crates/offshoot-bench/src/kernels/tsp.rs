//! `tsp`: the shortest round trip through `n` cities by branch and bound (Imam's thesis,
//! Fig. 4.14 "TSP", a Minima eureka), on a small random instance.
//!
//! The search: tours start at city 0; a node is a path; its children are the unvisited
//! cities, nearest first. A node is pruned when `length + bound` cannot beat the best
//! tour so far, where `bound` = the cheapest edge out of the path's last city + the
//! cheapest edge out of each unvisited city (every one of them is left once more before
//! the tour closes), an admissible lower bound. Contenders, all with the same bound and
//! child order:
//! * serial: depth-first with a plain best-so-far;
//! * offshoot (EU): `eureka::finish` with a [`Minima`] of (length, tour) ordered by
//!   length; `check` per node, `offer` per complete tour;
//! * offshoot-ct: a hand-written shared bound (an `AtomicU32` lowered with `fetch_min`,
//!   the tour kept under a `Mutex`);
//! * rayon: the same on `rayon::join`.
//!
//! The split: a node's children are split in halves with `join`, as `nqueens` does. There
//! is no "no termination" version: without pruning the search is all `(n − 1)!` paths.
//! Inputs: `n` cities at seeded integer points of a 1000×1000 square, distances the
//! rounded Euclidean ones; test n=8, quick n=12, full n=14. Check: the tour visits every
//! city once, its length is what the contender reported, and that length is the optimum
//! computed by Held–Karp's dynamic program (O(2^n·n²)). The input line reports nodes
//! expanded per contender (see `visits`; a Minima never resolves, so none is "late").

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use offshoot::eureka::{self, Eureka, Minima};

use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par::{Fork, Offshoot, Rayon};
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "tsp",
    about: "shortest round trip by branch and bound: the best tour as a Minima eureka vs a hand-written atomic bound",
    cutoff: "none",
    source: "Imam's thesis Fig. 4.14 `TSP`",
};

/// The most cities an instance may have (a tour fits a `[u8; MAX]`, a set a `u32`).
const MAX: usize = 20;

/// A tour: the cities in visiting order from city 0 (the first `n` entries).
type Tour = [u8; MAX];

/// A length and the tour that has it.
type Best = (u32, Tour);

/// The instance: distances, the cheapest edge out of each city, and each city's others
/// nearest first.
struct Cities {
    n: usize,
    dist: Vec<[u32; MAX]>,
    cheapest: [u32; MAX],
    nearest: Vec<Vec<u8>>,
}

impl Cities {
    fn random(n: usize, seed: u64) -> Cities {
        assert!((2..=MAX).contains(&n), "tsp: 2 to {MAX} cities, not {n}");
        let mut rng = SplitMix64::new(seed);
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|_| (rng.range_i64(0, 1000) as f64, rng.range_i64(0, 1000) as f64))
            .collect();
        let mut dist = vec![[0u32; MAX]; n];
        for i in 0..n {
            for j in 0..n {
                let (dx, dy) = (pts[i].0 - pts[j].0, pts[i].1 - pts[j].1);
                dist[i][j] = (dx * dx + dy * dy).sqrt().round() as u32;
            }
        }
        let mut cheapest = [0u32; MAX];
        for (i, c) in cheapest.iter_mut().enumerate().take(n) {
            *c = (0..n)
                .filter(|&j| j != i)
                .map(|j| dist[i][j])
                .min()
                .unwrap();
        }
        let nearest = (0..n)
            .map(|i| {
                let mut o: Vec<u8> = (0..n as u8).filter(|&j| j as usize != i).collect();
                o.sort_by_key(|&j| (dist[i][j as usize], j));
                o
            })
            .collect();
        Cities {
            n,
            dist,
            cheapest,
            nearest,
        }
    }

    fn all(&self) -> u32 {
        (1u32 << self.n) - 1
    }

    /// The lower bound of any tour that extends a path ending at `last` having visited
    /// `seen` (see the module docs).
    #[inline]
    fn bound(&self, last: usize, seen: u32) -> u32 {
        let mut b = self.cheapest[last];
        let mut rest = self.all() & !seen;
        while rest != 0 {
            b += self.cheapest[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        b
    }

    /// The length of the first `n` cities of `t` as a round trip.
    fn length(&self, t: &Tour) -> u32 {
        (0..self.n)
            .map(|i| self.dist[t[i] as usize][t[(i + 1) % self.n] as usize])
            .sum()
    }
}

/// A path: its cities, how many, the set of them, and its length.
#[derive(Clone, Copy)]
struct Path {
    tour: Tour,
    len: usize,
    seen: u32,
    cost: u32,
}

impl Path {
    fn start() -> Path {
        Path {
            tour: [0; MAX],
            len: 1,
            seen: 1,
            cost: 0,
        }
    }
    fn last(&self) -> usize {
        self.tour[self.len - 1] as usize
    }
    fn then(&self, g: &Cities, c: u8) -> Path {
        let mut p = *self;
        p.cost += g.dist[self.last()][c as usize];
        p.tour[p.len] = c;
        p.len += 1;
        p.seen |= 1 << c;
        p
    }
    /// The closed tour's length, once every city is on the path.
    fn closed(&self, g: &Cities) -> u32 {
        self.cost + g.dist[self.last()][0]
    }
}

fn serial(g: &Cities, count: Option<&Tally>) -> Best {
    fn rec(g: &Cities, p: &Path, best: &mut Best, count: Option<&Tally>) {
        if p.len == g.n {
            let l = p.closed(g);
            if l < best.0 {
                *best = (l, p.tour);
            }
            return;
        }
        if p.cost + g.bound(p.last(), p.seen) >= best.0 {
            return;
        }
        Tally::visit(count);
        for &c in &g.nearest[p.last()] {
            if p.seen & (1 << c) == 0 {
                rec(g, &p.then(g, c), best, count);
            }
        }
    }
    let mut best = (u32::MAX, [0; MAX]);
    rec(g, &Path::start(), &mut best, count);
    best
}

/// The parallel search: `go(lower bound)` per node (false: prune), `leaf(length, tour)`
/// per complete tour; a node's unvisited children, nearest first, split in halves.
fn search<J: Fork>(
    g: &Cities,
    go: &(dyn Fn(u32) -> bool + Sync),
    leaf: &(dyn Fn(u32, &Tour) + Sync),
) {
    fn node<J: Fork>(
        g: &Cities,
        p: &Path,
        go: &(dyn Fn(u32) -> bool + Sync),
        leaf: &(dyn Fn(u32, &Tour) + Sync),
    ) {
        if p.len == g.n {
            return leaf(p.closed(g), &p.tour);
        }
        if !go(p.cost + g.bound(p.last(), p.seen)) {
            return;
        }
        let (mut kids, mut k) = ([0u8; MAX], 0);
        for &c in &g.nearest[p.last()] {
            if p.seen & (1 << c) == 0 {
                kids[k] = c;
                k += 1;
            }
        }
        split::<J>(g, p, &kids[..k], go, leaf);
    }
    fn split<J: Fork>(
        g: &Cities,
        p: &Path,
        kids: &[u8],
        go: &(dyn Fn(u32) -> bool + Sync),
        leaf: &(dyn Fn(u32, &Tour) + Sync),
    ) {
        match kids {
            [] => {}
            [c] => node::<J>(g, &p.then(g, *c), go, leaf),
            _ => {
                let (a, b) = kids.split_at(kids.len() / 2);
                J::join(
                    || split::<J>(g, p, a, go, leaf),
                    || split::<J>(g, p, b, go, leaf),
                );
            }
        }
    }
    node::<J>(g, &Path::start(), go, leaf);
}

fn eureka_tsp(g: &Cities, count: Option<&Tally>) -> Best {
    let best = Minima::by((u32::MAX, [0; MAX]), |a: &Best, b: &Best| a.0.cmp(&b.0));
    let done = eureka::finish(&best, || {
        search::<Offshoot>(
            g,
            &|b| {
                let go = best.check((b, [0; MAX]));
                if go {
                    Tally::visit(count);
                }
                go
            },
            &|l, t| {
                best.offer((l, *t));
            },
        )
    });
    done.expect("a Minima never resolves, so the body always ends");
    *best.get()
}

fn token_tsp<J: Fork>(g: &Cities, count: Option<&Tally>) -> Best {
    let bound = AtomicU32::new(u32::MAX);
    let best = Mutex::new((u32::MAX, [0; MAX]));
    search::<J>(
        g,
        &|b| {
            let go = b < bound.load(Ordering::Relaxed);
            if go {
                Tally::visit(count);
            }
            go
        },
        &|l, t| {
            if l < bound.fetch_min(l, Ordering::Relaxed) {
                let mut b = best.lock().unwrap();
                if l < b.0 {
                    *b = (l, *t);
                }
            }
        },
    );
    best.into_inner().unwrap()
}

/// Held–Karp: the optimal tour length, by dynamic programming over (set, last city).
fn held_karp(g: &Cities) -> u32 {
    let n = g.n;
    let full = 1usize << n;
    let mut d = vec![u32::MAX; full * n];
    d[n] = 0; // the set {0} (index 1 · n), at city 0
    for set in 1..full {
        if set & 1 == 0 {
            continue;
        }
        for last in 0..n {
            let here = d[set * n + last];
            if here == u32::MAX {
                continue;
            }
            for next in 0..n {
                if set & (1 << next) == 0 {
                    let to = (set | 1 << next) * n + next;
                    d[to] = d[to].min(here + g.dist[last][next]);
                }
            }
        }
    }
    (1..n)
        .map(|last| d[(full - 1) * n + last].saturating_add(g.dist[last][0]))
        .min()
        .unwrap_or(0)
}

struct Tsp {
    cities: Cities,
    last: Option<Best>,
    optimum: Option<u32>,
    tally: Option<Arc<Tally>>,
    visits: String,
}

impl Counted for Tsp {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

impl Work for Tsp {
    fn input(&self) -> String {
        format!("{} cities; {}", self.cities.n, self.visits)
    }
    fn reset(&mut self) {
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        self.optimum = Some(held_karp(&self.cities));
        self.check()
    }
    fn check(&self) -> Result<(), String> {
        let optimum = self.optimum.ok_or("no reference")?;
        let (len, tour) = self.last.ok_or("no answer")?;
        let g = &self.cities;
        let mut seen = 0u32;
        for &c in &tour[..g.n] {
            if c as usize >= g.n || seen & (1 << c) != 0 {
                return Err(format!("not a tour: {:?}", &tour[..g.n]));
            }
            seen |= 1 << c;
        }
        if tour[0] != 0 {
            return Err("the tour does not start at city 0".into());
        }
        if g.length(&tour) != len {
            return Err(format!(
                "reported length {len}, the tour's is {}",
                g.length(&tour)
            ));
        }
        if len != optimum {
            return Err(format!("length {len}, the optimum is {optimum}"));
        }
        Ok(())
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |k| {
        k.last = Some(serial(&k.cities, visits::one_query(&k.tally)))
    })
    .offshoot(|k| k.last = Some(eureka_tsp(&k.cities, visits::one_query(&k.tally))))
    .offshoot_ct(|k| {
        k.last = Some(token_tsp::<Offshoot>(
            &k.cities,
            visits::one_query(&k.tally),
        ));
    })
    .rayon(|k| {
        k.last = Some(token_tsp::<Rayon>(&k.cities, visits::one_query(&k.tally)));
    })
    .build()
}

fn prepare(size: Size, kernel: &Kernel<Tsp>) -> Tsp {
    let n = match size {
        Size::Test => 8,
        Size::Quick => 15,
        Size::Full => 17,
    };
    let mut tsp = Tsp {
        cities: Cities::random(n, 0x75B),
        last: None,
        optimum: None,
        tally: None,
        visits: String::new(),
    };
    tsp.visits = visits::line(kernel, &mut tsp, "nodes expanded");
    tsp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_the_optimum() {
        super::super::verify(&info());
    }

    #[test]
    fn held_karp_agrees_with_all_tours_on_small_instances() {
        fn brute(g: &Cities, p: &Path) -> u32 {
            if p.len == g.n {
                return p.closed(g);
            }
            (1..g.n as u8)
                .filter(|&c| p.seen & (1 << c) == 0)
                .map(|c| brute(g, &p.then(g, c)))
                .min()
                .unwrap()
        }
        for (n, seed) in [(2, 1), (3, 2), (5, 3), (7, 4), (8, 5)] {
            let g = Cities::random(n, seed);
            assert_eq!(held_karp(&g), brute(&g, &Path::start()), "n={n}");
            assert_eq!(serial(&g, None).0, held_karp(&g), "n={n}");
        }
    }
}
