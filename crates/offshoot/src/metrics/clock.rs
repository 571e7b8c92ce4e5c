//! The clocks of work/span measurement: what a strand has accumulated ([`Clock`]), the part
//! of it a dependence carries ([`Span`]), and the shared cells that dependences pass
//! through ([`Stamp`], [`Acc`]). Times are in ticks of the strand clock
//! (`strand::now_ticks`), converted to nanoseconds only when a row is made.
//!
//! A clock is *absolute along the strand's ancestry*: `work` is the work of everything that
//! precedes the current point in the computation's DAG and has been merged into it (the
//! strand's own past, and every child joined so far); `span` is the longest path to the
//! current point. Each of the five quantities is kept separately: times in clock ticks
//! (work, span, and the span with each steal's measured cost added, the *burdened* span)
//! and abstract units (`do_work`).
//!
//! Invariants:
//! * A fork copies the clock to both sides; a join of sides that started from `c0` adds
//!   each side's work since `c0` and keeps the longer span ([`Clock::join`]). Work is never
//!   counted twice: a child's work reaches its parent once, at the join or at the finish
//!   the child belongs to (through [`Acc`]).
//! * A dependence that is not a join (a promise's put before its get, a lock's release
//!   before the next acquire, a phase's signals before its waits) carries only the span:
//!   the waiter's span becomes at least the signaller's ([`Stamp::raise`] then
//!   [`Clock::absorb`]). The cells are atomics with relaxed `fetch_max`: the construct
//!   whose dependence they describe already orders the raise before the read (a release
//!   and an acquire of its own).

use std::sync::atomic::{AtomicU64, Ordering};

/// What a strand has accumulated; see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock {
    pub(crate) work_t: u64,
    pub(crate) span_t: u64,
    pub(crate) burdened_t: u64,
    pub(crate) work_units: u64,
    pub(crate) span_units: u64,
}

/// The latest spans any run ended at (time, burdened time, units); see
/// [`Clock::run_start`]. Relaxed: a later run that must start after an earlier one is
/// ordered after it by whatever ordered the two runs.
static HIGH: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

/// The span part of a clock: what a dependence other than a join carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) t: u64,
    pub(crate) burdened_t: u64,
    pub(crate) units: u64,
}

impl Span {
    /// The later of two spans, quantity by quantity.
    pub(crate) fn max(self, o: Span) -> Span {
        Span {
            t: self.t.max(o.t),
            burdened_t: self.burdened_t.max(o.burdened_t),
            units: self.units.max(o.units),
        }
    }
}

impl Clock {
    pub(crate) const ZERO: Clock = Clock {
        work_t: 0,
        span_t: 0,
        burdened_t: 0,
        work_units: 0,
        span_units: 0,
    };

    /// Where a `run`'s root strand starts: no work, and spans after every span a run
    /// ended at so far. Stamps outlive runs (an `isolated` section's, a promise used by two
    /// runs): starting each run after all of them makes an old stamp a dependence that
    /// ended before the run began, which it is. A run's row is measured from here.
    pub(crate) fn run_start() -> Clock {
        Clock {
            span_t: HIGH[0].load(Ordering::Relaxed),
            burdened_t: HIGH[1].load(Ordering::Relaxed),
            span_units: HIGH[2].load(Ordering::Relaxed),
            ..Clock::ZERO
        }
    }

    /// A run's root strand ended at this clock (see [`Clock::run_start`]).
    pub(crate) fn finish_run(&self) {
        HIGH[0].fetch_max(self.span_t, Ordering::Relaxed);
        HIGH[1].fetch_max(self.burdened_t, Ordering::Relaxed);
        HIGH[2].fetch_max(self.span_units, Ordering::Relaxed);
    }

    /// `ticks` more clock ticks of serial execution.
    #[inline]
    pub(crate) fn advance(&mut self, ticks: u64) {
        self.work_t += ticks;
        self.span_t += ticks;
        self.burdened_t += ticks;
    }

    /// `units` more abstract units of serial execution (`do_work`).
    #[inline]
    pub(crate) fn advance_units(&mut self, units: u64) {
        self.work_units += units;
        self.span_units += units;
    }

    /// The clock after a join of two sides that both started from `c0` and ended at `a`
    /// and `b`.
    pub(crate) fn join(c0: Clock, a: Clock, b: Clock) -> Clock {
        Clock {
            work_t: a.work_t + b.work_t.saturating_sub(c0.work_t),
            span_t: a.span_t.max(b.span_t),
            burdened_t: a.burdened_t.max(b.burdened_t),
            work_units: a.work_units + b.work_units.saturating_sub(c0.work_units),
            span_units: a.span_units.max(b.span_units),
        }
    }

    /// The span part.
    pub(crate) fn span(&self) -> Span {
        Span {
            t: self.span_t,
            burdened_t: self.burdened_t,
            units: self.span_units,
        }
    }

    /// Waits for a dependence: the span becomes at least `s`.
    pub(crate) fn absorb(&mut self, s: Span) {
        self.span_t = self.span_t.max(s.t);
        self.burdened_t = self.burdened_t.max(s.burdened_t);
        self.span_units = self.span_units.max(s.units);
    }

    /// What happened between `earlier` and `self` along one strand (for regions).
    pub(crate) fn since(&self, earlier: &Clock) -> Clock {
        Clock {
            work_t: self.work_t.saturating_sub(earlier.work_t),
            span_t: self.span_t.saturating_sub(earlier.span_t),
            burdened_t: self.burdened_t.saturating_sub(earlier.burdened_t),
            work_units: self.work_units.saturating_sub(earlier.work_units),
            span_units: self.span_units.saturating_sub(earlier.span_units),
        }
    }
}

/// A span that dependences raise and waiters read (see the module invariants).
#[derive(Debug, Default)]
pub(crate) struct Stamp {
    t: AtomicU64,
    burdened_t: AtomicU64,
    units: AtomicU64,
}

impl Stamp {
    pub(crate) const fn new() -> Stamp {
        Stamp {
            t: AtomicU64::new(0),
            burdened_t: AtomicU64::new(0),
            units: AtomicU64::new(0),
        }
    }

    /// The signaller's side: the stamp becomes at least `s`. Relaxed: see the module
    /// invariants (the construct orders it before the waiter's `get`).
    pub(crate) fn raise(&self, s: Span) {
        self.t.fetch_max(s.t, Ordering::Relaxed);
        self.burdened_t.fetch_max(s.burdened_t, Ordering::Relaxed);
        self.units.fetch_max(s.units, Ordering::Relaxed);
    }

    /// The waiter's side. Relaxed: as in `raise`.
    pub(crate) fn get(&self) -> Span {
        Span {
            t: self.t.load(Ordering::Relaxed),
            burdened_t: self.burdened_t.load(Ordering::Relaxed),
            units: self.units.load(Ordering::Relaxed),
        }
    }
}

/// What the tasks of one finish add up to: the sum of their work and the longest of their
/// spans (each measured from the start of the computation).
#[derive(Debug, Default)]
pub(crate) struct Acc {
    work_t: AtomicU64,
    work_units: AtomicU64,
    span: Stamp,
}

impl Acc {
    pub(crate) const fn new() -> Acc {
        Acc {
            work_t: AtomicU64::new(0),
            work_units: AtomicU64::new(0),
            span: Stamp::new(),
        }
    }

    /// A task that started at `start` ended at `end`. Relaxed: the task's end is ordered
    /// before the finish's end by the finish's own count (a release decrement that the
    /// owner's wait acquires).
    pub(crate) fn child(&self, start: &Clock, end: &Clock) {
        self.work_t
            .fetch_add(end.work_t.saturating_sub(start.work_t), Ordering::Relaxed);
        self.work_units.fetch_add(
            end.work_units.saturating_sub(start.work_units),
            Ordering::Relaxed,
        );
        self.span.raise(end.span());
    }

    /// The owner's clock `tail` at the finish's end, with every task merged in.
    pub(crate) fn merge_into(&self, tail: Clock) -> Clock {
        let mut c = tail;
        c.work_t += self.work_t.load(Ordering::Relaxed);
        c.work_units += self.work_units.load(Ordering::Relaxed);
        c.absorb(self.span.get());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_join_adds_work_and_keeps_the_longer_span() {
        let mut c0 = Clock::ZERO;
        c0.advance(10);
        c0.advance_units(1);
        let mut a = c0;
        a.advance(5);
        a.advance_units(3);
        let mut b = c0;
        b.advance(7);
        b.advance_units(2);
        let j = Clock::join(c0, a, b);
        assert_eq!((j.work_t, j.span_t), (22, 17));
        assert_eq!((j.work_units, j.span_units), (6, 4));
    }

    #[test]
    fn a_finish_adds_its_tasks_and_waits_for_the_longest() {
        let acc = Acc::new();
        let mut start = Clock::ZERO;
        start.advance_units(2);
        let mut end = start;
        end.advance_units(5);
        acc.child(&start, &end);
        let mut tail = start;
        tail.advance_units(1);
        let m = acc.merge_into(tail);
        assert_eq!((m.work_units, m.span_units), (8, 7));
    }
}
