//! A panic that the runtime holds while the rest of its construct ends keeps its place
//! before the stops that come meanwhile.
//!
//! The first failure of a region wins (`finish.rs`): a panic, or a stop — of which a
//! eureka's resolution is one. Many constructs do not pass a panic on when they catch it,
//! but once the rest of them has ended: a `join` whose `a` panicked waits for the thief of
//! `b`; a loop waits for its pieces; a scope for its tasks; a handler frame for its body.
//! If a sibling resolves the region's eureka during that wait, the region records the
//! resolution first, and the panic — which came first — would reach it second and be
//! dropped as though it had been caused by the stop.
//!
//! So a panic is *stamped* where the runtime catches it: it is **early** when no region
//! around the catch (the finish states on the parent chain, innermost first) had failed
//! yet. When an early panic is passed on — by a construct that held it, or by a region that
//! recorded it first and now resumes it in its caller — every region on the chain records
//! the panic's [`PanicKey`] ([`note_early`]); a region that then receives the panic takes it
//! as early (its first failure, or in place of a stop or resolution it recorded before,
//! `FinishState::fail`), and passes the stamp on when it resumes it in turn.
//!
//! Invariants:
//! * `early` is computed at the catch, before any wait: a panic caught after a region on
//!   its chain failed is never early, so "a panic of code that was being stopped is
//!   dropped" still holds.
//! * Keys are recorded only for early panics passed on in a chain that has an attached
//!   region (a eureka's), and only in live states of that chain, which drop them when they
//!   end: a region keeps one key per such panic that crossed it while it lived. A key is the payload's address and type: a user who catches
//!   such a panic on its way and then panics again, after the resolution, with a payload of
//!   the same type at the same address (a zero-sized one, say) sees that second panic
//!   resumed instead of dropped — a panic too many, never one too few.

use std::any::{Any, TypeId};
use std::panic::resume_unwind;

use crate::finish::FinishState;
use crate::unwind::{is_stopped, Payload};

/// What identifies a panic payload while it travels: its address and its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PanicKey(usize, TypeId);

impl PanicKey {
    pub(crate) fn of(p: &Payload) -> PanicKey {
        let r: &(dyn Any + Send) = &**p;
        PanicKey(
            r as *const (dyn Any + Send) as *const () as usize,
            r.type_id(),
        )
    }
}

/// A panic payload the runtime caught, with whether it came before every failure of the
/// regions around the catch.
pub(crate) struct Caught {
    payload: Payload,
    early: bool,
}

impl Caught {
    /// Stamps `payload`, caught just now by code whose innermost region is `region` (null:
    /// none).
    pub(crate) fn at(payload: Payload, region: *const FinishState) -> Caught {
        // A stop is never a failure of its own, so never early.
        let early = !is_stopped(&payload) && chain_clean(region);
        Caught { payload, early }
    }

    /// Stamps `payload`, caught just now by the calling code (its worker's current region).
    pub(crate) fn here(payload: Payload) -> Caught {
        Caught::at(payload, FinishState::current())
    }

    /// A payload with the stamp it was given earlier.
    pub(crate) fn stamped(payload: Payload, early: bool) -> Caught {
        Caught { payload, early }
    }

    /// Resumes the panic in the calling code, telling the regions around it that it came
    /// before their failures if it did.
    pub(crate) fn resume(self) -> ! {
        if self.early {
            note_early(FinishState::current(), &self.payload);
        }
        resume_unwind(self.payload)
    }
}

/// Whether no finish state from `region` up its parent chain has failed.
pub(crate) fn chain_clean(region: *const FinishState) -> bool {
    // SAFETY: `region` is the calling code's region (or null), used during this call.
    unsafe { FinishState::chain(region) }.all(|st| !st.has_failed())
}

/// `p` was caught early and is being passed on: every region from `region` up the chain
/// records that it came first — whether or not one has failed yet, since one may fail
/// (a eureka resolve) before `p` reaches it, and a region that then records `p` must know
/// it came first. Only chains with an attached region (a eureka's) record anything: without
/// one, every failure a region can record is a panic or a stop caused by one, and among
/// those the first to arrive wins, as always.
pub(crate) fn note_early(region: *const FinishState, p: &Payload) {
    // SAFETY: `region` is the calling code's region (or null), used during this call.
    let chain = || unsafe { FinishState::chain(region) };
    // Only chains with an attached region (see above).
    if !chain().any(|st| st.attachment().is_some()) {
        return;
    }
    let key = PanicKey::of(p);
    chain().for_each(|st| st.note_early(key));
}

/// Whether `p`'s key is in `keys`.
pub(crate) fn is_noted(keys: &[PanicKey], p: &Payload) -> bool {
    let key = PanicKey::of(p);
    keys.contains(&key)
}

#[cfg(all(test, feature = "eureka", feature = "sync"))]
mod tests;
