//! Instruction-count probe of the fork-join fast paths, for callgrind (valgrind), which
//! counts instructions the same way on a loaded machine as on a quiet one.
//!
//! ```sh
//! cargo build --release -p offshoot-bench --example forkcost
//! valgrind --tool=callgrind target/release/examples/forkcost fib offshoot 30 2
//! ```
//!
//! `forkcost KERNEL CONTENDER N RUNS` runs one of the suite's kernels (`fib`, `nqueens`,
//! `knapsack`, `tree-sum`; the same functions the suite times) RUNS times on 1 worker, with
//! `serial`, `plain` (the parallel algorithm with `join` replaced by two plain calls),
//! `offshoot`, `chili` or `rayon` (or `count`: `plain` counting its forks), and prints the
//! answer and, for `count`, the number of forks one run makes. The instructions of one run are the count with RUNS = 2 minus the count with
//! RUNS = 1 (pools, warm-up and start-up cancel out); `scripts/forkcost.sh` does that for
//! every contender and prints instructions per fork.
//!
//! N is the kernel's size: fib(N), nqueens(N), knapsack with N items (the suite's seed 4),
//! tree-sum of depth N.

use std::cell::Cell;
use std::hint::black_box;
use std::num::NonZeroUsize;

use offshoot_bench::kernels::{fib, knapsack, nqueens, tree_sum};
use offshoot_bench::par::{Fork, Offshoot, Rayon};

thread_local! {
    static FORKS: Cell<u64> = const { Cell::new(0) };
}

/// `join` as two plain calls; `Plain<true>` also counts the forks.
struct Plain<const COUNT: bool>;

impl<const COUNT: bool> Fork for Plain<COUNT> {
    #[inline(always)]
    fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        if COUNT {
            FORKS.with(|f| f.set(f.get() + 1));
        }
        let ra = a();
        (ra, b())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kernel, contender, n, runs] = &args[..] else {
        eprintln!(
            "usage: forkcost fib|nqueens|knapsack|tree-sum serial|plain|count|offshoot|chili|rayon N RUNS"
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
    let mut answer = 0u64;
    for _ in 0..runs {
        let n = black_box(n);
        answer = match (kernel.as_str(), contender.as_str()) {
            ("fib", "serial") => fib::serial(n.into()),
            ("fib", "plain") => fib::par::<Plain<false>>(n.into()),
            ("fib", "count") => fib::par::<Plain<true>>(n.into()),
            ("fib", "offshoot") => opool.run(|| fib::par::<Offshoot>(n.into())),
            ("fib", "rayon") => rpool.install(|| fib::par::<Rayon>(n.into())),
            ("fib", "chili") => fib::chili(&mut cpool.scope(), n.into()),
            ("nqueens", "serial") => nqueens::serial(n),
            ("nqueens", "plain") => nqueens::par::<Plain<false>>(n),
            ("nqueens", "count") => nqueens::par::<Plain<true>>(n),
            ("nqueens", "offshoot") => opool.run(|| nqueens::par::<Offshoot>(n)),
            ("nqueens", "rayon") => rpool.install(|| nqueens::par::<Rayon>(n)),
            ("nqueens", "chili") => nqueens::chili(&mut cpool.scope(), n),
            ("knapsack", c) => {
                let items = black_box(&items[..]);
                let best = match c {
                    "serial" => knapsack::serial(items, capacity),
                    "plain" => knapsack::par::<Plain<false>>(items, capacity),
                    "count" => knapsack::par::<Plain<true>>(items, capacity),
                    "offshoot" => opool.run(|| knapsack::par::<Offshoot>(items, capacity)),
                    "rayon" => rpool.install(|| knapsack::par::<Rayon>(items, capacity)),
                    "chili" => knapsack::chili(&mut cpool.scope(), items, capacity),
                    _ => panic!("unknown contender {c}"),
                };
                best as u64
            }
            ("tree-sum", c) => {
                let t = black_box(tree.expect("built above"));
                match c {
                    "serial" => tree_sum::serial(t),
                    "plain" => tree_sum::par::<Plain<false>>(t),
                    "count" => tree_sum::par::<Plain<true>>(t),
                    "offshoot" => opool.run(|| tree_sum::par::<Offshoot>(t)),
                    "rayon" => rpool.install(|| tree_sum::par::<Rayon>(t)),
                    "chili" => tree_sum::chili(&mut cpool.scope(), t),
                    _ => panic!("unknown contender {c}"),
                }
            }
            (k, c) => panic!("unknown kernel {k} or contender {c}"),
        };
    }
    let forks = FORKS.with(|f| f.get()) / u64::from(runs.max(1));
    println!("{kernel} {contender} n={n}: answer {answer}, forks per run {forks} (counted by `count` only)");
}
