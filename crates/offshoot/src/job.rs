//! Jobs: what a thief receives and runs.
//!
//! A job is addressed by a pointer to its [`JobHeader`] (or, for the boxed kinds, to a
//! struct whose first field is the `execute` pointer). Three families exist:
//! * **seeds handed out** (a join's `b`, `join.rs`; a scoped future's closure,
//!   `sync/scoped_future.rs`): the header lives in the victim's stack frame, inside the
//!   seed (`frame::SeedHead`); the thief runs the closure in place and writes the result
//!   into the frame. No allocation.
//! * **pieces a victim cut off and boxed for the thief**, which the victim keeps listed
//!   and collects: a loop's upper half (`loops.rs`), a task a spawn-request handler made
//!   (`search/handle.rs`).
//! * **tasks that stand alone**: spawned tasks and task futures in a recycled block
//!   (`finish.rs`, `sync/future.rs`), detached tasks and broadcast shares in a box
//!   (`detached.rs`, `broadcast.rs`), and the root job of `ThreadPool::run`, on the
//!   calling thread's stack (`pool.rs`).
//!
//! Invariants:
//! * The header of a join seed is initialised by the victim when it hands the seed out
//!   (`offer`), never on the fast path.
//! * Whoever runs a join job writes `outcome` (and the result or payload) *before* it sets
//!   `done` with release; after setting `done` it never touches the header again, because
//!   the victim may then leave the frame the header lives in.
//! * `failed` is written only by compare-and-swap from [`NOT_FAILED`]: the first side that
//!   fails wins, and only the winner's payload is kept.

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
/// As [`OUTCOME_PANIC`], for a panic caught before any region around the job had failed
/// (`caught.rs`).
pub(crate) const OUTCOME_PANIC_EARLY: u8 = 3;

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

use crate::unwind::Payload;

/// The common part of every handed-out join seed or loop piece. See the module docs for who
/// writes what, and when. `#[repr(C)]` with `execute` first: spawned tasks share only that
/// first field (see `JobRef::execute`).
#[repr(C)]
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
        // Every job type is `#[repr(C)]` and starts with its `execute` pointer (a
        // `JobHeader`, or a spawned task's smaller header), so the first word is read
        // without assuming the rest of a `JobHeader` is there.
        // SAFETY: per the contract, the job is live; its first field is the fn pointer.
        unsafe {
            let execute = *(self.0 as *const unsafe fn(*const JobHeader, &Worker, Mode));
            execute(self.0, worker, mode)
        }
    }
}

/// Runs a handed-out job on its thief `w`, in the three steps every job's `execute` takes
/// in its own frame: `let proxy = thief_proxy(h, w); proxy.enter(w);`, then
/// [`run_as_thief`] (or [`run_as_thief_with`]), then [`thief_done`]`(h, w, &proxy)`.
///
/// They are three calls, not one function taking the job's closures, because once `done`
/// is set the owner may free the job and return from the frame the closures borrow from;
/// a function still running then with those closures (or a reference into the job) among
/// its arguments would hold references that must stay valid until it returns (Miri's Tree
/// Borrows reports the owner's deallocation as undefined behaviour). `execute` itself
/// holds only the raw header pointer.
///
/// # Safety
/// `h` must be a live job handed out to `w`.
pub(crate) unsafe fn thief_proxy(h: *const JobHeader, w: &Worker) -> crate::finish::FinishFrame {
    // SAFETY: per the contract, the header is live.
    crate::finish::FinishFrame::new(w, unsafe { (*h).finish.get() }, false)
}

/// Runs a handed-out job's `body` on its thief `w` under the entered proxy of
/// [`thief_proxy`] and a `StolenJob` marker (the boundary of leapfrogging requests and of
/// the stop of this job), then records the outcome — `write` stores the value, or the panic
/// is kept if it failed first. It does not set `done`: [`thief_done`] does, after this
/// returns.
///
/// # Safety
/// `h` must be a live job handed out to `w`, whose owner waits for `done` before freeing it.
pub(crate) unsafe fn run_as_thief<R>(
    h: *const JobHeader,
    w: &Worker,
    body: impl FnOnce() -> R,
    write: impl FnOnce(R),
) {
    // SAFETY: forwarded contract.
    unsafe { run_as_thief_with(h, w, body, write, || {}) }
}

/// [`run_as_thief`], with `failed` called when `body` unwound, after the failure was
/// recorded (the `failed` CAS and the payload) and before `done`: a job that also tells
/// others it ended (a scoped future's completion) must do so only once its failure can no
/// longer lose to a failure that its owner raises on seeing it.
///
/// # Safety
/// As for [`run_as_thief`].
pub(crate) unsafe fn run_as_thief_with<R>(
    h: *const JobHeader,
    w: &Worker,
    body: impl FnOnce() -> R,
    write: impl FnOnce(R),
    failed: impl FnOnce(),
) {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::Ordering;

    use crate::frame::{Frame, StolenJobFrame, STOLEN_JOB};
    use crate::unwind::is_stopped;

    // SAFETY: per the contract, the header is live until `done` is set, which is after
    // this function returns.
    let hdr = unsafe { &*h };
    // SAFETY: workers live as long as their registry.
    let owner = unsafe { &*hdr.owner };
    let marker = StolenJobFrame {
        frame: Frame {
            prev: w.head(),
            vtable: Cell::new(Some(&STOLEN_JOB)),
        },
        job: h,
    };
    let mp = &marker as *const StolenJobFrame as *const Frame;
    w.push(mp);
    let r = catch_unwind(AssertUnwindSafe(|| {
        w.poll();
        body()
    }));
    w.pop(mp);
    match r {
        Ok(v) => {
            write(v);
            hdr.outcome.set(OUTCOME_OK);
        }
        Err(p) => {
            if !is_stopped(&p)
                && hdr
                    .failed
                    .compare_exchange(NOT_FAILED, FAILED_B, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                // Stamped here, at the catch, before the owner's wait (`caught.rs`).
                let early = crate::caught::chain_clean(hdr.finish.get());
                // SAFETY: only the job's runner writes the payload, before `done`.
                unsafe { *hdr.payload.get() = Some(p) };
                hdr.outcome.set(if early {
                    OUTCOME_PANIC_EARLY
                } else {
                    OUTCOME_PANIC
                });
                owner.signal_stop();
            } else {
                hdr.outcome.set(OUTCOME_STOPPED);
                drop(p);
            }
            failed();
        }
    }
}

/// The last step of running a handed-out job on its thief (see [`thief_proxy`]): sets
/// `done`, after which nothing of the job is touched (its owner may free it), wakes the
/// owner and leaves the proxy.
///
/// # Safety
/// `h` is the job [`run_as_thief`] just ran on `w` under `proxy`; called once.
pub(crate) unsafe fn thief_done(
    h: *const JobHeader,
    w: &Worker,
    proxy: &crate::finish::FinishFrame,
) {
    use std::sync::atomic::Ordering;
    // SAFETY: the job is live until `done`; the owner worker (read first) lives as long as
    // its registry. Only the flag is borrowed, for the store.
    let owner = unsafe {
        let owner = &*(*h).owner;
        // SeqCst: the release that publishes the outcome and result (module invariants), and
        // the waker's side of the owner's sleep handshake: store `done`, then `kick` (SeqCst
        // store of `kicked`, SeqCst read of the owner's `sleep_state`). The owner stores its
        // `sleep_state` (`nap`) and then reads `done` (`wait_for_job`'s conditions): in the
        // single total order one side sees the other.
        (*h).done.store(true, Ordering::SeqCst);
        owner
    };
    // From here on the job may be gone: touch only the owner worker.
    owner.kick();
    proxy.leave(w);
}

/// Owner side: asks the thief of a handed-out job to stop it (its owner's side failed or
/// was stopped), unless the thief's side failed first.
pub(crate) fn cancel_job(w: &Worker, hdr: &JobHeader) {
    use std::sync::atomic::Ordering;
    if hdr
        .failed
        .compare_exchange(NOT_FAILED, FAILED_A, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
    {
        w.registry().worker(hdr.thief.get()).signal_stop();
    }
}

/// How a handed-out job ended, as its owner sees it after waiting.
pub(crate) enum Settled {
    /// The value was written; the owner may read it.
    Value,
    /// The job failed first: resume this panic (after stopping anything else).
    Failed(crate::caught::Caught),
    /// The job was stopped, or its owner cancelled it: there is no value.
    Stopped,
}

/// Owner side: waits for a handed-out job (leapfrogging) and reports how it ended.
pub(crate) fn settle_job(w: &Worker, hdr: &JobHeader) -> Settled {
    use std::sync::atomic::Ordering;
    w.wait_for_job(hdr);
    let failed = hdr.failed.load(Ordering::Acquire);
    // SAFETY: `done` was set (acquire in wait_for_job): the thief no longer touches it.
    let payload = unsafe { (*hdr.payload.get()).take() };
    match (failed, hdr.outcome.get()) {
        (FAILED_B, outcome) => Settled::Failed(crate::caught::Caught::stamped(
            payload.expect("offshoot: failed job lost its payload"),
            outcome == OUTCOME_PANIC_EARLY,
        )),
        // Also after the owner cancelled (FAILED_A): the value exists, and the caller, which
        // knows whether it cancelled, takes it (to use or to drop). Anything else has none.
        (_, OUTCOME_OK) => Settled::Value,
        _ => Settled::Stopped,
    }
}
