//! The search-shape kernels of `examples/cluster-bench` over the loopback transport: UTS (a
//! bag of nodes split on request) and pentomino (a block per node whose untried placements
//! are split on request; exported near the root). Counts are checked against the serial or
//! known ones, also with thieves that crash-stop at fixed points: no node or tiling may be
//! lost or counted twice.

#[path = "../examples/cluster-bench/uts.rs"]
#[allow(dead_code)]
mod uts;

#[path = "../examples/cluster-bench/pentomino.rs"]
#[allow(dead_code)]
mod pentomino;

use std::time::Duration;

use offshoot::ThreadPool;
use offshoot_mpi::loopback::{self, Loopback};
use offshoot_mpi::{Config, RankStats, Session, Tasks};

const SMALL: uts::Tree = uts::Tree {
    name: "small",
    shape: uts::Shape::GeoFixed { b0: 4.0, gen_mx: 5 },
    seed: 19,
    nodes: 0,
};

const SMALL_BIN: uts::Tree = uts::Tree {
    name: "small-bin",
    shape: uts::Shape::Binomial {
        b0: 60.0,
        q: 0.124875,
        m: 8,
    },
    seed: 42,
    nodes: 0,
};

/// How a rank of a test cluster is made to crash-stop: (its rank, what to do to its
/// transport).
type Crash = (usize, fn(Loopback, usize) -> Loopback, usize);

/// Runs `root` on `ranks` ranks of `workers` (rank 0 runs it); the rank `crash` names (if
/// any) gets its transport changed by it. Returns rank 0's value and every rank's
/// statistics.
fn cluster(
    ranks: usize,
    workers: usize,
    crash: Option<Crash>,
    root: impl Fn() -> u64 + Sync,
) -> (u64, Vec<RankStats>) {
    let cfg = Config {
        fault_timeout: Some(Duration::from_millis(250)),
        ..Config::default()
    };
    let tasks = Tasks::new().with::<uts::Bag>().with::<pentomino::Part>();
    let out: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = loopback::cluster(ranks)
            .into_iter()
            .enumerate()
            .map(|(r, t)| {
                let t = match crash {
                    Some((c, make, n)) if c == r => make(t, n),
                    _ => t,
                };
                let (tasks, cfg, root) = (&tasks, &cfg, &root);
                s.spawn(move || {
                    let pool = ThreadPool::builder().workers(workers).build().unwrap();
                    Session::new(t).run(&pool, tasks, cfg, root).unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let f = out.into_iter().next().unwrap();
    (f.value.expect("rank 0 has the root's value"), f.stats)
}

/// `tree`'s node count on `ranks` ranks of `workers`; rank `crash` (if any) crash-stops
/// after receiving `after` messages.
fn run(
    tree: uts::Tree,
    ranks: usize,
    workers: usize,
    crash: Option<(usize, usize)>,
) -> (u64, Vec<RankStats>) {
    let crash = crash.map(|(c, after)| (c, Loopback::crash_stop_after as fn(_, _) -> _, after));
    cluster(ranks, workers, crash, || {
        uts::count(&tree.shape, vec![uts::root(&tree)])
    })
}

#[test]
fn the_generator_gives_the_published_t3_root() {
    // The first levels of T3 as the reference implementation makes them: 2000 children.
    let r = uts::root(&uts::T3);
    assert_eq!(uts::num_children(&uts::T3.shape, &r), 2000);
}

#[test]
fn uts_trees_on_1_to_4_ranks_count_every_node_once() {
    for tree in [SMALL, SMALL_BIN] {
        let want = uts::count_serial(&tree.shape, uts::root(&tree));
        assert!(want > 300, "a tree big enough to split: {want}");
        for ranks in 1..=4 {
            for workers in 1..=2 {
                let (got, stats) = run(tree, ranks, workers, None);
                assert_eq!(got, want, "{} on {ranks} ranks × {workers}", tree.name);
                assert_eq!(stats.len(), ranks);
            }
        }
    }
}

#[test]
fn thieves_that_crash_stop_lose_no_node_and_double_none() {
    let want = uts::count_serial(&SMALL.shape, uts::root(&SMALL));
    // A fixed set of crash points (rank, messages received before it stops answering),
    // spread over the run: early (before any work), while it runs packages, late.
    for (ranks, crash, after) in [
        (2, 1, 1),
        (2, 1, 2),
        (2, 1, 5),
        (3, 1, 3),
        (3, 2, 2),
        (3, 2, 8),
        (4, 3, 4),
        (4, 1, 12),
    ] {
        let (got, _) = run(SMALL, ranks, 1, Some((crash, after)));
        assert_eq!(
            got, want,
            "{ranks} ranks, rank {crash} stops after {after} messages"
        );
    }
}

#[test]
fn pentomino_finds_every_tiling_once_on_1_to_3_ranks() {
    let want = pentomino::known(4).unwrap();
    assert_eq!(pentomino::serial(4), want);
    for ranks in 1..=3 {
        for workers in 1..=2 {
            let (got, _) = cluster(ranks, workers, None, || pentomino::solve(4));
            assert_eq!(got, want, "{ranks} ranks × {workers}");
        }
    }
}

#[test]
fn pentomino_loses_no_tiling_with_a_thief_lost_while_it_holds_work() {
    let want = pentomino::known(4).unwrap();
    for (ranks, c) in [(2, 1), (3, 2)] {
        let crash = (c, Loopback::crash_stop_after_packages as fn(_, _) -> _, 1);
        let (got, stats) = cluster(ranks, 1, Some(crash), || pentomino::solve(4));
        assert_eq!(got, want, "{ranks} ranks");
        // The lost rank asks for work from its start, and the root's blocks give some away
        // while they have two placements or more left: its package is run again.
        let recovered: u64 = stats.iter().map(|s| s.packages_recovered).sum();
        assert!(
            recovered >= 1,
            "{ranks} ranks: the lost thief's work was not recovered"
        );
    }
}
