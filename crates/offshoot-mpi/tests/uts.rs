//! UTS trees over the loopback transport: the search shape (`offshoot_mpi::handle`, a bag of
//! nodes split on request), node counts checked against the serial count, and thieves that
//! crash-stop at random points: no node may be lost or counted twice.

#[path = "../examples/cluster-bench/uts.rs"]
#[allow(dead_code)]
mod uts;

use std::time::Duration;

use offshoot::ThreadPool;
use offshoot_mpi::{loopback, Config, Tasks};

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

/// Runs `tree` on `ranks` ranks of `workers`; rank `crash` (if any) crash-stops after
/// receiving `after` messages. Returns rank 0's count and its statistics.
fn run(
    tree: uts::Tree,
    ranks: usize,
    workers: usize,
    crash: Option<(usize, usize)>,
) -> (u64, Vec<offshoot_mpi::RankStats>) {
    let cfg = Config {
        fault_timeout: Some(Duration::from_millis(250)),
        ..Config::default()
    };
    let tasks = Tasks::new().with::<uts::Bag>();
    let out: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = loopback::cluster(ranks)
            .into_iter()
            .enumerate()
            .map(|(r, t)| {
                let t = match crash {
                    Some((c, after)) if c == r => t.crash_stop_after(after),
                    _ => t,
                };
                let (tasks, cfg) = (&tasks, &cfg);
                s.spawn(move || {
                    let pool = ThreadPool::builder().workers(workers).build().unwrap();
                    offshoot_mpi::Session::new(t)
                        .run(&pool, tasks, cfg, || {
                            uts::count(&tree.shape, vec![uts::root(&tree)])
                        })
                        .unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let f = out.into_iter().next().unwrap();
    (f.value.unwrap(), f.stats)
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
