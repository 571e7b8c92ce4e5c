//! A worker's side of work/span measurement: the clock of the strand it runs now, and the
//! hooks the runtime calls where strands begin, end, fork, join, park and resume.
//!
//! Invariants:
//! * Only the worker's own thread touches the `Cell`s. `cur` is the clock of the strand
//!   running on this thread; time since `last` belongs to it and is added at the next
//!   [`Strand::checkpoint`] (in [`Mode::Abstract`](super::Mode::Abstract) no time is read:
//!   only units count). Time is in ticks of the strand clock ([`now_ticks`]: the
//!   time-stamp counter on x86-64), converted to nanoseconds when a row is made.
//! * Whatever switches strands saves and restores: a task that starts (`begin`/`end`), a
//!   job run from a thief's reply or the injector (`enter_job`/`leave_job`), a fiber that
//!   parks and resumes (`suspend`/`resume`). Restoring sets `last` to now, so time spent
//!   running other strands, waiting or asleep is charged to nobody.
//! * A job that starts no strand of its own (its kind is not measured: a detached or
//!   broadcast job, a stolen loop piece or scoped future) runs as an *orphan*: its time
//!   is added to the worker's `loose` work, counted in the run's total work and in no
//!   span.
//! * `handed_at` is written by the victim that hands this worker a job (before the
//!   reply's release store) and read by this worker once it received the reply: the time
//!   from the hand-out to the job's start is that steal's cost, added to the burdened span
//!   of the strand the job begins.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use super::clock::Clock;
use super::Mode;

/// Where the strand clock starts: the first reading, and the `Instant` taken with it
/// (for converting ticks to nanoseconds, [`ns_per_tick`]).
fn epoch() -> &'static (std::time::Instant, u64) {
    static EPOCH: OnceLock<(Instant, u64)> = OnceLock::new();
    EPOCH.get_or_init(|| (Instant::now(), raw_ticks()))
}

/// The strand clock: the time-stamp counter on x86-64 (about 10 ns to read, against 25 for
/// `Instant::now`; every strand boundary reads it), nanoseconds of `Instant` elsewhere.
#[inline]
fn raw_ticks() -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // SAFETY: `rdtsc` exists on every x86-64 processor and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// Ticks of the strand clock since its epoch (never 0 once read: the epoch is the first
/// reading, and 0 stands for "no time" in `handed_at`).
#[inline]
pub(crate) fn now_ticks() -> u64 {
    raw_ticks().wrapping_sub(epoch().1).max(1)
}

/// Nanoseconds per tick of the strand clock, measured against `Instant` over everything
/// since the epoch (a run's rows are made after it, so the span is at least that run's
/// length). Each call measures anew (two clock reads a preemption can separate), so a row
/// converts all its quantities with one rate: converted one by one, two equal tick counts
/// could come out a few nanoseconds apart, and a burdened span below the span.
pub(crate) fn ns_per_tick() -> f64 {
    let (start, t0) = *epoch();
    let ns = start.elapsed().as_nanos() as f64;
    let elapsed_ticks = raw_ticks().wrapping_sub(t0) as f64;
    if elapsed_ticks <= 0.0 {
        return 1.0;
    }
    ns / elapsed_ticks
}

/// What `begin`, `enter_job` and `suspend` return, for the matching restore.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Saved {
    cur: Clock,
    orphan: bool,
}

/// One worker's measurement state; see the module invariants.
pub(crate) struct Strand {
    mode: Option<Mode>,
    cur: Cell<Clock>,
    last: Cell<u64>,
    orphan: Cell<bool>,
    /// The steal cost not yet charged: set when a job from a reply starts, taken by the
    /// first strand that begins in it.
    burden: Cell<u64>,
    pub(crate) handed_at: AtomicU64,
    loose_t: AtomicU64,
    loose_units: AtomicU64,
}

impl Strand {
    pub(crate) fn new(mode: Option<Mode>) -> Strand {
        Strand {
            mode,
            cur: Cell::new(Clock::ZERO),
            last: Cell::new(0),
            orphan: Cell::new(true),
            burden: Cell::new(0),
            handed_at: AtomicU64::new(0),
            loose_t: AtomicU64::new(0),
            loose_units: AtomicU64::new(0),
        }
    }

    /// Whether the pool measures work and span.
    #[inline(always)]
    pub(crate) fn on(&self) -> bool {
        self.mode.is_some()
    }

    /// Adds the time since the last checkpoint to the running strand; returns its clock.
    pub(crate) fn checkpoint(&self) -> Clock {
        let mut c = self.cur.get();
        if self.mode == Some(Mode::Measured) {
            let now = now_ticks();
            c.advance(now.saturating_sub(self.last.replace(now)));
            self.cur.set(c);
        }
        c
    }

    /// `do_work(units)` on the running strand.
    pub(crate) fn add_units(&self, units: u64) {
        let mut c = self.cur.get();
        c.advance_units(units);
        self.cur.set(c);
    }

    /// The running strand waits for a dependence whose signaller's span was `s`.
    pub(crate) fn absorb(&self, s: super::clock::Span) {
        let mut c = self.checkpoint();
        c.absorb(s);
        self.cur.set(c);
    }

    /// Makes `c` the running strand's clock (after a join or a finish), from now on.
    pub(crate) fn set(&self, c: Clock) {
        self.cur.set(c);
        self.last.set(self.now());
    }

    /// A join's second side begins at `start` on the joining strand, right after its first
    /// side ended (a checkpoint, so no time is read here).
    #[inline]
    pub(crate) fn begin_inline(&self, start: Clock) -> Saved {
        let saved = Saved {
            cur: self.cur.get(),
            orphan: self.orphan.replace(false),
        };
        self.cur.set(start);
        saved
    }

    /// Makes `c` the running strand's clock after a checkpoint that just read the time (the
    /// end of a join whose sides both ran here).
    #[inline]
    pub(crate) fn set_fresh(&self, c: Clock) {
        self.cur.set(c);
    }

    /// A strand begins at `start` (a task, a join's second side): the running strand's clock
    /// is saved. A steal cost waiting since this job came from a reply is added to the
    /// burdened span.
    pub(crate) fn begin(&self, start: Clock) -> Saved {
        let saved = Saved {
            cur: self.checkpoint(),
            orphan: self.orphan.replace(false),
        };
        let mut c = start;
        c.burdened_t += self.burden.replace(0);
        self.cur.set(c);
        saved
    }

    /// The strand begun by `begin` ends: returns its final clock and restores the saved one.
    pub(crate) fn end(&self, saved: Saved) -> Clock {
        let end = self.checkpoint();
        self.cur.set(saved.cur);
        self.orphan.set(saved.orphan);
        end
    }

    /// A job from a reply (or the injector) starts on this worker: an orphan strand until
    /// the job begins one of its own.
    pub(crate) fn enter_job(&self) -> Saved {
        let saved = Saved {
            cur: self.checkpoint(),
            orphan: self.orphan.replace(true),
        };
        self.cur.set(Clock::ZERO);
        // Acquire is not needed: the reply that gave this job was read with acquire, and
        // the victim stored this before it.
        let handed = self.handed_at.swap(0, Ordering::Relaxed);
        if handed != 0 && self.mode == Some(Mode::Measured) {
            self.burden.set(self.last.get().saturating_sub(handed));
        }
        saved
    }

    /// That job returned: an orphan's time goes to the loose work.
    pub(crate) fn leave_job(&self, saved: Saved) {
        let c = self.checkpoint();
        if self.orphan.get() {
            // Relaxed: summed by the run's end, after the job's completion synchronised.
            self.loose_t.fetch_add(c.work_t, Ordering::Relaxed);
            self.loose_units.fetch_add(c.work_units, Ordering::Relaxed);
        }
        self.burden.set(0);
        self.cur.set(saved.cur);
        self.orphan.set(saved.orphan);
        self.last.set(self.now());
    }

    /// The running fiber parks: its strand's clock goes with it.
    pub(crate) fn suspend(&self) -> Saved {
        Saved {
            cur: self.checkpoint(),
            orphan: self.orphan.replace(true),
        }
    }

    /// A parked fiber resumes with the clock it parked with.
    pub(crate) fn resume(&self, saved: Saved) {
        self.cur.set(saved.cur);
        self.orphan.set(saved.orphan);
        self.last.set(self.now());
    }

    /// The loose work so far (nanoseconds, units).
    pub(crate) fn loose(&self) -> (u64, u64) {
        (
            self.loose_t.load(Ordering::Relaxed),
            self.loose_units.load(Ordering::Relaxed),
        )
    }

    fn now(&self) -> u64 {
        if self.mode == Some(Mode::Measured) {
            now_ticks()
        } else {
            0
        }
    }
}
