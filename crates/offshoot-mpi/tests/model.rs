//! The protocol model of `examples/cluster-sim`: it must expand every node of the tree
//! exactly once on any number of ranks, charge one rank exactly the tree's work, be
//! deterministic, and let more ranks finish a large enough tree sooner.

#[path = "../examples/cluster-bench/uts.rs"]
#[allow(dead_code)]
mod uts;

#[path = "../examples/cluster-sim/tree.rs"]
#[allow(dead_code)]
mod tree;

#[path = "../examples/cluster-sim/model.rs"]
#[allow(dead_code)]
mod model;

use model::{Costs, Model, Protocol};
use tree::Gen;

fn costs() -> Costs {
    Costs {
        node_ns: 100.0,
        pack_ns: 30.0,
        unpack_ns: 50.0,
        node_bytes: 21.0,
        latency_ns: 2000.0,
        bytes_per_ns: 5.0,
        wake_ns: 300.0,
        nap_overshoot_ns: 50_000.0,
        cores: None,
    }
}

/// A geometric tree of a few tens of thousands of nodes.
fn small() -> Gen {
    let shape = uts::Shape::GeoFixed { b0: 4.0, gen_mx: 7 };
    (1..)
        .map(|s| Gen::Fast(shape, s))
        .find(|g| g.count_upto(200_000).is_some_and(|n| n > 20_000))
        .expect("a seed with a tree of that size")
}

#[test]
fn every_node_is_expanded_once_on_any_number_of_ranks() {
    let g = small();
    let want = g.count();
    for ranks in [1, 2, 3, 4, 7, 16, 33] {
        let o = Model::new(&g, ranks, costs(), Protocol::default()).run();
        assert_eq!(o.nodes, want, "{ranks} ranks");
    }
    let bin = Gen::Fast(uts::T3.shape, 5);
    let want = bin.count_upto(5_000_000).expect("a finite tree");
    let o = Model::new(&bin, 8, costs(), Protocol::default()).run();
    assert_eq!(o.nodes, want, "binomial, 8 ranks");
}

#[test]
fn one_rank_is_charged_the_tree_s_work_and_runs_are_deterministic() {
    let g = small();
    let n = g.count();
    let one = Model::new(&g, 1, costs(), Protocol::default()).run();
    // Each node costs node_ns; the run ends at the root's frame (no messages alone).
    assert_eq!(one.time_ns, n * 100);
    assert_eq!(one.packages, 0);
    let a = Model::new(&g, 5, costs(), Protocol::default()).run();
    let b = Model::new(&g, 5, costs(), Protocol::default()).run();
    assert_eq!(
        (a.time_ns, a.packages, a.steals),
        (b.time_ns, b.packages, b.steals)
    );
}

#[test]
fn more_ranks_finish_a_large_tree_sooner_and_shared_cores_slow_them() {
    let g = Gen::Fast(
        uts::Shape::GeoFixed {
            b0: 4.0,
            gen_mx: 10,
        },
        14,
    );
    let t = |ranks, cores| {
        let c = Costs { cores, ..costs() };
        Model::new(&g, ranks, c, Protocol::default()).run()
    };
    let (one, four) = (t(1, None), t(4, None));
    assert!(four.packages > 0, "work moved between ranks");
    assert!(
        four.time_ns * 2 < one.time_ns,
        "4 ranks: {} ns, 1 rank: {} ns",
        four.time_ns,
        one.time_ns
    );
    // Four ranks on two cores: no faster than two ranks of their own core each could be.
    let shared = t(4, Some(2));
    assert!(
        shared.time_ns * 2 >= one.time_ns,
        "4 ranks on 2 cores beat 2 cores' worth"
    );
}
