//! A discrete-event model of offshoot-mpi's protocol (`model.rs`), to predict how it scales
//! past the ranks this machine can run. `scripts/mpi-sim.sh` calibrates it, checks it
//! against measured runs of 1, 2 and 4 ranks, and predicts 16 to 4096 ranks.
//!
//! ```text
//! cluster-sim calibrate                         the costs on this machine, one `key value` a line
//! cluster-sim predict TREE RANKS... [OPTIONS]   predicted seconds and efficiency per rank count
//! cluster-sim count TREE                        a tree's node count and depth
//! cluster-sim seeds TREE FROM TO                a cheap tree's size from each seed
//!   TREE: t1 t3 t1l (the benchmark's SHA-1 trees), t1-like t1xxl-like t3l-like (their
//!         shapes, made with a cheap generator, from seeds whose trees are about the
//!         published sizes: `seeds`)
//!   OPTIONS: --node-ns N --pack-ns N --unpack-ns N --node-bytes N --latency-us N
//!            --gbps N --wake-us N (an agent's wake, CPU) --nap-overshoot-us N (how much
//!            longer than asked a nap lasts) --cores N (ranks share N cores)
//!            --count (check the node count); the protocol's --push-us N --max-nap-us N
//!            --steals N (offshoot_mpi::Config's push_interval, max_nap, steal_attempts)
//!            --busy-nap-us N (Config::busy_nap) --calm-us N (Config::calm_after; 0: never
//!            calm)
//! ```
//! Efficiency is the 1-rank time of the model over `ranks ×` the model's time.

mod model;
mod tree;
#[path = "../cluster-bench/uts.rs"]
#[allow(dead_code)]
mod uts;

use std::time::Instant;

use model::{Costs, Model, Protocol};
use tree::Gen;

fn tree(name: &str) -> Gen {
    let t1xxl = uts::Shape::GeoFixed {
        b0: 4.0,
        gen_mx: 15,
    };
    let t3l = uts::Shape::Binomial {
        b0: 2000.0,
        q: 0.200014,
        m: 5,
    };
    match name {
        "t1" => Gen::Sha1(uts::T1),
        "t3" => Gen::Sha1(uts::T3),
        "t1l" => Gen::Sha1(uts::T1L),
        "t1-like" => Gen::Fast(uts::T1.shape, 14),
        "t1xxl-like" => Gen::Fast(t1xxl, T1XXL_SEED),
        "t3l-like" => Gen::Fast(t3l, T3L_SEED),
        _ => panic!("cluster-sim: unknown tree {name:?}: t1 t3 t1l t1-like t1xxl-like t3l-like"),
    }
}

/// A seed whose T1XXL-shaped tree is of the published T1XXL's order (4.2 billion nodes;
/// this one has 2.58 billion; the expected size of the shape is 1.43 billion).
const T1XXL_SEED: u64 = 12;

/// A seed whose T3L-shaped tree is about the published T3L's size (111 million nodes; this
/// one has 100.5 million): the shape is nearly critical, so most seeds give a small tree
/// and some a huge one.
const T3L_SEED: u64 = 4;

/// Nanoseconds per call of `f`, which does `n` units, over at least 0.3 s.
fn per_unit(n: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    let mut reps = 0;
    while t.elapsed().as_secs_f64() < 0.3 {
        f();
        reps += 1;
    }
    t.elapsed().as_nanos() as f64 / (reps * n) as f64
}

/// The kernel's time per node on one rank of one worker (the distributed code path, on
/// the loopback transport), and the package costs of `uts::count`'s split.
fn calibrate() {
    for (name, t) in [("t1", uts::T1), ("t3", uts::T3)] {
        let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
        let tasks = offshoot_mpi::Tasks::new().with::<uts::Bag>();
        let mut best = f64::MAX;
        for _ in 0..3 {
            let mut s = offshoot_mpi::Session::new(offshoot_mpi::loopback::cluster(1).remove(0));
            let start = Instant::now();
            let out = s
                .run(&pool, &tasks, &Default::default(), || {
                    uts::count(&t.shape, vec![uts::root(&t)])
                })
                .unwrap();
            let secs = start.elapsed().as_secs_f64();
            assert_eq!(out.value, Some(t.nodes), "calibrate: {name}'s node count");
            best = best.min(secs);
        }
        println!("node-ns-{name} {:.2}", best * 1e9 / t.nodes as f64);
    }
    // A stack of real nodes, cut and encoded as the split does; decoded as the thief does.
    let mut stack = vec![uts::root(&uts::T1)];
    while stack.len() < 2000 {
        let n = stack.remove(0);
        for i in 0..uts::num_children(&uts::T1.shape, &n) {
            stack.push(uts::child(&n, i));
        }
    }
    let n = stack.len();
    let mut bytes = Vec::new();
    let pack = per_unit(n / 2, || {
        let mut give = Vec::with_capacity(n / 2);
        let mut keep = Vec::with_capacity(n - n / 2);
        for (i, x) in stack.iter().enumerate() {
            if i % 2 == 1 {
                give.push(*x);
            } else {
                keep.push(*x);
            }
        }
        bytes = postcard::to_stdvec(&uts::Bag {
            shape: uts::T1.shape,
            nodes: give,
        })
        .unwrap();
        std::hint::black_box(&keep);
    });
    let unpack = per_unit(n / 2, || {
        let b: uts::Bag = postcard::from_bytes(&bytes).unwrap();
        std::hint::black_box(b);
    });
    // How much longer than asked the agent's nap (`park_timeout`) lasts.
    let mut over = Vec::new();
    for us in [20u64, 200] {
        let n = 100;
        let t = Instant::now();
        for _ in 0..n {
            std::thread::park_timeout(std::time::Duration::from_micros(us));
        }
        over.push(t.elapsed().as_secs_f64() * 1e6 / n as f64 - us as f64);
    }
    println!(
        "nap-overshoot-us {:.1}",
        over.iter().sum::<f64>() / over.len() as f64
    );
    println!("pack-ns {pack:.2}");
    println!("unpack-ns {unpack:.2}");
    println!("node-bytes {:.2}", bytes.len() as f64 / (n / 2) as f64);
}

fn predict(args: &[String]) {
    let name = &args[0];
    let gen = tree(name);
    let mut ranks = Vec::new();
    let mut costs = Costs {
        node_ns: 250.0,
        pack_ns: 30.0,
        unpack_ns: 30.0,
        node_bytes: 25.0,
        latency_ns: 2000.0,
        bytes_per_ns: 10.0,
        wake_ns: 1000.0,
        nap_overshoot_ns: 0.0,
        cores: None,
    };
    let mut check = false;
    let mut proto = Protocol::default();
    let mut i = 1;
    while i < args.len() {
        let num = |k: usize| -> f64 {
            args.get(k)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("cluster-sim: {} needs a number", args[k - 1]))
        };
        match args[i].as_str() {
            "--node-ns" => costs.node_ns = num(i + 1),
            "--pack-ns" => costs.pack_ns = num(i + 1),
            "--unpack-ns" => costs.unpack_ns = num(i + 1),
            "--node-bytes" => costs.node_bytes = num(i + 1),
            "--latency-us" => costs.latency_ns = num(i + 1) * 1000.0,
            "--gbps" => costs.bytes_per_ns = num(i + 1),
            "--wake-us" => costs.wake_ns = num(i + 1) * 1000.0,
            "--nap-overshoot-us" => costs.nap_overshoot_ns = num(i + 1) * 1000.0,
            "--push-us" => proto.push_interval_ns = (num(i + 1) * 1000.0) as u64,
            "--max-nap-us" => proto.max_nap_ns = (num(i + 1) * 1000.0) as u64,
            "--busy-nap-us" => proto.busy_nap_ns = (num(i + 1) * 1000.0) as u64,
            "--calm-us" => {
                let ns = (num(i + 1) * 1000.0) as u64;
                proto.calm_after_ns = (ns > 0).then_some(ns);
            }
            "--steals" => proto.steal_attempts = num(i + 1) as usize,
            "--cores" => costs.cores = Some(num(i + 1) as usize),
            "--count" => {
                check = true;
                i += 1;
                continue;
            }
            r => {
                ranks.push(r.parse::<usize>().unwrap_or_else(|_| {
                    panic!("cluster-sim: {r:?} is neither a rank count nor an option")
                }));
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    assert!(
        !ranks.is_empty() && ranks.iter().all(|&r| r > 0),
        "cluster-sim: give one or more rank counts"
    );
    let want = check.then(|| gen.count());
    let one = Model::new(&gen, 1, costs.clone(), proto.clone()).run();
    if let Some(w) = want {
        assert_eq!(
            one.nodes, w,
            "cluster-sim: the model expanded a node twice or never"
        );
    }
    println!(
        "{:<11} {:>6} {:>12} {:>9} {:>9} {:>10} {:>12}",
        "tree", "ranks", "seconds", "speedup", "eff", "packages", "MB sent"
    );
    for &p in &ranks {
        let o = if p == 1 {
            one.clone()
        } else {
            Model::new(&gen, p, costs.clone(), proto.clone()).run()
        };
        assert_eq!(
            o.nodes, one.nodes,
            "cluster-sim: {p} ranks expanded another tree"
        );
        let speedup = one.time_ns as f64 / o.time_ns as f64;
        println!(
            "{:<11} {:>6} {:>12.4} {:>9.2} {:>9.3} {:>10} {:>12.2}",
            name,
            p,
            o.time_ns as f64 / 1e9,
            speedup,
            speedup / p as f64,
            o.packages,
            o.bytes as f64 / 1e6
        );
    }
    println!("# {name}: {} nodes", one.nodes);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("calibrate") => calibrate(),
        Some("predict") if args.len() >= 3 => predict(&args[1..]),
        Some("count") if args.len() == 2 => {
            let (n, d) = tree(&args[1]).count_and_depth();
            println!("{} nodes {n} depth {d}", args[1]);
        }
        Some("seeds") if args.len() == 4 => {
            // The sizes of a cheap tree's shape from other seeds (up to 10 billion nodes):
            // how the seeds of the `-like` trees were chosen.
            let (from, to): (u64, u64) = (args[2].parse().unwrap(), args[3].parse().unwrap());
            let g = tree(&args[1]);
            for s in from..to {
                match g.with_seed(s).count_upto(10_000_000_000) {
                    Some(n) => println!("seed {s} nodes {n}"),
                    None => println!("seed {s} nodes >1e10"),
                }
            }
        }
        _ => {
            eprintln!(
                "usage: cluster-sim calibrate | cluster-sim predict TREE RANKS... [OPTIONS] | \
                 cluster-sim count TREE"
            );
            std::process::exit(2);
        }
    }
}
