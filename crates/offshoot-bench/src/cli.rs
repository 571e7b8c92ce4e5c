//! Command line, and the top-level flow of a suite or micro run.
//!
//! `offshoot-bench [quick|full|micro] [options]`: builds the pools, runs the
//! suite (or the microbenchmarks), prints the tables, writes the requested
//! files (every one through `write_file`, which creates missing parent
//! directories and names the path in its errors). Exit status: 0 when every answer was right, 1 on a wrong answer, a
//! panic or an error, 2 on bad arguments (clap), 3 when a run exceeded
//! `--run-timeout`. A peer in another language that runs past `--peer-timeout` is killed and
//! skipped for that kernel, with a line saying so; the exit status stays 0.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::harness::{self, Contender, KernelResult, Plan, Pools, Progress};
use crate::kernels::{self, Size};
use crate::machine::{self, Machine};
use crate::peers::Peers;
use crate::report::{self, Report};

/// What to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Every kernel on small inputs: under a minute on 2 cores.
    Quick,
    /// The papers' input sizes (or the nearest that fit 24 GiB): several minutes.
    Full,
    /// Nanoseconds per primitive: join not taken, poll, steal round trip.
    Micro,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Quick => "quick",
            Mode::Full => "full",
            Mode::Micro => "micro",
        }
    }
}

/// offshoot-bench: fork-join kernels on serial, offshoot, rayon and chili,
/// and waiting kernels on serial, offshoot, tokio and OS threads, side by
/// side, every answer checked.
#[derive(Debug, Parser)]
#[command(name = "offshoot-bench", version)]
pub struct Cli {
    /// quick (under a minute), full (paper-sized inputs) or micro (primitives).
    #[arg(value_enum, default_value_t = Mode::Quick)]
    pub mode: Mode,

    /// Kernels to run, comma-separated (default: all; see --list).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,

    /// Worker counts, comma-separated (default: 1 and every available core).
    #[arg(long, value_delimiter = ',', value_name = "COUNTS")]
    pub workers: Vec<usize>,

    /// Timed rounds per kernel (default: 3 in quick, 7 in full), or batches
    /// per microbenchmark (default 15).
    #[arg(long, value_name = "N")]
    pub runs: Option<usize>,

    /// Write all measurements as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write a Markdown report (machine, command, tables, kernel notes).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write an SVG chart of time ÷ serial time per kernel.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Run every kernel on every contender once and check the answers; no
    /// timing judgement (what CI runs).
    #[arg(long)]
    pub check_only: bool,

    /// Also print offshoot's scheduler counters (tasks materialized, requests,
    /// steal-backs) under each kernel's table.
    #[arg(long, short)]
    pub verbose: bool,

    /// Give up (exit 3) when a single run takes longer than this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub run_timeout: u64,

    /// Bound on one invocation of a peer in another language (its warm-ups, serial and
    /// parallel runs together), in seconds (fractions allowed). A peer past it is killed and
    /// skipped for the rest of that kernel, with a one-line reason; the run goes on. Peers
    /// are bounded by this, not by --run-timeout.
    #[arg(long, value_name = "SECONDS", default_value = "120", value_parser = parse_bound)]
    pub peer_timeout: Duration,

    /// Peers in other languages to run, comma-separated (`c-openmp`, `go`, `java`,
    /// `c-openmp-clang`, `cpp-tbb`), `all`, or `none`. Default: every peer whose toolchain
    /// is installed with `--check-only` (their answers are checked), none in a timed run — a
    /// peer without a cutoff takes seconds a run (Go's goroutine per call on `fib`), which
    /// would break quick mode's minute; name them to time them.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub peers: Vec<String>,

    /// Instead of the suite: run this kernel's offshoot version once with the timeline
    /// trace on (at the mode's input size, on each --workers count; default: every core),
    /// check its answer, and write the Perfetto/Chrome trace JSON, an SVG timeline and a
    /// per-worker CSV into --profile-dir; print where each worker's time went. It also runs
    /// once measuring work and span (offshoot::metrics) and writes a Cilkscale CSV and an SVG
    /// of the speedup bounds with the speedups measured at 1, 2, 4, ... workers.
    #[arg(long, value_name = "KERNEL")]
    pub profile_run: Option<String>,

    /// Which of the kernel's offshoot versions --profile-run runs (offshoot, offshoot-tasks,
    /// offshoot-actors, offshoot-fj, offshoot-ct, offshoot-af).
    #[arg(long, value_name = "NAME", default_value = "offshoot")]
    pub profile_contender: String,

    /// Where --profile-run writes its files.
    #[arg(long, value_name = "DIR", default_value = "profile")]
    pub profile_dir: PathBuf,

    /// List the kernels and exit.
    #[arg(long)]
    pub list: bool,
}

/// A positive, finite number of seconds (`--peer-timeout`).
fn parse_bound(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if seconds.is_nan() || seconds <= 0.0 {
        return Err("the bound must be more than 0 seconds".to_string());
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("`{text}`: {e}"))
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // Deep recursion (UTS T3 is 1,572 levels deep, about 4,700 nested joins)
    // needs more than the 2 MiB that spawned threads get by default. All three
    // runtimes start their threads with Rust's default stack size, which
    // RUST_MIN_STACK sets; setting it here, before any thread exists, gives
    // every contender the same 64 MiB (address space; memory is committed only
    // as it is touched). A value set by the user is left alone.
    if std::env::var_os("RUST_MIN_STACK").is_none() {
        std::env::set_var("RUST_MIN_STACK", (64usize << 20).to_string());
    }
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    if cli.list {
        for k in kernels::all() {
            let contenders: Vec<&str> = k.contenders().iter().map(|c| c.name()).collect();
            println!(
                "{:<9} {} (cutoff: {}; {}; vs serial: {})",
                k.name,
                k.about,
                k.cutoff,
                k.source,
                contenders.join(", ")
            );
        }
        return Ok(());
    }
    if cli.runs == Some(0) {
        return Err("--runs must be at least 1".to_string());
    }
    if cfg!(debug_assertions) && !cli.check_only {
        eprintln!("warning: this is a debug build; timings are meaningless (use --release)");
    }
    if let Some(name) = &cli.profile_run {
        return run_profile(cli, name);
    }
    match cli.mode {
        Mode::Micro => run_micro(cli),
        Mode::Quick | Mode::Full => run_suite(cli),
    }
}

/// `--profile-run KERNEL`: see [`crate::profile`].
fn run_profile(cli: &Cli, name: &str) -> Result<(), String> {
    let kernel = kernels::find(name.trim()).ok_or_else(|| {
        let names: Vec<&str> = kernels::all().iter().map(|k| k.name).collect();
        format!("unknown kernel `{name}`; kernels: {}", names.join(", "))
    })?;
    let size = match cli.mode {
        Mode::Full => Size::Full,
        Mode::Quick => Size::Quick,
        Mode::Micro => return Err("--profile-run runs a kernel: use quick or full".to_string()),
    };
    let workers = if cli.workers.is_empty() {
        vec![machine::available_parallelism()]
    } else {
        worker_counts(cli)?
    };
    for w in workers {
        let p = crate::profile::profile_run(
            &kernel,
            &cli.profile_contender,
            size,
            w,
            &cli.profile_dir,
        )?;
        print!("{}", crate::profile::render(&p));
    }
    Ok(())
}

/// The command line as a cargo invocation, for the reports.
fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).map(|a| shell_quote(&a)).collect();
    format!(
        "cargo run --release -p offshoot-bench -- {}",
        args.join(" ")
    )
}

fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,=:".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

fn worker_counts(cli: &Cli) -> Result<Vec<usize>, String> {
    let mut workers = if cli.workers.is_empty() {
        vec![1, machine::available_parallelism()]
    } else {
        cli.workers.clone()
    };
    if workers.contains(&0) {
        return Err("worker counts must be at least 1".to_string());
    }
    workers.sort_unstable();
    workers.dedup();
    Ok(workers)
}

/// The peers `--peers` names (`all`, `none`, or names); without the option, all of them
/// in check-only mode and none in a timed run.
fn select_peers(cli: &Cli) -> Result<Vec<Contender>, String> {
    let all: Vec<Contender> = Contender::PARALLEL
        .into_iter()
        .filter(|c| c.is_peer())
        .collect();
    if cli.peers.is_empty() {
        return Ok(if cli.check_only { all } else { Vec::new() });
    }
    if cli.peers.len() == 1 && cli.peers[0].trim() == "all" {
        return Ok(all);
    }
    if cli.peers.len() == 1 && cli.peers[0].trim() == "none" {
        return Ok(Vec::new());
    }
    cli.peers
        .iter()
        .map(|name| {
            all.iter()
                .copied()
                .find(|c| c.name() == name.trim())
                .ok_or_else(|| {
                    let names: Vec<&str> = all.iter().map(|c| c.name()).collect();
                    format!(
                        "unknown peer `{name}`; peers: {}, or all, or none",
                        names.join(", ")
                    )
                })
        })
        .collect()
}

fn select_kernels(cli: &Cli) -> Result<Vec<kernels::KernelInfo>, String> {
    if cli.kernels.is_empty() {
        return Ok(kernels::all());
    }
    cli.kernels
        .iter()
        .map(|name| {
            kernels::find(name.trim()).ok_or_else(|| {
                let names: Vec<&str> = kernels::all().iter().map(|k| k.name).collect();
                format!("unknown kernel `{name}`; kernels: {}", names.join(", "))
            })
        })
        .collect()
}

/// Progress bar on a terminal, nothing otherwise; kernel tables are printed
/// as each kernel finishes.
struct Bar {
    bar: ProgressBar,
    workers: Vec<usize>,
    check_only: bool,
    verbose: bool,
}

impl Progress for Bar {
    fn start(&self, kernel: &str, what: &str) {
        self.bar.set_message(format!("{kernel}: {what}"));
    }
    fn finish_run(&self) {
        self.bar.inc(1);
    }
    fn note(&self, line: &str) {
        self.bar.suspend(|| println!("{line}"));
    }
    fn kernel_done(&self, result: &KernelResult) {
        let table = report::kernel_table(result, &self.workers, self.check_only, self.verbose);
        self.bar.suspend(|| print!("{table}"));
    }
}

/// CPU used by the (idle) pools over a quarter second, in % of one core.
fn idle_pool_cpu(pools: &[Pools]) -> Option<f64> {
    // Start every pool's threads, then let them settle.
    for p in pools {
        p.offshoot
            .run(|| std::hint::black_box(offshoot::join(|| 1, || 2)));
        p.rayon
            .install(|| std::hint::black_box(rayon::join(|| 1, || 2)));
        let mut s = p.chili.scope();
        std::hint::black_box(s.join(|_| 1, |_| 2));
        let _ = std::hint::black_box(p.tokio.block_on(p.tokio.spawn(async { 1 })));
    }
    std::thread::sleep(Duration::from_millis(50));
    let before = machine::cpu_time()?;
    let t = Instant::now();
    std::thread::sleep(Duration::from_millis(250));
    let used = machine::cpu_time()?.saturating_sub(before);
    Some(100.0 * used.as_secs_f64() / t.elapsed().as_secs_f64())
}

fn run_suite(cli: &Cli) -> Result<(), String> {
    let started = Instant::now();
    let date = machine::utc_now();
    let size = if cli.mode == Mode::Full {
        Size::Full
    } else {
        Size::Quick
    };
    let plan = Plan {
        kernels: select_kernels(cli)?,
        size,
        workers: worker_counts(cli)?,
        runs: cli.runs.unwrap_or(if size == Size::Full { 7 } else { 3 }),
        check_only: cli.check_only,
        run_timeout: Duration::from_secs(cli.run_timeout),
        peer_timeout: cli.peer_timeout,
        peers: Peers::none(),
    };
    let mut plan = plan;
    let chosen = select_peers(cli)?;
    let wanted: Vec<Contender> = plan
        .kernels
        .iter()
        .flat_map(|k| k.contenders().iter().copied())
        .filter(|c| c.is_peer() && chosen.contains(c))
        .collect();
    if !wanted.is_empty() {
        plan.peers = Peers::build_cached(wanted);
    }
    let machine = Machine::detect();
    println!(
        "offshoot-bench {} — {} mode{}, workers {:?}, {} kernels",
        env!("CARGO_PKG_VERSION"),
        cli.mode.name(),
        if plan.check_only {
            ", answers only".to_string()
        } else {
            format!(", {} rounds", plan.runs)
        },
        plan.workers,
        plan.kernels.len()
    );

    let pools = plan
        .workers
        .iter()
        .map(|&w| Pools::new(w))
        .collect::<Result<Vec<_>, _>>()?;
    let idle = if plan.check_only {
        None
    } else {
        idle_pool_cpu(&pools)
    };

    let mut partial = Report {
        tool: format!("offshoot-bench {}", env!("CARGO_PKG_VERSION")),
        date,
        command: command_line(),
        mode: cli.mode.name().to_string(),
        check_only: plan.check_only,
        runs: if plan.check_only { 1 } else { plan.runs },
        workers: plan.workers.clone(),
        machine,
        idle_pools_cpu_percent: idle,
        wall_seconds: 0.0,
        kernels: Vec::new(),
    };
    print!("{}", report::machine_lines(&partial));
    for (c, why) in plan.peers.skipped() {
        println!("  peer {} skipped: {why}", c.name());
    }

    let tty = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    let total = plan.total_runs();
    let bar = ProgressBar::with_draw_target(
        Some(total),
        if tty {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:32.cyan/blue} {pos}/{len} runs  {elapsed_precise}  {msg}",
        )
        .map_err(|e| e.to_string())?,
    );
    let progress = Bar {
        bar,
        workers: plan.workers.clone(),
        check_only: plan.check_only,
        verbose: cli.verbose,
    };
    let outcome = harness::run_suite(&plan, &pools, &progress);
    progress.bar.finish_and_clear();
    let results = outcome.map_err(|f| format!("{f}"))?;

    partial.kernels = results;
    partial.wall_seconds = started.elapsed().as_secs_f64();
    let report = partial;
    let skipped: Vec<String> = report
        .kernels
        .iter()
        .flat_map(|k| {
            k.skipped_peers
                .iter()
                .map(move |s| format!("{} on {}", s.contender, k.name))
        })
        .collect();

    if plan.check_only {
        let checks: usize = report.kernels.iter().map(|k| 1 + k.parallel.len()).sum();
        println!(
            "\nall answers correct: {} kernels × (serial + each of their contenders at {} worker \
             counts; OS threads once) in {:.1} s",
            report.kernels.len(),
            report.workers.len(),
            report.wall_seconds
        );
        println!("answers: {checks} passed, 0 failed");
    } else {
        print!("{}", report::summary_table(&report));
        print!("{}", crate::curve::terminal(&report));
        println!(
            "\nall answers correct; wall time {:.1} s",
            report.wall_seconds
        );
    }
    if !skipped.is_empty() {
        println!(
            "peers skipped past the {} bound (--peer-timeout): {}",
            crate::peers::fmt_bound(plan.peer_timeout),
            skipped.join(", ")
        );
    }

    if let Some(path) = &cli.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        write_file(path, &text)?;
    }
    if let Some(path) = &cli.svg {
        if report.check_only {
            eprintln!(
                "note: --check-only measures nothing; not writing {}",
                path.display()
            );
        } else {
            write_file(path, &crate::svg::render_svg(&report)?)?;
        }
    }
    if let Some(path) = &cli.markdown {
        let svg = cli.svg.as_deref().filter(|_| !report.check_only);
        write_file(path, &report::markdown(&report, path, svg))?;
    }
    Ok(())
}

/// Writes `text` to `path`, creating its missing parent directories; an error names the
/// path it could not create or write.
fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn run_micro(cli: &Cli) -> Result<(), String> {
    let batches = cli.runs.unwrap_or(15);
    let machine = Machine::detect();
    println!(
        "offshoot-bench {} — microbenchmarks, {batches} batches of ~20 ms each",
        env!("CARGO_PKG_VERSION")
    );
    for (label, value) in machine.rows() {
        println!("  {label:<9} {value}");
    }
    println!("\n{}", crate::micro::header());
    let results = crate::micro::run_all(batches, &mut |m| println!("{}", crate::micro::line(m)))?;
    if let Some(path) = &cli.json {
        #[derive(serde::Serialize)]
        struct MicroReport<'a> {
            tool: String,
            date: String,
            command: String,
            machine: &'a Machine,
            results: &'a [crate::micro::Micro],
        }
        let doc = MicroReport {
            tool: format!("offshoot-bench {}", env!("CARGO_PKG_VERSION")),
            date: machine::utc_now(),
            command: command_line(),
            machine: &machine,
            results: &results,
        };
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        write_file(path, &text)?;
    }
    if cli.markdown.is_some() || cli.svg.is_some() {
        eprintln!("note: micro writes only --json; --markdown and --svg are for quick/full");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_command_lines() {
        let cli = Cli::try_parse_from(["offshoot-bench", "quick", "--check-only"]).unwrap();
        assert_eq!(cli.mode, Mode::Quick);
        assert!(cli.check_only);
        let cli = Cli::try_parse_from([
            "offshoot-bench",
            "full",
            "--kernels",
            "fib,uts",
            "--workers",
            "2,1,2",
            "--runs",
            "3",
            "--json",
            "out.json",
        ])
        .unwrap();
        assert_eq!(cli.kernels, ["fib", "uts"]);
        assert_eq!(worker_counts(&cli).unwrap(), [1, 2]);
        assert_eq!(select_kernels(&cli).unwrap().len(), 2);
        let cli = Cli::try_parse_from(["offshoot-bench"]).unwrap();
        assert_eq!(cli.mode, Mode::Quick);
        let cli = Cli::try_parse_from(["offshoot-bench", "micro"]).unwrap();
        assert_eq!(cli.mode, Mode::Micro);
        let bad = Cli::try_parse_from(["offshoot-bench", "quick", "--kernels", "nope"]).unwrap();
        assert!(select_kernels(&bad).is_err());
    }

    #[test]
    fn peers_are_chosen_by_name_all_or_none_and_checked_by_default() {
        let peers = |args: &[&str]| {
            let cli = Cli::try_parse_from(["offshoot-bench"].iter().chain(args)).unwrap();
            select_peers(&cli)
        };
        // Timed runs leave them out unless named; check-only runs check them all.
        assert_eq!(peers(&[]).unwrap(), []);
        let every = [
            Contender::COpenmp,
            Contender::Go,
            Contender::Java,
            Contender::COpenmpClang,
            Contender::CppTbb,
        ];
        assert_eq!(peers(&["--check-only"]).unwrap(), every);
        assert_eq!(peers(&["--peers", "all"]).unwrap(), every);
        assert_eq!(peers(&["--peers", "go"]).unwrap(), [Contender::Go]);
        assert_eq!(
            peers(&["--peers", "java,c-openmp"]).unwrap(),
            [Contender::Java, Contender::COpenmp]
        );
        assert_eq!(
            peers(&["--peers", "cpp-tbb,c-openmp-clang"]).unwrap(),
            [Contender::CppTbb, Contender::COpenmpClang]
        );
        assert_eq!(peers(&["--peers", "none"]).unwrap(), []);
        let bound = |args: &[&str]| {
            Cli::try_parse_from(["offshoot-bench"].iter().chain(args)).map(|c| c.peer_timeout)
        };
        assert_eq!(bound(&[]).unwrap(), Duration::from_secs(120));
        assert_eq!(
            bound(&["--peer-timeout", "0.05"]).unwrap(),
            Duration::from_millis(50)
        );
        for bad in ["0", "-1", "NaN", "soon"] {
            assert!(bound(&["--peer-timeout", bad]).is_err(), "{bad}");
        }
        let e = peers(&["--peers", "kotlin"]).unwrap_err();
        assert!(
            e.contains("unknown peer `kotlin`; peers: c-openmp, go, java, c-openmp-clang, cpp-tbb"),
            "{e}"
        );
    }

    #[test]
    fn writes_into_missing_directories_and_names_the_path_it_cannot_write() {
        let root =
            std::env::temp_dir().join(format!("offshoot-bench-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let path = root.join("docs/nested/BENCHMARKS.md");
        write_file(&path, "# results\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# results\n");
        // A parent that is a file cannot become a directory.
        let blocked = path.join("b.svg");
        let e = write_file(&blocked, "<svg/>").unwrap_err();
        assert!(e.contains(&path.display().to_string()), "{e}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(shell_quote("docs/BENCHMARKS.md"), "docs/BENCHMARKS.md");
        assert_eq!(shell_quote("a b"), "'a b'");
    }
}
