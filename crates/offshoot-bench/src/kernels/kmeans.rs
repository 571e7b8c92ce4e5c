//! `kmeans`: Lloyd's k-means on integer points for a fixed number of iterations, with the
//! per-iteration sums as a reduction (Imam's thesis ch. 3, KMEANS with phaser
//! accumulators).
//!
//! Each iteration assigns every point to its nearest centroid (squared distance, ties to
//! the lower index), sums the points of each cluster and moves each centroid to its
//! cluster's mean (integer division; a cluster with no point keeps its centroid). Integer
//! coordinates keep every sum exact, so all contenders reach the same centroids whatever
//! the order of the additions. Contenders:
//! * serial: the loop;
//! * offshoot: 16 tasks for the whole run, each owning a chunk of the points, with a phaser
//!   registration; per iteration it puts its chunk's sums into a `PhaseAccumulator` and
//!   calls `next()`, then reads the iteration's total and computes the new centroids;
//! * offshoot-fj: the rayon program on offshoot (`offshoot::prelude`), a fork-join
//!   reduction per iteration;
//! * rayon: a `par_chunks(..).map(..).reduce(..)` per iteration (rayon's idiom);
//! * tokio: 16 tasks for the whole run, the sums added under a `Mutex`, two
//!   `tokio::sync::Barrier` waits per iteration (the leader of the first moves the
//!   centroids);
//! * threads: 16 OS threads, the sums added under a `Mutex`, two `std::sync::Barrier`
//!   waits per iteration (the blocking baseline).
//!
//! Inputs: `n` seeded random points in [0, 10^6)², `K` = 8 centroids starting at the first
//! 8 points; test 2,000 points × 3 iterations, quick 200,000 × 10, full 2,000,000 × 20.
//! Check: the final centroids equal the serial ones.

use std::sync::{Arc, Barrier, Mutex};

use offshoot::phaser::{Mode, PhaseAccumulator, Phaser};

use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par::{self, ParLoop};
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "kmeans",
    about: "k-means, 16 tasks summing their points per iteration: phaser accumulators vs a fork-join reduction per iteration and OS threads with barriers",
    cutoff: "16 chunks of points",
    source: "Imam's thesis ch. 3 (KMEANS with phaser accumulators)",
};

/// Clusters.
const K: usize = 8;

/// Tasks (chunks of points).
const TASKS: usize = 16;

type Point = (i64, i64);

/// Per cluster: the sum of x, the sum of y, the count.
type Sums = [(i64, i64, i64); K];

fn nearest(c: &[Point; K], p: Point) -> usize {
    let mut best = 0;
    let mut dist = i64::MAX;
    for (i, q) in c.iter().enumerate() {
        let (dx, dy) = (p.0 - q.0, p.1 - q.1);
        let d = dx * dx + dy * dy;
        if d < dist {
            (best, dist) = (i, d);
        }
    }
    best
}

fn sums(c: &[Point; K], points: &[Point]) -> Sums {
    let mut s = [(0, 0, 0); K];
    for &p in points {
        let e = &mut s[nearest(c, p)];
        e.0 += p.0;
        e.1 += p.1;
        e.2 += 1;
    }
    s
}

fn add(a: &mut Sums, b: Sums) {
    for (x, y) in a.iter_mut().zip(b) {
        x.0 += y.0;
        x.1 += y.1;
        x.2 += y.2;
    }
}

fn moved(c: &[Point; K], s: &Sums) -> [Point; K] {
    let mut out = *c;
    for (o, &(x, y, n)) in out.iter_mut().zip(s) {
        if n > 0 {
            *o = (x / n, y / n);
        }
    }
    out
}

fn start(points: &[Point]) -> [Point; K] {
    std::array::from_fn(|i| points[i])
}

fn serial(points: &[Point], iters: usize) -> [Point; K] {
    let mut c = start(points);
    for _ in 0..iters {
        c = moved(&c, &sums(&c, points));
    }
    c
}

fn chunk(points: &[Point], t: usize) -> &[Point] {
    let n = points.len();
    &points[t * n / TASKS..(t + 1) * n / TASKS]
}

fn phasers(points: &[Point], iters: usize) -> [Point; K] {
    let ph = Phaser::new();
    let total = PhaseAccumulator::new(&ph, [(0, 0, 0); K], add);
    let out = Mutex::new(None);
    let me = ph.register(Mode::SigWait);
    offshoot::scope(|s| {
        for t in 0..TASKS {
            let mut r = me.child(Mode::SigWait);
            let (total, out) = (&total, &out);
            s.spawn(move |_| {
                let mine = chunk(points, t);
                let mut c = start(points);
                for i in 0..iters as u64 {
                    total.put(&mut r, sums(&c, mine));
                    r.next();
                    let all = total.get(i).expect("the iteration's total, after next");
                    c = moved(&c, &all);
                }
                if t == 0 {
                    *out.lock().unwrap() = Some(c);
                }
            });
        }
        drop(me);
    });
    out.into_inner().unwrap().expect("task 0 ran")
}

/// A fork-join reduction per iteration, written with the parallel iterators of `P`
/// (offshoot's `prelude`, or rayon's idiom).
fn per_iteration<P: ParLoop>(points: &[Point], iters: usize) -> [Point; K] {
    let mut c = start(points);
    let per = points.len().div_ceil(TASKS).max(1);
    for _ in 0..iters {
        let s = P::chunks_reduce(
            points,
            per,
            |ch| sums(&c, ch),
            || [(0, 0, 0); K],
            |mut a, b| {
                add(&mut a, b);
                a
            },
        );
        c = moved(&c, &s);
    }
    c
}

fn tokio_barrier(rt: &tokio::runtime::Runtime, points: &[Point], iters: usize) -> [Point; K] {
    let points: Arc<[Point]> = points.into();
    let shared = Arc::new(Mutex::new(([(0, 0, 0); K], start(&points))));
    let barrier = Arc::new(tokio::sync::Barrier::new(TASKS));
    rt.block_on(async {
        let tasks: Vec<_> = (0..TASKS)
            .map(|t| {
                let (points, shared, barrier) = (points.clone(), shared.clone(), barrier.clone());
                tokio::spawn(async move {
                    for _ in 0..iters {
                        let c = shared.lock().unwrap().1;
                        let mine = sums(&c, chunk(&points, t));
                        add(&mut shared.lock().unwrap().0, mine);
                        if barrier.wait().await.is_leader() {
                            let mut g = shared.lock().unwrap();
                            g.1 = moved(&g.1, &g.0);
                            g.0 = [(0, 0, 0); K];
                        }
                        barrier.wait().await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a kmeans task panicked");
        }
    });
    let c = shared.lock().unwrap().1;
    c
}

fn threads_barrier(points: &[Point], iters: usize) -> [Point; K] {
    let shared = Mutex::new(([(0, 0, 0); K], start(points)));
    let barrier = Barrier::new(TASKS);
    std::thread::scope(|s| {
        for t in 0..TASKS {
            let (shared, barrier) = (&shared, &barrier);
            s.spawn(move || {
                let mine = chunk(points, t);
                for _ in 0..iters {
                    let c = shared.lock().unwrap().1;
                    let mine = sums(&c, mine);
                    add(&mut shared.lock().unwrap().0, mine);
                    if barrier.wait().is_leader() {
                        let mut g = shared.lock().unwrap();
                        g.1 = moved(&g.1, &g.0);
                        g.0 = [(0, 0, 0); K];
                    }
                    barrier.wait();
                }
            });
        }
    });
    shared.into_inner().unwrap().1
}

struct Kmeans {
    points: Vec<Point>,
    iters: usize,
    last: Option<[Point; K]>,
    reference: Option<[Point; K]>,
}

impl Work for Kmeans {
    fn input(&self) -> String {
        format!(
            "{} points, {K} clusters, {} iterations, {TASKS} tasks",
            self.points.len(),
            self.iters
        )
    }
    fn reset(&mut self) {
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        // The oracle: the same iterations with the sums taken in a second, independent way
        // (a map from each point's cluster, summed afterwards).
        let mut c = start(&self.points);
        for _ in 0..self.iters {
            let owner: Vec<usize> = self.points.iter().map(|&p| nearest(&c, p)).collect();
            let mut s = [(0i64, 0i64, 0i64); K];
            for (k, e) in s.iter_mut().enumerate() {
                for (p, _) in self.points.iter().zip(&owner).filter(|(_, &o)| o == k) {
                    e.0 += p.0;
                    e.1 += p.1;
                    e.2 += 1;
                }
            }
            c = moved(&c, &s);
        }
        if self.last != Some(c) {
            return Err(format!("serial {:?}, oracle {c:?}", self.last));
        }
        self.reference = self.last;
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        match (self.last, self.reference) {
            (_, None) => Err("no reference".into()),
            (Some(a), Some(b)) if a == b => Ok(()),
            (a, Some(b)) => Err(format!("centroids {a:?}, serial {b:?}")),
        }
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| {
        k.last = Some(serial(&k.points, k.iters))
    })
    .offshoot(|k| k.last = Some(phasers(&k.points, k.iters)))
    .offshoot_fj(|k| k.last = Some(per_iteration::<par::Offshoot>(&k.points, k.iters)))
    .rayon(|k| k.last = Some(per_iteration::<par::Rayon>(&k.points, k.iters)))
    .tokio(|k, rt| k.last = Some(tokio_barrier(rt, &k.points, k.iters)))
    .threads(|k| k.last = Some(threads_barrier(&k.points, k.iters)))
    .build()
}

fn prepare(size: Size) -> Kmeans {
    let (n, iters) = match size {
        Size::Test => (2_000, 3),
        Size::Quick => (200_000, 10),
        Size::Full => (2_000_000, 20),
    };
    let mut rng = SplitMix64::new(0x6B);
    let points = (0..n)
        .map(|_| (rng.range_i64(0, 1_000_000), rng.range_i64(0, 1_000_000)))
        .collect();
    Kmeans {
        points,
        iters,
        last: None,
        reference: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_the_serial_centroids() {
        super::super::verify(&info());
    }
}
