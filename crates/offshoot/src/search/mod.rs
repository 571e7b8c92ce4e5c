//! Backtracking search without copying: spawn-request handlers and undo-redo (after Yasugi
//! et al.'s LBTC; `docs/REFERENCES.md`).
//!
//! A search program runs as the plain sequential backtracking search on **one** shared,
//! mutable [`State`]. Nothing is copied and no task is made while every worker is busy.
//! Only when an idle worker asks does the runtime call the **oldest** live handler
//! ([`State::handle`], [`handle()`]); the handler copies the state *as it is now* and spawns a
//! task for part of the remaining work, or declines, and then the next younger frame is
//! tried — handler, join seed, loop or finish alike: the oldest-first rule spans every kind
//! of frame. [`State::undo_redo`] clauses roll the shared state back to what an older handler
//! expects before it runs, and forward again after, so every handler sees the state as it
//! was when its block was entered. The order is exactly LBTC's Fig. 6: for a request arriving
//! in `H_outer ⊃ UR_mid ⊃ H_inner ⊃ UR_inner ⊃ body`,
//!
//! 1. undo of `UR_inner`, 2. undo of `UR_mid`, 3. `H_outer` is asked, 4. redo of `UR_mid`,
//! 5. `H_inner` is asked (only if `H_outer` declined), 6. redo of `UR_inner`.
//!
//! ```
//! use std::cell::Cell;
//! use offshoot::search::State;
//!
//! /// Counts the ways to place `n` non-attacking queens, on one shared board.
//! fn queens(st: &State<Vec<usize>>, n: usize) -> u64 {
//!     let row = st.with(|b| b.len());
//!     if row == n {
//!         return 1;
//!     }
//!     let (next, end) = (Cell::new(0), Cell::new(n));
//!     let (mine, stolen) = st.handle(
//!         || {
//!             let mut count = 0;
//!             while next.get() < end.get() {
//!                 let col = next.get();
//!                 next.set(col + 1);
//!                 if st.with(|b| safe(b, col)) {
//!                     st.with(|b| b.push(col));
//!                     count += st.undo_redo(|| queens(st, n), |b| { b.pop(); }, |b| b.push(col));
//!                     st.with(|b| b.pop());
//!                 }
//!             }
//!             count
//!         },
//!         // Asked by an idle worker: give away the last column not tried yet.
//!         |b, req| {
//!             if next.get() >= end.get() {
//!                 return req.decline();
//!             }
//!             let col = end.get() - 1;
//!             end.set(col);
//!             let mut mine = b.clone(); // the board as this block saw it on entry
//!             req.spawn(move || {
//!                 if !safe(&mine, col) {
//!                     return 0;
//!                 }
//!                 mine.push(col);
//!                 queens(&State::new(mine), n)
//!             })
//!         },
//!     );
//!     mine + stolen.iter().sum::<u64>()
//! }
//!
//! fn safe(b: &[usize], col: usize) -> bool {
//!     let r = b.len();
//!     b.iter().enumerate().all(|(i, &c)| c != col && r - i != c.abs_diff(col))
//! }
//!
//! let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
//! assert_eq!(pool.run(|| queens(&State::new(Vec::new()), 8)), 92);
//! ```
//!
//! ## Why this is sound
//!
//! Handlers and undo/redo clauses are closures that run *while the body is suspended in a
//! call* — at a poll point, possibly deep inside `join`s and loops that the body called.
//! Three rules make that safe without any `unsafe` in user code:
//!
//! * **Same thread, dynamic extent.** A handler or clause is stored in a frame on the stack
//!   of its `handle` / `undo_redo` call and linked into the worker's frame chain only while
//!   the body runs. Only the worker that owns the chain calls it, from a poll point. So a
//!   handler is like a callback the body holds: the borrow checker already forbids the body
//!   and the handler to capture the same variable mutably, and neither needs to be `Send`.
//!   A poll inside a handler or clause answers requests without calling any handler or
//!   clause (they are never re-entered).
//! * **The state is lent, never shared.** The search state lives in a [`State`], a
//!   `RefCell`-like cell whose borrow flag the runtime reads. The body borrows it through
//!   [`State::with`] or a [`StateMut`] guard; the runtime lends it to a handler (`&S`) or an
//!   undo/redo (`&mut S`) only when it is at rest. If the body holds a borrow at the poll
//!   point where a request arrives, that state's handlers **decline** (the request passes to
//!   the next younger frame), and an undo of that state cannot run, so every handler older
//!   than it declines too. No two borrows of the value ever exist at once.
//! * **Nothing escapes.** `State` is `!Sync`, so no `join` closure, spawned task or other
//!   thread can reach it; a task spawned by a handler must own (copy) what it uses. The
//!   state reference a handler gets and its [`Request`] / [`Reply`] carry a lifetime fresh
//!   to each call, so none can be kept for later.
//!
//! Handlers never unwind into the runtime: a panic of a handler, undo or redo is caught at
//! the poll point, the request is still answered, the block is marked failed (its frame
//! reports itself cancelled, so the body is stopped at its next poll) and the panic resumes
//! from the `handle` / `undo_redo` call, once. A failing spawned task does the same, like a
//! failing side of a `join`.
//!
//! What does not compile:
//!
//! ```compile_fail
//! // The state cannot be sent to another worker: `&State` is not `Send`.
//! let st = offshoot::search::State::new(0u32);
//! offshoot::join(|| st.with(|x| *x += 1), || ());
//! ```
//!
//! ```compile_fail
//! // A spawned task cannot borrow the state the handler was lent; it must copy it.
//! let st = offshoot::search::State::new(vec![1u8]);
//! let _ = st.handle(|| (), |v, req| req.spawn(move || v.len()));
//! ```
//!
//! ```compile_fail
//! // The handler and the body cannot both capture the same variable mutably.
//! let mut steps = 0;
//! let _: ((), Vec<()>) = offshoot::search::handle(|| steps += 1, |req| { steps += 1; req.decline() });
//! ```
//!
//! ```compile_fail
//! // A reply cannot be kept for a later request.
//! let mut kept = None;
//! let _: ((), Vec<u8>) = offshoot::search::handle(|| (), |req| {
//!     kept = Some(req.spawn(|| 1));
//!     kept.take().unwrap()
//! });
//! let _ = kept;
//! ```
//!
//! Invariants of this module (`answer`):
//! * It runs only from `Worker::find_work`, at a poll point (or a wait loop's answering
//!   point) of the owning worker, when the oldest frame with work in the request's region
//!   is a handler; every frame from the chain's head down to that handler is live and in
//!   the region for the whole call, because only this worker pushes or pops them and it is
//!   inside this call.
//! * It walks those frames youngest to oldest to run the undos, then returns towards the
//!   head asking frames oldest first and running each redo right after the frames older
//!   than its clause were tried: exactly LBTC's Fig. 6 (Yasugi et al.), for any nesting and any kinds.
//! * It is never re-entered on a thread: while it runs, handler frames report no work, so
//!   `find_work` cannot choose one.

mod handle;
mod state;
mod undo;

use std::cell::Cell;

pub use handle::{handle, Reply, Request};
pub use state::{State, StateMut};

use crate::caught::Caught;
use crate::finish::{FinishFrame, FinishState};
use crate::frame::{ClientKind, Frame, FrameKind};

/// The frame kind of a spawn-request handler's body (`handle.rs`).
pub(crate) static HANDLER: ClientKind = ClientKind("search handler");
/// The frame kind of an undo-redo clause's body (`undo.rs`).
pub(crate) static UNDO_REDO: ClientKind = ClientKind("search undo-redo");
use crate::job::JobRef;
use crate::unwind::is_stopped;
use crate::unwind::Payload;
use crate::worker::Worker;

/// The part shared by handler and undo-redo frames: the chain link, then what `answer`
/// calls. Concrete frames are `#[repr(C)]` with this first.
#[repr(C)]
pub(crate) struct SearchFrame {
    pub(crate) frame: Frame,
    pub(crate) ops: &'static SearchOps,
}

/// What `answer` can do with a search frame.
pub(crate) enum SearchOps {
    /// Asks the handler for a task for `thief` (`ctx`: the finish enclosing the frame);
    /// `None` when it declines, cannot run, or panicked.
    Handler {
        ask: unsafe fn(*const Frame, &Worker, usize, *const FinishState) -> Option<JobRef>,
        /// Asks the handler's exporter for a package (another process asks); `None` when it
        /// declines, has no exporter, cannot run, or panicked.
        export: unsafe fn(*const Frame, &Worker, *const FinishState) -> Option<Vec<u8>>,
    },
    /// `undo` runs the undo if it can and says whether it ran; `redo` runs the redo.
    UndoRedo {
        undo: unsafe fn(*const Frame, &Worker) -> bool,
        redo: unsafe fn(*const Frame, &Worker),
    },
}

thread_local! {
    /// Set while `answer` runs on this thread.
    static ANSWERING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside `answer` (a handler, undo or redo is running).
pub(crate) fn answering() -> bool {
    ANSWERING.with(|a| a.get())
}

/// # Safety
/// None: nothing is read; search frames answer only through `search::answer`, so this is never
/// called, and panics if it is.
pub(crate) unsafe fn never_offer(
    _: *const Frame,
    _: &Worker,
    _: usize,
    _: *const FinishState,
) -> JobRef {
    unreachable!("offshoot: a search frame is offered only through search::answer")
}

/// Records the panic `p` of a handler, undo or redo in its frame's failure slot (the first
/// only), stamped as caught in `region` (`caught.rs`: the frame passes it on only when its
/// body has ended), and makes the worker scan its chain at its next poll, where the frame
/// reports itself cancelled. A stop that unwound out of the callback is not a failure of
/// the frame: it is raised again for the next poll.
pub(crate) fn fail_in_frame(
    w: &Worker,
    slot: &mut Option<Caught>,
    p: Payload,
    region: *const FinishState,
) {
    if !is_stopped(&p) && slot.is_none() {
        *slot = Some(Caught::at(p, region));
    }
    w.signal_stop();
}

/// Clears the answering flag however `answer` is left.
struct Answering;

impl Drop for Answering {
    fn drop(&mut self) {
        ANSWERING.with(|a| a.set(false));
    }
}

/// Answers a request whose oldest candidate frame is the handler `oldest`, in LBTC's Fig. 6 (Yasugi et al.)
/// order (see the module invariants). `ctx` is the innermost finish at or below `oldest`.
///
/// # Safety
/// Called by the owning worker `w` from `find_work`, with `oldest` a live handler frame of
/// `w`'s chain in the request's region.
pub(crate) unsafe fn answer(
    w: &Worker,
    thief: usize,
    oldest: *const Frame,
    ctx: *const FinishState,
) -> Option<JobRef> {
    debug_assert!(!answering(), "search::answer re-entered");
    ANSWERING.with(|a| a.set(true));
    let _clear = Answering;
    // SAFETY: per the contract; see `walk`.
    match unsafe { walk(w, Want::Thief(thief), w.head(), oldest, ctx, false).0 } {
        Some(Got::Job(j)) => Some(j),
        Some(Got::Package(_)) => unreachable!("a thief's request answered with a package"),
        None => None,
    }
}

/// Answers a package request (`worker/export.rs`) whose oldest frame that can package is the
/// handler `oldest`, in the same order as [`answer`]: undos of the younger clauses, then the
/// exporters oldest first, each redo after the frames older than its clause were asked.
/// Frames that cannot package (join seeds, loops, handlers without an exporter) are passed
/// over: their work goes to local thieves only.
///
/// # Safety
/// Called by the owning worker `w` at a poll point, with `oldest` a live handler frame of
/// `w`'s running chain.
pub(crate) unsafe fn export(w: &Worker, oldest: *const Frame) -> Option<Vec<u8>> {
    if answering() {
        return None;
    }
    ANSWERING.with(|a| a.set(true));
    let _clear = Answering;
    // The innermost finish below `oldest`, as `find_in_chain` finds it for a thief.
    let mut ctx: *const FinishState = std::ptr::null();
    // SAFETY: per the contract, `oldest` and the frames below it are live frames of `w`.
    unsafe {
        let mut f = oldest;
        while !f.is_null() {
            if (*f).table().kind == FrameKind::Finish {
                ctx = (*(f as *const FinishFrame)).state;
                break;
            }
            f = (*f).prev;
        }
    }
    debug_assert!(!ctx.is_null(), "a handler outside every finish");
    // SAFETY: per the contract; see `walk`.
    match unsafe { walk(w, Want::Package, w.head(), oldest, ctx, false).0 } {
        Some(Got::Package(p)) => Some(p),
        Some(Got::Job(_)) => unreachable!("a package request answered with a job"),
        None => None,
    }
}

/// What a walk asks the frames for.
#[derive(Clone, Copy)]
enum Want {
    /// Work for the local thief with this index: any frame with work may give it.
    Thief(usize),
    /// A package for another process: only handlers with an exporter can give one.
    Package,
}

/// What a walk found.
enum Got {
    Job(JobRef),
    Package(Vec<u8>),
}

/// Tries the frames from `f` down to `oldest`, oldest first, around the undos and redos of
/// the undo-redo frames among them. `blocked`: a younger clause could not undo, so no
/// handler may be asked. Returns the answer and the innermost finish at or below `f`.
///
/// # Safety
/// `f` is `oldest` or younger than it on `w`'s chain; all of them are live.
unsafe fn walk(
    w: &Worker,
    want: Want,
    f: *const Frame,
    oldest: *const Frame,
    base_ctx: *const FinishState,
    blocked: bool,
) -> (Option<Got>, *const FinishState) {
    // SAFETY: per the contract, `f` and its older frames down to `oldest` are live frames of
    // `w`, which runs this call. A frame's table, and a search frame's ops, are the ones its
    // concrete type installed, so calling them on it meets their contracts: `undo`/`redo`/
    // `ask` on the owner at a poll point, not re-entrantly (`answer` holds the flag);
    // `offer` only after `has_work` said yes; `redo` only after `undo` returned true.
    unsafe {
        let vt = (*f).table();
        if vt.kind == FrameKind::Client(&UNDO_REDO) {
            let SearchOps::UndoRedo { undo, redo } = (*(f as *const SearchFrame)).ops else {
                unreachable!("an UndoRedo frame without undo-redo ops")
            };
            // `oldest` is a handler, so this clause is younger: its undo is needed.
            let undone = !blocked && undo(f, w);
            let r = walk(w, want, (*f).prev, oldest, base_ctx, blocked || !undone);
            if undone {
                redo(f, w);
            }
            return r;
        }
        let (older, mut ctx) = if std::ptr::eq(f, oldest) {
            (None, base_ctx)
        } else {
            walk(w, want, (*f).prev, oldest, base_ctx, blocked)
        };
        if vt.kind == FrameKind::Finish {
            ctx = (*(f as *const FinishFrame)).state;
        }
        if older.is_some() {
            return (older, ctx);
        }
        let handler = vt.kind == FrameKind::Client(&HANDLER);
        let mine = match vt.kind {
            _ if handler && blocked => None,
            _ if handler => {
                let SearchOps::Handler { ask, export } = (*(f as *const SearchFrame)).ops else {
                    unreachable!("a Handler frame without handler ops")
                };
                match want {
                    Want::Thief(thief) => ask(f, w, thief, ctx).map(Got::Job),
                    Want::Package => export(f, w, ctx).map(Got::Package),
                }
            }
            _ => match want {
                Want::Thief(thief) if (vt.has_work)(f) => {
                    Some(Got::Job((vt.offer)(f, w, thief, ctx)))
                }
                _ => None,
            },
        };
        (mine, ctx)
    }
}
