//! Ways to run "compute item `i` of an output slice" in parallel, shared by the loop
//! kernels (`mandelbrot`, `nbody`, `loop21-*`, `loop6-*`, `empty-*`), so that each kernel
//! states only its per-item work and every contender runs exactly that work per item.
//!
//! - [`serial()`]: a plain loop over the items;
//! - [`offshoot()`] with a [`Strategy`]: `par_iter_mut` (lazily split), a `scope.spawn` per
//!   item (Venetis et al.'s Natural), one `spawn_batch` (Venetis et al.'s Batch), or one task per worker on equal
//!   chunks (Venetis et al.'s Equal; the chunk polls after each item, as offshoot asks of long tasks);
//! - [`rayon()`]: `par_iter_mut` (adaptive splitting), a `scope.spawn` per item, or
//!   `par_chunks_mut` with one chunk per thread for the equal-chunks strategy;
//! - [`chili()`]: chili has no loop API; recursive halving with `Scope::join` down to `grain`
//!   items.
//!
//! Invariant: every strategy calls `f(i, &mut out[i])` exactly once for each `i`, and only
//! that call touches `out[i]` (see [`Disjoint`] for the one place that needs `unsafe`).

use std::fmt::Debug;
use std::marker::PhantomData;

/// How the offshoot (and rayon) version cuts the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A parallel loop that splits on demand (offshoot `par_iter_mut`, rayon `par_iter_mut`).
    Loop,
    /// One task per item: `Scope::spawn` in a loop (offshoot and rayon alike).
    Spawn,
    /// One batch of tasks: offshoot `Scope::spawn_batch` (rayon: `par_iter_mut`).
    Batch,
    /// One task per worker on equal chunks (offshoot `spawn` per chunk; rayon
    /// `par_chunks_mut`).
    Chunks,
}

/// The plain loop.
pub fn serial<T>(out: &mut [T], f: impl Fn(usize, &mut T)) {
    for (i, x) in out.iter_mut().enumerate() {
        f(i, x);
    }
}

/// Items per chunk when `n` items are cut into one chunk per worker.
fn chunk_len(n: usize, workers: usize) -> usize {
    n.div_ceil(workers.max(1)).max(1)
}

/// The offshoot version with `strategy`; call inside `offshoot::ThreadPool::run`.
pub fn offshoot<T: Send, F: Fn(usize, &mut T) + Sync>(strategy: Strategy, out: &mut [T], f: F) {
    use offshoot::{IndexedParallelIterator, IntoParallelRefMutIterator, ParallelIterator};
    let f = &f;
    match strategy {
        Strategy::Loop => out.par_iter_mut().enumerate().for_each(|(i, x)| f(i, x)),
        Strategy::Spawn => offshoot::scope(|s| {
            for (i, x) in out.iter_mut().enumerate() {
                s.spawn(move |_| f(i, x));
            }
        }),
        Strategy::Batch => {
            let n = out.len();
            let out = Disjoint::new(out);
            offshoot::scope(|s| {
                s.spawn_batch(n, |i| {
                    // SAFETY: `spawn_batch` runs each index of `0..n` exactly once.
                    f(i, unsafe { out.get(i) })
                })
            })
        }
        Strategy::Chunks => {
            let len = chunk_len(out.len(), offshoot::current_num_workers());
            offshoot::scope(|s| {
                for (c, chunk) in out.chunks_mut(len).enumerate() {
                    // offshoot answers requests only at polls: a long task polls, here
                    // after each item, so that an idle worker can take the pending chunk.
                    s.spawn(move |_| {
                        serial(chunk, |i, x| {
                            f(c * len + i, x);
                            offshoot::poll();
                        })
                    });
                }
            })
        }
    }
}

/// The rayon version: `par_iter_mut` ([`Strategy::Loop`], [`Strategy::Batch`]), a
/// `scope.spawn` per item, or equal chunks; call inside `rayon::ThreadPool::install`.
pub fn rayon<T: Send, F: Fn(usize, &mut T) + Sync>(strategy: Strategy, out: &mut [T], f: F) {
    use rayon::prelude::*;
    let f = &f;
    match strategy {
        Strategy::Loop | Strategy::Batch => {
            out.par_iter_mut().enumerate().for_each(|(i, x)| f(i, x))
        }
        Strategy::Spawn => rayon::scope(|s| {
            for (i, x) in out.iter_mut().enumerate() {
                s.spawn(move |_| f(i, x));
            }
        }),
        Strategy::Chunks => {
            let len = chunk_len(out.len(), rayon::current_num_threads());
            out.par_chunks_mut(len)
                .enumerate()
                .for_each(|(c, chunk)| serial(chunk, |i, x| f(c * len + i, x)));
        }
    }
}

/// Recursive halving with chili's join down to `grain` items.
pub fn chili<T: Send, F: Fn(usize, &mut T) + Sync>(
    s: &mut chili::Scope<'_>,
    out: &mut [T],
    grain: usize,
    f: &F,
) {
    fn go<T: Send, F: Fn(usize, &mut T) + Sync>(
        s: &mut chili::Scope<'_>,
        out: &mut [T],
        first: usize,
        grain: usize,
        f: &F,
    ) {
        if out.len() <= grain.max(1) {
            serial(out, |i, x| f(first + i, x));
            return;
        }
        let mid = out.len() / 2;
        let (lo, hi) = out.split_at_mut(mid);
        s.join(
            |s| go(s, lo, first, grain, f),
            |s| go(s, hi, first + mid, grain, f),
        );
    }
    go(s, out, 0, grain, f)
}

/// A slice whose elements may be handed out mutably by index from a shared reference, to
/// code that visits each index once (the body of a `spawn_batch`).
pub struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    marker: PhantomData<&'a mut [T]>,
}

// SAFETY: a `Disjoint` only gives out `&mut T` for distinct indices (the contract of `get`),
// so sharing it across threads shares no element; `T: Send` lets an element be mutated on
// another thread.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for Disjoint<'_, T> {}

impl<'a, T> Disjoint<'a, T> {
    /// Borrows `out` mutably for `'a`.
    pub fn new(out: &'a mut [T]) -> Self {
        Disjoint {
            ptr: out.as_mut_ptr(),
            len: out.len(),
            marker: PhantomData,
        }
    }

    /// Element `i`.
    ///
    /// # Safety
    /// Each index may be asked for at most once while the `Disjoint` lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self, i: usize) -> &'a mut T {
        assert!(i < self.len, "index {i} out of bounds ({})", self.len);
        // SAFETY: in bounds; the slice is borrowed mutably for 'a; no other reference to
        // element `i` exists (the caller asks for each index once).
        unsafe { &mut *self.ptr.add(i) }
    }
}

/// A kernel made of passes of "compute every item of the output": its input, its per-item
/// work, what happens between passes, and its answer. [`ItemsInstance`] runs it for the
/// harness.
pub trait ItemWork: Send + Sync {
    /// One output item.
    type Item: Send;
    /// One element of the answer that contenders must agree on.
    type Answer: Clone + PartialEq + Debug + Send;
    /// A short description of the input.
    fn input(&self) -> String;
    /// Untimed: restores the input; returns the output's initial state.
    fn reset(&mut self) -> Vec<Self::Item>;
    /// How many passes a run makes.
    fn passes(&self) -> usize;
    /// Computes item `i` of the output in the current pass.
    fn item(&self, i: usize, x: &mut Self::Item);
    /// Serial work between passes (after each pass, the last one included).
    fn after_pass(&mut self, out: &mut [Self::Item]) {
        let _ = out;
    }
    /// The answer of a run, from the output and the kernel's state.
    fn answer(&self, out: &[Self::Item]) -> Vec<Self::Answer>;
    /// Untimed: validates the serial answer against an independent oracle.
    fn oracle(&self, answer: &[Self::Answer]) -> Result<(), String>;
}

/// How each contender runs an [`ItemWork`].
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// offshoot's strategy.
    pub offshoot: Strategy,
    /// rayon's strategy.
    pub rayon: Strategy,
    /// chili's leaf size in items.
    pub chili_grain: usize,
}

impl Plan {
    /// The plan of a kernel run as Venetis et al.'s Natural / Batch / Equal variants of `n` items:
    /// offshoot as `offshoot` says; rayon with `par_iter_mut`, or with one chunk per thread
    /// for [`Strategy::Chunks`]; chili down to single items, or to one chunk per core.
    pub fn natural_batch_or_equal(offshoot: Strategy, n: usize) -> Plan {
        if offshoot == Strategy::Chunks {
            let cores = crate::machine::available_parallelism().max(1);
            Plan {
                offshoot,
                rayon: Strategy::Chunks,
                chili_grain: n.div_ceil(cores),
            }
        } else {
            Plan {
                offshoot,
                rayon: Strategy::Loop,
                chili_grain: 1,
            }
        }
    }
}

/// The state of an [`ItemWork`] kernel.
pub struct ItemsInstance<W: ItemWork> {
    work: W,
    plan: Plan,
    out: Vec<W::Item>,
    last: Option<Vec<W::Answer>>,
    reference: Option<Vec<W::Answer>>,
}

impl<W: ItemWork> ItemsInstance<W> {
    /// An instance of `work` run as `plan` says.
    pub fn new(work: W, plan: Plan) -> Self {
        ItemsInstance {
            work,
            plan,
            out: Vec::new(),
            last: None,
            reference: None,
        }
    }

    /// Runs every pass with `pass` and records the answer.
    fn run(&mut self, mut pass: impl FnMut(&W, &mut [W::Item])) {
        for _ in 0..self.work.passes() {
            pass(&self.work, &mut self.out);
            self.work.after_pass(&mut self.out);
        }
        self.last = Some(self.work.answer(&self.out));
    }
}

impl<W: ItemWork + 'static> ItemsInstance<W> {
    fn run_serial(&mut self) {
        self.run(|w, out| serial(out, |i, x| w.item(i, x)));
    }
    fn run_offshoot(&mut self) {
        let s = self.plan.offshoot;
        self.run(|w, out| offshoot(s, out, |i, x| w.item(i, x)));
    }
    fn run_rayon(&mut self) {
        let s = self.plan.rayon;
        self.run(|w, out| rayon(s, out, |i, x| w.item(i, x)));
    }
    fn run_chili(&mut self, scope: &mut chili::Scope<'_>) {
        let g = self.plan.chili_grain;
        self.run(|w, out| chili(scope, out, g, &|i, x| w.item(i, x)));
    }
}

/// The declaration of an [`ItemWork`] kernel whose instance `prepare` builds: serial,
/// offshoot, rayon and chili, each running every pass as the instance's [`Plan`] says.
pub fn declare<W: ItemWork + 'static>(
    about: super::About,
    prepare: impl Fn(super::Size) -> ItemsInstance<W> + Send + Sync + 'static,
) -> super::KernelInfo {
    super::Kernel::new(about, prepare, ItemsInstance::run_serial)
        .offshoot(ItemsInstance::run_offshoot)
        .rayon(ItemsInstance::run_rayon)
        .chili(ItemsInstance::run_chili)
        .build()
}

/// The three variants of a kernel run as Venetis et al.'s Natural / Batch / Equal
/// ([`Plan::natural_batch_or_equal`]: offshoot spawns per item, as one batch, or one task
/// per worker on equal chunks), described by `abouts` in that order, each instance built by
/// `prepare` with its strategy.
pub fn natural_batch_equal<W: ItemWork + 'static>(
    abouts: [super::About; 3],
    prepare: fn(super::Size, Strategy) -> ItemsInstance<W>,
) -> [super::KernelInfo; 3] {
    let [rows, batch, chunks] = abouts;
    [
        declare(rows, move |size| prepare(size, Strategy::Spawn)),
        declare(batch, move |size| prepare(size, Strategy::Batch)),
        declare(chunks, move |size| prepare(size, Strategy::Chunks)),
    ]
}

impl<W: ItemWork + 'static> super::Work for ItemsInstance<W> {
    fn input(&self) -> String {
        self.work.input()
    }
    fn reset(&mut self) {
        self.out = self.work.reset();
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let got = self
            .last
            .take()
            .ok_or("the serial run recorded no answer")?;
        self.work.oracle(&got)?;
        self.reference = Some(got);
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        match (&self.last, &self.reference) {
            (Some(got), Some(want)) => super::compare_slices(got, want),
            (None, _) => Err("the run recorded no answer".to_string()),
            (_, None) => Err("no reference answer (serial run missing)".to_string()),
        }
    }
}
