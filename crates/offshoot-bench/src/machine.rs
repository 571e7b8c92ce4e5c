//! What the benchmarks ran on: CPU, cores, memory, OS, compiler, the runtime
//! versions, plus the process CPU-time probe the harness uses to see whether
//! idle pools steal CPU from the contender being timed.
//!
//! Everything is read from /proc and from values recorded at build time;
//! where something cannot be read the field says "unknown" instead of
//! failing.

use std::time::Duration;

use serde::Serialize;

/// Description of the machine and toolchain.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: String,
    /// Logical CPUs listed in /proc/cpuinfo.
    pub logical_cpus: usize,
    /// `std::thread::available_parallelism()` (cgroup/affinity aware).
    pub available_parallelism: usize,
    /// Total memory in GiB.
    pub memory_gib: f64,
    /// Distribution (PRETTY_NAME of /etc/os-release).
    pub os: String,
    /// Kernel name, release and architecture.
    pub kernel: String,
    /// `rustc --version` of the compiler that built this binary.
    pub rustc: String,
    /// Versions of the runtimes under test (from Cargo.lock at build time).
    pub runtimes: String,
    /// The Cargo profile and the settings the workspace gives it (recorded at
    /// build time), or "debug" (timings of a debug build mean nothing).
    pub build_profile: String,
}

impl Machine {
    /// Reads the description of this machine.
    pub fn detect() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|l| {
                let (key, value) = l.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        let logical_cpus = cpuinfo
            .lines()
            .filter(|l| l.split(':').next().map(str::trim) == Some("processor"))
            .count();
        let memory_gib = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find(|l| l.starts_with("MemTotal:"))?
                    .split_whitespace()
                    .nth(1)?
                    .parse::<f64>()
                    .ok()
            })
            .map(|kib| kib / (1024.0 * 1024.0))
            .unwrap_or(f64::NAN);
        let os = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                    .map(|v| v.trim_matches('"').to_string())
            })
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        let read = |p: &str| {
            std::fs::read_to_string(p)
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unknown".to_string())
        };
        let kernel = format!(
            "{} {} {}",
            read("/proc/sys/kernel/ostype"),
            read("/proc/sys/kernel/osrelease"),
            std::env::consts::ARCH
        );
        Self {
            cpu_model,
            logical_cpus,
            available_parallelism: available_parallelism(),
            memory_gib,
            os,
            kernel,
            rustc: env!("OFFSHOOT_BENCH_RUSTC").to_string(),
            runtimes: env!("OFFSHOOT_BENCH_DEPS").to_string(),
            build_profile: if cfg!(debug_assertions) {
                "debug".to_string()
            } else {
                env!("OFFSHOOT_BENCH_PROFILE").to_string()
            },
        }
    }

    /// (label, value) rows for the reports.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        vec![
            ("CPU", self.cpu_model.clone()),
            (
                "cores",
                format!(
                    "{} available ({} logical CPUs listed)",
                    self.available_parallelism, self.logical_cpus
                ),
            ),
            ("memory", format!("{:.1} GiB", self.memory_gib)),
            ("OS", format!("{} ({})", self.os, self.kernel)),
            ("compiler", self.rustc.clone()),
            ("runtimes", self.runtimes.clone()),
            ("build", self.build_profile.clone()),
        ]
    }
}

/// `available_parallelism`, or 1.
pub fn available_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// CPU time used so far by all live threads of this process, from
/// /proc/self/task/*/schedstat (nanosecond resolution); `None` where that is
/// not available.
pub fn cpu_time() -> Option<Duration> {
    let mut total: u64 = 0;
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let path = entry.ok()?.path().join("schedstat");
        let text = std::fs::read_to_string(path).ok()?;
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

/// Gives the allocator's free memory back to the operating system (glibc's `malloc_trim`;
/// nothing elsewhere).
///
/// The harness calls it before every timed run, after the input is reset, so that no
/// contender finds memory touched before. Without it, a contender whose thread allocates
/// from the main arena (the serial program, on the harness's thread) can serve a large
/// request from a hole that earlier inputs left in that heap, pages already mapped, while a
/// pool's worker, on an arena of its own, maps fresh pages that the kernel zeroes on first
/// touch: `iter-collect` (an 80 MB answer) timed the serial program 2–4× faster than in a
/// fresh process, and every parallel contender as many times slower than serial. After the
/// trim every contender's first touch of a large buffer faults its pages in, as in a fresh
/// process.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free memory of the allocator's arenas to the
    // system; it is thread-safe and may be called at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Waits until no other thread of this process is running or runnable (state `R` in
/// /proc/self/task/*/stat) on three looks in a row, 200 µs apart, or until `bound` has
/// passed. Returns the names of the threads still running at the bound (empty when the
/// process settled, or where /proc is not available).
///
/// The harness calls it before every timed run, so that no contender is timed while the
/// threads of the one before it still spin (an idle pool's workers yield their cores for a
/// while before they sleep): on a 2-core machine such a spinner takes CPU from the next
/// run and biases it. The state, unlike the CPU time in `schedstat`, is current: a running
/// thread's CPU time is brought up to date only at the scheduler's tick (4 ms here), so a
/// window of a millisecond would miss it.
pub fn settle(bound: Duration) -> Vec<String> {
    let me = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let start = std::time::Instant::now();
    let mut quiet_looks = 0;
    loop {
        let running = running_threads(me.as_deref());
        if running.is_empty() {
            quiet_looks += 1;
            if quiet_looks == 3 {
                return running;
            }
        } else {
            quiet_looks = 0;
            if start.elapsed() >= bound {
                return running;
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The names of this process's threads, other than `me` (a thread id), whose state is
/// running or runnable (`R`).
fn running_threads(me: Option<&str>) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut running = Vec::new();
    for entry in dir.flatten() {
        let tid = entry.file_name().to_string_lossy().into_owned();
        if Some(tid.as_str()) == me {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) S ...`: the name may hold spaces and parentheses; the state follows
        // the last `)`.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        if stat[close + 1..].trim_start().starts_with('R') {
            let name = stat
                .find('(')
                .map_or("?", |open| &stat[open + 1..close])
                .to_string();
            running.push(name);
        }
    }
    running
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm), days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_something() {
        let m = Machine::detect();
        assert!(m.available_parallelism >= 1);
        assert!(!m.rustc.is_empty());
        assert_eq!(m.rows().len(), 7);
    }

    #[test]
    fn settle_names_a_thread_that_keeps_running_and_not_one_that_stopped() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let spinner = std::thread::Builder::new()
            .name("settle-spinner".to_string())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
            .expect("spawn");
        // A thread that spins is running or runnable at every look.
        let running = settle(Duration::from_millis(5));
        stop.store(true, Ordering::Relaxed);
        spinner.join().expect("spinner");
        assert!(
            running.iter().any(|n| n == "settle-spinner"),
            "settle did not see the spinner: {running:?}"
        );
        // Other tests' threads may run now; the spinner, joined, is gone.
        let after = settle(Duration::from_millis(5));
        assert!(!after.iter().any(|n| n == "settle-spinner"), "{after:?}");
    }

    #[test]
    fn utc_format() {
        let s = utc_now();
        assert_eq!(s.len(), "2024-01-01 00:00 UTC".len(), "{s}");
        assert!(s.starts_with("20"));
    }
}
