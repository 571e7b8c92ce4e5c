//! `bellman-ford`: single-source shortest paths by synchronous rounds of relaxation
//! (Bellman–Ford, Jacobi-style; Imam's thesis ch. 3, the phaser kernels). Round
//! `r` computes, for every vertex `v`, `next[v] = min(dist[v], min over the in-edges
//! (u, v, w) of dist[u] + w)` from the distances of round `r − 1` only, so the rounds and
//! their results do not depend on the order of the vertices or on how they are split; the
//! rounds go on until one changes nothing (or `n − 1` have run, all a shortest path can
//! need). "Did anything change" is a reduction per round. The vertices are split into 64
//! bands (32 tasks per worker on 2 workers) that meet after every round.
//!
//! Contenders, each computing the same rounds in the same way (so the distances and the
//! number of rounds agree):
//! * serial: the rounds, vertex by vertex;
//! * offshoot: one task per band for the whole run (`Scope::spawn`), each with a phaser
//!   registration; per round it relaxes its band, puts its count of changed vertices into
//!   a `PhaseAccumulator` and calls `next()` (a waiting task parks), then reads the
//!   round's total;
//! * offshoot-fj: the rayon program on offshoot (`offshoot::prelude`), a fork-join
//!   map-and-sum over the bands per round;
//! * rayon: a `par_iter` over the bands with `map(..).sum()` per round (rayon's idiom);
//! * tokio: one task per band, the counts added into an `AtomicUsize`, two
//!   `tokio::sync::Barrier` waits per round (the leader of the first takes the total and
//!   resets the counter, everyone reads the verdict after the second);
//! * threads: the same with one OS thread per band and a `std::sync::Barrier` (the
//!   blocking baseline).
//!
//! The distances are two buffers of `AtomicU64` (round `r` reads buffer `r % 2` and writes
//! buffer `(r + 1) % 2`, each band only its own vertices), accessed `Relaxed`: the phaser,
//! barrier or fork-join between rounds orders a round's writes before the next round's
//! reads, so no access races and no `unsafe` is needed.
//!
//! Input: a seeded random directed graph, each vertex with 8 out-edges to random other
//! vertices plus the path 0 → 1 → … → n − 1 (so every vertex is reachable from the source
//! 0), integer weights in 1..=100, `u64` distances; the in-edges in CSR form. Test 200
//! vertices, quick 40,000, full 250,000. Check: the distances equal the serial ones, and
//! the serial ones equal Dijkstra's (a `BinaryHeap` over the out-edges).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use offshoot::phaser::{Mode, PhaseAccumulator, Phaser};

use super::bands::band;
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par::{self, ParLoop};
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "bellman-ford",
    about: "Bellman–Ford shortest paths in synchronous rounds, 64 bands of vertices meeting after every round with an any-change reduction: phaser accumulators vs a fork-join map-reduce per round, tokio and OS-thread barriers",
    cutoff: "64 bands of vertices",
    source: "Imam's thesis ch. 3 (phasers, phaser accumulators); Bellman–Ford in synchronous (Jacobi) rounds",
};

/// Bands of vertices (tasks).
const BANDS: usize = 64;

/// Random out-edges per vertex (besides the path edge).
const DEGREE: usize = 8;

/// The distance of a vertex not reached yet.
const UNREACHED: u64 = u64::MAX;

/// A directed graph with non-negative integer weights.
struct Graph {
    n: usize,
    /// Every edge `(u, v, w)`, as generated (the oracle's input).
    edges: Vec<(u32, u32, u64)>,
    /// The in-edges of `v` are `from[first[v]..first[v + 1]]`, with `weight[..]`.
    first: Vec<usize>,
    from: Vec<u32>,
    weight: Vec<u64>,
}

impl Graph {
    fn new(n: usize, edges: Vec<(u32, u32, u64)>) -> Graph {
        let mut first = vec![0; n + 1];
        for &(_, v, _) in &edges {
            first[v as usize + 1] += 1;
        }
        for v in 0..n {
            first[v + 1] += first[v];
        }
        let mut at = first.clone();
        let (mut from, mut weight) = (vec![0; edges.len()], vec![0; edges.len()]);
        for &(u, v, w) in &edges {
            let k = &mut at[v as usize];
            (from[*k], weight[*k]) = (u, w);
            *k += 1;
        }
        Graph {
            n,
            edges,
            first,
            from,
            weight,
        }
    }

    /// `n` vertices, [`DEGREE`] random out-edges each plus the path 0 → 1 → … → n − 1.
    fn random(n: usize, seed: u64) -> Graph {
        let mut rng = SplitMix64::new(seed);
        let mut edges = Vec::with_capacity(n * (DEGREE + 1));
        for u in 0..n as i64 {
            if u + 1 < n as i64 {
                edges.push((u as u32, u as u32 + 1, rng.range_i64(1, 100) as u64));
            }
            for _ in 0..DEGREE {
                // Any vertex but `u`.
                let v = (u + rng.range_i64(1, n as i64 - 1)) % n as i64;
                edges.push((u as u32, v as u32, rng.range_i64(1, 100) as u64));
            }
        }
        Graph::new(n, edges)
    }
}

/// The distances of two consecutive rounds.
///
/// Invariant: in round `r`, buffer `r % 2` is only read and buffer `(r + 1) % 2` is written
/// only at the vertices of the writing task's own band (bands are disjoint); every task ends
/// round `r` before any starts round `r + 1`, so `Relaxed` accesses see the previous
/// round's values.
struct Dists {
    d: [Box<[AtomicU64]>; 2],
}

impl Dists {
    /// 0 at the source 0, [`UNREACHED`] elsewhere.
    fn new(n: usize) -> Dists {
        let make = || {
            (0..n)
                .map(|v| AtomicU64::new(if v == 0 { 0 } else { UNREACHED }))
                .collect()
        };
        Dists {
            d: [make(), make()],
        }
    }

    /// The distances after `rounds` rounds.
    fn result(&self, rounds: usize) -> Vec<u64> {
        self.d[rounds % 2].iter().map(|x| x.load(Relaxed)).collect()
    }
}

/// Round `r` for the vertices `lo..hi`: how many of them changed.
fn relax(g: &Graph, d: &Dists, r: usize, lo: usize, hi: usize) -> usize {
    let (src, dst) = (&d.d[r % 2], &d.d[(r + 1) % 2]);
    let mut changed = 0;
    for v in lo..hi {
        let old = src[v].load(Relaxed);
        let mut best = old;
        for e in g.first[v]..g.first[v + 1] {
            let via = src[g.from[e] as usize]
                .load(Relaxed)
                .saturating_add(g.weight[e]);
            best = best.min(via);
        }
        dst[v].store(best, Relaxed);
        changed += usize::from(best != old);
    }
    changed
}

/// The most rounds a run takes: a shortest path has at most `n − 1` edges.
fn max_rounds(n: usize) -> usize {
    n.saturating_sub(1)
}

/// Runs `round(0)`, `round(1)`, … (each says whether anything changed) until one changes
/// nothing or [`max_rounds`] have run; returns how many ran.
fn rounds(n: usize, mut round: impl FnMut(usize) -> bool) -> usize {
    let mut r = 0;
    while r < max_rounds(n) {
        let changed = round(r);
        r += 1;
        if !changed {
            break;
        }
    }
    r
}

fn serial(g: &Graph) -> Vec<u64> {
    let d = Dists::new(g.n);
    let done = rounds(g.n, |r| relax(g, &d, r, 0, g.n) > 0);
    d.result(done)
}

fn phasers(g: &Graph) -> Vec<u64> {
    let n = g.n;
    let d = Dists::new(n);
    let ph = Phaser::new();
    let changes = PhaseAccumulator::new(&ph, 0usize, |a: &mut usize, x| *a += x);
    let done = AtomicUsize::new(0);
    let me = ph.register(Mode::SigWait);
    offshoot::scope(|sc| {
        for b in 0..BANDS {
            let mut reg = me.child(Mode::SigWait);
            let (d, changes, done) = (&d, &changes, &done);
            sc.spawn(move |_| {
                let (lo, hi) = band(n, BANDS, b);
                let ran = rounds(n, |r| {
                    changes.put(&mut reg, relax(g, d, r, lo, hi));
                    reg.next();
                    // Phase r is round r: every member registered at phase 0.
                    changes
                        .get(r as u64)
                        .expect("the round's total, after next")
                        > 0
                });
                if b == 0 {
                    done.store(ran, Relaxed);
                }
            });
        }
        drop(me);
    });
    d.result(done.into_inner())
}

/// A fork-join per round: a parallel map-and-sum over the bands, written with the parallel
/// iterators of `P` (offshoot's `prelude`, or rayon's idiom).
fn per_round<P: ParLoop>(g: &Graph) -> Vec<u64> {
    let d = Dists::new(g.n);
    let done = rounds(g.n, |r| {
        P::sum(BANDS, |b| {
            let (lo, hi) = band(g.n, BANDS, b);
            relax(g, &d, r, lo, hi)
        }) > 0
    });
    d.result(done)
}

/// What the barrier versions' tasks share: the round's count of changes and its verdict.
#[derive(Default)]
struct Verdict {
    changes: AtomicUsize,
    changed: AtomicBool,
}

impl Verdict {
    /// Called by the leader of the round's first barrier wait (every count is in, and
    /// nobody reads the verdict or adds a count until the second wait): takes the total.
    fn decide(&self) {
        let total = self.changes.swap(0, Relaxed);
        self.changed.store(total > 0, Relaxed);
    }
}

fn tokio_barrier(rt: &tokio::runtime::Runtime, g: &Arc<Graph>) -> Vec<u64> {
    let n = g.n;
    let d = Arc::new(Dists::new(n));
    let verdict = Arc::new(Verdict::default());
    let barrier = Arc::new(tokio::sync::Barrier::new(BANDS));
    let done = rt.block_on(async {
        let tasks: Vec<_> = (0..BANDS)
            .map(|b| {
                let (g, d, verdict, barrier) =
                    (g.clone(), d.clone(), verdict.clone(), barrier.clone());
                tokio::spawn(async move {
                    let (lo, hi) = band(n, BANDS, b);
                    let mut r = 0;
                    while r < max_rounds(n) {
                        verdict.changes.fetch_add(relax(&g, &d, r, lo, hi), Relaxed);
                        if barrier.wait().await.is_leader() {
                            verdict.decide();
                        }
                        barrier.wait().await;
                        r += 1;
                        if !verdict.changed.load(Relaxed) {
                            break;
                        }
                    }
                    r
                })
            })
            .collect();
        let mut done = 0;
        for task in tasks {
            done = task.await.expect("a band task panicked");
        }
        done
    });
    d.result(done)
}

fn threads_barrier(g: &Graph) -> Vec<u64> {
    let n = g.n;
    let d = Dists::new(n);
    let verdict = Verdict::default();
    let barrier = std::sync::Barrier::new(BANDS);
    let done = std::thread::scope(|sc| {
        let threads: Vec<_> = (0..BANDS)
            .map(|b| {
                let (d, verdict, barrier) = (&d, &verdict, &barrier);
                sc.spawn(move || {
                    let (lo, hi) = band(n, BANDS, b);
                    rounds(n, |r| {
                        verdict.changes.fetch_add(relax(g, d, r, lo, hi), Relaxed);
                        if barrier.wait().is_leader() {
                            verdict.decide();
                        }
                        barrier.wait();
                        verdict.changed.load(Relaxed)
                    })
                })
            })
            .collect();
        let mut done = 0;
        for t in threads {
            done = t.join().expect("a band thread panicked");
        }
        done
    });
    d.result(done)
}

/// The oracle: Dijkstra's algorithm over the out-edges, with a binary heap.
fn dijkstra(g: &Graph) -> Vec<u64> {
    let mut out = vec![Vec::new(); g.n];
    for &(u, v, w) in &g.edges {
        out[u as usize].push((v as usize, w));
    }
    let mut dist = vec![UNREACHED; g.n];
    let mut heap = BinaryHeap::new();
    if g.n > 0 {
        dist[0] = 0;
        heap.push(Reverse((0u64, 0usize)));
    }
    while let Some(Reverse((du, u))) = heap.pop() {
        if du > dist[u] {
            continue;
        }
        for &(v, w) in &out[u] {
            if du + w < dist[v] {
                dist[v] = du + w;
                heap.push(Reverse((dist[v], v)));
            }
        }
    }
    dist
}

struct BellmanFord {
    graph: Arc<Graph>,
    last: Vec<u64>,
    reference: Option<Vec<u64>>,
}

impl Work for BellmanFord {
    fn input(&self) -> String {
        format!(
            "{} vertices, {} edges, {BANDS} bands",
            self.graph.n,
            self.graph.edges.len()
        )
    }
    fn reset(&mut self) {
        self.last.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        super::compare_slices(&self.last, &dijkstra(&self.graph))?;
        self.reference = Some(self.last.clone());
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        super::check_reference(&self.last, &self.reference)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    declare(prepare)
}

/// The kernel on the graph `prepare` builds.
fn declare(prepare: fn(Size) -> BellmanFord) -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| k.last = serial(&k.graph))
        .offshoot(|k| k.last = phasers(&k.graph))
        .offshoot_fj(|k| k.last = per_round::<par::Offshoot>(&k.graph))
        .rayon(|k| k.last = per_round::<par::Rayon>(&k.graph))
        .tokio(|k, rt| k.last = tokio_barrier(rt, &k.graph))
        .threads(|k| k.last = threads_barrier(&k.graph))
        .build()
}

fn instance(graph: Graph) -> BellmanFord {
    BellmanFord {
        graph: Arc::new(graph),
        last: Vec::new(),
        reference: None,
    }
}

fn prepare(size: Size) -> BellmanFord {
    let n = match size {
        Size::Test => 200,
        Size::Quick => 20_000,
        Size::Full => 250_000,
    };
    instance(Graph::random(n, 0xBF))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_computes_the_serial_distances() {
        super::super::verify(&info());
    }

    /// 0 →5 1, 0 →1 2, 2 →2 1, 1 →1 3, 2 →7 3: the distances 0, 3, 1, 4, found in three
    /// rounds (round 0: 1 = 5, 2 = 1; round 1: 1 = 3, 3 = 6; round 2: 3 = 4).
    fn small() -> Graph {
        Graph::new(
            4,
            vec![(0, 1, 5), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 7)],
        )
    }

    #[test]
    fn a_small_graph_by_hand() {
        let g = small();
        let want = vec![0, 3, 1, 4];
        assert_eq!(serial(&g), want);
        assert_eq!(dijkstra(&g), want);
        let d = Dists::new(g.n);
        assert_eq!(rounds(g.n, |r| relax(&g, &d, r, 0, g.n) > 0), 3);
        super::super::verify(&declare(|_| instance(small())));
    }

    #[test]
    fn the_random_graph_is_reachable_and_needs_many_rounds() {
        let g = Graph::random(200, 0xBF);
        assert_eq!(g.edges.len(), 199 + 200 * DEGREE);
        assert!(g
            .edges
            .iter()
            .all(|&(u, v, w)| u != v && (1..=100).contains(&w)));
        assert!(dijkstra(&g).iter().all(|&x| x != UNREACHED));
        let d = Dists::new(g.n);
        let ran = rounds(g.n, |r| relax(&g, &d, r, 0, g.n) > 0);
        assert!(ran > 3 && ran < g.n - 1, "{ran} rounds");
    }
}
