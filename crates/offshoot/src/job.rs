//! Jobs: what a thief receives and runs.
//!
//! A job is addressed by a pointer to its [`JobHeader`]. Two kinds exist:
//! * a **join seed** that was handed out (`join.rs`): its header lives in the victim's
//!   stack frame, inside the seed; the thief runs the seed's closure in place and writes
//!   the result into the frame. No allocation.
//! * a **spawned task** (`finish.rs`): a heap box created by `spawn`.
//!
//! Invariants:
//! * The header of a join seed is initialised by the victim when it hands the seed out
//!   (`offer`), never on the fast path.
//! * Whoever runs a join job writes `outcome` (and the result or payload) *before* it sets
//!   `done` with release; after setting `done` it never touches the header again, because
//!   the victim may then leave the frame the header lives in.
//! * `failed` is written only by compare-and-swap from [`NOT_FAILED`]: the first side that
//!   fails wins, and only the winner's payload is kept.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU8};

use crate::finish::FinishState;
use crate::worker::Worker;

/// Neither side of a join has failed.
pub(crate) const NOT_FAILED: u8 = 0;
/// The owner's side (`a`) of a join failed first, or was stopped: the thief must stop `b`.
pub(crate) const FAILED_A: u8 = 1;
/// The stolen side (`b`) failed first: the owner must stop `a`.
pub(crate) const FAILED_B: u8 = 2;

/// `b` returned a value, now in the seed's result slot.
pub(crate) const OUTCOME_OK: u8 = 0;
/// `b` panicked (or failed with an error marker) and won: the payload is in the header.
pub(crate) const OUTCOME_PANIC: u8 = 1;
/// `b` was stopped, or lost the race to fail first: there is no value.
pub(crate) const OUTCOME_STOPPED: u8 = 2;

/// How a job is to be treated by [`JobHeader::execute`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// Run by a thief that received it through a request.
    Stolen,
    /// Run by the owner of the frame it was pending in (only spawned tasks).
    Inline,
    /// Never run: drop its closure (only spawned tasks, when their finish has failed).
    Discard,
}

/// A panic payload.
pub(crate) type Payload = Box<dyn Any + Send>;

/// The common part of every job. See the module docs for who writes what, and when.
pub(crate) struct JobHeader {
    pub(crate) execute: unsafe fn(*const JobHeader, &Worker, Mode),
    /// Set (release) when a join job has finished; the owner waits for it.
    pub(crate) done: AtomicBool,
    /// [`NOT_FAILED`], [`FAILED_A`] or [`FAILED_B`].
    pub(crate) failed: AtomicU8,
    /// One of the `OUTCOME_*` values; written before `done`.
    pub(crate) outcome: Cell<u8>,
    /// The worker that waits at the join (join jobs only).
    pub(crate) owner: *const Worker,
    /// The index of the worker that took the job.
    pub(crate) thief: Cell<usize>,
    /// The innermost finish whose dynamic extent the job runs in.
    pub(crate) finish: Cell<*const FinishState>,
    /// The winning panic payload of `b`.
    pub(crate) payload: UnsafeCell<Option<Payload>>,
}

impl JobHeader {
    pub(crate) fn new(
        execute: unsafe fn(*const JobHeader, &Worker, Mode),
        owner: *const Worker,
    ) -> JobHeader {
        JobHeader {
            execute,
            done: AtomicBool::new(false),
            failed: AtomicU8::new(NOT_FAILED),
            outcome: Cell::new(OUTCOME_OK),
            owner,
            thief: Cell::new(usize::MAX),
            finish: Cell::new(std::ptr::null()),
            payload: UnsafeCell::new(None),
        }
    }
}

/// A pointer to a job's header, as passed through the reply slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JobRef(pub(crate) *const JobHeader);

// SAFETY: a JobRef is handed from the victim to exactly one thief through the release /
// acquire reply slot; the job it points to is `Send` by construction (join requires
// `B: Send`, spawn requires `F: Send`), and the header's cells are only touched by the
// single worker that currently owns the job (see the module invariants).
unsafe impl Send for JobRef {}

impl JobRef {
    /// Runs (or discards) the job on `worker`.
    ///
    /// # Safety
    /// The job must be live and owned by the caller: received through a reply, or popped
    /// from a frame's pending list by that frame's owner.
    pub(crate) unsafe fn execute(self, worker: &Worker, mode: Mode) {
        // SAFETY: per the contract, the header is live.
        unsafe { ((*self.0).execute)(self.0, worker, mode) }
    }
}
