//! # offshoot — a fork that costs about a call
//!
//! offshoot is a task-parallel runtime in which a parallel call costs about as much as a
//! plain call, because a task is created only when an idle worker asks for one (lazy task
//! creation, after Mohr–Kranz–Halstead, Goldstein–Schauser–Culler's lazy threads and
//! Yasugi et al.'s LBTC).
//!
//! ## Usage
//!
//! ```
//! use offshoot::prelude::*;
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { return n; }
//!     let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//!
//! let squares: u64 = (1..=1000u64).into_par_iter().map(|x| x * x).sum();
//! assert_eq!((squares, fib(20)), (333_833_500, 6765));
//! ```
//!
//! rayon code ports by changing the import ([Coming from rayon](#coming-from-rayon) lists
//! what behaves differently); a pool of its own is
//! [`ThreadPoolBuilder`]`::new().num_threads(n).build()` or offshoot's
//! [`ThreadPool::builder()`](ThreadPool::builder); async code awaits a computation through
//! [`sync::spawn_async`].
//!
//! ## Features
//!
//! Every subsystem is on by default (`default-features = false` leaves them out, for a
//! crate that wants rayon's surface and a shorter build): `sync` ([`sync`]: parking locks,
//! channels, promises, futures and handles, shared objects), `eureka` ([`eureka`]),
//! `search` ([`search`]), `actor` ([`actor`]), `phaser` ([`phaser`], brings `sync`),
//! `accumulator` ([`accumulator`]) and `isolated` ([`isolated`], brings `sync`). The core
//! is always there: `join`, `scope`, `finish`, pools, parallel iterators and sorts,
//! fibers and parking, the deadlock report, [`metrics`] and [`trace`].
//!
//! ## The model in one page
//!
//! * [`join(a, b)`](join()) does not create a task. It plants a *seed* for `b` in its own
//!   stack frame, links it into the worker's frame chain, polls, runs `a`, and — if nobody
//!   took the seed — calls `b` like a plain function. No allocation, no atomic
//!   read-modify-write, no fence on that path. A worker keeps a few unstolen seeds at most;
//!   a join that finds them all there plants none and is two plain calls (it polls only when
//!   a request or a stop was sent to the worker, which raises a thread-local word the join
//!   compares its count with).
//! * A worker with nothing to do sends a **request** to a busy worker. The busy worker sees
//!   it at its next **poll** (every `join`, `finish::spawn`, `handle`, and [`poll()`] is
//!   one), and answers with its **oldest** seed — the one nearest the bottom of its stack, usually the
//!   biggest piece of work — or with "nothing". Only then does a seed become a task.
//! * A worker that reaches the join of a seed that was taken first takes work back *only
//!   from the worker that took it* (leapfrogging). When there is none, the waiting task
//!   **parks**: tasks run on fibers (stacks from a per-worker pool), and the waiting fiber
//!   is set aside with its frames intact while the worker goes on with other work on
//!   another fiber; it resumes, on the same thread, once the thief is done. Seeds left on a
//!   parked stack stay available to thieves and to the worker itself.
//! * The same parking serves every wait in [`sync`]: events, promises, futures, locks,
//!   monitors, condition variables, semaphores, barriers, channels and data-driven tasks
//!   wait without blocking their worker, so a pool whose tasks wait on each other keeps
//!   running (a lock held around a nested parallel call does not deadlock the pool). A wait
//!   ends early when a sibling fails (it unwinds as stopped), and when no task can make
//!   progress any more — every worker idle, tasks waiting on each other — each wait panics
//!   with a report of who waits on what ([deadlocks](Builder#deadlocks)).
//! * [`finish()`] joins every task spawned with [`finish::spawn`](finish::spawn()) in its
//!   dynamic extent — in callees, in spawned tasks, on any worker. [`scope()`] is the
//!   lexical version whose tasks may borrow. rayon's [`spawn`](spawn()) is detached: nothing
//!   waits for it.
//! * Failures cross joins: the first panic (or `Err` in the `try_` forms) wins, every other
//!   task of that join / scope / finish is **stopped** at its next poll point (its
//!   destructors run), tasks not yet started never start, and the winner resumes in the
//!   caller once all of them have finished. A stop cannot be swallowed: every later poll of
//!   the stopped task stops it again.
//! * Loops ([`par_for`], [`par_reduce`], the parallel iterators of [`prelude`]) keep their
//!   remaining range whole and give the upper half to each worker that asks.
//! * A sequential iterator becomes a parallel one ([`ParallelBridge::par_bridge`]): it runs
//!   as such a loop, whose pieces pull their items from the shared iterator in batches.
//! * Backtracking searches keep **one** shared, mutable state ([`search::State`]): a
//!   [spawn-request handler](search::State::handle) copies it and spawns part of the
//!   remaining work only when a worker asks, and [undo-redo clauses](search::State::undo_redo)
//!   roll it back to what the older handler expects around the call (see [`search`]).
//! * Speculative searches stop themselves ([`eureka`]): a region with a eureka (a search
//!   that wants *a* solution, the first `k`, the best under a bound, or whatever is found
//!   in a time or work budget) stops all its work once the eureka is resolved, through
//!   the same stop as a failure.
//! * Tasks that meet at phase boundaries many times use [`phaser`]s (modes, split-phase
//!   `signal`/`wait`, `single` blocks), parking while they wait.
//! * Reductions bound to a finish ([`accumulator`]): tasks `put` into their worker's own
//!   partial, combined when the finish ends (in index order, for an operator that does not
//!   commute, with `OrderedAccumulator`); mutual exclusion in the style of HJ
//!   ([`isolated`], [`isolated_on`]) parks waiting tasks and forbids parallel constructs
//!   inside a section.
//! * Message-driven state ([`actor`]): actors and selectors (several mailboxes that the
//!   handler enables and disables) whose handlers run as ordinary tasks, so they may fork,
//!   join and wait; an idle actor owns no task, and the finish it was started in waits for
//!   it to exit.
//! * Seeing a run: a pool can record a timeline of what each worker did ([`trace`],
//!   Chrome/Perfetto JSON), and measure work, span and parallelism per run and per
//!   [`metrics::measure`] call ([`metrics`]: in time as Cilkscale, or in units the program
//!   charges as HJlib) — both off unless the pool is built with them, and then free on the
//!   paths they do not use.
//! * Idle workers back off and sleep; an idle pool burns no CPU.
//!
//! ```
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//!
//! let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
//! assert_eq!(pool.run(|| fib(25)), 75025);
//! println!("{}", pool.stats());
//! ```
//!
//! ## Coming from rayon
//!
//! Most rayon code ports by changing the import (`use offshoot as rayon;` or
//! `use offshoot::prelude::*;`). A rayon name does what rayon's does; offshoot's own
//! constructs have their own names (the first is the name in offshoot's docs, the other is
//! documented as "rayon's name for" it):
//!
//! | rayon | offshoot | note |
//! |---|---|---|
//! | `rayon::join`, `join_context`, `scope`, `in_place_scope` | [`join`](join()), [`join_context`], [`scope()`], [`in_place_scope`] | a panic stops the siblings (below); `in_place_scope` needs a `Send` body |
//! | `ThreadPoolBuilder::new().num_threads(n)` | [`ThreadPoolBuilder`] (rayon's name for [`Builder`], a type of its own with rayon's readings), or offshoot's [`Builder`] ([`ThreadPool::builder()`](ThreadPool::builder)) `.workers(n)` | `num_threads(0)` picks automatically, as in rayon; offshoot's `workers(0)` is an error ([`BuildError::ZeroWorkers`]) |
//! | `RAYON_NUM_THREADS` | the same, read as rayon reads it when `OFFSHOOT_WORKERS` ([`WORKERS_ENV`]) is unset; `OFFSHOOT_WORKERS` wins when both are set | `RAYON_NUM_THREADS=0` or a value that is not a count means every core; `OFFSHOOT_WORKERS=0` means every core for [`ThreadPoolBuilder`], and is an error for offshoot's [`Builder`] |
//! | `thread_name`, `stack_size`, `start_handler`, `exit_handler`, `panic_handler`, `build`, `build_global` | the same, on [`ThreadPoolBuilder`] | `stack_size` sizes the fiber stacks tasks run on; below [`MIN_STACK_SIZE`] `build` fails ([`BuildError::StackTooSmall`]), on both builders |
//! | `ThreadPoolBuildError` | [`ThreadPoolBuildError`], rayon's name for [`BuildError`] (the same type) | |
//! | `pool.install(op)` | [`ThreadPool::install`], rayon's name for [`ThreadPool::run`] | returns `op`'s value without waiting for detached spawns, as in rayon (`run` is a finish: it waits for the [`finish::spawn`](finish::spawn()) tasks of `op`, which rayon code does not have) |
//! | `pool.spawn(f)` | [`ThreadPool::spawn`] | detached, as in rayon; its panic goes to the panic handler |
//! | `rayon::spawn(f)` | [`spawn`](spawn()) | detached, as in rayon: in the pool of the worker that calls it (the global pool outside every pool); nothing waits for it; its panic goes to the pool's panic handler, or aborts. offshoot's spawn that a [`finish()`] waits for is [`finish::spawn`](finish::spawn()) |
//! | `pool.join`, `pool.scope`, `pool.in_place_scope`, `pool.yield_now()` | the same names on [`ThreadPool`] | `pool.in_place_scope` is `pool.scope` (its body runs on a worker, so it must be `Send`) |
//! | `current_num_threads()`, `current_thread_index()`, `max_num_threads()` | [`current_num_threads`] (rayon's name for [`current_num_workers`]), [`current_thread_index`] (rayon's name for [`current_worker_index`]), [`max_num_threads`] (= [`MAX_WORKERS`]) | |
//! | `pool.current_num_threads()`, `pool.current_thread_index()` | rayon's names for [`ThreadPool::workers`], [`ThreadPool::current_worker_index`] | |
//! | `yield_now()` | [`yield_now`] | runs a poll and one job waiting to enter the pool; never takes other workers' seeds |
//! | `par_sort`, `par_sort_by`, `par_sort_by_key`, `par_sort_by_cached_key`, `par_sort_unstable*` | [`slice::ParallelSliceMut`] (in [`prelude`]) | a parallel merge sort and a parallel quicksort on [`join`](join()) |
//! | `par_iter`, `into_par_iter`, `par_iter_mut` | the traits of [`prelude`] | split lazily, when a worker asks (below) |
//! | `rayon::vec::{IntoIter, Drain}`, `rayon::range::Iter`, `rayon::range_inclusive::Iter`, `rayon::slice::{Iter, IterMut, Chunks, Windows, ...}`, `rayon::iter::{Map, Filter, ...}` | [`vec`](mod@vec), [`range`], [`range_inclusive`], [`slice`](mod@slice), [`iter`] | for code that names the types; `vec::Drain` owns the drained elements |
//! | `par_bridge` | [`ParallelBridge::par_bridge`] | an [`IterBridge`] is a `ParallelIterator`, as in rayon; its items arrive in no particular order |
//! | `rayon::broadcast`, `pool.broadcast`, `spawn_broadcast`, `BroadcastContext` | [`broadcast()`], [`ThreadPool::broadcast`], [`spawn_broadcast`], [`ThreadPool::spawn_broadcast`], [`BroadcastContext`] | each worker runs its share when it next looks for work (offshoot has no per-worker queue); a caller inside the pool runs its own share at once, then runs waiting work until the others are done |
//! | `par_chunks`, `par_chunks_exact`, `par_rchunks`, `par_rchunks_exact`, `par_windows`, `par_split`, and the `_mut` forms | [`slice::ParallelSlice`], [`slice::ParallelSliceMut`] (in [`prelude`]) | every chunk a plain sub-slice; `par_split`/`par_split_mut` find the separators first (one `Vec` of positions) and are indexed |
//! | `scope_fifo`, `in_place_scope_fifo`, `pool.scope_fifo`, `pool.in_place_scope_fifo`, `ScopeFifo::spawn_fifo` | [`scope_fifo`], [`in_place_scope_fifo`], [`ThreadPool::scope_fifo`], [`ThreadPool::in_place_scope_fifo`], [`ScopeFifo::spawn_fifo`] | each worker runs the tasks it holds oldest first; no order across workers (as in rayon) |
//! | `rayon::spawn_fifo`, `pool.spawn_fifo` | [`spawn_fifo`], [`ThreadPool::spawn_fifo`] | detached, as [`spawn`](spawn()); detached tasks start in spawn order |
//! | `Scope::spawn_broadcast`, `ScopeFifo::spawn_broadcast` | [`Scope::spawn_broadcast`], [`ScopeFifo::spawn_broadcast`] | one task of the scope that [`broadcast()`]s |
//! | `ThreadPoolBuilder::spawn_handler`, `ThreadPoolBuilder::build_scoped`, `ThreadBuilder` | [`ThreadPoolBuilder::spawn_handler`], [`ThreadPoolBuilder::build_scoped`], [`ThreadBuilder`] | the thread's own stack runs only the scheduler (tasks run on fiber stacks of the builder's `stack_size`); a `ThreadBuilder` dropped unrun fails the build instead of leaving it waiting |
//! | `ThreadPoolBuilder::use_current_thread` | — | not provided: an offshoot worker is a fiber driver that answers other workers' requests at its polls, which a thread that only visits the pool cannot be |
//!
//! Where offshoot deliberately differs:
//!
//! * **offshoot's own spawn joins, under its own name.** [`spawn`](spawn()),
//!   [`spawn_fifo`] and [`ThreadPool::spawn`] are rayon's: detached. A task spawned with
//!   [`finish::spawn`](finish::spawn()) belongs to the innermost enclosing [`finish()`] /
//!   [`scope()`] / [`ThreadPool::run`], which waits for it.
//! * **A panic stops the siblings.** The first panic in a `join`, `scope`, `finish` or parallel
//!   iterator stops the other tasks at their next poll point (their destructors run), tasks not
//!   yet started never start, and the panic resumes in the caller once they have all ended.
//!   rayon lets the siblings run to the end.
//! * **No grain size.** Loops and parallel iterators keep their remaining range whole and give
//!   half of it to each worker that asks, so there is no grain size to tune.
//!   `with_min_len` and `with_max_len` keep rayon's contract (no piece, as a `fold` or
//!   `map_init` sees it, shorter than the minimum or longer than the maximum where the
//!   minimum allows); a maximum folds a worker's part in segments rather than adding splits.
//! * **Inner parallel iterators run on one worker.** In `outer.flat_map(|x| inner(x))` (and
//!   `flatten`) the outer range splits across workers, and each inner parallel iterator
//!   runs, lazily, on the worker that reached it (rayon splits the inner ones too); early
//!   exits (`find_*`, `any`) still stop inside it, and its worker hands the rest of the outer
//!   range to workers that ask. With few outer items and large inner ones, run the inner
//!   ones as their own parallel loops.
//! * **Tasks wait without blocking.** Tasks run on fibers; a task waiting in [`sync`] (a lock, a
//!   channel, a promise, a join whose other half was taken) parks and its worker goes on with
//!   other work, and a parked task resumes on the thread it started on. Deadlocks among tasks
//!   are reported as panics ([deadlocks](Builder#deadlocks)).
//! * **A worker that blocks its thread gives nothing away.** Work a worker holds — the tasks
//!   it spawned with [`finish::spawn`](finish::spawn()) and not yet ran, its `join` seeds —
//!   goes to idle workers only when it answers their requests, at its polls. A task that
//!   blocks its thread in `std::sync` (a `std::sync::Barrier`, `mpsc::Receiver::recv`, a
//!   `Condvar`) waiting for work that its own worker still holds therefore waits for ever: scope tasks meeting at a
//!   `std::sync::Barrier`, or a scope body that spawns producers and then blocks in
//!   `recv`, can hang in offshoot (unless every task was handed out before the block),
//!   where rayon's stealing deques let other threads take the tasks. Wait with [`sync`]
//!   instead ([`sync::Barrier`], [`sync::unbounded`] channels, [`sync::Promise`]): the waiting
//!   task parks and its worker keeps handing out and running work.
//!
//! ## Polling
//!
//! Requests are answered at poll points only. Code that runs for a long time without
//! calling `join`, `finish::spawn` or [`poll()`] makes thieves wait (they withdraw their
//! request and try elsewhere after a while). Call [`poll()`] in long sequential loops.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![deny(
    unsafe_op_in_unsafe_fn,
    missing_debug_implementations,
    unreachable_pub,
    clippy::undocumented_unsafe_blocks
)]
// The core keeps hooks that the subsystems behind features call (their deadlock
// registrations, finish reservations, work/span stamps, the isolated mark): with some of
// those features off, some hooks have no caller. The build with every feature (the default)
// keeps these lints.
#![cfg_attr(
    not(all(
        feature = "sync",
        feature = "eureka",
        feature = "search",
        feature = "actor",
        feature = "phaser",
        feature = "accumulator",
        feature = "isolated"
    )),
    allow(dead_code, unused_imports, unreachable_pub)
)]

#[cfg(feature = "accumulator")]
#[cfg_attr(docsrs, doc(cfg(feature = "accumulator")))]
pub mod accumulator;
#[cfg(feature = "actor")]
#[cfg_attr(docsrs, doc(cfg(feature = "actor")))]
pub mod actor;
mod atomics;
mod broadcast;
mod caught;
mod compat;
mod deadlock;
mod detached;
#[cfg(feature = "eureka")]
#[cfg_attr(docsrs, doc(cfg(feature = "eureka")))]
pub mod eureka;
pub mod export;
mod fiber;
pub mod finish;
mod frame;
#[cfg(feature = "isolated")]
mod isolated;
mod job;
mod join;
mod limit_word;
mod loops;
mod mailbox;
pub mod metrics;
#[cfg(doctest)]
mod must_use;
mod overflow;
mod par_iter;
#[cfg(feature = "phaser")]
#[cfg_attr(docsrs, doc(cfg(feature = "phaser")))]
pub mod phaser;
mod pool;
mod ready_stack;
mod scope;
#[cfg(feature = "search")]
#[cfg_attr(docsrs, doc(cfg(feature = "search")))]
pub mod search;
mod segments;
pub mod slice;
mod stack;
mod stats;
#[cfg(feature = "sync")]
#[cfg_attr(docsrs, doc(cfg(feature = "sync")))]
pub mod sync;
mod thread_builder;
mod token;
pub mod trace;
mod tsan;
mod unwind;
mod worker;

pub use broadcast::{broadcast, spawn_broadcast, BroadcastContext};
pub use compat::{
    current_num_threads, current_thread_index, in_place_scope, in_place_scope_fifo, join_context,
    max_num_threads, spawn, spawn_fifo, yield_now, FnContext, ThreadPoolBuildError,
    ThreadPoolBuilder, Yield,
};
pub use finish::api::{finish, try_finish};
#[cfg(feature = "isolated")]
#[cfg_attr(docsrs, doc(cfg(feature = "isolated")))]
pub use isolated::{isolated, isolated_on, IsolatedObjects};
pub use join::{join, try_join};
pub use par_iter::{IterBridge, ParallelBridge};
pub use thread_builder::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};

/// Measurement probes for the benchmark suite (not part of the API).
#[doc(hidden)]
pub mod probe {
    pub use crate::finish::probe::{spawn_phases, SpawnPhases};
}
pub use loops::{par_for, par_for_each, par_for_each_mut, par_reduce};
pub use par_iter::iter;
pub use par_iter::{
    Enumerate, Filter, FromParallelIterator, IndexedParallelIterator, IntoIter,
    IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, Iter, IterMut, Map,
    ParallelExtend, ParallelIterator, RangeIter, Zip,
};

/// The traits that give collections and ranges `par_iter()`, `par_iter_mut()` and
/// `into_par_iter()`: `use offshoot::prelude::*;` (as `use rayon::prelude::*;`).
pub mod prelude {
    pub use crate::par_iter::ParallelBridge;
    pub use crate::par_iter::{
        FromParallelIterator, IndexedParallelIterator, IntoParallelIterator,
        IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelDrainFull, ParallelDrainRange,
        ParallelExtend, ParallelIterator, ParallelString,
    };
    pub use crate::slice::{ParallelSlice, ParallelSliceMut};
}

/// rayon's `rayon::vec`: the parallel iterator a `Vec` is turned into, under rayon's names,
/// so that code naming the type (a struct field, a return type) ports unchanged.
///
/// ```
/// use offshoot::prelude::*;
/// fn evens(v: Vec<u32>) -> offshoot::vec::IntoIter<u32> {
///     v.into_par_iter()
/// }
/// let mut d = vec![1u32, 2, 3];
/// let drained: offshoot::vec::Drain<'_, u32> = d.par_drain(..);
/// assert_eq!(evens(vec![2, 4]).sum::<u32>() + drained.sum::<u32>(), 12);
/// ```
pub mod vec {
    pub use crate::par_iter::IntoIter;
    /// What `par_drain` of a `Vec` returns: the drained elements, moved into an
    /// [`IntoIter`] (rayon's `Drain` borrows the `Vec`; this one has already emptied the
    /// range when it is made).
    pub type Drain<'data, T> = IntoIter<T>;
}

/// rayon's `rayon::range`: the parallel iterator of a `Range` of integers.
///
/// ```
/// use offshoot::prelude::*;
/// let r: offshoot::range::Iter<u64> = (0..10u64).into_par_iter();
/// assert_eq!(r.sum::<u64>(), 45);
/// ```
pub mod range {
    /// What `into_par_iter()` of a `Range` of integers returns (of a `Range<char>`:
    /// [`CharRangeIter`](crate::iter::CharRangeIter)).
    pub type Iter<T> = crate::par_iter::RangeIter<T>;
}

/// rayon's `rayon::range_inclusive`: the parallel iterator of a `RangeInclusive` of
/// integers.
///
/// ```
/// use offshoot::prelude::*;
/// let r: offshoot::range_inclusive::Iter<u8> = (0..=255u8).into_par_iter();
/// assert_eq!(r.count(), 256);
/// ```
pub mod range_inclusive {
    /// What `into_par_iter()` of a `RangeInclusive` of integers returns (of a
    /// `RangeInclusive<char>`: [`CharRangeIter`](crate::iter::CharRangeIter)).
    pub type Iter<T> = crate::par_iter::RangeIter<T>;
}

/// Parallel iterators over strings (rayon's `rayon::str`): [`ParallelString`](str::ParallelString).
pub mod str {
    pub use crate::par_iter::{ParallelString, Pattern, StrPieces};
}
pub use pool::{
    current_num_workers, BuildError, Builder, ThreadPool, MAX_STACK_SIZE, MAX_WORKERS,
    MIN_STACK_SIZE, WORKERS_ENV,
};
pub use scope::{scope, scope_fifo, try_scope, Scope, ScopeFifo, TryScope};
pub use stats::Stats;

/// A poll point: lets the current worker answer a pending request for work, and stops the
/// current task if a sibling failed. Costs one load and a branch when there is nothing to
/// do; does nothing outside a pool.
///
/// Call it in long stretches of sequential code so that idle workers are not kept waiting.
///
/// ```
/// let total = offshoot::ThreadPool::builder().workers(2).build().unwrap().run(|| {
///     let mut s = 0u64;
///     for i in 0..1_000_000u64 {
///         s = s.wrapping_add(i * i);
///         if i % 1024 == 0 {
///             offshoot::poll();
///         }
///     }
///     s
/// });
/// assert!(total > 0);
/// ```
#[inline]
pub fn poll() {
    let w = worker::Worker::current();
    if !w.is_null() {
        // SAFETY: a non-null current worker is live and run by this thread.
        unsafe { (*w).poll() }
    }
}

/// The index (from 0) of the calling thread's worker in its pool, or `None` on a thread that
/// is no worker of any pool. rayon's name for it is [`current_thread_index`]; for one given
/// pool, see [`ThreadPool::current_worker_index`].
///
/// ```
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let i = pool.run(offshoot::current_worker_index);
/// assert!(matches!(i, Some(0 | 1)));
/// assert_eq!(offshoot::current_worker_index(), None);
/// ```
pub fn current_worker_index() -> Option<usize> {
    let w = worker::Worker::current();
    // SAFETY: a non-null current worker is live and run by this thread.
    (!w.is_null()).then(|| unsafe { (*w).index })
}

/// The package README's examples (`crates/offshoot/README.md`), compiled and run as
/// doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
