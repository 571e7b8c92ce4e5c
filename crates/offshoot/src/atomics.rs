//! Atomics used by the request handshake, switched to loom's model-checked atomics under
//! `--cfg loom` so that `mailbox.rs` can be model-checked (see `scripts/loom.sh`).
//!
//! Invariant: only the handshake (`mailbox.rs`) goes through this shim; the rest of the
//! runtime uses `std` atomics directly, so a `--cfg loom` build runs the loom tests only.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::AtomicU64;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::AtomicU64;

pub(crate) use std::sync::atomic::Ordering;
