//! Peers in other languages: external programs that run a kernel's own serial and parallel
//! versions in their language, timed by the harness round by round beside the Rust
//! contenders.
//!
//! # The protocol
//!
//! A peer is one program per language and runtime (`peers/c/omp.c`: C with OpenMP tasks, the
//! [`Contender::COpenmp`] contender; `peers/go/`: Go with a goroutine per fork, or channels
//! where the tasks wait on each other, the [`Contender::Go`] contender;
//! `peers/java/`: Java's `ForkJoinPool` with `RecursiveTask`s and a parallel
//! stream, or `CompletableFuture`s and blocking queues where the tasks wait on each other, the
//! [`Contender::Java`] contender; `peers/cpp/tbb.cpp`: C++ with oneTBB's
//! `parallel_invoke`, `task_group` and `parallel_reduce`, the [`Contender::CppTbb`]
//! contender; and `omp.c` once more, built by clang against LLVM's OpenMP runtime instead of
//! gcc's libgomp, the [`Contender::COpenmpClang`] contender), built by the suite itself (see
//! *Building*).
//! The harness invokes it once per (kernel, worker count) slot of every round, as
//!
//! ```text
//! <peer> <kernel> <workers> <warm-ups> <kernel arguments...>
//! ```
//!
//! - `<kernel>` is the kernel's suite name (`fib`, `par-for`, ...); `<workers>` the worker
//!   count (OpenMP: `omp_set_num_threads`; Java: `new ForkJoinPool(workers)`; oneTBB: a
//!   `task_arena(workers)` under a `global_control` of `max_allowed_parallelism`); `<warm-ups>`
//!   how many untimed runs precede each timed one (1 when timing, 0 in `--check-only` mode;
//!   the Java peer adds two more untimed runs when it is above 0, for its JIT compiler, and
//!   50 for `ring`'s serial loop, microseconds a run); the
//!   kernel arguments are what the Rust kernel's instance gives
//!   ([`crate::kernels::Instance::peer_input`]: `fib 34` gets `34`, `matmul` gets
//!   `512 1835103341`, the edge and the generator's seed; `knapsack` the item count and
//!   seed, `cilksort` the key count and seed, `uts` the tree's parameters, `futures-fib` n,
//!   `ring` the rounds and the laps), so the peer builds the same input as the Rust kernel
//!   (untimed), with its own port of the suite's SplitMix64.
//! - The kernels with peers: the fork-join kernels `fib`, `nqueens`, `par-for`, `matmul`,
//!   `tree-sum`, `knapsack`, `cilksort`, `uts` and `uts-bin` (those listing
//!   [`Contender::PEERS`]: every peer), and two whose tasks wait on each other:
//!   `futures-fib` (every peer: a goroutine per future with a channel as the future; an
//!   OpenMP task per future with `depend(out)` and `taskwait depend(in)` as the get, in both
//!   C builds; a oneTBB `task_group` per future, its `wait` as the get; a
//!   `CompletableFuture.supplyAsync` per future on the `ForkJoinPool`, its get a
//!   `thenCombine` stage, as a blocking `join` would hold a thread per waiting call) and
//!   `ring` (Go and Java: 64 goroutines passing the token through channels; 64
//!   `CompletableFuture.runAsync` tasks on the `ForkJoinPool` passing it through
//!   `ArrayBlockingQueue`s of capacity 1, whose blocked waits make the pool start spare
//!   threads, up to one per waiting task; OpenMP and oneTBB have no idiom for tasks that
//!   block on each other, so no C or C++ version).
//! - The peer runs its **own plain serial version** (warm-ups, then one timed run), then its
//!   **parallel version** the same way, and prints exactly two result lines on stdout, in
//!   this order:
//!
//!   ```text
//!   serial <seconds> <answer>
//!   parallel <seconds> <answer>
//!   ```
//!
//!   `<seconds>` is the wall-clock time of the timed run (a finite decimal number >= 0, timed
//!   by the peer around the call alone: process start and input building are not timed);
//!   `<answer>` is one token in the kernel's answer format (decimal for the integer answers;
//!   `matmul`: the FNV-1a hash of the product's `f64` bit patterns in quadtree order, 16 hex
//!   digits; `cilksort`: the same hash of the sorted keys, [`digest_words`]; `uts`:
//!   `nodes/leaves/depth`). Blank lines are ignored; anything else on stdout is an error ([`parse_output`]).
//! - Exit status 0; anything else is a failure, reported with the peer's stderr.
//! - A time bound on every invocation (`--peer-timeout`, 120 s by default, [`invoke`]'s
//!   `bound`): the peer runs as a child process whose stdout and stderr are read by threads
//!   of their own (a full pipe never stalls it) while its exit is polled; past the bound it is
//!   killed and reaped ([`output_within`]: no zombie, no wait for it), [`PeerError::TimedOut`].
//!   The harness then skips that peer for the rest of the kernel (its remaining rounds and
//!   worker counts), drops its runs of the kernel, prints a one-line reason and records it
//!   (`KernelResult::skipped_peers`); every report shows the peer as skipped for that kernel,
//!   and the suite goes on. Peers are bounded by this instead of the watchdog's
//!   `--run-timeout` (which still ends the suite for a Rust contender): Go's full-size `fib`
//!   (a goroutine per call, no cutoff) runs for minutes on one worker.
//!
//! The harness checks both answers against the Rust serial answer (a wrong answer stops the
//! suite like any contender's), records the parallel time as the peer's sample at that worker
//! count and the serial time in the peer's serial series (`c-serial`, one series over all
//! invocations; `go-serial` for Go, `java-serial` for Java, `clang-serial` for the clang
//! build, `cpp-serial` for C++), and reports the peer's ratio to **its own language's serial time** (the
//! `÷ serial` column, [`crate::harness::Comparison::ratio`]) and to the Rust serial time
//! ([`crate::harness::Comparison::rust_ratio`]). `offshoot ÷ best peer` compares ratios to
//! each contender's own serial program, so a peer is judged on what its runtime makes of its
//! own serial code, not on its compiler (gcc turns the doubly recursive `fib` into something
//! several times faster than rustc's).
//!
//! # Building
//!
//! The peer's sources are compiled into the binary (`include_str!`; the C and C++ peers'
//! include `peers/c/peer_common.h`, which they share, and its header per kernel family,
//! `peers/c/common_*.h`); before a run the suite writes them next
//! to the binary, under `<target>/<profile>/peers/`, and builds them there once (`gcc -O2
//! -fopenmp -ffp-contract=off -I <folder> ... -lm`, or `$CC`; `go build` with the installed
//! toolchain only, `GOTOOLCHAIN=local`, no proxy: the Go peer uses the standard library alone,
//! or `$GO`), the executable named by a hash of the sources and the toolchain's version, so an
//! edit (the shared header's too) rebuilds it and a rerun reuses it (a C build takes about a
//! second, a first Go build some seconds). The Java peer is `javac -d` into a class folder
//! beside the executable (`java-classes-<hash>`, `$JAVA_HOME/bin/javac` when `JAVA_HOME` is
//! set, else `javac` on the `PATH`; the standard library alone, no build tool), and its
//! "executable" a shell script that runs those classes with `java -Xss64m -XX:+UseParallelGC
//! -XX:MaxRAMPercentage=75` (why each: `JAVA_FLAGS` here); a JVM start adds a fraction of a
//! second to each invocation, outside the timed calls. The clang build is `clang -O2
//! -fopenmp=libomp -ffp-contract=off` (`$CLANG`, else `clang`), the C++ peer `g++ -O2
//! -std=c++17 -ffp-contract=off ... -ltbb` (`$CXX`, else `g++`); their toolchain check also
//! preprocesses the runtime's header (libomp's `omp.h`, oneTBB's `tbb/version.h`), whose
//! version joins the cache key, so a compiler without the runtime is a missing toolchain.
//! A missing toolchain or a failed build skips that contender with a one-line reason; the
//! run goes on without it.
//! `scripts/peers.sh` installs the toolchains.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::harness::Contender;

mod native;

/// What a peer needs for one kernel input: its command-line arguments and the answer it
/// must print (the Rust serial answer, in the peer's format).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInput {
    /// The kernel arguments (after kernel, workers and warm-ups).
    pub args: Vec<String>,
    /// The expected answer token.
    pub answer: String,
}

/// One of the peer's two timed runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Timed {
    /// Wall-clock seconds of the run, as the peer measured it.
    pub seconds: f64,
    /// Its answer token.
    pub answer: String,
}

/// What one peer invocation printed.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerOutput {
    /// The peer's own serial version.
    pub serial: Timed,
    /// The peer's parallel version at the requested worker count.
    pub parallel: Timed,
}

/// Parses a peer's stdout: exactly a `serial` line, then a `parallel` line, each
/// `<kind> <seconds> <answer>`; blank lines are ignored. The error names the offending line.
pub fn parse_output(stdout: &str) -> Result<PeerOutput, String> {
    let mut lines = stdout
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let mut expect = |kind: &str| -> Result<Timed, String> {
        let (i, line) = lines
            .next()
            .ok_or_else(|| format!("peer output ended before its `{kind}` line"))?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let bad = |why: &str| {
            format!(
                "peer output line {}: {why}; expected `{kind} <seconds> <answer>`, got `{line}`",
                i + 1
            )
        };
        let [k, seconds, answer] = fields[..] else {
            return Err(bad("not three fields"));
        };
        if k != kind {
            return Err(bad(&format!("`{k}` where `{kind}` belongs")));
        }
        let seconds: f64 = seconds
            .parse()
            .map_err(|_| bad(&format!("`{seconds}` is not a number of seconds")))?;
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(bad("the time must be finite and not negative"));
        }
        Ok(Timed {
            seconds,
            answer: answer.to_string(),
        })
    };
    let serial = expect("serial")?;
    let parallel = expect("parallel")?;
    if let Some((i, line)) = lines.next() {
        return Err(format!(
            "peer output line {}: unexpected `{line}` after the `parallel` line",
            i + 1
        ));
    }
    Ok(PeerOutput { serial, parallel })
}

/// Why a peer invocation gave no result.
#[derive(Clone, Debug, PartialEq)]
pub enum PeerError {
    /// It ran past the bound it was given and was killed (and reaped): the harness skips the
    /// peer for the rest of the kernel.
    TimedOut(Duration),
    /// It could not start, exited with a failure, or printed something the protocol does not
    /// allow: the message says which.
    Failed(String),
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::TimedOut(bound) => {
                write!(f, "the peer ran past the {} peer bound", fmt_bound(*bound))
            }
            PeerError::Failed(why) => f.write_str(why),
        }
    }
}

/// A bound as the messages write it: `120 s`, `0.05 s`.
pub fn fmt_bound(bound: Duration) -> String {
    format!("{} s", bound.as_secs_f64())
}

/// Runs the peer executable `exe` on one kernel input, for at most `bound`, and parses what
/// it prints; [`PeerError::TimedOut`] when it had to be killed.
pub fn invoke(
    exe: &Path,
    kernel: &str,
    workers: usize,
    warmups: usize,
    input: &PeerInput,
    bound: Duration,
) -> Result<PeerOutput, PeerError> {
    let mut cmd = Command::new(exe);
    cmd.arg(kernel)
        .arg(workers.to_string())
        .arg(warmups.to_string())
        .args(&input.args);
    let out = output_within(&mut cmd, bound)
        .map_err(|e| PeerError::Failed(format!("running peer {}: {e}", exe.display())))?
        .ok_or(PeerError::TimedOut(bound))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(PeerError::Failed(format!(
            "peer {} exited with {}: {}",
            exe.display(),
            out.status,
            stderr.trim()
        )));
    }
    parse_output(&String::from_utf8_lossy(&out.stdout)).map_err(PeerError::Failed)
}

/// [`Command::output`] with a time bound: runs `cmd` (stdin closed, stdout and stderr
/// collected) and returns its output, or `None` when it has not exited with both pipes closed
/// within `bound`; it is then killed and reaped before this returns.
///
/// Each pipe is read to its end by a thread of its own, so a chatty child never blocks on a
/// full pipe; the child's exit is polled (a pause of at most 20 ms). After a kill the readers
/// are left to finish on their own (they end when the last holder of the pipe is gone, which
/// is at once for a single-process peer), so nothing here waits past the bound.
pub fn output_within(cmd: &mut Command, bound: Duration) -> std::io::Result<Option<Output>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = read_to_end(child.stdout.take());
    let stderr = read_to_end(child.stderr.take());
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let mut status = None;
    loop {
        if status.is_none() {
            status = match child.try_wait() {
                Ok(s) => s,
                Err(e) => {
                    kill_and_reap(&mut child);
                    return Err(e);
                }
            };
        }
        if let Some(status) = status {
            if stdout.is_finished() && stderr.is_finished() {
                let joined = |h: std::thread::JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
                return Ok(Some(Output {
                    status,
                    stdout: joined(stdout),
                    stderr: joined(stderr),
                }));
            }
        }
        let left = bound.saturating_sub(start.elapsed());
        if left.is_zero() {
            if status.is_none() {
                kill_and_reap(&mut child);
            }
            return Ok(None);
        }
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Kills `child` (a no-op if it has exited) and waits for it, so no zombie is left.
fn kill_and_reap(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A thread reading `pipe` to its end (nothing when there is no pipe).
fn read_to_end(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// How a peer is built: its source files and the build function for its language.
struct Recipe {
    contender: Contender,
    /// The source files (name, text), written into a fresh build folder.
    files: &'static [(&'static str, &'static str)],
    /// Builds the sources in `src` (a folder) into `exe`; `Err` is the reason to skip.
    build: fn(src: &Path, exe: &Path) -> Result<(), String>,
    /// The compiler command and version, part of the cache key; `Err` when it is missing.
    toolchain: fn() -> Result<String, String>,
}

/// A peer's source file `name` in `peers/<folder>/`, as (name, text).
macro_rules! source {
    ($folder:literal, $name:literal) => {
        (
            $name,
            include_str!(concat!("../../peers/", $folder, "/", $name)),
        )
    };
}

/// The files of a C or C++ peer: its `sources`, then what the C and C++ peers share (the
/// protocol in `peer_common.h`, the inputs and serial versions in a header per kernel family,
/// which it includes), written beside the sources, so they are part of their cache key, and
/// found by `-I` that folder.
macro_rules! with_common_headers {
    ($($source:expr),*) => {
        &[
            $($source,)*
            source!("c", "peer_common.h"),
            source!("c", "common_fib.h"),
            source!("c", "common_nqueens.h"),
            source!("c", "common_parfor.h"),
            source!("c", "common_matmul.h"),
            source!("c", "common_treesum.h"),
            source!("c", "common_knapsack.h"),
            source!("c", "common_cilksort.h"),
            source!("c", "common_uts.h"),
        ]
    };
}

const RECIPES: &[Recipe] = &[
    Recipe {
        contender: Contender::COpenmp,
        files: with_common_headers!(source!("c", "omp.c")),
        build: build_c_openmp,
        toolchain: c_toolchain,
    },
    Recipe {
        contender: Contender::Go,
        files: &[
            ("go.mod", include_str!("../../peers/go/go.mod")),
            source!("go", "main.go"),
            source!("go", "common.go"),
            source!("go", "fib.go"),
            source!("go", "ring.go"),
            source!("go", "nqueens.go"),
            source!("go", "parfor.go"),
            source!("go", "matmul.go"),
            source!("go", "treesum.go"),
            source!("go", "knapsack.go"),
            source!("go", "cilksort.go"),
            source!("go", "uts.go"),
        ],
        build: build_go,
        toolchain: go_toolchain,
    },
    Recipe {
        contender: Contender::Java,
        files: JAVA_SOURCES,
        build: build_java,
        toolchain: java_toolchain,
    },
    Recipe {
        contender: Contender::COpenmpClang,
        files: with_common_headers!(source!("c", "omp.c")),
        build: |src, exe| native::CLANG_OPENMP.build(src, exe),
        toolchain: || native::CLANG_OPENMP.toolchain(),
    },
    Recipe {
        contender: Contender::CppTbb,
        files: with_common_headers!(source!("cpp", "tbb.cpp")),
        build: |src, exe| native::GXX_TBB.build(src, exe),
        toolchain: || native::GXX_TBB.toolchain(),
    },
];

/// The first error line of a failed build's output (or its first line).
fn first_error(stderr: &[u8]) -> String {
    let stderr = String::from_utf8_lossy(stderr);
    stderr
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| stderr.lines().next())
        .unwrap_or("no message")
        .trim()
        .to_string()
}

fn go_command() -> String {
    std::env::var("GO")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "go".to_string())
}

/// `go` with the environment of an offline build of a standard-library-only module: the
/// installed toolchain only (no toolchain download), modules from the module file alone.
fn go(args: &[&str]) -> Command {
    let mut cmd = Command::new(go_command());
    cmd.args(args)
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("CGO_ENABLED", "0");
    // Go needs a build cache; without a home folder (some CI), one in the system's temp.
    if std::env::var_os("GOCACHE").is_none() && std::env::var_os("HOME").is_none() {
        cmd.env(
            "GOCACHE",
            std::env::temp_dir().join("offshoot-peers-go-build"),
        );
    }
    cmd
}

fn go_toolchain() -> Result<String, String> {
    let out = go(&["version"]).output().map_err(|_| {
        format!(
            "`{}` not found (scripts/peers.sh installs Go)",
            go_command()
        )
    })?;
    if !out.status.success() {
        return Err(format!("`{} version` failed", go_command()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn build_go(src: &Path, exe: &Path) -> Result<(), String> {
    let exe = std::path::absolute(exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    let out = go(&["build", "-o"])
        .arg(&exe)
        .arg(".")
        .current_dir(src)
        .output()
        .map_err(|e| format!("running `{} build`: {e}", go_command()))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "`{} build` failed: {}",
        go_command(),
        first_error(&out.stderr)
    ))
}

/// The Java peer's source files (package `peer`): the driver and a class per kernel family.
const JAVA_SOURCES: &[(&str, &str)] = &[
    source!("java", "Peer.java"),
    source!("java", "FibKernels.java"),
    source!("java", "RingKernels.java"),
    source!("java", "NQueensKernels.java"),
    source!("java", "ParForKernels.java"),
    source!("java", "MatMulKernels.java"),
    source!("java", "TreeSumKernels.java"),
    source!("java", "KnapsackKernels.java"),
    source!("java", "CilksortKernels.java"),
    source!("java", "UtsKernels.java"),
];

/// The JVM's options for the Java peer: a 64 MiB thread stack (the recursive kernels'
/// depth, a `ForkJoinPool` worker's stack grows further with the tasks it runs while it
/// joins; uts' binomial tree is 1,572 levels deep), the throughput collector (the kernels
/// allocate a task object per fork and need no short pauses; G1, the default, pays for its
/// pause goals with costlier write barriers), and a heap of up to 3/4 of the memory
/// (`tree-sum`'s full tree is 67 M objects; the default quarter can be too small).
const JAVA_FLAGS: [&str; 3] = ["-Xss64m", "-XX:+UseParallelGC", "-XX:MaxRAMPercentage=75"];

/// A JDK tool: `$JAVA_HOME/bin/<tool>` when `JAVA_HOME` is set, else `<tool>` on the `PATH`.
fn java_tool(tool: &str) -> PathBuf {
    match std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        Some(home) => Path::new(&home).join("bin").join(tool),
        None => PathBuf::from(tool),
    }
}

/// `<tool> -version` (the JDK prints it on stderr or stdout, by version), or why not.
fn java_version(tool: &str) -> Result<String, String> {
    let path = java_tool(tool);
    let out = Command::new(&path).arg("-version").output().map_err(|_| {
        format!(
            "`{}` not found (set JAVA_HOME, or scripts/peers.sh installs a JDK)",
            path.display()
        )
    })?;
    if !out.status.success() {
        return Err(format!("`{} -version` failed", path.display()));
    }
    let text = [out.stdout, out.stderr].concat();
    Ok(String::from_utf8_lossy(&text).trim().replace('\n', " "))
}

fn java_toolchain() -> Result<String, String> {
    Ok(format!(
        "{} | {} | {}",
        java_version("javac")?,
        java_version("java")?,
        JAVA_FLAGS.join(" ")
    ))
}

/// `text` quoted for a POSIX shell.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Compiles the Java sources (`javac -d`) into a class folder beside `exe`, named by a hash of
/// the sources and the toolchain, and writes `exe`: a shell script that runs those classes
/// (`peer.Peer`) on the JVM with [`JAVA_FLAGS`], finding the folder beside itself.
fn build_java(src: &Path, exe: &Path) -> Result<(), String> {
    let dir = exe.parent().ok_or("the peer has no folder")?;
    let sources: String = JAVA_SOURCES.iter().map(|(_, text)| *text).collect();
    let key = fnv1a(format!("{}\n{sources}", java_toolchain()?).as_bytes());
    let classes = format!("java-classes-{key:016x}");
    let target = dir.join(&classes);
    let main_class = Path::new("peer").join("Peer.class");
    if !target.join(&main_class).is_file() {
        // Compile under a name of this process's own, as `build` does with the executable.
        let tmp = dir.join(format!("{classes}.{}.tmp", std::process::id()));
        let javac = java_tool("javac");
        let out = Command::new(&javac)
            .arg("-d")
            .arg(&tmp)
            .args(JAVA_SOURCES.iter().map(|(name, _)| src.join(name)))
            .output()
            .map_err(|e| format!("running `{}`: {e}", javac.display()))?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(format!(
                "`{} -d` failed: {}",
                javac.display(),
                first_error(&out.stderr)
            ));
        }
        // Another build may have put the same classes in place meanwhile: keep either.
        if std::fs::rename(&tmp, &target).is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
            if !target.join(&main_class).is_file() {
                return Err(format!("moving the classes to {}", target.display()));
            }
        }
    }
    let script = format!(
        "#!/bin/sh\n# offshoot-bench's java peer, built by the suite (crates/offshoot-bench/src/peers)\n\
         exec {} {} -cp \"${{0%/*}}/{classes}\" peer.Peer \"$@\"\n",
        sh_quote(&java_tool("java").to_string_lossy()),
        JAVA_FLAGS.join(" ")
    );
    std::fs::write(exe, script).map_err(|e| format!("writing {}: {e}", exe.display()))?;
    make_executable(exe)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("making {} executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Err("the java peer's launcher is a shell script: Unix only".to_string())
}

fn c_toolchain() -> Result<String, String> {
    native::GCC_OPENMP.toolchain()
}

fn build_c_openmp(src: &Path, exe: &Path) -> Result<(), String> {
    native::GCC_OPENMP.build(src, exe)
}

/// FNV-1a, 64 bits: the cache key of a built peer (stable across Rust versions, unlike
/// `DefaultHasher`).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// [`fnv1a`] over 64-bit words (each XORed in whole, not byte by byte), as 16 hex digits: the
/// answer token of the kernels whose answer is an array (`matmul`: the product's bit
/// patterns; `cilksort`: the sorted keys).
pub fn digest_words(words: impl IntoIterator<Item = u64>) -> String {
    let h = words.into_iter().fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
        (h ^ w).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// Where built peers live: `peers/` beside the running executable (`target/release/peers`
/// for the binary, `target/release/deps/peers` for the tests).
pub fn cache_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("locating the executable: {e}"))?;
    Ok(exe
        .parent()
        .ok_or("the executable has no directory")?
        .join("peers"))
}

/// Builds the peer of `contender` in `dir` unless a build of the same source and toolchain
/// is there; returns the executable, or why the peer is skipped.
pub fn build(contender: Contender, dir: &Path) -> Result<PathBuf, String> {
    let recipe = RECIPES
        .iter()
        .find(|r| r.contender == contender)
        .ok_or_else(|| format!("{} is not a peer", contender.name()))?;
    let toolchain = (recipe.toolchain)()?;
    let mut keyed = toolchain.into_bytes();
    for (name, text) in recipe.files {
        keyed.extend_from_slice(format!("\n{name}\n{text}").as_bytes());
    }
    let key = fnv1a(&keyed);
    let stem = format!("{}-{key:016x}", contender.name());
    let exe = dir.join(&stem);
    if exe.is_file() {
        return Ok(exe);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    // Build under names of this process's own, then rename: two suites (or a suite and the
    // tests) building at once never run a half-written executable.
    let pid = std::process::id();
    let src = dir.join(format!("{stem}.{pid}.src"));
    let tmp = dir.join(format!("{stem}.{pid}.tmp"));
    let built = write_sources(&src, recipe.files).and_then(|()| (recipe.build)(&src, &tmp));
    let _ = std::fs::remove_dir_all(&src);
    built?;
    std::fs::rename(&tmp, &exe).map_err(|e| format!("moving the built peer into place: {e}"))?;
    Ok(exe)
}

fn write_sources(src: &Path, files: &[(&str, &str)]) -> Result<(), String> {
    std::fs::create_dir_all(src).map_err(|e| format!("creating {}: {e}", src.display()))?;
    for (name, text) in files {
        let path = src.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The peers of a run: the executable of each one built, the reason for each one skipped.
#[derive(Clone, Debug, Default)]
pub struct Peers {
    ready: Vec<(Contender, PathBuf)>,
    skipped: Vec<(Contender, String)>,
}

impl Peers {
    /// No peers: every peer contender is left out of the run.
    pub fn none() -> Self {
        Self::default()
    }

    /// Builds every peer among `contenders` (once each) in [`cache_dir`].
    pub fn build_cached(contenders: impl IntoIterator<Item = Contender>) -> Self {
        match cache_dir() {
            Ok(dir) => Self::build(contenders, &dir),
            Err(why) => Self::build_with(contenders, |_| Err(why.clone())),
        }
    }

    /// Builds every peer among `contenders` (once each) in `dir`.
    pub fn build(contenders: impl IntoIterator<Item = Contender>, dir: &Path) -> Self {
        Self::build_with(contenders, |c| build(c, dir))
    }

    fn build_with(
        contenders: impl IntoIterator<Item = Contender>,
        mut build: impl FnMut(Contender) -> Result<PathBuf, String>,
    ) -> Self {
        let mut peers = Self::none();
        for c in contenders.into_iter().filter(|c| c.is_peer()) {
            if peers.ready.iter().any(|(r, _)| *r == c)
                || peers.skipped.iter().any(|(s, _)| *s == c)
            {
                continue;
            }
            match build(c) {
                Ok(exe) => peers.ready.push((c, exe)),
                Err(why) => peers.skipped.push((c, why)),
            }
        }
        peers
    }

    /// Peers given as ready-made executables (tests: a script standing in for a peer).
    #[cfg(test)]
    pub(crate) fn given(ready: Vec<(Contender, PathBuf)>) -> Self {
        Self {
            ready,
            skipped: Vec::new(),
        }
    }

    /// The executable of `contender`, if it was built.
    pub fn exe(&self, contender: Contender) -> Option<&Path> {
        self.ready
            .iter()
            .find(|(c, _)| *c == contender)
            .map(|(_, p)| p.as_path())
    }

    /// The peers skipped, each with its reason.
    pub fn skipped(&self) -> &[(Contender, String)] {
        &self.skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{self, Size};

    #[test]
    fn every_header_a_peer_includes_is_written_beside_it_and_keys_its_build() {
        let mut checked = 0;
        for recipe in RECIPES {
            for (name, text) in recipe.files {
                for line in text.lines() {
                    let Some(rest) = line.trim_start().strip_prefix("#include \"") else {
                        continue;
                    };
                    let header = rest.split('"').next().unwrap();
                    assert!(
                        recipe.files.iter().any(|(n, _)| *n == header),
                        "{name} of {} includes {header}, which its recipe does not write",
                        recipe.contender.name()
                    );
                    checked += 1;
                }
            }
        }
        // omp.c (gcc and clang) and tbb.cpp include peer_common.h, which includes the 8
        // family headers.
        assert_eq!(checked, 3 * (1 + 8));
    }

    /// A kernel family's file added to `peers/go/`, `peers/java/` or (a header) `peers/c/` but
    /// not to its recipe would not be built (Go would miss its kernels, javac its classes, the
    /// C and C++ compilers the header).
    #[test]
    fn every_go_java_and_c_header_source_is_in_its_recipe() {
        for (contender, folder, ending) in [
            (Contender::Go, "go", ".go"),
            (Contender::Java, "java", ".java"),
            (Contender::COpenmp, "c", ".h"),
            (Contender::CppTbb, "c", ".h"),
        ] {
            let recipe = RECIPES.iter().find(|r| r.contender == contender).unwrap();
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("peers")
                .join(folder);
            let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(ending))
                .collect();
            let mut listed: Vec<String> = recipe
                .files
                .iter()
                .map(|(n, _)| n.to_string())
                .filter(|n| n.ends_with(ending))
                .collect();
            on_disk.sort();
            listed.sort();
            assert_eq!(listed, on_disk, "the {folder} recipe's sources");
        }
    }

    #[test]
    fn well_formed_output_parses() {
        let out = parse_output("serial 0.5 42\n\nparallel 1e-3 42\n").unwrap();
        assert_eq!(out.serial.seconds, 0.5);
        assert_eq!(out.parallel.answer, "42");
    }

    #[test]
    fn malformed_output_is_rejected_with_a_clear_error() {
        let cases = [
            ("", "ended before its `serial` line"),
            ("serial 0.5 42\n", "ended before its `parallel` line"),
            (
                "parallel 0.5 42\nserial 0.5 42\n",
                "`parallel` where `serial` belongs",
            ),
            ("serial 0.5\nparallel 0.5 42\n", "not three fields"),
            (
                "serial fast 42\nparallel 0.5 42\n",
                "`fast` is not a number",
            ),
            ("serial -1 42\nparallel 0.5 42\n", "finite and not negative"),
            (
                "serial NaN 42\nparallel 0.5 42\n",
                "finite and not negative",
            ),
            (
                "serial 1 42\nparallel 0.5 42\nparallel 0.5 42\n",
                "unexpected",
            ),
        ];
        for (text, want) in cases {
            let e = parse_output(text).expect_err(text);
            assert!(e.contains(want), "{text:?}: {e}");
        }
        let e = parse_output("serial 1 2\nparallel x 2\n").unwrap_err();
        assert!(e.starts_with("peer output line 2:"), "{e}");
    }

    /// A folder of this test process's and `test`'s (each test removes its own).
    #[cfg(unix)]
    fn test_dir(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "offshoot-invoke-test-{}-{test}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// An executable shell script `name` in `dir` with `body`.
    #[cfg(unix)]
    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[cfg(unix)]
    fn input() -> PeerInput {
        PeerInput {
            args: vec!["7".to_string()],
            answer: "13".to_string(),
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_peer_past_its_bound_is_killed_and_reaped() {
        let dir = test_dir("bound");
        let pid_file = dir.join("sleeper.pid");
        let sleeper = script(
            &dir,
            "sleeper",
            &format!("echo $$ > '{}'\nexec sleep 30", pid_file.display()),
        );
        let bound = Duration::from_secs(1);
        let started = Instant::now();
        let e = invoke(&sleeper, "fib", 1, 0, &input(), bound).unwrap_err();
        assert_eq!(e, PeerError::TimedOut(bound));
        assert_eq!(e.to_string(), "the peer ran past the 1 s peer bound");
        // The bound, not the 30 s sleep.
        assert!(started.elapsed() < Duration::from_secs(20));
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let stat = std::path::Path::new("/proc").join(pid.trim()).join("stat");
        if cfg!(target_os = "linux") {
            // Killed and reaped: no process, not even a zombie (`Z`), is left of it.
            let left = std::fs::read_to_string(stat).unwrap_or_default();
            assert!(!left.contains("(sleep)"), "{left}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_peer_within_its_bound_answers_even_through_full_pipes_and_failures_say_why() {
        // 100,000 blank lines on stdout and 200 kB on stderr: both beyond a pipe's buffer.
        let dir = test_dir("pipes");
        let chatty = script(
            &dir,
            "chatty",
            "yes '' | head -n 100000\nyes x | head -n 100000 >&2\n\
             echo \"serial 0.5 13\"\necho \"parallel 0.25 $4$4\"",
        );
        let out = invoke(&chatty, "fib", 2, 0, &input(), Duration::from_secs(30)).unwrap();
        assert_eq!(
            (out.serial.answer.as_str(), out.parallel.seconds),
            ("13", 0.25)
        );
        assert_eq!(
            out.parallel.answer, "77",
            "the kernel arguments reach the peer"
        );
        let failing = script(&dir, "failing", "echo 'no such kernel' >&2\nexit 2");
        let e = invoke(&failing, "fib", 1, 0, &input(), Duration::from_secs(30)).unwrap_err();
        assert!(
            matches!(&e, PeerError::Failed(why) if why.contains("no such kernel")),
            "{e:?}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Builds the peer and checks its serial and parallel answers at test size, on 1 and 2
    /// workers, for every kernel that lists it (`kernels`, in report order); skipped (with
    /// the reason printed) where its toolchain is missing.
    fn peer_answers_match_rust_serial(
        peer: Contender,
        toolchain: fn() -> Result<String, String>,
        kernels: &[&str],
    ) {
        let dir = cache_dir().unwrap();
        let exe = match build(peer, &dir) {
            Ok(exe) => exe,
            Err(why) if toolchain().is_err() => {
                eprintln!("skipped: {} peer not built: {why}", peer.name());
                return;
            }
            Err(why) => panic!(
                "the toolchain is here but the {} peer does not build: {why}",
                peer.name()
            ),
        };
        let with_peer: Vec<_> = kernels::all()
            .into_iter()
            .filter(|k| k.contenders().contains(&peer))
            .collect();
        let names: Vec<&str> = with_peer.iter().map(|k| k.name).collect();
        assert_eq!(names, kernels, "the kernels with a {} peer", peer.name());
        for k in with_peer {
            let mut inst = k.prepare(Size::Test);
            inst.reset();
            inst.run(Contender::Serial, None);
            inst.accept_reference().unwrap();
            let input = inst.peer_input().unwrap();
            for workers in [1, 2] {
                let out = invoke(&exe, k.name, workers, 0, &input, Duration::from_secs(60))
                    .unwrap_or_else(|e| panic!("{}: {e}", k.name));
                assert_eq!(out.serial.answer, input.answer, "{} serial", k.name);
                assert_eq!(out.parallel.answer, input.answer, "{} on {workers}", k.name);
            }
        }
    }

    /// The fork-join kernels with every peer ([`Contender::PEERS`]), in report order.
    const FORK_JOIN: [&str; 9] = [
        "fib", "nqueens", "knapsack", "cilksort", "matmul", "uts", "uts-bin", "tree-sum", "par-for",
    ];

    #[test]
    fn c_openmp_peer_answers_match_rust_serial() {
        let kernels = [&FORK_JOIN[..], &["futures-fib"]].concat();
        peer_answers_match_rust_serial(Contender::COpenmp, c_toolchain, &kernels);
    }

    #[test]
    fn go_peer_answers_match_rust_serial() {
        let kernels = [&FORK_JOIN[..], &["futures-fib", "ring"]].concat();
        peer_answers_match_rust_serial(Contender::Go, go_toolchain, &kernels);
    }

    #[test]
    fn java_peer_answers_match_rust_serial() {
        let kernels = [&FORK_JOIN[..], &["futures-fib", "ring"]].concat();
        peer_answers_match_rust_serial(Contender::Java, java_toolchain, &kernels);
    }

    #[test]
    fn c_openmp_clang_peer_answers_match_rust_serial() {
        let kernels = [&FORK_JOIN[..], &["futures-fib"]].concat();
        let toolchain = || native::CLANG_OPENMP.toolchain();
        peer_answers_match_rust_serial(Contender::COpenmpClang, toolchain, &kernels);
    }

    #[test]
    fn cpp_tbb_peer_answers_match_rust_serial() {
        let kernels = [&FORK_JOIN[..], &["futures-fib"]].concat();
        let toolchain = || native::GXX_TBB.toolchain();
        peer_answers_match_rust_serial(Contender::CppTbb, toolchain, &kernels);
    }
}
