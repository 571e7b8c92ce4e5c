//! A parallel loop's work/span record: every block of iterations is a strand that begins at
//! the loop's start, on whichever worker runs it; the loop ends after the longest.
//!
//! Invariants:
//! * The record lives in the frame of the loop's owner, which waits for every piece (and so
//!   for every block) before it merges the record into its strand and leaves.
//! * A block of `k` iterations counts its whole time as work and `1/k` of it as span: the
//!   iterations of a block are taken to be alike (a loop's span is that of its slowest
//!   block's average iteration). Blocks start at one iteration and grow only while they
//!   take under a few microseconds, so a slow iteration is mostly a block of its own.

use super::clock::{Acc, Clock};
use super::strand::Strand;
use crate::worker::Worker;

/// See the module docs.
pub(crate) struct LoopMeter {
    start: Clock,
    acc: Acc,
}

impl LoopMeter {
    /// A loop that starts at `start` (its owner's clock).
    pub(crate) fn new(start: Clock) -> LoopMeter {
        LoopMeter {
            start,
            acc: Acc::new(),
        }
    }

    /// Runs a block of `k` iterations as a strand of the loop.
    pub(crate) fn block(&self, k: usize, run: impl FnOnce()) {
        // SAFETY: loops run on workers; a worker is current on its thread (a block that
        // parks resumes on the worker that ran it).
        let saved = unsafe { (*Worker::current()).meter() }.begin(self.start);
        run();
        // SAFETY: as above.
        let end = unsafe { (*Worker::current()).meter() }.end(saved);
        let k = k.max(1) as u64;
        let s = &self.start;
        let per = |e: u64, s: u64| s + e.saturating_sub(s) / k;
        let leaf = Clock {
            span_t: per(end.span_t, s.span_t),
            burdened_t: per(end.burdened_t, s.burdened_t),
            span_units: per(end.span_units, s.span_units),
            ..end
        };
        self.acc.child(s, &leaf);
    }

    /// The loop has ended (every piece settled): the owner's strand goes on after it. What
    /// the owner did outside its blocks (splitting, waiting for the pieces) is nobody's work.
    pub(crate) fn merge(&self, m: &Strand) {
        m.set(self.acc.merge_into(self.start));
    }
}
