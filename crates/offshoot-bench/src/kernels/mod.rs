//! The benchmark kernels and the interface the harness drives them through.
//!
//! Each kernel lives in its own file with a plain serial version (no runtime,
//! no closures), its parallel versions, its answer check and its declaration: one
//! [`Kernel`] (see `declare.rs`) that gives each of its contenders the function that runs
//! it. Its contender list ([`KernelInfo::contenders`]) is derived from that declaration, so
//! the harness and the reports run and show exactly the contenders a kernel has a function
//! for. Every contender of a kernel runs the same algorithm on the same input with the same
//! cutoffs; a new kernel is one file and one line in [`all`].
//!
//! Contenders: the fork-join kernels (`fib`, `tree-sum`, `nqueens`, `knapsack`, `uts`,
//! `heat`, `matmul`, `cilksort`, `sort-halves`, the `grain-G` sweep, and the abort-latency
//! kernels `abort-panic` and `abort-eureka`) give offshoot, rayon and chili each a plain,
//! non-generic function of its own, written as a user writes it: in a user's crate the
//! user's function is the recursive one, which a body shared through a trait would change
//! (LLVM then makes the runtime's `join` the recursive function and tests the leaf at its
//! call site). The search kernels (`tsp`, `sudoku`, `nqueens-firstk`, `uts-goal`) and the
//! copying/undo variants (`pentomino`, `nqueens-undo`) keep one parallel version generic over
//! [`crate::par::Fork`] (used for offshoot and rayon): they measure termination and
//! copying, which the same body on every runtime makes comparable; `knapsack-bb`'s visit
//! counts use `knapsack::par_visiting` the same way. The kernels of `offshoot::sync` (`futures-fib`, `ring`,
//! `monitor-buffer`) wait on each other, which rayon and chili have no
//! construct for; their peers are tokio (futures) and plain OS threads with
//! `std::sync` (the blocking baseline).
//!
//! Peers in other languages ([`crate::peers`]: `c-openmp`, `go`, `java`, `c-openmp-clang`,
//! `cpp-tbb`) run the same algorithm on the same input as external programs; a kernel whose
//! declaration names them ([`Kernel::peers`], [`crate::harness::Contender::PEERS`]: `fib`,
//! `nqueens`, `par-for`, `matmul`, `tree-sum`, `knapsack`, `cilksort`, `uts`, `uts-bin`; and
//! of the waiting kernels `futures-fib`, with every peer, and `ring`, with `go` and `java`)
//! gives them their arguments and expected answer there.
//!
//! Order of work: offshoot's and rayon's `join(a, b)` run `a` on the calling
//! worker and offer `b` to others; chili's `Scope::join(a, b)` runs `b` itself
//! and offers `a`. The chili versions therefore pass the serial program's
//! second branch as the first closure, so that on one worker every contender
//! does the work in the serial program's order (this matters for knapsack's
//! pruning and for memory locality).
//!
//! Invariants the harness relies on:
//! - [`Work::reset`] is untimed and restores the input, so every run
//!   starts from the same state; it also forgets the previous answer, so a
//!   contender that produced nothing cannot pass [`Work::check`].
//! - The first run of an instance is a serial run followed by
//!   [`Work::accept_reference`], which validates the serial answer
//!   against an independent oracle (known values, a DP, std's sort, the naive
//!   product, ...) and stores it; every later run is compared with it.

pub mod abort;
mod answer_table;
mod bands;
pub mod bellman_ford;
pub mod cilksort;
pub mod cs;
mod declare;
pub mod dls;
pub mod empty;
pub mod fib;
mod first;
pub mod futures_fib;
pub mod grain;
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
pub mod opa_fifo;
pub mod par_for;
pub mod par_sort;
pub mod pentomino;
pub mod pentomino_copy;
pub mod plain;
pub mod ring;
pub mod savina;
pub mod shared_reads;
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

pub use declare::{About, Instance, Kernel, KernelInfo, Work};

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

/// Every kernel, in report order.
pub fn all() -> Vec<KernelInfo> {
    vec![
        fib::info(),
        nqueens::info(),
        nqueens_undo::info(),
        knapsack::info(),
        cilksort::info(),
        par_sort::info(),
        par_sort::info_unstable(),
        sort_halves::info(),
        matmul::info(),
        heat::info(),
        uts::info(),
        uts::info_binomial(),
        tree_sum::info(),
        par_for::info(),
        iter::info_sum(),
        iter::info_dot(),
        iter::info_filter_count(),
        iter::info_collect(),
        iter::info_minmax(),
        iter_apps::info_word_freq(),
        iter_apps::info_flat_map(),
        iter_apps::info_flat_map_collect(),
        iter_apps::info_find_first(),
        stencil::info(),
        jacobi::info(),
        jacobi::info_coarse(),
        kmeans::info(),
        sor::info(),
        bellman_ford::info(),
        moldyn::info(),
        sls::info(),
        knapsack_bb::info(),
        tsp::info(),
        sudoku::info(),
        dls::info_and(),
        dls::info_or(),
        cs::info(),
        uts_goal::info(),
        nqueens_firstk::info(),
        abort::info_panic(),
        abort::info_eureka(),
        pentomino::info(),
        pentomino_copy::info(),
        mandelbrot::info(),
        nbody::info(),
        futures_fib::info(),
        futures_fib::info_scoped(),
        futures_fib::info_handles(),
        ring::info(),
        monitor_buffer::info(),
        shared_reads::info(),
        opa_fifo::info(),
        answer_table::info(),
        savina::pingpong::info(),
        savina::counting::info(),
        savina::fjthroughput::info(),
        savina::thread_ring::info(),
        savina::bank::info(),
        savina::bounded_buffer::info(),
        savina::logistic_map::info(),
        savina::filter_bank::info(),
        savina::chameneos::info(),
        savina::big::info(),
        savina::dictionary::info(),
        savina::sorted_list::info(),
        savina::nqueens_prio::info(),
        empty::info_spawn(),
        empty::info_batch(),
    ]
    .into_iter()
    .chain(loop21::infos())
    .chain(loop6::infos())
    .chain(grain::infos())
    .collect()
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

/// Test helper: prepares `kernel` at the test size, runs serial, accepts it, then every
/// contender its declaration gives a function on 1 and 2 workers (the unpooled ones once),
/// checking each answer. The peers in other languages are left to `peers`' tests, which
/// build them.
#[cfg(test)]
pub(crate) fn verify(kernel: &KernelInfo) {
    use crate::harness::{Contender, Pools};
    let mut inst = kernel.prepare(Size::Test);
    inst.reset();
    inst.run(Contender::Serial, None);
    inst.accept_reference()
        .unwrap_or_else(|e| panic!("{}: serial answer rejected: {e}", inst.input()));
    let failed = |inst: &dyn Instance, who: String, e: String| -> ! {
        panic!("{}: {who}: {e}", inst.input())
    };
    let contenders = kernel.contenders();
    for &contender in contenders.iter().filter(|c| !c.pooled()) {
        inst.reset();
        inst.run(contender, None);
        if let Err(e) = inst.check() {
            failed(&*inst, contender.name().to_string(), e);
        }
    }
    for workers in [1, 2] {
        let pools = Pools::new(workers).expect("pools");
        for &contender in contenders.iter().filter(|c| c.pooled() && !c.is_peer()) {
            inst.reset();
            inst.run(contender, Some(&pools));
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
    fn every_kernel_has_a_name_of_its_own_and_an_offshoot_version() {
        let mut names = std::collections::HashSet::new();
        for k in all() {
            assert!(names.insert(k.name), "{}: name used twice", k.name);
            assert!(
                k.contenders().iter().any(|c| c.is_offshoot()),
                "{}: no offshoot version",
                k.name
            );
        }
    }
}
