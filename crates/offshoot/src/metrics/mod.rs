//! Work and span: how much a computation does in all, how long its longest chain of
//! dependent steps is, and so how much parallelism it has — measured in time (as
//! OpenCilk's Cilkscale does) or counted in abstract units that the program charges with
//! [`do_work`] (as HJlib's abstract execution metrics do).
//!
//! Turn it on for a pool with [`Builder::metrics`](crate::Builder::metrics). Each
//! [`ThreadPool::run`](crate::ThreadPool::run) then records one row for the whole run (tag
//! `""`), and each [`measure`] call one row under its tag;
//! [`ThreadPool::metrics`](crate::ThreadPool::metrics) returns them as a [`Report`] (a table, or a CSV with Cilkscale's columns).
//!
//! ```
//! use offshoot::metrics::{self, Mode};
//! let pool = offshoot::ThreadPool::builder().workers(2).metrics(Mode::Abstract).build().unwrap();
//! fn fib(n: u32) -> u64 {
//!     metrics::do_work(1);
//!     if n < 2 { return n as u64; }
//!     let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//! pool.run(|| fib(10));
//! let report = pool.metrics().unwrap();
//! let row = &report.rows()[0];
//! assert_eq!(row.work_units, 177); // one unit per call
//! assert_eq!(row.span_units, 10); // the longest chain: fib(10), fib(9), ..., fib(1)
//! ```
//!
//! # What is measured
//!
//! *Work* is the total time (units) spent in the program's own code, on every worker. *Span*
//! is the time (units) of the longest path through the computation's dependences, following
//! the rules of Imam's thesis §2.5.1:
//! * `join`: both sides start where the join was called; after it, the longer side.
//! * `finish::spawn` (and `scope`'s spawn, data-driven tasks, actors' drain tasks): a task
//!   starts where it was spawned — a data-driven task (`sync::spawn_when`) where the last of its
//!   promises was put if that is later — and a finish (scope, `run`) ends after the
//!   longest of its tasks.
//! * futures, promises and events: a `get` (`wait`) ends no earlier than the put (`set`, or
//!   the future's task) that gave the value.
//! * `isolated` sections: each starts after the previous one ended (they are serialised).
//! * OPA's shared objects (`sync::Object`, and `sync::opa`'s I-store, FIFO and barrier on
//!   it): a call comes after the write whose commit it reads and after the latest exclusive
//!   operation (an I-store's `get` after the `put` that let it through).
//! * phasers: a wait for a phase ends no earlier than the last signal of that phase.
//! * parallel loops and iterators: iterations run in parallel, each from the loop's start.
//!   A loop runs in blocks of iterations (see `par_for`); the span of each block counts as
//!   its time divided by its length, so the loop's span is that of its slowest block's
//!   average iteration.
//!
//! The *burdened span* adds, for every steal on a path, the time from the victim's hand-out
//! to the thief's start of the stolen work: what that steal cost the path. Parallelism is
//! work ÷ span: the speedup no number of workers can exceed.
//!
//! Not followed as dependences (their time still counts as work): channels, monitors,
//! locks other than `isolated`, `sync::Barrier` and event counts (a wait there is a dependence this
//! measure does not see, so the span can come out shorter than the true one); an actor's
//! messages (its drain task starts at the clock of the send that scheduled it, but the
//! other messages it drains do not carry their sender's span, as HJlib's do); scoped
//! futures (a stolen one's time is work in no span). Time a task spends parked, or waiting at a join or a
//! finish, is in nobody's work.
//!
//! # Reading the numbers
//!
//! Times are wall-clock time per strand (the time-stamp counter on x86-64): a worker that
//! the operating system takes off its core in the middle of a strand adds that pause to the
//! strand, and so possibly to the span. Measure on a machine with at least as many idle
//! cores as workers; on a loaded one the span (and the parallelism derived from it) is not
//! meaningful. The measured work includes the measuring itself (two clock reads per
//! strand boundary), so for a program of tiny tasks compare parallelism, not work, with the
//! serial time. Units are exact and deterministic.
//!
//! # Cost
//!
//! Off (the default), nothing: the hooks sit where a pool is told apart anyway (a `join`
//! at the seed limit already tests for an `isolated` section; a metered pool's workers mark
//! their seed count the same way). On, in [`Mode::Measured`], every strand boundary reads
//! the clock (a `join` reads it three times) and every `join` takes a path that keeps two
//! clocks, so a program made of tiny tasks runs many times slower — `fib` with a `join`
//! per call and no cutoff about 15–20× (`cargo run --release --example workspan`);
//! [`Mode::Abstract`] reads no clock and costs about half of that. Kernels with real grain
//! pay little (a parallel merge sort with Cilk's cutoffs: within the run-to-run spread).
//!
//! Rows assume one `run` at a time on the pool: the loose work of jobs that begin no strand
//! of their own is summed over the pool's workers while the run lasts.

mod clock;
mod leaves;
mod report;
pub(crate) mod strand;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub(crate) use clock::{Acc, Clock, Span, Stamp};
pub(crate) use leaves::LoopMeter;
pub use report::{Report, Row, CSV_HEADER};

use crate::worker::Worker;

/// How a pool measures work and span ([`Builder::metrics`](crate::Builder::metrics)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Time (as Cilkscale): every strand is timed; [`do_work`] units are counted too.
    Measured,
    /// Only the units the program charges with [`do_work`] (as HJlib's abstract metrics):
    /// deterministic, independent of the machine, and cheaper (no clock is read).
    Abstract,
}

/// Charges `units` abstract units of work to the running task (HJlib's `doWork`). Outside
/// a pool that measures, it does nothing.
///
/// ```
/// let pool = offshoot::ThreadPool::builder()
///     .workers(1)
///     .metrics(offshoot::metrics::Mode::Abstract)
///     .build()
///     .unwrap();
/// pool.run(|| {
///     offshoot::metrics::do_work(2);
///     offshoot::join(|| offshoot::metrics::do_work(3), || offshoot::metrics::do_work(4));
/// });
/// let report = pool.metrics().unwrap();
/// let row = &report.rows()[0];
/// assert_eq!((row.work_units, row.span_units), (9, 6));
/// ```
pub fn do_work(units: u64) {
    if let Some(s) = current_on() {
        s.add_units(units);
    }
}

/// Runs `f` and records its work and span as a row tagged `tag` in the pool's
/// [`Report`]: what the computation did between the call's start and its end, along the
/// calling task's strand (everything `f` joins or finishes). Outside a pool that measures,
/// it just runs `f`.
///
/// # Panics
/// If `tag` is empty: the rows of whole runs are tagged `""`, and a measured call's must
/// differ.
///
/// (It was `metrics::region`; [`trace::region`](crate::trace::region) is the other thing,
/// a named slice on a trace's timeline.)
///
/// ```
/// use offshoot::metrics::{self, Mode};
/// let pool = offshoot::ThreadPool::builder().workers(2).metrics(Mode::Abstract).build().unwrap();
/// pool.run(|| {
///     metrics::do_work(5);
///     metrics::measure("halves", || {
///         offshoot::join(|| metrics::do_work(10), || metrics::do_work(10));
///     });
/// });
/// let report = pool.metrics().unwrap();
/// let halves = report.rows().iter().find(|r| r.tag == "halves").unwrap();
/// assert_eq!((halves.work_units, halves.span_units), (20, 10));
/// ```
pub fn measure<R>(tag: &str, f: impl FnOnce() -> R) -> R {
    assert!(
        !tag.is_empty(),
        "offshoot::metrics::measure: the tag is empty, which is the tag of a whole run's row; \
         name what is measured"
    );
    let Some(start) = current_on().map(|s| s.checkpoint()) else {
        return f();
    };
    let r = f();
    let w = Worker::current();
    if !w.is_null() {
        // SAFETY: a non-null current worker is run by this thread.
        let w = unsafe { &*w };
        if w.meter().on() {
            let end = w.meter().checkpoint();
            if let Some(c) = w.registry().metrics.as_deref() {
                c.record(tag, end.since(&start));
            }
        }
    }
    r
}

/// The running strand waits for a dependence that `stamp` recorded (a promise's put, a
/// future's end, an isolated section's release, a phase's signals).
#[inline]
pub(crate) fn absorb(stamp: &Stamp) {
    if let Some(s) = current_on() {
        s.absorb(stamp.get());
    }
}

/// Runs `wait`, a wait for a dependence, without charging the time it takes to the running
/// strand (a wait that parks charges nothing anyway; one that spins would otherwise count
/// as work on the span).
#[inline]
pub(crate) fn waiting<R>(wait: impl FnOnce() -> R) -> R {
    let Some(m) = current_on() else {
        return wait();
    };
    let before = m.checkpoint();
    let r = wait();
    // The same worker: a task that parked resumes on the worker that ran it.
    m.set(before);
    r
}

/// The running strand waits for a dependence whose span was `s` (read from a stamp
/// earlier).
#[inline]
pub(crate) fn absorb_span(s: Span) {
    if let Some(m) = current_on() {
        m.absorb(s);
    }
}

/// The running strand is a dependence that `stamp` records (see [`absorb`]).
#[inline]
pub(crate) fn raise(stamp: &Stamp) {
    if let Some(s) = current_on() {
        stamp.raise(s.checkpoint().span());
    }
}

/// Whether a pool that measures was ever built in this process: until one is, no worker's
/// strand measures and [`current_on`] answers without looking at the worker, so the stamps
/// that promises, events and shared objects keep cost one load of a read-mostly line.
///
/// Relaxed: set by [`Collector::new`] before the measuring pool's threads are spawned, which
/// orders the store before everything they run; a thread of any other pool that reads an old
/// `false` has a strand that does not measure anyway.
static ANY_MEASURES: AtomicBool = AtomicBool::new(false);

/// The calling worker's strand state, if it measures.
#[inline(always)]
pub(crate) fn current_on() -> Option<&'static strand::Strand> {
    if !ANY_MEASURES.load(Ordering::Relaxed) {
        return None;
    }
    current_measuring()
}

/// [`current_on`] once some pool measures.
#[inline(never)]
fn current_measuring() -> Option<&'static strand::Strand> {
    let w = Worker::current();
    if w.is_null() {
        return None;
    }
    // SAFETY: a non-null current worker is run by this thread and lives as long as its
    // registry, which outlives every task that can call this (the lifetime is only used
    // within the caller's call).
    let s: &'static strand::Strand = unsafe { &*((*w).meter() as *const strand::Strand) };
    s.on().then_some(s)
}

/// A pool's rows, kept while it measures.
pub(crate) struct Collector {
    pub(crate) mode: Mode,
    rows: Mutex<Vec<Row>>,
}

impl Collector {
    pub(crate) fn new(mode: Mode) -> Collector {
        // Relaxed: see `ANY_MEASURES`.
        ANY_MEASURES.store(true, Ordering::Relaxed);
        Collector {
            mode,
            rows: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn record(&self, tag: &str, c: Clock) {
        let row = Row::from_clock(tag, &c);
        self.rows().push(row);
    }

    pub(crate) fn report(&self) -> Report {
        Report::new(self.mode, self.rows().clone())
    }

    pub(crate) fn clear(&self) {
        self.rows().clear();
    }

    /// The rows (a panic while they were held loses nothing: each push is whole).
    fn rows(&self) -> std::sync::MutexGuard<'_, Vec<Row>> {
        self.rows
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
