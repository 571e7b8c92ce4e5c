//! The frame chain: the one structure a victim reads to answer a request.
//!
//! Every worker keeps a singly linked list of [`Frame`]s that live in stack frames of the
//! code it runs, youngest first (`Worker::head`). The core knows four kinds; clients add
//! their own as [`FrameKind::Client`], each with a [`ClientKind`] static of its own, and
//! the core deals with them only through their table (whether they have work, how they
//! offer it, whether they are cancelled, whether they answer a request as a whole):
//!
//! | kind | pushed by | offers work | cancelled when |
//! |---|---|---|---|
//! | `Seed` | `join`, before running `a` | its `b`, once | never (not yet stolen) |
//! | `StolenSeed` | a seed after it was handed out | no | `b` failed first |
//! | `StolenJob` | a thief, around a stolen join `b` | no | `a` failed first |
//! | `Finish` | `finish`/`scope` (owner), or a thief running work of a finish (proxy) | its pending spawned tasks | the finish failed |
//! | client: `loop` | `par_for` and friends (parallel iterators, `par_bridge` included), for the part of a loop this worker runs | the upper half of its remaining range | a piece it handed out failed first |
//! | client: `search handler` | `search::handle` / `State::handle`, around its body | whatever its spawn-request handler spawns (it may decline): it answers as a whole | the handler panicked, or a task it spawned failed first |
//! | client: `search undo-redo` | `State::undo_redo`, around its body | no (it rolls the state back and forth around older handlers) | its undo or redo panicked |
//!
//! Invariants:
//! * Only the owning worker reads or writes its chain and the frames' `Cell`s; frames are
//!   pushed and popped in strict LIFO order, also while unwinding (every pusher pops in its
//!   own catch / drop path before the frame's storage goes away).
//! * A frame's storage outlives its presence in the chain.
//! * A request is answered with the **oldest** frame that has work (nearest the bottom),
//!   restricted to the region the request targets (see `Worker::find_work`). When that
//!   frame answers as a whole (its table's `answer`, a search handler's), that entry takes
//!   over; a frame on the chain of a parked fiber is asked only through `offer`.
//! * Walking the chain happens only on slow paths (a request, a stop); planting a seed is
//!   two stores and a pointer bump of `head`.
//! * **Stop boundaries.** A stop scan (`Worker::stop_requested`) looks for a cancelled
//!   frame from the head down to the nearest *stop boundary* only, that boundary included:
//!   a proxy `Finish` frame (under it runs work a thief took from elsewhere: a stolen job or
//!   a spawned task) or the owner frame of a root finish (a job injected by
//!   `ThreadPool::run`). The frames below a boundary are the thief's own, and the work
//!   above it need not belong to their regions: a worker waiting in a join takes back a
//!   task that belongs to an enclosing finish, or drains such a task when the proxy of a
//!   job it took back ends — both above the stolen-job marker of the join half it runs. A
//!   cancel of a region below must not stop that task, or its finish would record the stop
//!   as its first failure and resume it instead of the real one. A failure that does
//!   concern the work reaches it through the boundary itself (its finish fails) or
//!   through the stolen job's marker (its owner cancels it); a cancel found below the
//!   boundary is held back and the stop bit raised again when the boundary leaves the
//!   chain.

use std::cell::{Cell, UnsafeCell};
use std::mem::MaybeUninit;
use std::sync::atomic::Ordering;

use crate::finish::FinishState;
use crate::job::{JobHeader, JobRef, FAILED_B};
use crate::worker::Worker;

/// What a frame is; see the table in the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FrameKind {
    Seed,
    StolenSeed,
    StolenJob,
    Finish,
    /// A kind a client defines; the core never tells one from another.
    Client(&'static ClientKind),
}

/// A kind of frame that a client defines (a loop, a search handler): one `static` per kind,
/// named for reports and debugging; a client tells its own frames by comparing kinds.
#[derive(PartialEq, Eq, Debug)]
pub(crate) struct ClientKind(pub(crate) &'static str);

/// Behaviour of one kind of frame. Each concrete frame type has one `static` (or promoted
/// constant) table; the seed of `join` clears its table (`None`, read as [`STOLEN_SEED`])
/// when handed out.
pub(crate) struct FrameVTable {
    pub(crate) kind: FrameKind,
    /// Can this frame give work to a thief now?
    pub(crate) has_work: unsafe fn(*const Frame) -> bool,
    /// Gives work to thief `thief`; `ctx` is the state of the innermost finish enclosing the
    /// frame. Called only when `has_work` said yes.
    pub(crate) offer: unsafe fn(*const Frame, &Worker, usize, *const FinishState) -> JobRef,
    /// Has the region this frame stands for been cancelled?
    pub(crate) cancelled: unsafe fn(*const Frame) -> bool,
    /// For a frame that answers a request as a whole instead of by `offer` (a
    /// spawn-request handler, which may decline and then lets younger frames answer, Yasugi et al.'s LBTC
    /// Fig. 6: `search::answer`): called when this frame is the oldest with work, with
    /// the thief and `ctx` as for `offer`; `None` means "nothing after all".
    #[allow(clippy::type_complexity)]
    pub(crate) answer:
        Option<unsafe fn(&Worker, usize, *const Frame, *const FinishState) -> Option<JobRef>>,
    /// For a frame that can answer another process's request with a *package* (bytes any
    /// process of the program can run: `worker/export.rs`): called when this frame is the
    /// oldest that can, by its owner at a poll point; `None` means "nothing after all".
    /// Frames without it never answer such a request.
    pub(crate) export: Option<ExportFn>,
}

/// A frame's `export` entry: its owner asks it for a package.
pub(crate) type ExportFn = unsafe fn(&Worker, *const Frame) -> Option<Vec<u8>>;

/// A link of the chain. Concrete frames are `#[repr(C)]` with a `Frame` first, so a
/// `*const Frame` can be cast back to its concrete type once the kind is known.
#[repr(C)]
pub(crate) struct Frame {
    pub(crate) prev: *const Frame,
    /// The frame's behaviour; `None` marks a join seed that was handed out (it then behaves
    /// as [`STOLEN_SEED`]). A null test is what `join` checks after `a`, the cheapest test
    /// there is.
    pub(crate) vtable: Cell<Option<&'static FrameVTable>>,
}

impl Frame {
    /// The frame's table.
    #[inline]
    pub(crate) fn table(&self) -> &'static FrameVTable {
        self.vtable.get().unwrap_or(&STOLEN_SEED)
    }
}

/// The start every seed shares (a join's `JoinSeed`, a scoped future's `FutureSeed`):
/// `#[repr(C)]`, the `Frame` first and the job-header cell second, so that a handed-out
/// seed's header is found from its frame alone ([`header_of_frame`]). Each seed type
/// asserts at compile time that its header sits at this offset.
#[repr(C)]
pub(crate) struct SeedHead {
    pub(crate) frame: Frame,
    pub(crate) header: UnsafeCell<MaybeUninit<JobHeader>>,
}

/// The job header of the seed whose frame is `f` (see [`SeedHead`]).
pub(crate) fn header_of_frame(f: *const Frame) -> *const JobHeader {
    let off = std::mem::offset_of!(SeedHead, header);
    (f as *const u8).wrapping_add(off) as *const JobHeader
}

/// Cancellation test of a handed-out seed: the thief's side failed first.
///
/// # Safety
/// `f` is the frame of a live seed that was handed out (its header initialised).
pub(crate) unsafe fn stolen_seed_cancelled(f: *const Frame) -> bool {
    let h = header_of_frame(f);
    // SAFETY: this table is installed only after `offer` initialised the header.
    unsafe { (*h).failed.load(Ordering::Acquire) == FAILED_B }
}

/// `has_work` of a seed not yet handed out.
///
/// # Safety
/// None: the frame is not read (a table function, called as `FrameVTable::has_work`).
pub(crate) unsafe fn always(_: *const Frame) -> bool {
    true
}

/// `cancelled` of a seed not yet handed out.
///
/// # Safety
/// None: the frame is not read (a table function, called as `FrameVTable::cancelled`).
pub(crate) unsafe fn never(_: *const Frame) -> bool {
    false
}

/// # Safety
/// None: the frame is not read (a table function, called as `FrameVTable::has_work`).
pub(crate) unsafe fn no_work(_: *const Frame) -> bool {
    false
}

/// # Safety
/// None: nothing is read; it must not be called at all (its table's `has_work` never says yes),
/// and panics if it is.
pub(crate) unsafe fn never_offer(
    _: *const Frame,
    _: &Worker,
    _: usize,
    _: *const FinishState,
) -> JobRef {
    unreachable!("offer called on a frame without work")
}

/// The table of a join seed after it was handed out: no more work; cancelled when the thief's
/// side failed first.
pub(crate) static STOLEN_SEED: FrameVTable = FrameVTable {
    kind: FrameKind::StolenSeed,
    has_work: no_work,
    offer: never_offer,
    cancelled: stolen_seed_cancelled,
    answer: None,
    export: None,
};

/// A thief's marker around a stolen join `b`: the boundary of leapfrogging requests that
/// target this job, and the place where `b` is stopped when `a` failed.
#[repr(C)]
pub(crate) struct StolenJobFrame {
    pub(crate) frame: Frame,
    pub(crate) job: *const crate::job::JobHeader,
}

/// # Safety
/// `f` is a live `StolenJobFrame` (the only frame this table is installed on) on the calling
/// thief's chain, whose job header is live: the thief pops the frame before it sets `done`.
unsafe fn stolen_job_cancelled(f: *const Frame) -> bool {
    // SAFETY: the table is only installed on `StolenJobFrame`s, whose job header stays live
    // until the thief pops this frame (it pops before setting `done`).
    unsafe {
        let f = &*(f as *const StolenJobFrame);
        (*f.job).failed.load(std::sync::atomic::Ordering::Acquire) == crate::job::FAILED_A
    }
}

pub(crate) static STOLEN_JOB: FrameVTable = FrameVTable {
    kind: FrameKind::StolenJob,
    has_work: no_work,
    offer: never_offer,
    cancelled: stolen_job_cancelled,
    answer: None,
    export: None,
};
