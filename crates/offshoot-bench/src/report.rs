//! The reports: the terminal tables, the JSON document and the Markdown
//! document (the one `docs/BENCHMARKS.md` is generated from).
//!
//! All ratios are time ratios: a contender's median time divided by the
//! serial median time (below 1: faster than serial), and offshoot's median
//! divided by the faster peer's (below 1: offshoot is faster). A peer skipped for a kernel
//! (it ran past the peer bound) has no series there; every report says `skipped` and why,
//! never a ratio from its partial runs. Formatting only; nothing here measures anything.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::harness::{Contender, KernelResult, Series};
use crate::machine::Machine;

/// Everything one invocation measured, as written to `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `offshoot-bench <version>`.
    pub tool: String,
    /// When the run started (UTC).
    pub date: String,
    /// The command that produced this report.
    pub command: String,
    /// "quick" or "full".
    pub mode: String,
    /// Whether only answers were checked (timings then mean nothing).
    pub check_only: bool,
    /// Timed rounds per kernel.
    pub runs: usize,
    /// Worker counts.
    pub workers: Vec<usize>,
    /// The machine.
    pub machine: Machine,
    /// CPU used by all idle pools together, in % of one core, measured over
    /// a quarter of a second after building them.
    pub idle_pools_cpu_percent: Option<f64>,
    /// Wall-clock seconds of the whole invocation.
    pub wall_seconds: f64,
    /// Per-kernel results.
    pub kernels: Vec<KernelResult>,
}

/// A duration in seconds with three significant digits and a fitting unit.
pub fn fmt_time(seconds: f64) -> String {
    let (value, unit) = unit_for(seconds);
    format!("{} {unit}", sig3(seconds / value))
}

/// `min–max` in the unit that fits `max`.
pub fn fmt_range(min: f64, max: f64) -> String {
    let (value, unit) = unit_for(max);
    format!("{}–{} {unit}", sig3(min / value), sig3(max / value))
}

fn unit_for(seconds: f64) -> (f64, &'static str) {
    if seconds >= 1.0 {
        (1.0, "s")
    } else if seconds >= 1e-3 {
        (1e-3, "ms")
    } else if seconds >= 1e-6 {
        (1e-6, "µs")
    } else {
        (1e-9, "ns")
    }
}

fn sig3(x: f64) -> String {
    if !x.is_finite() {
        "-".to_string()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A ratio with two decimals.
pub fn fmt_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}")
    } else {
        "-".to_string()
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The terminal table of one kernel.
/// With `verbose`, offshoot's scheduler counters follow the table.
pub fn kernel_table(
    k: &KernelResult,
    workers: &[usize],
    check_only: bool,
    verbose: bool,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\n== {} · {} · cutoff: {}", k.name, k.input, k.cutoff);
    if check_only {
        let _ = write!(out, "   answers checked: serial");
        for s in &k.parallel {
            let _ = write!(out, ", {}", series_label(s));
        }
        let _ = writeln!(out, " — all correct");
        skipped_lines(&mut out, k);
        return out;
    }
    // With peers in other languages, `÷ serial` is each one's ratio to its own language's
    // serial program and a last column gives every row's ratio to the Rust serial program.
    let peers = !k.peer_serial.is_empty();
    // The contender column fits the longest name (`java-serial`, `offshoot-actors`).
    let width = std::iter::once(&k.serial)
        .chain(&k.peer_serial)
        .chain(&k.parallel)
        .map(|s| s.contender.chars().count())
        .fold(9, usize::max);
    let _ = writeln!(
        out,
        "  {:>7}  {:<width$} {:>10}  {:>20}  {:>8}{}",
        "workers",
        "contender",
        "median",
        "min–max",
        "÷ serial",
        if peers { "  ÷ rust serial" } else { "" }
    );
    let row = |out: &mut String, w: &str, s: &Series, own: f64| {
        let rust = if peers {
            format!("  {:>13}", fmt_ratio(s.median / k.serial.median))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:>7}  {:<width$} {:>10}  {:>20}  {:>8}{rust}",
            w,
            s.contender,
            fmt_time(s.median),
            fmt_range(s.min, s.max),
            fmt_ratio(s.median / own)
        );
    };
    row(&mut out, "-", &k.serial, k.serial.median);
    for s in &k.peer_serial {
        row(&mut out, "-", s, s.median);
    }
    for s in k.parallel.iter().filter(|s| s.workers.is_none()) {
        row(&mut out, "-", s, own_serial_of(k, s));
    }
    for &w in workers {
        for s in k.parallel.iter().filter(|s| s.workers == Some(w)) {
            row(&mut out, &w.to_string(), s, own_serial_of(k, s));
        }
        if let Some(cmp) = k.comparisons.iter().find(|c| c.workers == w) {
            let _ = writeln!(
                out,
                "  {:>7}  offshoot ÷ best peer ({}): {}",
                "",
                cmp.best_peer,
                fmt_ratio(cmp.offshoot_vs_best_peer)
            );
        }
    }
    skipped_lines(&mut out, k);
    // A running thread's CPU time in /proc is brought up to date at the scheduler's tick
    // (4 ms at 250 Hz), so each thread's share may be off by a tick: only a serial run of
    // ten ticks or more says something about the other threads.
    if let Some(busy) = k.serial.busy_cores().filter(|_| k.serial.median >= 40e-3) {
        if busy > 1.1 {
            let _ = writeln!(
                out,
                "  note: the process used {busy:.2} cores during serial runs: other threads ran"
            );
        }
    }
    if let Some(first) = k.unsettled.first() {
        let _ = writeln!(
            out,
            "  note: {} of the timed runs started with other threads still running 50 ms \
             after the run before (first: {first})",
            k.unsettled.len()
        );
    }
    for wc in k.offshoot_counters.iter().filter(|_| verbose) {
        let c = wc.counters;
        let _ = writeln!(
            out,
            "  offshoot counters, last run on {}: {} tasks materialized, {} requests sent \
             ({} answered with work, {} empty), {} steal-backs",
            plural(wc.workers, "worker"),
            c.tasks_materialized,
            c.requests_sent,
            c.requests_answered_work,
            c.requests_answered_empty,
            c.steal_backs
        );
    }
    out
}

/// A line per peer skipped for the kernel, with its reason.
fn skipped_lines(out: &mut String, k: &KernelResult) {
    for s in &k.skipped_peers {
        let _ = writeln!(out, "  {} skipped: {}", s.contender, s.reason);
    }
}

/// The median of the serial program `s`'s contender is compared with: its own language's
/// for a peer, the Rust serial program's otherwise.
fn own_serial_of(k: &KernelResult, s: &Series) -> f64 {
    Contender::PARALLEL
        .into_iter()
        .find(|c| c.name() == s.contender)
        .and_then(|c| k.own_serial(c))
        .unwrap_or(k.serial.median)
}

/// The closing summary table of the terminal output: a column per parallel
/// contender that some kernel of the report has ("-" where a kernel has not).
pub fn summary_table(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nsummary: each cell is a contender's median time ÷ the plain serial program's median \
         (lower is better; below 1.00 is faster than serial, 0.50 is a 2× speed-up); a peer in \
         another language (c-openmp, go, java, c-openmp-clang, cpp-tbb) is divided by its own \
         language's serial program, and its \
         `/rs` column by the Rust serial program.\n\
         `offshoot ÷ best peer`: offshoot's ratio ÷ the best other runtime's ratio at the same \
         worker count, each to its own serial program (below 1.00: offshoot is faster; the \
         peer is named)."
    );
    let (header, rows) = summary_rows(report);
    let width = std::iter::once(&header)
        .chain(&rows)
        .map(|r| r[0].chars().count())
        .max()
        .unwrap_or(0);
    for row in std::iter::once(&header).chain(&rows) {
        // Every cell but the input (column 1), which the kernel tables show.
        let (name, workers, serial) = (&row[0], &row[2], &row[3]);
        let _ = write!(out, "  {name:<width$} {workers:>7} {serial:>10}");
        let (ratios, best) = row[4..].split_at(row.len() - 5);
        for r in ratios {
            let _ = write!(out, " {r:>8}");
        }
        let _ = writeln!(out, "  {}", best[0]);
    }
    out
}

/// The summary's header and rows, one row per kernel and worker count:
/// kernel, input, workers, serial time, the ratio of every contender of
/// [`contenders_shown`] (`-` where the kernel does not have it, `skipped` where it skipped
/// the peer), offshoot ÷ best peer.
fn summary_rows(report: &Report) -> (Vec<String>, Vec<Vec<String>>) {
    let shown = contenders_shown(report);
    let mut header: Vec<String> = ["kernel", "input", "workers", "serial"]
        .map(String::from)
        .to_vec();
    header.extend(shown.iter().map(|c| c.name().to_string()));
    let peers: Vec<Contender> = shown.iter().copied().filter(|c| c.is_peer()).collect();
    header.extend(peers.iter().map(|c| format!("{}/rs", c.name())));
    header.push("offshoot ÷ best peer".to_string());
    let rows = report
        .kernels
        .iter()
        .flat_map(|k| k.comparisons.iter().map(move |c| (k, c)))
        .map(|(k, c)| {
            let mut row = vec![
                k.name.clone(),
                k.input.clone(),
                c.workers.to_string(),
                fmt_time(k.serial.median),
            ];
            let cell = |who: Contender, r: Option<f64>| match (r, k.skipped(who)) {
                (None, Some(_)) => "skipped".to_string(),
                (r, _) => fmt_ratio(r.unwrap_or(f64::NAN)),
            };
            row.extend(shown.iter().map(|&who| cell(who, c.ratio(who))));
            row.extend(peers.iter().map(|&who| cell(who, c.rust_ratio(who))));
            row.push(format!(
                "{} ({})",
                fmt_ratio(c.offshoot_vs_best_peer),
                c.best_peer
            ));
            row
        })
        .collect();
    (header, rows)
}

/// The parallel contenders that at least one kernel of the report ran (or skipped, for a
/// peer), in report order.
pub fn contenders_shown(report: &Report) -> Vec<Contender> {
    Contender::PARALLEL
        .into_iter()
        .filter(|&c| {
            report
                .kernels
                .iter()
                .any(|k| k.has(c) || k.skipped(c).is_some())
        })
        .collect()
}

/// `offshoot (2w)`, or `threads` for an unpooled series.
fn series_label(s: &Series) -> String {
    match s.workers {
        Some(w) => format!("{} ({w}w)", s.contender),
        None => s.contender.clone(),
    }
}

/// The machine description for the terminal.
pub fn machine_lines(report: &Report) -> String {
    let mut out = String::new();
    for (label, value) in report.machine.rows() {
        let _ = writeln!(out, "  {label:<9} {value}");
    }
    if let Some(idle) = report.idle_pools_cpu_percent {
        let _ = writeln!(
            out,
            "  {:<9} {idle:.1}% of a core used by all pools while idle",
            "idle"
        );
    }
    out
}

/// The kernels whose tasks wait on each other through `offshoot::sync`, as the Method
/// section names them: those with a waiting peer (tokio or OS threads) and no rayon
/// version.
fn waiting_kernels() -> String {
    kernel_names(|k| {
        !k.contenders().contains(&Contender::Rayon)
            && k.contenders()
                .iter()
                .any(|c| matches!(c, Contender::Tokio | Contender::Threads))
    })
}

/// The kernels with rayon's version and a waiting peer beside it (the search kernels'
/// tokio token, the phaser kernels' barriers).
fn mixed_kernels() -> String {
    kernel_names(|k| {
        k.contenders().contains(&Contender::Rayon)
            && k.contenders()
                .iter()
                .any(|c| matches!(c, Contender::Tokio | Contender::Threads))
    })
}

fn kernel_names(keep: impl Fn(&crate::kernels::KernelInfo) -> bool) -> String {
    crate::kernels::all()
        .iter()
        .filter(|k| keep(k))
        .map(|k| format!("`{}`", k.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Markdown document (`--markdown`). `svg` is the chart's path as
/// written by the same invocation, if any.
pub fn markdown(report: &Report, markdown_path: &Path, svg: Option<&Path>) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# offshoot benchmarks\n");
    let _ = writeln!(
        md,
        "The classic fork-join kernels on the plain serial program, on offshoot, on rayon and on \
         chili, and the kernels whose tasks wait on each other on the serial program, on \
         offshoot, on tokio and on OS threads, run side by side by `offshoot-bench` ({}, {} \
         mode) on {}. Every answer was checked against the serial program's.\n",
        report.tool, report.mode, report.date
    );
    let _ = writeln!(
        md,
        "Regenerate this file with:\n\n```sh\n{}\n```\n",
        report.command
    );
    if report.check_only {
        let _ = writeln!(
            md,
            "**This run only checked answers (`--check-only`); its times are single runs and \
             mean nothing.**\n"
        );
    }

    let _ = writeln!(md, "## Machine\n\n| | |\n|---|---|");
    for (label, value) in report.machine.rows() {
        let _ = writeln!(md, "| {label} | {value} |");
    }
    if let Some(idle) = report.idle_pools_cpu_percent {
        let _ = writeln!(
            md,
            "| idle pools | {idle:.1}% of one core, all pools together |"
        );
    }
    let _ = writeln!(md);

    let _ = writeln!(md, "## Method\n");
    let _ = writeln!(
        md,
        "- Contenders: `serial` is the plain program with no runtime; `offshoot` runs in an \
         `offshoot::ThreadPool` with W workers (`pool.run`), `rayon` in a `rayon::ThreadPool` \
         with W threads (`pool.install`), `chili` in a `chili::ThreadPool` with `thread_count` \
         W (`pool.scope()`; chili counts the calling thread as one of the W), `tokio` in a \
         tokio multi-thread runtime with W worker threads (`rt.block_on`, the root spawned \
         onto a worker); in the Savina actor kernels `tokio` is ractor's actors on that runtime \
         and `kameo` kameo's actors on the same runtime. Every pool is built once per worker \
         count before anything is timed. \
         `threads` runs the program on plain OS threads (`std::thread::scope`, one thread per \
         task, `std::sync` waits that block): it has no worker count, runs once per round and \
         is compared with offshoot at every worker count.\n\
         - Same algorithm, same input and same cutoffs for every contender (see the kernel \
         notes below); offshoot's and rayon's versions are one generic function calling \
         `offshoot::join` or `rayon::join`, chili's calls `Scope::join`. The kernels whose \
         tasks wait on each other ({}) have no rayon or chili version, as neither has a way \
         for a task to wait; their peers are tokio or OS threads. The search and phaser \
         kernels ({}) have rayon's idiom (a search with a flag, a fork-join per step) beside \
         tokio (a `CancellationToken`, a `tokio::sync::Barrier`) or OS threads with a \
         `std::sync::Barrier`. A contender a kernel does not have shows as `-`.\n\
         - Per kernel: one serial run whose answer is validated against an independent \
         oracle, one warm-up run of every contender, then {} rounds, each running serial and \
         every contender at every worker count once, the order rotated by one each round. \
         Before each timed run the harness waits (at most 50 ms) until no other thread of \
         the process is running, so that no run shares the cores with the previous \
         contender's workers that have not gone to sleep yet, and once the input is restored it \
         has the allocator give its free memory back to the system (glibc's `malloc_trim`), so \
         that no contender reuses pages another run touched while the others fault fresh ones \
         in. Only the call is timed (entering the pool included); restoring the input and checking \
         the answer are not. Every run's answer is compared with the serial answer.\n\
         - Reported: the median and the spread (min–max) of the {} timed runs; `÷ serial` is \
         the contender's median time divided by the serial median time (lower is better, \
         below 1 is a speed-up); `offshoot ÷ best peer` divides offshoot's median by the \
         fastest of the kernel's other contenders at the same worker count (below 1: offshoot \
         is faster).\n\
         - Peers in other languages (`c-openmp`: C with OpenMP tasks, `peers/c/omp.c`, gcc \
         `-O2 -fopenmp`; `go`: a goroutine per fork and a `sync.WaitGroup`, channels where \
         tasks wait, `peers/go/`, `go build`; `java`: a `ForkJoinPool` with \
         `RecursiveTask`s and a parallel stream, `CompletableFuture`s and blocking queues \
         where tasks wait, `peers/java/`, `javac`, \
         `java -XX:+UseParallelGC`; `c-openmp-clang`: the same `omp.c` built by clang \
         `-O2 -fopenmp=libomp`, LLVM's OpenMP runtime; `cpp-tbb`: C++ with oneTBB's \
         `parallel_invoke`, `task_group` and `parallel_reduce` in a `task_arena`, \
         `peers/cpp/tbb.cpp`, g++ `-O2 -ltbb`): an external program run once per worker count \
         per round, which times its own serial version (`c-serial`, `go-serial`, \
         `java-serial`, `clang-serial`, `cpp-serial`) and its \
         parallel version after a warm-up run of each (Java: three, for its JIT compiler); its \
         answers are checked against the Rust serial answer. Its `÷ serial` is its median ÷ \
         its own serial program's median, its `÷ rust serial` the same median \
         ÷ the Rust serial median; `offshoot ÷ best peer` compares ratios to each contender's \
         own serial program. A peer whose toolchain is missing is skipped; so is, for the \
         rest of a kernel, one whose invocation runs past the peer bound (`--peer-timeout`; \
         it is killed, its runs of that kernel dropped, and the kernel says why).\n",
        waiting_kernels(),
        mixed_kernels(),
        report.runs,
        report.runs
    );
    let _ = writeln!(
        md,
        "- Build: every contender is compiled into this one binary with the Cargo profile in \
         the machine table's `build` row. The headline figures use the workspace's `release` \
         profile, which keeps Cargo's default code generation (no LTO, 16 codegen units), so \
         each runtime's fast path must inline into the calling crate as it would in a user's \
         crate. `cargo run --profile tuned -p offshoot-bench` builds with thin LTO and one \
         codegen unit, for comparison only.\n"
    );

    if let Some(svg) = svg {
        let link = relative_link(markdown_path, svg);
        let _ = writeln!(
            md,
            "![time ÷ own serial time per kernel, contender and worker count]({link})\n\n\
             The chart: one horizontal bar per contender and worker count, from 1.0 (the \
             contender's own serial program) to its median ratio on a log scale shared by \
             every kernel of a chart (left of the dashed line: faster than serial), a whisker \
             from its fastest to its slowest run. The first chart holds the kernels with a \
             rayon or chili version (its scale ends at 64: a longer bar ends in an arrow, its \
             label gives the value), the second the kernels whose tasks wait on each other.\n"
        );
    }

    let _ = writeln!(md, "## Summary\n");
    let _ = writeln!(md, "Median time ÷ serial median time (lower is better).\n");
    let (header, rows) = summary_rows(report);
    let _ = writeln!(
        md,
        "| {} |\n|---|---|{}",
        header.join(" | "),
        "---:|".repeat(header.len() - 2)
    );
    for row in &rows {
        let _ = writeln!(md, "| {} |", row.join(" | "));
    }
    let _ = writeln!(md);
    md.push_str(&crate::curve::markdown(report));

    let _ = writeln!(md, "## Results per kernel\n");
    for k in &report.kernels {
        let _ = writeln!(md, "### {}\n", k.name);
        let _ = writeln!(
            md,
            "{}. Input: {}. Cutoff: {}. Source: {}.\n",
            capitalize(&k.about),
            k.input,
            k.cutoff,
            k.source
        );
        let peers = !k.peer_serial.is_empty();
        let _ = writeln!(
            md,
            "| workers | contender | median | min–max | ÷ serial |{}\n|---:|---|---:|---:|---:|{}",
            if peers { " ÷ rust serial |" } else { "" },
            if peers { "---:|" } else { "" }
        );
        let serial_rows = std::iter::once(&k.serial).chain(&k.peer_serial);
        for s in serial_rows.chain(&k.parallel) {
            let workers = s.workers.map_or("–".to_string(), |w| w.to_string());
            let rust = if peers {
                format!(" {} |", fmt_ratio(s.median / k.serial.median))
            } else {
                String::new()
            };
            let own = if k.peer_serial.iter().any(|p| std::ptr::eq(p, s)) {
                s.median
            } else {
                own_serial_of(k, s)
            };
            let _ = writeln!(
                md,
                "| {workers} | {} | {} | {} | {} |{rust}",
                s.contender,
                fmt_time(s.median),
                fmt_range(s.min, s.max),
                fmt_ratio(s.median / own)
            );
        }
        let _ = writeln!(md);
        for skip in &k.skipped_peers {
            let _ = writeln!(md, "{} skipped: {}.\n", skip.contender, skip.reason);
        }
        let peers: Vec<String> = k
            .comparisons
            .iter()
            .map(|c| {
                format!(
                    "{} on {}",
                    fmt_ratio(c.offshoot_vs_best_peer),
                    plural(c.workers, "worker")
                ) + &format!(" (vs {})", c.best_peer)
            })
            .collect();
        if !peers.is_empty() {
            let _ = writeln!(md, "offshoot ÷ best peer: {}.\n", peers.join("; "));
        }
        if !k.unsettled.is_empty() {
            let _ = writeln!(
                md,
                "{} of the timed runs started with other threads of the process still \
                 running 50 ms after the run before: {}.\n",
                k.unsettled.len(),
                k.unsettled.join("; ")
            );
        }
        if !k.offshoot_counters.is_empty() {
            let _ = writeln!(
                md,
                "offshoot's counters, last run:\n\n\
                 | workers | tasks materialized | requests sent | answered with work | answered empty | steal-backs |\n\
                 |---:|---:|---:|---:|---:|---:|"
            );
            for wc in &k.offshoot_counters {
                let c = wc.counters;
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} |",
                    wc.workers,
                    c.tasks_materialized,
                    c.requests_sent,
                    c.requests_answered_work,
                    c.requests_answered_empty,
                    c.steal_backs
                );
            }
            let _ = writeln!(md);
        }
    }

    let _ = writeln!(md, "## Kernels, inputs and cutoffs\n");
    let _ = writeln!(
        md,
        "| kernel | computes | input | cutoff | source |\n|---|---|---|---|---|"
    );
    for k in &report.kernels {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            k.name, k.about, k.input, k.cutoff, k.source
        );
    }
    let _ = writeln!(
        md,
        "\nEach kernel's source file under `crates/offshoot-bench/src/kernels/` states what it \
         computes, its inputs for every mode, its cutoff and its answer check."
    );
    md
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// A link from the Markdown file to the chart: the bare file name when both
/// are in the same folder, else the path as given.
fn relative_link(markdown_path: &Path, svg: &Path) -> String {
    let same_dir =
        markdown_path.parent().unwrap_or(Path::new("")) == svg.parent().unwrap_or(Path::new(""));
    match (same_dir, svg.file_name()) {
        (true, Some(name)) => name.to_string_lossy().into_owned(),
        _ => svg.display().to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_waiting_kernels_are_those_with_a_waiting_peer() {
        let w = waiting_kernels();
        for name in [
            "futures-fib",
            "scoped-futures-fib",
            "ring",
            "monitor-buffer",
        ] {
            assert!(w.contains(&format!("`{name}`")), "{name} missing from {w}");
        }
        assert!(!w.contains("`fib`"), "a fork-join kernel listed: {w}");
        assert!(
            !w.contains("`sls`"),
            "a kernel with rayon's version listed: {w}"
        );
        let m = mixed_kernels();
        assert!(m.contains("`sls`") && m.contains("`jacobi-2d`"), "{m}");
        assert!(!m.contains("`ring`"), "{m}");
    }

    pub(crate) fn series(contender: &str, workers: Option<usize>, median: f64) -> Series {
        Series {
            contender: contender.to_string(),
            workers,
            seconds: vec![median],
            cpu_seconds: Vec::new(),
            median,
            min: median,
            max: median,
        }
    }

    pub(crate) fn kernel(name: &str, parallel: Vec<Series>) -> KernelResult {
        let mut k = KernelResult {
            name: name.to_string(),
            about: "a test kernel".to_string(),
            input: "n = 1".to_string(),
            cutoff: "none".to_string(),
            source: "this test".to_string(),
            prepare_seconds: 0.0,
            serial: series("serial", None, 1.0),
            parallel,
            peer_serial: Vec::new(),
            comparisons: Vec::new(),
            offshoot_counters: Vec::new(),
            unsettled: Vec::new(),
            skipped_peers: Vec::new(),
            curve: None,
        };
        k.compare(&[1]);
        k
    }

    /// A kernel with a peer: Rust serial 1 s; C serial 0.25 s; c-openmp 0.2 s (0.8 of its
    /// own serial time); offshoot 0.5 s; compared at 1 worker.
    pub(crate) fn kernel_with_a_peer() -> KernelResult {
        let mut k = kernel(
            "forks",
            vec![
                series("offshoot", Some(1), 0.5),
                series("c-openmp", Some(1), 0.2),
            ],
        );
        k.peer_serial = vec![series("c-serial", None, 0.25)];
        k.compare(&[1]);
        k
    }

    #[test]
    fn a_peer_is_compared_with_its_own_serial_program() {
        let k = kernel_with_a_peer();
        let c = &k.comparisons[0];
        assert_eq!(c.ratio(Contender::COpenmp), Some(0.8));
        assert_eq!(c.rust_ratio(Contender::COpenmp), Some(0.2));
        assert_eq!(c.best_peer, "c-openmp");
        assert!((c.offshoot_vs_best_peer - 0.5 / 0.8).abs() < 1e-12);
        let table = kernel_table(&k, &[1], false, false);
        assert!(table.contains("÷ rust serial"), "{table}");
        let row = table.lines().find(|l| l.contains("c-openmp")).unwrap();
        assert!(row.trim_end().ends_with("0.80           0.20"), "{table}");
        let mut report = two_kernel_report();
        report.kernels = vec![k];
        let summary = summary_table(&report);
        assert!(summary.contains("c-openmp/rs"), "{summary}");
    }

    #[test]
    fn a_skipped_peer_shows_as_skipped_with_its_reason_in_every_report() {
        let mut k = kernel(
            "forks",
            vec![
                series("offshoot", Some(1), 0.5),
                series("rayon", Some(1), 2.0),
            ],
        );
        k.skipped_peers = vec![crate::harness::SkippedPeer {
            contender: "go".to_string(),
            workers: 1,
            reason: "the peer ran past the 1 s peer bound at 1 worker".to_string(),
        }];
        k.compare(&[1]);
        assert_eq!(k.comparisons[0].go_ratio, None);
        let line = "go skipped: the peer ran past the 1 s peer bound at 1 worker";
        for check_only in [false, true] {
            let table = kernel_table(&k, &[1], check_only, false);
            assert!(table.contains(line), "{table}");
        }
        let mut report = two_kernel_report();
        report.kernels = vec![k];
        let summary = summary_table(&report);
        let row = summary.lines().find(|l| l.contains("forks")).unwrap();
        assert_eq!(row.matches("skipped").count(), 2, "go and go/rs: {summary}");
        let md = markdown(&report, Path::new("b.md"), None);
        assert!(md.contains(&format!("{line}.")), "{md}");
        let json = serde_json::to_string(&report).unwrap();
        assert!(
            json.contains(r#""skipped_peers":[{"contender":"go","workers":1,"#),
            "{json}"
        );
    }

    /// A measured quick-mode report at one worker: `forks` (offshoot and rayon) and
    /// `waits` (OS threads and offshoot).
    pub(crate) fn two_kernel_report() -> Report {
        Report {
            tool: "test".to_string(),
            date: "now".to_string(),
            command: "none".to_string(),
            mode: "quick".to_string(),
            check_only: false,
            runs: 1,
            workers: vec![1],
            machine: Machine::detect(),
            idle_pools_cpu_percent: None,
            wall_seconds: 0.0,
            kernels: vec![
                kernel(
                    "forks",
                    vec![
                        series("offshoot", Some(1), 0.5),
                        series("rayon", Some(1), 2.0),
                    ],
                ),
                kernel(
                    "waits",
                    vec![
                        series("threads", None, 4.0),
                        series("offshoot", Some(1), 1.0),
                    ],
                ),
            ],
        }
    }

    #[test]
    fn summary_shows_only_the_contenders_run_and_dashes_for_the_missing() {
        let report = two_kernel_report();
        let waits = &report.kernels[1].comparisons[0];
        assert_eq!((waits.threads_ratio, waits.rayon_ratio), (Some(4.0), None));
        assert_eq!(waits.best_peer, "threads");
        let table = summary_table(&report);
        // Under the legend: the header row.
        let header = table
            .lines()
            .find(|l| l.trim_start().starts_with("kernel"))
            .unwrap();
        assert!(
            header.contains("rayon") && header.contains("threads"),
            "{table}"
        );
        assert!(
            !header.contains("chili") && !header.contains("tokio"),
            "{table}"
        );
        let row = table.lines().find(|l| l.contains("waits")).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "waits",
                "1",
                "1.00",
                "s",
                "1.00",
                "-",
                "4.00",
                "0.25",
                "(threads)"
            ],
            "{table}"
        );
        let md = markdown(&report, Path::new("b.md"), None);
        let summary: Vec<&str> = md
            .lines()
            .skip_while(|l| !l.starts_with("| kernel | input"))
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert_eq!(summary.len(), 4, "{md}");
        assert!(summary.iter().all(|l| l.matches('|').count() == 9), "{md}");
        assert!(md.contains("| – | threads | 4.00 s |"), "{md}");
    }

    #[test]
    fn formats_times_and_ranges() {
        assert_eq!(fmt_time(0.0123), "12.3 ms");
        assert_eq!(fmt_time(1.5), "1.50 s");
        assert_eq!(fmt_time(0.000_250), "250 µs");
        assert_eq!(fmt_time(12e-9), "12.0 ns");
        assert_eq!(fmt_range(0.0121, 0.0129), "12.1–12.9 ms");
        assert_eq!(fmt_ratio(f64::NAN), "-");
    }

    #[test]
    fn links_svg_next_to_markdown() {
        assert_eq!(
            relative_link(Path::new("docs/BENCHMARKS.md"), Path::new("docs/b.svg")),
            "b.svg"
        );
        assert_eq!(
            relative_link(Path::new("docs/BENCHMARKS.md"), Path::new("out/b.svg")),
            "out/b.svg"
        );
    }
}
