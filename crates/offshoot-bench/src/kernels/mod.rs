//! The benchmark kernels and the interface the harness drives them through.
//!
//! Each kernel lives in its own file with a plain serial version (no runtime,
//! no closures), its parallel versions and its answer check. Every contender
//! of a kernel runs the same algorithm on the same input with the same
//! cutoffs.
//!
//! Contenders: the fork-join kernels (most of the suite) have one parallel
//! version generic over [`crate::par::Fork`] (used for offshoot and rayon) and
//! one for chili. The kernels of `offshoot::sync` (`futures-fib`, `ring`,
//! `monitor-buffer`) wait on each other, which rayon and chili have no
//! construct for; their peers are tokio (futures) and plain OS threads with
//! `std::sync` (the blocking baseline). [`KernelInfo::contenders`] lists the
//! parallel contenders a kernel has; the harness runs and reports only those,
//! and the [`Instance`] methods of the others are never called (their default
//! bodies panic, naming the kernel's mistake).
//!
//! Peers in other languages ([`crate::peers`]: `c-openmp`, `go`, `java`, `c-openmp-clang`,
//! `cpp-tbb`) run the same algorithm on the same input as external programs; a kernel that
//! lists them ([`Contender::FORK_JOIN_PEERS`]: `fib`, `nqueens`, `par-for`, `matmul`,
//! `tree-sum`, `knapsack`, `cilksort`, `uts`, `uts-bin`; and of the waiting kernels
//! `futures-fib`, with every peer, and `ring`, with `go` and `java`) gives them their arguments and expected answer through
//! [`Instance::peer_input`].
//!
//! Order of work: offshoot's and rayon's `join(a, b)` run `a` on the calling
//! worker and offer `b` to others; chili's `Scope::join(a, b)` runs `b` itself
//! and offers `a`. The chili versions therefore pass the serial program's
//! second branch as the first closure, so that on one worker every contender
//! does the work in the serial program's order (this matters for knapsack's
//! pruning and for memory locality).
//!
//! Invariants the harness relies on:
//! - [`Instance::reset`] is untimed and restores the input, so every run
//!   starts from the same state; it also forgets the previous answer, so a
//!   contender that produced nothing cannot pass [`Instance::check`].
//! - The first run of an instance is a serial run followed by
//!   [`Instance::accept_reference`], which validates the serial answer
//!   against an independent oracle (known values, a DP, std's sort, the naive
//!   product, ...) and stores it; every later run is compared with it.

mod bands;
pub mod bellman_ford;
pub mod cilksort;
pub mod cs;
pub mod dls;
pub mod empty;
pub mod fib;
mod first;
pub mod futures_fib;
mod haystack;
pub mod heat;
pub mod items;
pub mod iter;
pub mod iter_apps;
pub mod jacobi;
pub mod kmeans;
pub mod knapsack;
pub mod knapsack_bb;
pub mod loop21;
pub mod loop6;
pub mod mandelbrot;
pub mod matmul;
pub mod moldyn;
pub mod monitor_buffer;
pub mod nbody;
pub mod nqueens;
pub mod nqueens_firstk;
pub mod nqueens_undo;
pub mod par_for;
pub mod par_sort;
pub mod pentomino;
pub mod pentomino_copy;
pub mod plain;
pub mod ring;
pub mod savina;
pub mod sls;
pub mod sor;
pub mod sort_halves;
pub mod stencil;
pub mod sudoku;
mod tokio_rows;
pub mod tree_sum;
pub mod tsp;
pub mod uts;
pub mod uts_goal;
mod visits;

use std::fmt::Debug;

use crate::harness::Contender;

/// Input size class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Tiny inputs for unit tests (debug builds, well under a second).
    Test,
    /// The `quick` mode: the whole suite in well under a minute on 2 cores.
    Quick,
    /// The `full` mode: the inputs the papers use, or the nearest that fit.
    Full,
}

/// Static description of a kernel, shown in every report.
#[derive(Clone, Copy)]
pub struct KernelInfo {
    /// Name used on the command line (`--kernels`).
    pub name: &'static str,
    /// What it computes, in one sentence.
    pub about: &'static str,
    /// The cutoff used by every contender ("none" when there is none).
    pub cutoff: &'static str,
    /// Where the kernel comes from.
    pub source: &'static str,
    /// Its parallel contenders, in the order of [`Contender::PARALLEL`]
    /// (serial always runs): [`Contender::FORK_JOIN`] for the fork-join
    /// kernels.
    pub contenders: &'static [Contender],
    /// Builds an instance (untimed): input generation and any setup.
    pub prepare: fn(Size) -> Box<dyn Instance>,
}

/// A prepared kernel input that every contender can run.
pub trait Instance: Send {
    /// A short description of the input, e.g. `fib(32)`.
    fn input(&self) -> String;
    /// Untimed: restores the input and forgets the last answer.
    fn reset(&mut self);
    /// The plain serial program.
    fn serial(&mut self);
    /// The offshoot version; the harness calls it inside `ThreadPool::run`.
    fn offshoot(&mut self);
    /// offshoot with a hand-threaded cancellation token (search kernels).
    fn offshoot_ct(&mut self) {
        missing(Contender::OffshootCt);
    }
    /// offshoot with no termination (search kernels).
    fn offshoot_af(&mut self) {
        missing(Contender::OffshootAf);
    }
    /// offshoot with a fork-join per step, rayon's way (phaser kernels).
    fn offshoot_fj(&mut self) {
        missing(Contender::OffshootFj);
    }
    /// offshoot's plain actors instead of selectors (selector kernels).
    fn offshoot_actors(&mut self) {
        missing(Contender::OffshootActors);
    }
    /// offshoot's tasks and channels instead of actors (actor kernels).
    fn offshoot_tasks(&mut self) {
        missing(Contender::OffshootTasks);
    }
    /// The rayon version; the harness calls it inside `ThreadPool::install`.
    fn rayon(&mut self) {
        missing(Contender::Rayon);
    }
    /// The chili version, given a scope of the chili pool.
    fn chili(&mut self, scope: &mut chili::Scope<'_>) {
        let _ = scope;
        missing(Contender::Chili);
    }
    /// The tokio version, given the runtime (it calls `rt.block_on` itself).
    fn tokio(&mut self, rt: &tokio::runtime::Runtime) {
        let _ = rt;
        missing(Contender::Tokio);
    }
    /// The kameo version (Savina kernels), given the tokio runtime (it calls
    /// `rt.block_on` itself).
    fn kameo(&mut self, rt: &tokio::runtime::Runtime) {
        let _ = rt;
        missing(Contender::Kameo);
    }
    /// The version on plain OS threads with `std::sync` (the blocking
    /// baseline); it starts and joins its own threads.
    fn threads(&mut self) {
        missing(Contender::Threads);
    }
    /// Untimed, after [`Instance::accept_reference`]: the arguments and the expected answer
    /// of the peers in other languages ([`crate::peers`]), for a kernel whose
    /// [`KernelInfo::contenders`] lists one.
    fn peer_input(&self) -> Result<crate::peers::PeerInput, String> {
        Err("this kernel has no peer version".to_string())
    }
    /// Untimed: validates the last (serial) answer against an independent
    /// oracle and keeps it as the reference for [`Instance::check`].
    fn accept_reference(&mut self) -> Result<(), String>;
    /// Untimed: compares the last answer with the reference.
    fn check(&self) -> Result<(), String>;
}

/// The body of an [`Instance`] method for a contender the kernel does not
/// have: reached only if [`KernelInfo::contenders`] lists it by mistake.
pub(crate) fn missing(contender: Contender) -> ! {
    panic!(
        "this kernel has no {} version, but its KernelInfo::contenders lists it",
        contender.name()
    )
}

/// Every kernel, in report order.
pub fn all() -> Vec<KernelInfo> {
    vec![
        fib::INFO,
        nqueens::INFO,
        nqueens_undo::INFO,
        knapsack::INFO,
        cilksort::INFO,
        par_sort::INFO,
        par_sort::INFO_UNSTABLE,
        sort_halves::INFO,
        matmul::INFO,
        heat::INFO,
        uts::INFO,
        uts::INFO_BINOMIAL,
        tree_sum::INFO,
        par_for::INFO,
        iter::INFO_SUM,
        iter::INFO_DOT,
        iter::INFO_FILTER_COUNT,
        iter::INFO_COLLECT,
        iter::INFO_MINMAX,
        iter_apps::INFO_WORD_FREQ,
        iter_apps::INFO_FLAT_MAP,
        iter_apps::INFO_FLAT_MAP_COLLECT,
        iter_apps::INFO_FIND_FIRST,
        stencil::INFO,
        jacobi::INFO,
        jacobi::INFO_COARSE,
        kmeans::INFO,
        sor::INFO,
        bellman_ford::INFO,
        moldyn::INFO,
        sls::INFO,
        knapsack_bb::INFO,
        tsp::INFO,
        sudoku::INFO,
        dls::INFO_AND,
        dls::INFO_OR,
        cs::INFO,
        uts_goal::INFO,
        nqueens_firstk::INFO,
        pentomino::INFO,
        pentomino_copy::INFO,
        mandelbrot::INFO,
        nbody::INFO,
        futures_fib::INFO,
        futures_fib::SCOPED_INFO,
        ring::INFO,
        monitor_buffer::INFO,
        savina::pingpong::INFO,
        savina::counting::INFO,
        savina::fjthroughput::INFO,
        savina::thread_ring::INFO,
        savina::bank::INFO,
        savina::bounded_buffer::INFO,
        savina::logistic_map::INFO,
        savina::filter_bank::INFO,
        savina::chameneos::INFO,
        savina::big::INFO,
        savina::dictionary::INFO,
        savina::sorted_list::INFO,
        savina::nqueens_prio::INFO,
        empty::INFO_SPAWN,
        empty::INFO_BATCH,
        loop21::INFO_ROWS,
        loop21::INFO_BATCH,
        loop21::INFO_CHUNKS,
        loop6::INFO_ROWS,
        loop6::INFO_BATCH,
        loop6::INFO_CHUNKS,
    ]
}

/// The kernel called `name`, if any.
pub fn find(name: &str) -> Option<KernelInfo> {
    all().into_iter().find(|k| k.name == name)
}

/// The answer of a kernel whose result is one value, with its reference.
#[derive(Debug)]
pub(crate) struct Answer<T> {
    last: Option<T>,
    reference: Option<T>,
}

impl<T: Copy + PartialEq + Debug> Answer<T> {
    pub(crate) fn new() -> Self {
        Self {
            last: None,
            reference: None,
        }
    }

    /// Records the answer of the run that just finished.
    pub(crate) fn set(&mut self, value: T) {
        self.last = Some(value);
    }

    /// Forgets the last answer (called by `reset`).
    pub(crate) fn clear(&mut self) {
        self.last = None;
    }

    /// Validates the last answer with `oracle` and keeps it as reference.
    pub(crate) fn accept(
        &mut self,
        oracle: impl FnOnce(T) -> Result<(), String>,
    ) -> Result<(), String> {
        let value = self.last.ok_or("the serial run recorded no answer")?;
        oracle(value)?;
        self.reference = Some(value);
        Ok(())
    }

    /// The accepted reference answer, if any.
    pub(crate) fn reference(&self) -> Option<T> {
        self.reference
    }

    /// Compares the last answer with the reference.
    pub(crate) fn check(&self) -> Result<(), String> {
        match (self.last, self.reference) {
            (Some(got), Some(want)) if got == want => Ok(()),
            (Some(got), Some(want)) => Err(format!("answer {got:?}, serial answer {want:?}")),
            (None, _) => Err("the run recorded no answer".to_string()),
            (_, None) => Err("no reference answer (serial run missing)".to_string()),
        }
    }
}

/// A contender's output against the serial run's, kept in `reference` by
/// [`Instance::accept_reference`].
pub(crate) fn check_reference<T: PartialEq + Debug>(
    got: &[T],
    reference: &Option<Vec<T>>,
) -> Result<(), String> {
    match reference {
        None => Err("no reference answer (serial run missing)".to_string()),
        Some(r) => compare_slices(got, r),
    }
}

/// Compares an output buffer with the reference buffer, naming the first
/// differing index.
pub(crate) fn compare_slices<T: PartialEq + Debug>(got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "output has {} elements, serial output {}",
            got.len(),
            want.len()
        ));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "element {i} is {:?}, serial output has {:?}",
            got[i], want[i]
        )),
    }
}

/// Test helper: runs serial, accepts it, then every fork-join contender on 1
/// and 2 workers, checking each answer.
#[cfg(test)]
pub(crate) fn verify_all_contenders(inst: Box<dyn Instance>) {
    verify_contenders(inst, Contender::FORK_JOIN);
}

/// Test helper: runs serial, accepts it, then every contender of
/// `contenders` on 1 and 2 workers (the unpooled ones once), checking each
/// answer. The peers in other languages are left to `peers`' tests, which build them.
#[cfg(test)]
pub(crate) fn verify_contenders(mut inst: Box<dyn Instance>, contenders: &[Contender]) {
    use crate::harness::{run_unpooled, Pools};
    inst.reset();
    inst.serial();
    inst.accept_reference()
        .unwrap_or_else(|e| panic!("{}: serial answer rejected: {e}", inst.input()));
    let failed = |inst: &dyn Instance, who: String, e: String| -> ! {
        panic!("{}: {who}: {e}", inst.input())
    };
    for &contender in contenders.iter().filter(|c| !c.pooled()) {
        inst.reset();
        run_unpooled(&mut *inst, contender);
        if let Err(e) = inst.check() {
            failed(&*inst, contender.name().to_string(), e);
        }
    }
    for workers in [1, 2] {
        let pools = Pools::new(workers).expect("pools");
        for &contender in contenders.iter().filter(|c| c.pooled() && !c.is_peer()) {
            inst.reset();
            pools.run(&mut *inst, contender);
            if let Err(e) = inst.check() {
                failed(
                    &*inst,
                    format!("{} on {workers} workers", contender.name()),
                    e,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_lists_its_contenders_once_in_report_order() {
        let mut names = std::collections::HashSet::new();
        for k in all() {
            assert!(names.insert(k.name), "{}: name used twice", k.name);
            assert!(!k.contenders.is_empty(), "{}: no contenders", k.name);
            let positions: Vec<usize> = k
                .contenders
                .iter()
                .map(|c| {
                    Contender::PARALLEL
                        .iter()
                        .position(|p| p == c)
                        .unwrap_or_else(|| panic!("{}: {} is not parallel", k.name, c.name()))
                })
                .collect();
            assert!(
                positions.windows(2).all(|w| w[0] < w[1]),
                "{}: contenders out of order or repeated",
                k.name
            );
        }
    }
}
