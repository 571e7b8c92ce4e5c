//! Work done by each contender of a search kernel: how many units (nodes, rows,
//! placements) it visited, and how many of them it started after the search was
//! resolved — the waste a termination mechanism is there to bound (at most
//! `(workers − 1) ×` the work between two checks).
//!
//! A search kernel keeps an `Option<Arc<Tally>>` that is `None` in every timed run (its visit
//! calls are then one predictable branch) and `Some` during one untimed pass at
//! preparation, [`line`], which runs every contender once on pools of every core and
//! reports the counts on the kernel's input line.
//!
//! Invariants: a kernel calls [`Tally::query`] before each query it runs, [`Tally::visit`]
//! once per unit it starts (after the unit passed the contender's own check, so a unit a
//! check refused is not counted), and [`Tally::resolved`] at the moment its contender
//! knows the answer is final (the resolving offer, the token's store). "Late" visits are
//! those started after that moment, on any worker; counts are totals over all queries,
//! divided by the number of queries when reported.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::{Kernel, Work};
use crate::harness::{Contender, Pools};

/// Visit counts of one contender's run (see the module docs).
#[derive(Default)]
pub(crate) struct Tally {
    visits: AtomicU64,
    late: AtomicU64,
    queries: AtomicU64,
    resolved: AtomicBool,
}

impl Tally {
    /// A new query starts: it is not resolved yet.
    pub(crate) fn query(t: Option<&Tally>) {
        if let Some(t) = t {
            t.queries.fetch_add(1, Ordering::Relaxed);
            t.resolved.store(false, Ordering::Relaxed);
        }
    }

    /// A unit of work starts.
    #[inline]
    pub(crate) fn visit(t: Option<&Tally>) {
        if let Some(t) = t {
            t.visits.fetch_add(1, Ordering::Relaxed);
            if t.resolved.load(Ordering::Relaxed) {
                t.late.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The current query's answer is final.
    #[inline]
    pub(crate) fn resolved(t: Option<&Tally>) {
        if let Some(t) = t {
            t.resolved.store(true, Ordering::Relaxed);
        }
    }

    /// (visits, late visits) per query.
    fn per_query(&self) -> (u64, f64) {
        let q = self.queries.load(Ordering::Relaxed).max(1);
        (
            self.visits.load(Ordering::Relaxed) / q,
            self.late.load(Ordering::Relaxed) as f64 / q as f64,
        )
    }
}

/// Runs `f` on each of `queries` with the tally, marking the start of each query
/// ([`Tally::query`]): the loop of the kernels that run several queries per run.
pub(crate) fn per_query<'q, Q, R>(
    queries: &'q [Q],
    tally: Option<&Arc<Tally>>,
    f: impl Fn(&'q Q, Option<&Arc<Tally>>) -> R,
) -> Vec<R> {
    queries
        .iter()
        .map(|q| {
            Tally::query(tally.map(|t| &**t));
            f(q, tally)
        })
        .collect()
}

/// The tally of a run that is one query, the query's start marked.
pub(crate) fn one_query(tally: &Option<Arc<Tally>>) -> Option<&Tally> {
    Tally::query(tally.as_deref());
    tally.as_deref()
}

/// A search kernel's instance whose runs can be counted.
pub(crate) trait Counted: Work {
    /// The tally its contenders report to: `None` except during [`line`].
    fn tally(&mut self) -> &mut Option<Arc<Tally>>;
}

/// Runs serial and each of `kernel`'s contenders once on `inst`, counting, on pools of every
/// core of this machine; returns "`unit` per query (started after the resolution) on N
/// workers: serial a, offshoot b (c), …". Untimed; leaves the instance uncounted and reset.
pub(crate) fn line<K: Counted>(kernel: &Kernel<K>, inst: &mut K, unit: &str) -> String {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pools = Pools::new(workers).expect("pools for the visit count");
    let mut parts = Vec::new();
    for c in std::iter::once(Contender::Serial).chain(kernel.contenders()) {
        *inst.tally() = Some(Arc::new(Tally::default()));
        inst.reset();
        kernel.run(inst, c, Some(&pools));
        let (visits, late) = inst.tally().take().expect("still counting").per_query();
        parts.push(if c == Contender::Serial {
            format!("serial {visits}")
        } else {
            format!("{} {visits} ({late:.1})", c.name())
        });
    }
    inst.reset();
    format!(
        "{unit} per query (started after the resolution) on {workers} workers: {}",
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_visits_are_those_after_the_resolution() {
        let tally = Tally::default();
        let t = Some(&tally);
        Tally::query(t);
        Tally::visit(t);
        Tally::resolved(t);
        Tally::visit(t);
        Tally::query(t);
        Tally::visit(t);
        Tally::visit(t);
        assert_eq!(tally.per_query(), (2, 0.5)); // 4 visits, 1 late, over 2 queries
        Tally::visit(None); // uncounted runs do nothing
    }
}
