//! Instruction-count probe of the fork-join kernels' fork, for callgrind (valgrind), which
//! counts instructions the same way on a loaded machine as on a quiet one.
//!
//! ```sh
//! cargo build --release -p offshoot-bench --example forkcost
//! valgrind --tool=callgrind target/release/examples/forkcost fib offshoot 27 2
//! ```
//!
//! `forkcost KERNEL CONTENDER N RUNS` runs one of the suite's fork-join kernels (`fib`,
//! `nqueens`, `knapsack`, `tree-sum`) RUNS times on 1 worker with `serial`, `offshoot`,
//! `chili` or `rayon` (or `futures-fib` with `serial`, `offshoot` — `spawn_future` —,
//! `scoped` — `with_future` — or `handle` — `spawn_async` and `Handle::wait`) — the very functions the suite times, each a plain function written
//! as a user writes it, compiled in the bench library as a user's crate is (the workspace's
//! default release profile) — and prints the answer and the number of joins one run makes
//! (the kernel's `forks`). The instructions of one run are the count with RUNS = 2 minus the
//! count with RUNS = 1 (pools, warm-up and start-up cancel out); `scripts/forkcost.sh` does
//! that for every contender and prints, per fork, the contender's count minus the plain
//! serial function's.
//!
//! N is the kernel's size: fib(N), nqueens(N), knapsack with N items (the suite's seed 4),
//! tree-sum of depth N, and for `grain-G` (G a power of 4: the suite's `grain-G` kernels,
//! leaves of G xor-multiplies) a tree of depth N, 2^N leaves and 2^N - 1 joins
//! (`scripts/grain.sh` sweeps G).

use std::hint::black_box;
use std::num::NonZeroUsize;

use offshoot_bench::kernels::grain::{self, Grain};
use offshoot_bench::kernels::{fib, futures_fib, knapsack, nqueens, tree_sum};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kernel, contender, n, runs] = &args[..] else {
        eprintln!(
            "usage: forkcost fib|nqueens|knapsack|tree-sum|grain-G serial|offshoot|chili|rayon N RUNS \
             (futures-fib: serial|offshoot|scoped|handle)"
        );
        std::process::exit(2);
    };
    let n: u32 = n.parse().expect("N: a number");
    let runs: u32 = runs.parse().expect("RUNS: a number");
    let one = NonZeroUsize::MIN;
    let opool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    let rpool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let cpool = chili::ThreadPool::with_config(chili::Config {
        thread_count: Some(one),
        ..Default::default()
    });
    let (items, capacity) = knapsack::instance(n as usize, 4);
    let tree = (kernel == "tree-sum").then(|| tree_sum::build(n));
    let tree = tree.as_deref();
    let grain = kernel.strip_prefix("grain-").map(|g| Grain {
        depth: n,
        g: g.parse().expect("grain-G: G a number"),
    });
    let forks = match kernel.as_str() {
        _ if grain.is_some() => grain::forks(n),
        "fib" | "futures-fib" => fib::forks(n.into()),
        "nqueens" => nqueens::forks(n),
        "knapsack" => knapsack::forks(&items, capacity),
        "tree-sum" => tree_sum::forks(tree.expect("built above")),
        k => panic!("unknown kernel {k}"),
    };
    let mut answer = 0u64;
    for _ in 0..runs {
        let n = black_box(n);
        answer = match (kernel.as_str(), contender.as_str()) {
            ("fib", "serial") => fib::serial(n.into()),
            ("fib", "offshoot") => opool.run(|| fib::offshoot(n.into())),
            ("fib", "rayon") => rpool.install(|| fib::rayon(n.into())),
            ("fib", "chili") => fib::chili(&mut cpool.scope(), n.into()),
            ("futures-fib", "serial") => fib::serial(n.into()),
            ("futures-fib", "offshoot") => opool.run(|| futures_fib::offshoot(n.into())),
            ("futures-fib", "scoped") => opool.run(|| futures_fib::by_scoped_futures(n.into())),
            ("futures-fib", "handle") => opool.run(|| futures_fib::by_handles(n.into())),
            ("nqueens", "serial") => nqueens::serial(n),
            ("nqueens", "offshoot") => opool.run(|| nqueens::offshoot(n)),
            ("nqueens", "rayon") => rpool.install(|| nqueens::rayon(n)),
            ("nqueens", "chili") => nqueens::chili(&mut cpool.scope(), n),
            ("knapsack", c) => {
                let items = black_box(&items[..]);
                let best = match c {
                    "serial" => knapsack::serial(items, capacity),
                    "offshoot" => opool.run(|| knapsack::offshoot(items, capacity)),
                    "rayon" => rpool.install(|| knapsack::rayon(items, capacity)),
                    "chili" => knapsack::chili(&mut cpool.scope(), items, capacity),
                    _ => panic!("unknown contender {c}"),
                };
                best as u64
            }
            ("tree-sum", c) => {
                let t = black_box(tree.expect("built above"));
                match c {
                    "serial" => tree_sum::serial(t),
                    "offshoot" => opool.run(|| tree_sum::offshoot(t)),
                    "rayon" => rpool.install(|| tree_sum::rayon(t)),
                    "chili" => tree_sum::chili(&mut cpool.scope(), t),
                    _ => panic!("unknown contender {c}"),
                }
            }
            (_, c) if grain.is_some() => {
                let t = black_box(grain.expect("tested"));
                match c {
                    "serial" => grain::serial(t),
                    "offshoot" => opool.run(|| grain::offshoot(t)),
                    "rayon" => rpool.install(|| grain::rayon(t)),
                    "chili" => grain::chili(&mut cpool.scope(), t),
                    _ => panic!("unknown contender {c}"),
                }
            }
            (k, c) => panic!("unknown kernel {k} or contender {c}"),
        };
    }
    println!("{kernel} {contender} n={n}: answer {answer}, forks per run {forks}");
}
