//! Runs the kernels on every contender and collects the timings.
//!
//! Method: pools are built once per worker count, before anything is timed,
//! and live for the whole run. For each kernel: the instance is prepared
//! (untimed), a serial run gives the reference answer (validated against the
//! kernel's oracle), every parallel contender of the kernel runs once as
//! warm-up, then R rounds each run serial, every unpooled contender
//! (`threads`) and every (pooled contender, workers) once, the order
//! rotated by one slot per round so that no contender always runs right after
//! the same one and slow drift hits all alike. Before each timed run the harness waits
//! (at most 50 ms) until no other thread of the process runs ([`settle`]): an idle pool's
//! workers that still spin would take CPU from the next run. After `reset` it has the
//! allocator return its free memory ([`release_free_memory`]): no contender may reuse pages
//! that an earlier run or input touched while another faults fresh ones in. Only the call
//! itself is timed, or, for a kernel that times an interval of its own inside the call
//! ([`crate::kernels::Work::timed`]: the abort kernels' failure-to-return latency), that
//! interval
//! (for the pools: `run`/`install`/`scope()` + the kernel, as a user pays
//! it); `reset` and the answer check are not. Every run's answer is checked;
//! a wrong answer, a panic or a run longer than the watchdog's limit stops
//! the suite with an error naming kernel, contender and worker count.
//!
//! Peers in other languages ([`crate::peers`]) take their slots like the pooled contenders
//! (one per worker count per round) but run as a process that times its own serial and
//! parallel versions; they have no separate warm-up run (the process warms up itself, none
//! when only checking), their answers are checked against the Rust serial answer, and a peer
//! whose toolchain is missing ([`Plan::peers`]) is left out of the run. A peer invocation is
//! bounded by [`Plan::peer_timeout`], not by the watchdog: one that runs past it is killed and
//! the peer is skipped for the rest of the kernel (its remaining rounds and worker counts),
//! with a one-line reason through [`Progress::note`]; its samples of the kernel are dropped and
//! the result lists it in [`KernelResult::skipped_peers`]. The suite goes on.
//!
//! This file is the run loop; `contenders.rs` holds who runs (the contenders, their pools
//! and counters) and `results.rs` what a run produces (series, comparisons, results).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[cfg(test)]
use crate::kernels::{About, Kernel, Work};
use crate::kernels::{Instance, KernelInfo, Size};
use crate::machine::{cpu_time, release_free_memory, settle};
use crate::peers::{self, PeerError, PeerInput, Peers};

mod contenders;
mod results;

pub use contenders::{run_unpooled, Contender, Counters, Pools};
use results::Sample;

pub use results::{Comparison, KernelResult, Series, SkippedPeer, WorkerCounters};

/// How long the harness waits, before a timed run, for the other threads of the process to
/// stop running ([`settle`]); a run that starts without that is listed in the report.
const SETTLE_BOUND: Duration = Duration::from_millis(50);

/// Why the suite stopped.
#[derive(Debug)]
pub struct Failure {
    /// Kernel name.
    pub kernel: String,
    /// Contender name.
    pub contender: String,
    /// Worker count (none for the unpooled: serial, threads).
    pub workers: Option<usize>,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let workers = self
            .workers
            .map(|w| format!(" on {w} worker{}", if w == 1 { "" } else { "s" }))
            .unwrap_or_default();
        write!(
            f,
            "kernel `{}`, contender {}{workers}: {}",
            self.kernel, self.contender, self.message
        )
    }
}

/// What to run.
pub struct Plan {
    /// Kernels, in order.
    pub kernels: Vec<KernelInfo>,
    /// Input size.
    pub size: Size,
    /// Worker counts.
    pub workers: Vec<usize>,
    /// Timed rounds per kernel.
    pub runs: usize,
    /// Run every contender once, check answers, record nothing else.
    pub check_only: bool,
    /// Longest a single run of a Rust contender may take before the suite gives up.
    pub run_timeout: Duration,
    /// Longest a peer invocation may take; past it the peer is killed and skipped for the
    /// rest of the kernel (the suite goes on).
    pub peer_timeout: Duration,
    /// The peers in other languages that were built (the others are left out).
    pub peers: Peers,
}

impl Plan {
    /// The contenders of `kernel` that this run has: all but the peers not built.
    pub fn contenders(&self, kernel: &KernelInfo) -> Vec<Contender> {
        kernel
            .contenders()
            .iter()
            .copied()
            .filter(|c| !c.is_peer() || self.peers.exe(*c).is_some())
            .collect()
    }

    /// The run slots of one kernel: serial, then its unpooled contenders,
    /// then its pooled contenders (and peers) at every worker count.
    pub fn slots(&self, kernel: &KernelInfo) -> usize {
        let contenders = self.contenders(kernel);
        let pooled = contenders.iter().filter(|c| c.pooled()).count();
        1 + (contenders.len() - pooled) + pooled * self.workers.len()
    }

    /// Runs of one kernel: the serial reference run, the warm-up runs (none
    /// when only checking, none for the peers, which warm up themselves) and the rounds.
    pub fn runs_per_kernel(&self, kernel: &KernelInfo) -> u64 {
        let slots = self.slots(kernel);
        let peer_slots = self
            .contenders(kernel)
            .iter()
            .filter(|c| c.is_peer())
            .count()
            * self.workers.len();
        let (warm, rounds) = if self.check_only {
            (1, 1)
        } else {
            (1 + slots - 1 - peer_slots, self.runs)
        };
        (warm + rounds * slots) as u64
    }

    /// Runs of the whole plan.
    pub fn total_runs(&self) -> u64 {
        self.kernels.iter().map(|k| self.runs_per_kernel(k)).sum()
    }
}

/// Hooks for progress reporting.
pub trait Progress {
    /// A run is about to start.
    fn start(&self, kernel: &str, what: &str);
    /// A run finished (or a peer's run was skipped).
    fn finish_run(&self);
    /// A line for the user while the suite runs (a peer skipped past its bound).
    fn note(&self, line: &str);
    /// A kernel finished.
    fn kernel_done(&self, result: &KernelResult);
}

/// Watches that no run takes longer than the limit; exits the process if one
/// does (a hung runtime must not hang CI). Its thread ends soon after the
/// watchdog is dropped.
struct Watchdog {
    current: Arc<Mutex<Option<(String, Instant)>>>,
}

impl Watchdog {
    fn start(limit: Duration) -> Self {
        let current: Arc<Mutex<Option<(String, Instant)>>> = Arc::new(Mutex::new(None));
        let watched = Arc::downgrade(&current);
        std::thread::Builder::new()
            .name("watchdog".to_string())
            .spawn(move || loop {
                std::thread::sleep(Duration::from_millis(500));
                let Some(watched) = watched.upgrade() else {
                    return;
                };
                let guard = watched.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((what, since)) = guard.as_ref() {
                    if since.elapsed() > limit {
                        eprintln!(
                            "\nerror: {what} has run for more than {} s (--run-timeout); giving up",
                            limit.as_secs()
                        );
                        std::process::exit(3);
                    }
                }
            })
            .expect("spawning the watchdog thread");
        Self { current }
    }

    fn set(&self, what: Option<String>) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = what.map(|w| (w, Instant::now()));
    }
}

/// Runs the plan on the given pools (one per worker count, same order as
/// `plan.workers`).
pub fn run_suite(
    plan: &Plan,
    pools: &[Pools],
    progress: &dyn Progress,
) -> Result<Vec<KernelResult>, Failure> {
    let watchdog = Watchdog::start(plan.run_timeout);
    let mut results = Vec::new();
    for kernel in &plan.kernels {
        results.push(run_kernel(plan, kernel, pools, progress, &watchdog)?);
        progress.kernel_done(results.last().expect("just pushed"));
    }
    Ok(results)
}

fn run_kernel(
    plan: &Plan,
    kernel: &KernelInfo,
    pools: &[Pools],
    progress: &dyn Progress,
    watchdog: &Watchdog,
) -> Result<KernelResult, Failure> {
    let fail = |contender: Contender, workers: Option<usize>, message: String| Failure {
        kernel: kernel.name.to_string(),
        contender: contender.name().to_string(),
        workers,
        message,
    };

    progress.start(kernel.name, "preparing input");
    let t0 = Instant::now();
    let mut inst = kernel.prepare(plan.size);
    let prepare_seconds = t0.elapsed().as_secs_f64();

    // Slot 0 is serial; then the unpooled contenders; then every pooled
    // contender at every worker count.
    let contenders = plan.contenders(kernel);
    let mut slots: Vec<(Contender, Option<&Pools>)> = vec![(Contender::Serial, None)];
    for &c in contenders.iter().filter(|c| !c.pooled()) {
        slots.push((c, None));
    }
    for p in pools {
        for &c in contenders.iter().filter(|c| c.pooled()) {
            slots.push((c, Some(p)));
        }
    }

    // Reference: the first serial run, validated by the kernel's oracle.
    one_run(
        kernel.name,
        &mut *inst,
        Contender::Serial,
        None,
        progress,
        watchdog,
    )?;
    inst.accept_reference()
        .map_err(|e| fail(Contender::Serial, None, format!("wrong answer: {e}")))?;

    // The peers' input and expected answer, from the accepted serial run.
    let peer_input = if contenders.iter().any(|c| c.is_peer()) {
        let input = inst.peer_input().map_err(|e| {
            let peer = contenders.iter().find(|c| c.is_peer()).expect("a peer");
            fail(*peer, None, format!("no peer input: {e}"))
        })?;
        Some(input)
    } else {
        None
    };
    let mut peer_serial: Vec<Series> = contenders
        .iter()
        .filter_map(|c| c.peer_serial_name())
        .map(|name| Series::named(name, None))
        .collect();

    let mut serial = Series::new(Contender::Serial, None);
    let mut parallel: Vec<Series> = slots[1..]
        .iter()
        .map(|(c, p)| Series::new(*c, p.map(|p| p.workers)))
        .collect();
    let mut counters: Vec<WorkerCounters> = Vec::new();
    let mut skipped: Vec<SkippedPeer> = Vec::new();

    if !plan.check_only {
        // Warm-up of every parallel slot but the peers' (checked, not recorded).
        for &(c, p) in slots[1..].iter().filter(|(c, _)| !c.is_peer()) {
            one_run(kernel.name, &mut *inst, c, p, progress, watchdog)?;
            inst.check()
                .map_err(|e| fail(c, p.map(|p| p.workers), format!("wrong answer: {e}")))?;
        }
    }

    let rounds = if plan.check_only { 1 } else { plan.runs };
    let mut unsettled = Vec::new();
    for round in 0..rounds {
        for i in 0..slots.len() {
            let slot = (i + round) % slots.len();
            let (c, p) = slots[slot];
            if !plan.check_only {
                // No run is timed while the threads of the one before it still run.
                let running = settle(SETTLE_BOUND);
                if !running.is_empty() {
                    let label = run_label(c, p.filter(|_| c.pooled()).map(|p| p.workers));
                    unsettled.push(format!("{label}: {}", running.join(", ")));
                }
            }
            if c.is_peer() {
                if skipped.iter().any(|s| s.contender == c.name()) {
                    progress.finish_run();
                    continue;
                }
                let workers = p.map_or(1, |p| p.workers);
                let input = peer_input.as_ref().expect("built with the peers");
                let warmups = usize::from(!plan.check_only);
                let Some((own, sample)) =
                    peer_run(plan, kernel.name, c, workers, warmups, input, progress)?
                else {
                    let skip = SkippedPeer {
                        contender: c.name().to_string(),
                        workers,
                        reason: format!(
                            "{} at {workers} worker{}",
                            peers::PeerError::TimedOut(plan.peer_timeout),
                            if workers == 1 { "" } else { "s" }
                        ),
                    };
                    progress.note(&format!(
                        "{}: {} skipped: {}",
                        skip.contender, kernel.name, skip.reason
                    ));
                    skipped.push(skip);
                    continue;
                };
                if let Some(name) = c.peer_serial_name() {
                    if let Some(s) = peer_serial.iter_mut().find(|s| s.contender == name) {
                        s.push(own);
                    }
                }
                parallel[slot - 1].push(sample);
                continue;
            }
            let before = p
                .filter(|_| c == Contender::Offshoot)
                .map(|p| Counters::of(&p.offshoot));
            let sample = one_run(kernel.name, &mut *inst, c, p, progress, watchdog)?;
            inst.check()
                .map_err(|e| fail(c, p.map(|p| p.workers), format!("wrong answer: {e}")))?;
            if let (Some(before), Some(p)) = (before, p) {
                let delta = Counters::of(&p.offshoot).since(before);
                counters.retain(|wc| wc.workers != p.workers);
                counters.push(WorkerCounters {
                    workers: p.workers,
                    counters: delta,
                });
            }
            if slot == 0 {
                serial.push(sample);
            } else {
                parallel[slot - 1].push(sample);
            }
        }
    }
    counters.sort_by_key(|wc| wc.workers);
    // A skipped peer's samples (rounds before the bound was hit) are dropped, whole.
    for skip in &skipped {
        let name = Contender::PARALLEL
            .into_iter()
            .find(|c| c.name() == skip.contender)
            .and_then(|c| c.peer_serial_name());
        parallel.retain(|s| s.contender != skip.contender);
        peer_serial.retain(|s| Some(s.contender.as_str()) != name);
    }

    let mut result = KernelResult {
        name: kernel.name.to_string(),
        about: kernel.about.to_string(),
        input: inst.input(),
        cutoff: kernel.cutoff.to_string(),
        source: kernel.source.to_string(),
        prepare_seconds,
        serial,
        parallel,
        peer_serial,
        comparisons: Vec::new(),
        offshoot_counters: counters,
        unsettled,
        skipped_peers: skipped,
        curve: kernel.curve(),
    };
    result.compare(&plan.workers);
    progress.start(kernel.name, "releasing input");
    drop(inst);
    Ok(result)
}

/// One invocation of a peer process at `workers`, bounded by [`Plan::peer_timeout`]: its
/// answers checked against the Rust serial answer; its own serial run's and its parallel
/// run's times, as the peer measured them (no CPU time); `None` when it ran past the bound
/// (killed and reaped).
fn peer_run(
    plan: &Plan,
    kernel: &str,
    contender: Contender,
    workers: usize,
    warmups: usize,
    input: &PeerInput,
    progress: &dyn Progress,
) -> Result<Option<(Sample, Sample)>, Failure> {
    let fail = |message: String| Failure {
        kernel: kernel.to_string(),
        contender: contender.name().to_string(),
        workers: Some(workers),
        message,
    };
    let exe = plan
        .peers
        .exe(contender)
        .ok_or_else(|| fail("the peer was not built".to_string()))?;
    let label = run_label(contender, Some(workers));
    progress.start(kernel, &label);
    let out = peers::invoke(exe, kernel, workers, warmups, input, plan.peer_timeout);
    progress.finish_run();
    let out = match out {
        Ok(out) => out,
        Err(PeerError::TimedOut(_)) => return Ok(None),
        Err(PeerError::Failed(why)) => return Err(fail(why)),
    };
    for (what, timed) in [("its serial version", &out.serial), ("", &out.parallel)] {
        if timed.answer != input.answer {
            let who = if what.is_empty() {
                String::new()
            } else {
                format!(" ({what})")
            };
            return Err(fail(format!(
                "wrong answer{who}: {}, Rust serial answer {}",
                timed.answer, input.answer
            )));
        }
    }
    let sample = |t: &peers::Timed| Sample {
        wall: Duration::from_secs_f64(t.seconds),
        cpu: None,
    };
    Ok(Some((sample(&out.serial), sample(&out.parallel))))
}

/// How a run is named in progress lines and reports: `offshoot (2w)`, or `threads` for a
/// contender with no worker count.
/// The text of a panic's payload (a `&str` or a `String`, as `panic!` makes them).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string())
}

fn run_label(contender: Contender, workers: Option<usize>) -> String {
    match workers {
        Some(w) => format!("{} ({w}w)", contender.name()),
        None => contender.name().to_string(),
    }
}

/// One checked-for-panic, timed run (reset untimed).
fn one_run(
    kernel: &str,
    inst: &mut dyn Instance,
    contender: Contender,
    pool: Option<&Pools>,
    progress: &dyn Progress,
    watchdog: &Watchdog,
) -> Result<Sample, Failure> {
    let workers = pool.map(|p| p.workers);
    let label = run_label(contender, workers);
    progress.start(kernel, &label);
    inst.reset();
    release_free_memory();
    watchdog.set(Some(format!("kernel `{kernel}`, {label}")));
    let before = cpu_time();
    let start = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(|| match pool {
        None => run_unpooled(inst, contender),
        Some(p) => p.run(inst, contender),
    }));
    let wall = start.elapsed();
    let cpu = before.and_then(|b| cpu_time().map(|a| a.saturating_sub(b)));
    // A kernel that timed an interval of its own records that; the process's CPU time over
    // the whole call would not match it.
    let (wall, cpu) = match inst.timed() {
        Some(own) => (own, None),
        None => (wall, cpu),
    };
    watchdog.set(None);
    progress.finish_run();
    if let Err(panic) = outcome {
        let message = panic_message(&*panic);
        return Err(Failure {
            kernel: kernel.to_string(),
            contender: contender.name().to_string(),
            workers,
            message: format!("panicked: {message}"),
        });
    }
    Ok(Sample { wall, cpu })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers 1 everywhere except on `wrong`, which answers 2 (or panics).
    struct Faulty {
        wrong: Option<Contender>,
        panic: bool,
        last: Option<u64>,
        reference: Option<u64>,
    }

    impl Faulty {
        fn answer(&mut self, who: Contender) {
            if Some(who) == self.wrong {
                assert!(!self.panic, "deliberate failure");
                self.last = Some(2);
            } else {
                self.last = Some(1);
            }
        }
    }

    impl Work for Faulty {
        fn input(&self) -> String {
            "nothing".to_string()
        }
        fn reset(&mut self) {
            self.last = None;
        }
        fn accept_reference(&mut self) -> Result<(), String> {
            self.reference = self.last;
            Ok(())
        }
        fn check(&self) -> Result<(), String> {
            if self.last == self.reference {
                Ok(())
            } else {
                Err(format!("{:?} vs {:?}", self.last, self.reference))
            }
        }
    }

    /// Which contender answers wrong (or panics, with `true`).
    type Fault = (Option<Contender>, bool);
    const WRONG_RAYON: Fault = (Some(Contender::Rayon), false);
    const PANICKING_CHILI: Fault = (Some(Contender::Chili), true);
    const ALL_RIGHT: Fault = (None, false);

    /// A kernel with a version of each of `contenders` (its peers answer 1 to the argument
    /// 7), whose `fault` answers wrong or panics.
    fn faulty((wrong, panic): Fault, contenders: &[Contender]) -> KernelInfo {
        let about = About {
            name: "faulty",
            about: "a test double",
            cutoff: "none",
            source: "this test",
        };
        let state = move |_| Faulty {
            wrong,
            panic,
            last: None,
            reference: None,
        };
        let mut k = Kernel::new(about, state, |f| f.answer(Contender::Serial));
        for &c in contenders.iter().filter(|c| !c.is_peer()) {
            k = match c {
                Contender::Offshoot => k.offshoot(|f| f.answer(Contender::Offshoot)),
                Contender::Rayon => k.rayon(|f| f.answer(Contender::Rayon)),
                Contender::Chili => k.chili(|f, _| f.answer(Contender::Chili)),
                Contender::Tokio => k.tokio(|f, _| f.answer(Contender::Tokio)),
                Contender::Threads => k.threads(|f| f.answer(Contender::Threads)),
                other => panic!("no test version of {}", other.name()),
            };
        }
        let peers: Vec<Contender> = contenders.iter().copied().filter(|c| c.is_peer()).collect();
        if !peers.is_empty() {
            k = k.peers(&peers, |_| {
                Ok(PeerInput {
                    args: vec!["7".to_string()],
                    answer: "1".to_string(),
                })
            });
        }
        k.build()
    }

    struct Quiet;

    impl Progress for Quiet {
        fn start(&self, _: &str, _: &str) {}
        fn finish_run(&self) {}
        fn note(&self, _: &str) {}
        fn kernel_done(&self, _: &KernelResult) {}
    }

    fn plan(fault: Fault, check_only: bool) -> Plan {
        plan_with(fault, check_only, Contender::FORK_JOIN)
    }

    fn plan_with(fault: Fault, check_only: bool, contenders: &[Contender]) -> Plan {
        Plan {
            kernels: vec![faulty(fault, contenders)],
            size: Size::Test,
            workers: vec![1, 2],
            runs: 3,
            check_only,
            run_timeout: Duration::from_secs(60),
            peer_timeout: Duration::from_secs(60),
            peers: Peers::none(),
        }
    }

    fn pools() -> Vec<Pools> {
        vec![Pools::new(1).unwrap(), Pools::new(2).unwrap()]
    }

    #[test]
    fn a_wrong_answer_names_kernel_contender_and_workers() {
        let failure = run_suite(&plan(WRONG_RAYON, true), &pools(), &Quiet).unwrap_err();
        assert_eq!(failure.kernel, "faulty");
        assert_eq!(failure.contender, "rayon");
        assert_eq!(failure.workers, Some(1));
        assert!(failure.to_string().contains("wrong answer"), "{failure}");
    }

    #[test]
    fn a_panic_is_reported_not_propagated() {
        let failure = run_suite(&plan(PANICKING_CHILI, false), &pools(), &Quiet).unwrap_err();
        assert_eq!(failure.contender, "chili");
        assert!(failure.message.contains("deliberate failure"), "{failure}");
    }

    #[test]
    fn every_slot_is_recorded_once_per_round() {
        let p = plan(ALL_RIGHT, false);
        let results = run_suite(&p, &pools(), &Quiet).unwrap();
        let k = &results[0];
        assert_eq!(k.serial.seconds.len(), 3);
        assert_eq!(k.parallel.len(), 6);
        assert!(k.parallel.iter().all(|s| s.seconds.len() == 3));
        assert_eq!(k.comparisons.len(), 2);
        assert_eq!(k.offshoot_counters.len(), 2);
        assert_eq!(p.runs_per_kernel(&p.kernels[0]), 7 + 3 * 7);
        assert_eq!(p.total_runs(), 7 + 3 * 7);
        let k = &run_suite(&plan(ALL_RIGHT, true), &pools(), &Quiet).unwrap()[0];
        assert!(k.parallel.iter().all(|s| s.seconds.len() == 1));
    }

    /// Answers 1 and says each run took `own` (offshoot's runs `2 × own`).
    struct SelfTimed {
        own: Duration,
        last: Option<Duration>,
    }

    impl Work for SelfTimed {
        fn input(&self) -> String {
            "self-timed".to_string()
        }
        fn reset(&mut self) {
            self.last = None;
        }
        fn accept_reference(&mut self) -> Result<(), String> {
            Ok(())
        }
        fn check(&self) -> Result<(), String> {
            self.last.map(|_| ()).ok_or_else(|| "no run".to_string())
        }
        fn timed(&self) -> Option<Duration> {
            self.last
        }
    }

    #[test]
    fn a_kernel_that_times_itself_is_recorded_with_its_own_interval() {
        let about = About {
            name: "self-timed",
            about: "a test double",
            cutoff: "none",
            source: "this test",
        };
        let own = Duration::from_secs(1000);
        let state = move |_| SelfTimed { own, last: None };
        let kernel = Kernel::new(about, state, |s: &mut SelfTimed| s.last = Some(s.own))
            .offshoot(|s: &mut SelfTimed| s.last = Some(2 * s.own))
            .rayon(|s: &mut SelfTimed| s.last = Some(s.own / 2))
            .build();
        let mut p = plan(ALL_RIGHT, false);
        p.kernels = vec![kernel];
        let k = &run_suite(&p, &pools(), &Quiet).unwrap()[0];
        assert_eq!(k.serial.seconds, [1000.0; 3]);
        assert!(
            k.serial.cpu_seconds.is_empty(),
            "no CPU time beside an own interval"
        );
        let offshoot = k.series(Contender::Offshoot, 2).unwrap();
        assert_eq!(offshoot.seconds, [2000.0; 3]);
        assert_eq!(k.comparisons[0].offshoot_ratio, 2.0);
        assert_eq!(k.comparisons[0].rayon_ratio, Some(0.5));
    }

    #[test]
    fn a_kernel_runs_only_its_own_contenders_and_threads_once_per_round() {
        let p = plan_with(
            ALL_RIGHT,
            false,
            &[Contender::Offshoot, Contender::Tokio, Contender::Threads],
        );
        let k = &run_suite(&p, &pools(), &Quiet).unwrap()[0];
        let names: Vec<(String, Option<usize>)> = k
            .parallel
            .iter()
            .map(|s| (s.contender.clone(), s.workers))
            .collect();
        let want = [
            ("threads", None),
            ("offshoot", Some(1)),
            ("tokio", Some(1)),
            ("offshoot", Some(2)),
            ("tokio", Some(2)),
        ];
        assert_eq!(
            names,
            want.map(|(c, w)| (c.to_string(), w)),
            "series in slot order"
        );
        assert!(k.parallel.iter().all(|s| s.seconds.len() == 3));
        assert_eq!(p.runs_per_kernel(&p.kernels[0]), 6 + 3 * 6);
        assert!(!k.has(Contender::Rayon));
        for c in &k.comparisons {
            assert_eq!(c.rayon_ratio, None);
            assert!(c.tokio_ratio.is_some() && c.threads_ratio.is_some());
            assert_eq!(
                k.series(Contender::Threads, c.workers).map(|s| s.workers),
                Some(None)
            );
        }
        let p = plan_with(
            (Some(Contender::Threads), false),
            true,
            &[Contender::Offshoot, Contender::Threads],
        );
        let failure = run_suite(&p, &pools(), &Quiet).unwrap_err();
        assert_eq!(
            (failure.contender.as_str(), failure.workers),
            ("threads", None)
        );
    }

    /// A shell script standing in for a peer: prints `serial 0.25 1` and `parallel <w/10>
    /// <answer>` (the worker count is its second argument). Each test gives its own `test`
    /// name, the folder's: a test removes its folder when it ends.
    #[cfg(unix)]
    fn script_peer(test: &str, name: &str, parallel_answer: &str) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir =
            std::env::temp_dir().join(format!("offshoot-peer-test-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        let script = format!(
            "#!/bin/sh\n[ \"$1 $3 $4\" = \"faulty 0 7\" ] || [ \"$1 $3 $4\" = \"faulty 1 7\" ] || exit 9\n\
             echo \"serial 0.25 1\"\necho \"parallel 0.$2 {parallel_answer}\"\n"
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn a_peer_runs_per_worker_count_and_its_wrong_answer_is_reported() {
        let contenders: &'static [Contender] = &[Contender::Offshoot, Contender::COpenmp];
        let mut p = plan_with(ALL_RIGHT, false, contenders);
        p.peers = Peers::given(vec![(
            Contender::COpenmp,
            script_peer("runs", "right", "1"),
        )]);
        assert_eq!(p.runs_per_kernel(&p.kernels[0]), 3 + 3 * 5);
        let k = &run_suite(&p, &pools(), &Quiet).unwrap()[0];
        let peer = k.series(Contender::COpenmp, 2).unwrap();
        assert_eq!(peer.seconds, [0.2, 0.2, 0.2]);
        assert_eq!(k.peer_serial[0].contender, "c-serial");
        assert_eq!(k.peer_serial[0].seconds.len(), 6);
        let c = &k.comparisons[1];
        assert_eq!(c.c_openmp_ratio, Some(0.2 / 0.25));

        p.check_only = true;
        p.peers = Peers::given(vec![(
            Contender::COpenmp,
            script_peer("runs", "wrong", "2"),
        )]);
        let failure = run_suite(&p, &pools(), &Quiet).unwrap_err();
        assert_eq!(
            (failure.contender.as_str(), failure.workers),
            ("c-openmp", Some(1))
        );
        assert!(
            failure
                .message
                .contains("wrong answer: 2, Rust serial answer 1"),
            "{failure}"
        );

        // Without the peer built, the kernel runs without it.
        p.peers = Peers::none();
        let k = &run_suite(&p, &pools(), &Quiet).unwrap()[0];
        assert!(!k.has(Contender::COpenmp) && k.peer_serial.is_empty());
        let script = script_peer("runs", "right", "1");
        let _ = std::fs::remove_dir_all(script.parent().unwrap());
    }

    /// Records the lines the harness prints while it runs.
    #[derive(Default)]
    struct Notes(Mutex<Vec<String>>);

    impl Progress for Notes {
        fn start(&self, _: &str, _: &str) {}
        fn finish_run(&self) {}
        fn note(&self, line: &str) {
            self.0.lock().unwrap().push(line.to_string());
        }
        fn kernel_done(&self, _: &KernelResult) {}
    }

    #[cfg(unix)]
    #[test]
    fn a_peer_past_its_bound_is_killed_and_skipped_for_the_rest_of_the_kernel() {
        use std::os::unix::fs::PermissionsExt;
        let contenders: &'static [Contender] =
            &[Contender::Offshoot, Contender::COpenmp, Contender::Go];
        let mut p = plan_with(ALL_RIGHT, false, contenders);
        p.peer_timeout = Duration::from_secs(1);
        let right = script_peer("bound", "right", "1");
        let sleeper = right.with_file_name("sleeper");
        std::fs::write(&sleeper, "#!/bin/sh\nexec sleep 30\n").unwrap();
        std::fs::set_permissions(&sleeper, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.peers = Peers::given(vec![
            (Contender::COpenmp, right.clone()),
            (Contender::Go, sleeper.clone()),
        ]);
        let notes = Notes::default();
        let started = Instant::now();
        let k = &run_suite(&p, &pools(), &notes).unwrap()[0];
        // One invocation hit the bound (go at 1 worker, its first slot); the other five
        // were never started: far less than one 30 s sleep.
        assert!(started.elapsed() < Duration::from_secs(20));
        let reason = "the peer ran past the 1 s peer bound at 1 worker";
        assert_eq!(
            *notes.0.lock().unwrap(),
            [format!("go: faulty skipped: {reason}")]
        );
        assert_eq!(
            k.skipped_peers,
            [SkippedPeer {
                contender: "go".to_string(),
                workers: 1,
                reason: reason.to_string(),
            }]
        );
        assert!(!k.has(Contender::Go));
        assert!(k.comparisons.iter().all(|c| c.go_ratio.is_none()));
        // The well-behaved peer is unaffected.
        assert_eq!(k.series(Contender::COpenmp, 2).unwrap().seconds, [0.2; 3]);
        let serial: Vec<&str> = k.peer_serial.iter().map(|s| s.contender.as_str()).collect();
        assert_eq!(serial, ["c-serial"]);
        let _ = std::fs::remove_dir_all(right.parent().unwrap());
    }

    #[test]
    fn median_min_max() {
        let mut s = Series::new(Contender::Serial, None);
        for ms in [3, 1, 2] {
            s.push(Sample {
                wall: Duration::from_millis(ms),
                cpu: None,
            });
        }
        assert_eq!((s.median, s.min, s.max), (0.002, 0.001, 0.003));
        s.push(Sample {
            wall: Duration::from_millis(4),
            cpu: None,
        });
        assert!((s.median - 0.0025).abs() < 1e-12);
        assert_eq!(s.busy_cores(), None);
    }
}
