//! The distributed kernels, one run per process: `scripts/mpi-bench.sh` runs them side by
//! side (serial, plain offshoot, and 1, 2 and 4 ranks under `mpirun`) and prints the table.
//!
//! ```text
//! cluster-bench KERNEL serial
//! cluster-bench KERNEL plain WORKERS
//! cluster-bench KERNEL loopback RANKS WORKERS           (ranks as threads, no MPI)
//! mpirun -np RANKS cluster-bench KERNEL mpi WORKERS     (built with --features mpi)
//! ```
//! KERNEL: uts-t1, uts-t3, uts-t1l, queens-N, knapsack-N, pentomino-W (W = 3 to 6: a board
//! W cells wide and 60 / W long). Each run checks its answer (the published UTS node
//! counts; the known counts for queens and pentomino; the dynamic-programming optimum for
//! knapsack) and prints one line: `kernel mode ranks workers seconds answer` and, on
//! rank 0 of an MPI run, each rank's statistics. `CLUSTER_BENCH_RUNS=N` makes an MPI run N
//! runs on one session, one line each.

mod knapsack;
mod pentomino;
mod queens;
mod uts;

use std::time::Instant;

enum Kernel {
    Uts(uts::Tree),
    Queens(u32),
    Knapsack(usize),
    Pentomino(u32),
}

impl Kernel {
    fn parse(s: &str) -> Kernel {
        match s {
            "uts-t1" => Kernel::Uts(uts::T1),
            "uts-t3" => Kernel::Uts(uts::T3),
            "uts-t1l" => Kernel::Uts(uts::T1L),
            _ if s.starts_with("queens-") => Kernel::Queens(s[7..].parse().expect("queens-N")),
            _ if s.starts_with("knapsack-") => {
                Kernel::Knapsack(s[9..].parse().expect("knapsack-N"))
            }
            _ if s.starts_with("pentomino-") => match s[10..].parse() {
                Ok(w) if (3..=6).contains(&w) => Kernel::Pentomino(w),
                _ => panic!("pentomino-W: a board width W of 3 to 6"),
            },
            _ => panic!(
                "unknown kernel {s:?}: uts-t1, uts-t3, uts-t1l, queens-N, knapsack-N, pentomino-W"
            ),
        }
    }

    fn tasks() -> offshoot_mpi::Tasks {
        offshoot_mpi::Tasks::new()
            .with::<uts::Bag>()
            .with::<queens::Half>()
            .with::<knapsack::Branch>()
            .with::<pentomino::Part>()
    }

    /// The parallel computation (plain offshoot outside a run, distributed inside one).
    fn parallel(&self) -> u64 {
        match self {
            Kernel::Uts(t) => uts::count(&t.shape, vec![uts::root(t)]),
            Kernel::Queens(n) => queens::solve(*n),
            Kernel::Knapsack(n) => {
                let (items, cap) = knapsack::instance(*n, 7);
                knapsack::solve(&items, 0, cap, 0) as u64
            }
            Kernel::Pentomino(w) => pentomino::solve(*w),
        }
    }

    fn serial(&self) -> u64 {
        match self {
            Kernel::Uts(t) => uts::count_serial(&t.shape, uts::root(t)),
            Kernel::Queens(n) => queens::serial(*n, 0, 0, 0, 0),
            Kernel::Knapsack(n) => {
                let (items, cap) = knapsack::instance(*n, 7);
                let mut best = 0;
                knapsack::serial(&items, 0, cap, 0, &mut best);
                best as u64
            }
            Kernel::Pentomino(w) => pentomino::serial(*w),
        }
    }

    /// The right answer, known without running the kernel where it can be.
    fn expected(&self) -> Option<u64> {
        match self {
            Kernel::Uts(t) if t.nodes > 0 => Some(t.nodes),
            Kernel::Queens(n) => [
                1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
                95815104,
            ]
            .get(*n as usize - 1)
            .copied(),
            Kernel::Knapsack(n) => {
                let (items, cap) = knapsack::instance(*n, 7);
                Some(knapsack::dp(&items, cap) as u64)
            }
            Kernel::Pentomino(w) => pentomino::known(*w),
            _ => None,
        }
    }
}

/// The protocol's settings: `Config::default()`, with `CLUSTER_BENCH_BUSY_NAP_US`,
/// `CLUSTER_BENCH_PUSH_US` and `CLUSTER_BENCH_CALM_US` (microseconds; a calm of 0 turns
/// calm spells off) to try others.
fn config() -> offshoot_mpi::Config {
    let us = |k: &str| {
        std::env::var(k).ok().map(|v| {
            std::time::Duration::from_micros(v.parse().unwrap_or_else(|_| panic!("{k}: µs")))
        })
    };
    let mut c = offshoot_mpi::Config::default();
    if let Some(d) = us("CLUSTER_BENCH_BUSY_NAP_US") {
        c.busy_nap = d;
    }
    if let Some(d) = us("CLUSTER_BENCH_PUSH_US") {
        c.push_interval = d;
    }
    if let Some(d) = us("CLUSTER_BENCH_CALM_US") {
        c.calm_after = (!d.is_zero()).then_some(d);
    }
    c
}

fn check(k: &Kernel, got: u64) {
    if let Some(want) = k.expected() {
        assert_eq!(got, want, "wrong answer");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cluster-bench KERNEL serial|plain WORKERS|mpi WORKERS");
        std::process::exit(2);
    }
    if args[1] == "pingpong" {
        // mpirun -np 2 cluster-bench pingpong mpi: the transport's one-way latency and
        // bandwidth, for the protocol model (examples/cluster-sim).
        pingpong();
        return;
    }
    let kernel = Kernel::parse(&args[1]);
    let workers: usize = args
        .get(3)
        .map(|w| w.parse().expect("WORKERS"))
        .unwrap_or(1);
    match args[2].as_str() {
        "serial" => {
            let t = Instant::now();
            let got = kernel.serial();
            let s = t.elapsed().as_secs_f64();
            check(&kernel, got);
            println!("{} serial 1 1 {s:.4} {got}", args[1]);
        }
        "plain" => {
            let pool = offshoot::ThreadPool::builder()
                .workers(workers)
                .build()
                .unwrap();
            let t = Instant::now();
            let got = pool.run(|| kernel.parallel());
            let s = t.elapsed().as_secs_f64();
            check(&kernel, got);
            println!("{} plain 1 {workers} {s:.4} {got}", args[1]);
            if std::env::var_os("CLUSTER_BENCH_STATS").is_some() {
                println!("  {:?}", pool.stats());
            }
        }
        "loopback" => {
            // RANKS ranks as threads of this process, on the loopback transport: the
            // protocol's cost without MPI's (args: KERNEL loopback RANKS WORKERS).
            let ranks: usize = args.get(3).map(|r| r.parse().expect("RANKS")).unwrap_or(1);
            let workers: usize = args
                .get(4)
                .map(|w| w.parse().expect("WORKERS"))
                .unwrap_or(1);
            let tasks = Kernel::tasks();
            let t = Instant::now();
            let got = std::thread::scope(|sc| {
                let hs: Vec<_> = offshoot_mpi::loopback::cluster(ranks)
                    .into_iter()
                    .map(|tr| {
                        let (tasks, kernel) = (&tasks, &kernel);
                        sc.spawn(move || {
                            let pool = offshoot::ThreadPool::builder()
                                .workers(workers)
                                .build()
                                .unwrap();
                            offshoot_mpi::Session::new(tr)
                                .run(&pool, tasks, &config(), || kernel.parallel())
                                .expect("run")
                                .value
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).next().flatten()
            })
            .expect("rank 0 has the value");
            let s = t.elapsed().as_secs_f64();
            check(&kernel, got);
            println!("{} loopback {ranks} {workers} {s:.4} {got}", args[1]);
        }
        "mpi" => mpi_run(&args[1], &kernel, workers),
        "pingpong" => pingpong(),
        m => panic!("unknown mode {m:?}"),
    }
}

#[cfg(feature = "mpi")]
fn mpi_run(name: &str, kernel: &Kernel, workers: usize) {
    // The session keeps MPI initialized until the end of this function: the timed run
    // does not include MPI_Finalize (about 50 ms here), as a program's second run would not.
    let mut session = offshoot_mpi::Session::new(offshoot_mpi::Mpi::init().expect("MPI"));
    let ranks = session.size();
    let pool = offshoot::ThreadPool::builder()
        .workers(workers)
        .build()
        .unwrap();
    let tasks = Kernel::tasks();
    // CLUSTER_BENCH_RUNS=N: N runs one after another on the session (each checked, one
    // line each; the statistics of the last).
    let runs: usize = std::env::var("CLUSTER_BENCH_RUNS")
        .ok()
        .map(|r| r.parse().expect("CLUSTER_BENCH_RUNS: a count"))
        .unwrap_or(1);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let out = session
            .run(&pool, &tasks, &config(), || kernel.parallel())
            .expect("run");
        let s = t.elapsed().as_secs_f64();
        if let Some(got) = out.value {
            check(kernel, got);
            println!("{name} mpi {ranks} {workers} {s:.4} {got}");
        }
        last = Some(out);
    }
    if let Some(out) = last.filter(|o| o.value.is_some()) {
        for st in &out.stats {
            println!(
                "  rank {} steals {} won {} packages-sent {} packages-run {} recovered {} bytes {} idle-ms {:.1}",
                st.rank,
                st.steals_sent,
                st.steals_won,
                st.packages_sent,
                st.packages_run,
                st.packages_recovered,
                st.bytes_sent,
                st.idle_us as f64 / 1000.0
            );
        }
    }
}

/// Half the round trip of a small message, and the bandwidth of large ones, between ranks
/// 0 and 1 over the MPI transport (through `Transport`, as the agent sends).
#[cfg(feature = "mpi")]
fn pingpong() {
    use offshoot_mpi::Transport;
    let mut mpi = offshoot_mpi::Mpi::init().expect("MPI");
    assert!(mpi.size() >= 2, "pingpong: run it with mpirun -np 2");
    let me = mpi.rank();
    if me > 1 {
        return;
    }
    let other = 1 - me;
    let mut exchange = |size: usize, rounds: usize| -> f64 {
        let t = Instant::now();
        for _ in 0..rounds {
            if me == 0 {
                mpi.send(other, vec![7u8; size]);
            }
            let got = loop {
                if let Some((_, b)) = mpi.try_recv() {
                    break b;
                }
            };
            assert_eq!(got.len(), size, "pingpong: a message of the wrong size");
            if me == 1 {
                mpi.send(other, got);
            }
        }
        mpi.flush();
        t.elapsed().as_secs_f64() / rounds as f64 / 2.0
    };
    exchange(16, 1000);
    let small = exchange(16, 20_000);
    let big = exchange(1 << 20, 200);
    // What an agent's look at an empty network costs (its every wake makes one).
    let t = Instant::now();
    let probes = 100_000;
    for _ in 0..probes {
        assert!(
            mpi.try_recv().is_none(),
            "pingpong: a message after the last round"
        );
    }
    let probe = t.elapsed().as_secs_f64() / probes as f64;
    // What an agent's wake costs in CPU: a probe and a nap, as a busy rank's agent does,
    // both ranks at once; the thread's CPU time from /proc (Linux; 100 ticks a second).
    let cpu = || -> Option<f64> {
        let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        let f: Vec<&str> = s.rsplit(')').next()?.split_whitespace().collect();
        Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
    };
    let wakes = 5000;
    let before = cpu();
    for _ in 0..wakes {
        assert!(
            mpi.try_recv().is_none(),
            "pingpong: a message after the last round"
        );
        std::thread::park_timeout(std::time::Duration::from_micros(200));
    }
    let wake = before.zip(cpu()).map(|(a, b)| (b - a) / wakes as f64);
    if me == 0 {
        println!(
            "pingpong latency-us {:.3} bandwidth-gb/s {:.3} probe-us {:.3} wake-us {:.1}",
            small * 1e6,
            (1 << 20) as f64 / big / 1e9,
            probe * 1e6,
            wake.map_or(f64::NAN, |w| w * 1e6)
        );
    }
}

#[cfg(not(feature = "mpi"))]
fn pingpong() {
    mpi_run("pingpong", &Kernel::Queens(1), 1);
}

#[cfg(not(feature = "mpi"))]
fn mpi_run(_: &str, _: &Kernel, _: usize) {
    eprintln!("cluster-bench: built without the `mpi` feature (cargo build --features mpi)");
    std::process::exit(2);
}
