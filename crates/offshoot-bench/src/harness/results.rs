//! What a run of the suite produces: per contender and worker count a `Series` of timings
//! with its median and spread, offshoot's request counters, the comparisons with the best
//! peer, the peers skipped past their time bound, and per kernel a `KernelResult`.

use std::time::Duration;

use serde::Serialize;

use super::{Contender, Counters};
use crate::curve::Point;

/// One timed run: its wall-clock time and, where the platform gives it, the process's CPU
/// time over it.
#[derive(Clone, Copy)]
pub(super) struct Sample {
    pub(super) wall: Duration,
    pub(super) cpu: Option<Duration>,
}

/// The timings of one contender at one worker count.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// Contender name.
    pub contender: String,
    /// Worker count (none for the unpooled: serial, threads).
    pub workers: Option<usize>,
    /// Wall-clock seconds of every recorded run, in run order.
    pub seconds: Vec<f64>,
    /// CPU seconds of the whole process (all threads) during each run.
    pub cpu_seconds: Vec<f64>,
    /// Median of `seconds`.
    pub median: f64,
    /// Fastest run.
    pub min: f64,
    /// Slowest run.
    pub max: f64,
}

impl Series {
    pub(super) fn new(contender: Contender, workers: Option<usize>) -> Self {
        Self::named(contender.name(), workers)
    }

    /// A series under another name than a contender's (a peer's own serial program).
    pub(super) fn named(name: &str, workers: Option<usize>) -> Self {
        Self {
            contender: name.to_string(),
            workers,
            seconds: Vec::new(),
            cpu_seconds: Vec::new(),
            median: f64::NAN,
            min: f64::NAN,
            max: f64::NAN,
        }
    }

    pub(super) fn push(&mut self, sample: Sample) {
        self.seconds.push(sample.wall.as_secs_f64());
        if let Some(cpu) = sample.cpu {
            self.cpu_seconds.push(cpu.as_secs_f64());
        }
        let mut sorted = self.seconds.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        self.median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        self.min = sorted[0];
        self.max = sorted[n - 1];
    }

    /// Mean busy cores during the runs (process CPU time ÷ wall time).
    pub fn busy_cores(&self) -> Option<f64> {
        if self.cpu_seconds.len() != self.seconds.len() || self.seconds.is_empty() {
            return None;
        }
        Some(self.cpu_seconds.iter().sum::<f64>() / self.seconds.iter().sum::<f64>())
    }
}

/// offshoot's counters for the last offshoot run at a worker count.
#[derive(Clone, Debug, Serialize)]
pub struct WorkerCounters {
    /// Worker count.
    pub workers: usize,
    /// Counters of that run.
    pub counters: Counters,
}

/// Derived numbers for one worker count.
///
/// Every ratio is a median time ÷ the serial median time: the Rust serial program's for the
/// Rust contenders, the peer's own serial program's for a peer in another language (whose
/// ratio to the Rust serial time is beside it, `*_rust_ratio`). A contender the
/// kernel does not have has no ratio (left out of the JSON). The unpooled
/// contender (`threads`) has one series, compared at every worker count.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Worker count.
    pub workers: usize,
    /// offshoot's median ÷ serial median.
    pub offshoot_ratio: f64,
    /// offshoot-ct's median ÷ serial median (search kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offshoot_ct_ratio: Option<f64>,
    /// offshoot-af's median ÷ serial median (search kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offshoot_af_ratio: Option<f64>,
    /// offshoot-fj's median ÷ serial median (phaser kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offshoot_fj_ratio: Option<f64>,
    /// offshoot-actors' median ÷ serial median (selector kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offshoot_actors_ratio: Option<f64>,
    /// offshoot-tasks' median ÷ serial median (actor kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offshoot_tasks_ratio: Option<f64>,
    /// rayon's median ÷ serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rayon_ratio: Option<f64>,
    /// chili's median ÷ serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chili_ratio: Option<f64>,
    /// tokio's median ÷ serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokio_ratio: Option<f64>,
    /// kameo's median ÷ serial median (Savina kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kameo_ratio: Option<f64>,
    /// The OS threads' median ÷ serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads_ratio: Option<f64>,
    /// C/OpenMP's median ÷ the median of its own C serial program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_openmp_ratio: Option<f64>,
    /// C/OpenMP's median ÷ the Rust serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_openmp_rust_ratio: Option<f64>,
    /// Go's median ÷ the median of its own Go serial program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub go_ratio: Option<f64>,
    /// Go's median ÷ the Rust serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub go_rust_ratio: Option<f64>,
    /// Java's median ÷ the median of its own Java serial program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub java_ratio: Option<f64>,
    /// Java's median ÷ the Rust serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub java_rust_ratio: Option<f64>,
    /// C/OpenMP built by clang (libomp): its median ÷ the median of its own serial program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_openmp_clang_ratio: Option<f64>,
    /// C/OpenMP built by clang (libomp): its median ÷ the Rust serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_openmp_clang_rust_ratio: Option<f64>,
    /// C++/oneTBB's median ÷ the median of its own C++ serial program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpp_tbb_ratio: Option<f64>,
    /// C++/oneTBB's median ÷ the Rust serial median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpp_tbb_rust_ratio: Option<f64>,
    /// The fastest of the kernel's other contenders, by ratio to its own serial program.
    pub best_peer: String,
    /// offshoot's ratio ÷ the best peer's ratio, each to its own serial program (< 1:
    /// offshoot is faster; for the Rust contenders that is the medians' ratio).
    pub offshoot_vs_best_peer: f64,
}

impl Comparison {
    /// The ratio of `contender`, if the kernel has it.
    pub fn ratio(&self, contender: Contender) -> Option<f64> {
        match contender {
            Contender::Serial => Some(1.0),
            Contender::Offshoot => Some(self.offshoot_ratio),
            Contender::OffshootCt => self.offshoot_ct_ratio,
            Contender::OffshootAf => self.offshoot_af_ratio,
            Contender::OffshootFj => self.offshoot_fj_ratio,
            Contender::OffshootActors => self.offshoot_actors_ratio,
            Contender::OffshootTasks => self.offshoot_tasks_ratio,
            Contender::Rayon => self.rayon_ratio,
            Contender::Chili => self.chili_ratio,
            Contender::Tokio => self.tokio_ratio,
            Contender::Kameo => self.kameo_ratio,
            Contender::Threads => self.threads_ratio,
            Contender::COpenmp => self.c_openmp_ratio,
            Contender::Go => self.go_ratio,
            Contender::Java => self.java_ratio,
            Contender::COpenmpClang => self.c_openmp_clang_ratio,
            Contender::CppTbb => self.cpp_tbb_ratio,
        }
    }

    /// The ratio of `contender` to the Rust serial time (its [`Comparison::ratio`] for the
    /// Rust contenders).
    pub fn rust_ratio(&self, contender: Contender) -> Option<f64> {
        match contender {
            Contender::COpenmp => self.c_openmp_rust_ratio,
            Contender::Go => self.go_rust_ratio,
            Contender::Java => self.java_rust_ratio,
            Contender::COpenmpClang => self.c_openmp_clang_rust_ratio,
            Contender::CppTbb => self.cpp_tbb_rust_ratio,
            c => self.ratio(c),
        }
    }
}

/// A peer in another language left out of the rest of a kernel: an invocation ran past the
/// peer bound (`--peer-timeout`) and was killed. Its samples of that kernel are dropped, so
/// the kernel's tables show it as skipped rather than with a partial series.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SkippedPeer {
    /// Contender name (`go`, `c-openmp`).
    pub contender: String,
    /// The worker count of the invocation that ran past the bound.
    pub workers: usize,
    /// Why, in one line: `the peer ran past the 120 s peer bound at 1 worker`.
    pub reason: String,
}

/// Everything measured for one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelResult {
    /// Kernel name.
    pub name: String,
    /// What it computes.
    pub about: String,
    /// The input.
    pub input: String,
    /// Cutoff used by every contender.
    pub cutoff: String,
    /// Where it comes from.
    pub source: String,
    /// Seconds spent preparing the input (untimed).
    pub prepare_seconds: f64,
    /// The serial program.
    pub serial: Series,
    /// Every parallel contender of the kernel: the unpooled ones first, then
    /// the pooled ones at every worker count.
    pub parallel: Vec<Series>,
    /// The peers' own serial programs (one series per peer, e.g. `c-serial`, timed in every
    /// invocation of the peer), in the order of the peers in `parallel`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub peer_serial: Vec<Series>,
    /// Ratios per worker count.
    pub comparisons: Vec<Comparison>,
    /// offshoot's counters for its last run per worker count.
    pub offshoot_counters: Vec<WorkerCounters>,
    /// Timed runs that started while other threads of the process still ran after the
    /// settle bound ([`crate::machine::settle`]): the run, then the running threads' names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsettled: Vec<String>,
    /// The peers skipped for this kernel (none in `parallel`, `peer_serial` or the
    /// comparisons).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_peers: Vec<SkippedPeer>,
    /// The kernel's place on a curve ([`crate::curve`]), if it is a point of one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curve: Option<Point>,
}

impl KernelResult {
    /// The series of `contender` at `workers`; an unpooled contender's one
    /// series whatever `workers` is.
    pub fn series(&self, contender: Contender, workers: usize) -> Option<&Series> {
        let workers = contender.pooled().then_some(workers);
        self.parallel
            .iter()
            .find(|s| s.contender == contender.name() && s.workers == workers)
    }

    /// Why `contender` was skipped for this kernel, if it was.
    pub fn skipped(&self, contender: Contender) -> Option<&SkippedPeer> {
        self.skipped_peers
            .iter()
            .find(|s| s.contender == contender.name())
    }

    /// Whether the kernel ran `contender` at all.
    pub fn has(&self, contender: Contender) -> bool {
        self.parallel
            .iter()
            .any(|s| s.contender == contender.name())
    }

    /// The median of `contender`'s own serial program: the peer's serial series for a peer,
    /// the Rust serial program's otherwise.
    pub fn own_serial(&self, contender: Contender) -> Option<f64> {
        match contender.peer_serial_name() {
            None => Some(self.serial.median),
            Some(name) => self
                .peer_serial
                .iter()
                .find(|s| s.contender == name)
                .map(|s| s.median),
        }
    }

    pub(crate) fn compare(&mut self, workers: &[usize]) {
        self.comparisons = workers
            .iter()
            .filter_map(|&w| {
                let serial = self.serial.median;
                let ratio = |c| Some(self.series(c, w)?.median / self.own_serial(c)?);
                let rust_ratio = |c| self.series(c, w).map(|s| s.median / serial);
                let offshoot = ratio(Contender::Offshoot)?;
                let (best_peer, best) = Contender::PARALLEL
                    .into_iter()
                    .filter(|&c| !c.is_offshoot())
                    .filter_map(|c| Some((c, ratio(c)?)))
                    .min_by(|a, b| a.1.total_cmp(&b.1))?;
                Some(Comparison {
                    workers: w,
                    offshoot_ratio: offshoot,
                    offshoot_ct_ratio: ratio(Contender::OffshootCt),
                    offshoot_af_ratio: ratio(Contender::OffshootAf),
                    offshoot_fj_ratio: ratio(Contender::OffshootFj),
                    offshoot_actors_ratio: ratio(Contender::OffshootActors),
                    offshoot_tasks_ratio: ratio(Contender::OffshootTasks),
                    rayon_ratio: ratio(Contender::Rayon),
                    chili_ratio: ratio(Contender::Chili),
                    tokio_ratio: ratio(Contender::Tokio),
                    kameo_ratio: ratio(Contender::Kameo),
                    threads_ratio: ratio(Contender::Threads),
                    c_openmp_ratio: ratio(Contender::COpenmp),
                    c_openmp_rust_ratio: rust_ratio(Contender::COpenmp),
                    go_ratio: ratio(Contender::Go),
                    go_rust_ratio: rust_ratio(Contender::Go),
                    java_ratio: ratio(Contender::Java),
                    java_rust_ratio: rust_ratio(Contender::Java),
                    c_openmp_clang_ratio: ratio(Contender::COpenmpClang),
                    c_openmp_clang_rust_ratio: rust_ratio(Contender::COpenmpClang),
                    cpp_tbb_ratio: ratio(Contender::CppTbb),
                    cpp_tbb_rust_ratio: rust_ratio(Contender::CppTbb),
                    best_peer: best_peer.name().to_string(),
                    offshoot_vs_best_peer: offshoot / best,
                })
            })
            .collect();
    }
}
