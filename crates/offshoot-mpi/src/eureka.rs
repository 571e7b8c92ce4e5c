//! The run's distributed eureka and bound: [`found`] stops every task of the run on every
//! rank and hands a solution to rank 0; [`Bound`] is a minimum shared by all ranks, for
//! branch and bound.
//!
//! Invariants:
//! * Every task a rank runs for the run (the root, each package) is inside a region
//!   registered on that rank's stop eureka; [`found`] resolves it here at once and the
//!   agent sends `Resolve` to every other rank, whose agents resolve theirs on receipt.
//!   Staleness: a rank stops at its next poll after the message arrives (one message
//!   latency plus at most one agent nap, `Config::max_nap`, later).
//! * A bound only goes down. A rank's improvement is visible on its own rank at once and on
//!   every other rank after one message and at most one agent nap; a stale bound only
//!   prunes less, never wrongly.

use std::sync::atomic::Ordering;

use offshoot::eureka::Eureka;
use serde::Serialize;

use crate::node::{current, with_current, Out};

/// Reports a solution and stops the run everywhere: every task of the run, on every rank,
/// stops at its next poll point, the root returns `None`, and rank 0's
/// [`Finished::found`](crate::Finished::found) holds the first solution reported. Returns
/// whether this call was the first on its rank.
///
/// Outside a distributed run it does nothing and returns `false`.
///
/// ```
/// // Outside a run there is nothing to stop.
/// assert!(!offshoot_mpi::found(&42u32));
/// ```
pub fn found<T: Serialize>(solution: &T) -> bool {
    let Some(node) = current() else {
        return false;
    };
    let bytes = postcard::to_stdvec(solution).unwrap_or_else(|e| {
        panic!("offshoot-mpi: a solution passed to found() did not encode: {e}")
    });
    let first = !node.stop.core().is_resolved();
    node.send(Out::Found(bytes));
    // Stop this rank now; the agent tells the others.
    node.stop.core().resolve();
    offshoot::poll();
    first
}

/// The run's shared bound: a minimum over `i64` that every rank sees (for a maximizing
/// search, negate). A task prunes a branch that cannot beat [`Bound::get`], and reports a
/// better solution's value with [`Bound::lower`].
///
/// ```
/// use offshoot_mpi::Bound;
/// // Outside a run the bound is this process's own.
/// assert!(Bound::lower(10));
/// assert!(!Bound::lower(12));
/// assert_eq!(Bound::get(), 10);
/// Bound::reset();
/// assert_eq!(Bound::get(), i64::MAX);
/// ```
#[derive(Debug)]
pub struct Bound(());

/// The bound outside every run.
static LOCAL: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(i64::MAX);

impl Bound {
    /// The best bound this rank knows (`i64::MAX` before any).
    #[inline]
    pub fn get() -> i64 {
        // Acquire: pairs with the AcqRel updates, so the data a task wrote before `lower`
        // on this rank is seen with the bound.
        with_current(|n| match n {
            Some(n) => n.bound.load(Ordering::Acquire),
            None => LOCAL.load(Ordering::Acquire),
        })
    }

    /// Lowers the bound to `value` if that is better; then every other rank learns it.
    /// Returns whether it was better than what this rank knew.
    pub fn lower(value: i64) -> bool {
        with_current(|n| match n {
            Some(n) => {
                // A load first: most offers do not improve, and a plain read keeps the
                // bound's cache line shared between the workers.
                if n.bound.load(Ordering::Acquire) <= value {
                    return false;
                }
                let better = n.bound.fetch_min(value, Ordering::AcqRel) > value;
                if better {
                    n.send(Out::Bound(value));
                }
                better
            }
            None => LOCAL.fetch_min(value, Ordering::AcqRel) > value,
        })
    }

    /// Sets the bound outside every run back to `i64::MAX` (a run's bound starts there by
    /// itself).
    pub fn reset() {
        LOCAL.store(i64::MAX, Ordering::Release);
    }
}
