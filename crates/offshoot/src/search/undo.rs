//! Undo-redo clauses: `do { body } undo_redo { undo; try_to_spawn; redo }` of 004, as
//! [`State::undo_redo`].
//!
//! `undo_redo` pushes an [`UndoFrame`] around its body. It gives no work itself; when a
//! request is answered by a handler *older* than it, `search::answer` runs the undo before
//! and the redo after (LBTC's Fig. 6 (Yasugi et al.)), so the older handler sees the state as it was when its
//! block was entered.
//!
//! Invariants:
//! * The undo and the redo run only inside `search::answer` — at a poll point of the thread
//!   that runs the body, while the frame is on the chain — each with the state lent to it,
//!   and the redo runs exactly when the undo ran and returned.
//! * An undo that cannot run (the state is borrowed at that poll point, or this clause
//!   failed before) blocks every older handler for that request: they count as declining.
//! * A panic of the undo or redo never unwinds into the runtime: it is kept (the first only),
//!   the frame reports itself cancelled, the body is stopped at its next poll, and
//!   `undo_redo` resumes the payload. The state's value is then whatever the panic left.

use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use super::state::State;
use super::{fail_in_frame, SearchFrame, SearchOps};
use crate::caught::Caught;
use crate::finish::FinishState;
use crate::frame::{Frame, FrameKind, FrameVTable};
use crate::unwind::Payload;
use crate::worker::Worker;

/// The frame of one `undo_redo` call. `#[repr(C)]` with the [`SearchFrame`] first.
#[repr(C)]
pub(crate) struct UndoFrame<'s, S, U, D> {
    link: SearchFrame,
    state: &'s State<S>,
    undo: UnsafeCell<U>,
    redo: UnsafeCell<D>,
    /// The first panic of the undo or the redo.
    failure: UnsafeCell<Option<Caught>>,
}

impl<S, U: FnMut(&mut S), D: FnMut(&mut S)> UndoFrame<'_, S, U, D> {
    const VTABLE: FrameVTable = FrameVTable {
        kind: FrameKind::Client(&super::UNDO_REDO),
        has_work: crate::frame::no_work,
        offer: super::never_offer,
        cancelled: Self::cancelled,
        answer: None,
        export: None,
    };
    const OPS: SearchOps = SearchOps::UndoRedo {
        undo: Self::undo,
        redo: Self::redo,
    };

    /// # Safety
    /// `f` is a live `UndoFrame<S, U, D>` (the only frame this table is installed on), linked
    /// in the calling worker's chain; called by that worker only.
    unsafe fn cancelled(f: *const Frame) -> bool {
        // SAFETY: the UndoRedo table is only installed on `UndoFrame<S, U, D>`s, live while
        // linked; only the owning worker touches the cell.
        unsafe { (*(*(f as *const Self)).failure.get()).is_some() }
    }

    /// Runs the undo if it can; returns whether it ran and returned.
    ///
    /// # Safety
    /// As for `cancelled`; called from `search::answer` (not re-entrant), so no other reference
    /// to the undo closure or the state is live.
    unsafe fn undo(f: *const Frame, w: &Worker) -> bool {
        // SAFETY: as in `cancelled`.
        let fr = unsafe { &*(f as *const Self) };
        // SAFETY: as in `cancelled`.
        if unsafe { (*fr.failure.get()).is_some() } {
            return false;
        }
        let Some(mut g) = fr.state.try_lend() else {
            return false;
        };
        // SAFETY: `answer` is not re-entrant, so this is the only reference to the closure.
        let undo = unsafe { &mut *fr.undo.get() };
        match catch_unwind(AssertUnwindSafe(|| undo(&mut g))) {
            Ok(()) => true,
            Err(p) => {
                drop(g);
                // SAFETY: only the owner touches the cell.
                fail_in_frame(
                    w,
                    unsafe { &mut *fr.failure.get() },
                    p,
                    FinishState::current(),
                );
                false
            }
        }
    }

    /// Runs the redo of an undo that ran.
    ///
    /// # Safety
    /// As for `undo`, and only after `undo` on this frame ran and returned true, within the
    /// same `search::answer`.
    unsafe fn redo(f: *const Frame, w: &Worker) {
        // SAFETY: as in `cancelled`.
        let fr = unsafe { &*(f as *const Self) };
        let r = match fr.state.try_lend() {
            // SAFETY: as in `undo`.
            Some(mut g) => catch_unwind(AssertUnwindSafe(|| unsafe { (*fr.redo.get())(&mut g) })),
            // Something between the undo and now kept a borrow (a leaked guard): the state
            // cannot be put back, so the search must not go on.
            None => Err(Box::new(
                "offshoot: an undo-redo clause could not redo: its state was left borrowed \
                 by a handler or an undo",
            ) as Payload),
        };
        if let Err(p) = r {
            // SAFETY: only the owner touches the cell.
            fail_in_frame(
                w,
                unsafe { &mut *fr.failure.get() },
                p,
                FinishState::current(),
            );
        }
    }
}

impl<S> State<S> {
    /// Runs `body` with an undo-redo clause for its dynamic extent (LBTC's
    /// `do { body } undo_redo { undo; try_to_spawn; redo }`): when a request is answered by a
    /// [handler](State::handle) older than this block, `undo` runs first, to put the state
    /// back as it was when that handler's block was entered, and `redo` runs after, to put
    /// it back as the body left it. Nested clauses undo youngest first and redo oldest
    /// first, around each older handler in turn (LBTC's Fig. 6 (Yasugi et al.)).
    ///
    /// Typically the body is entered right after a change (a piece put on the board) and the
    /// undo reverts that change, the redo makes it again. The undo runs only when the state
    /// is at rest at the poll point where the request arrived; if it is borrowed, every
    /// handler older than this clause counts as declining for that request.
    ///
    /// # Panics
    ///
    /// The body's panic resumes here. A panic of the undo or the redo stops the body at its
    /// next poll point and resumes here (the state is then left as the panic left it).
    ///
    /// # Example
    ///
    /// ```
    /// use offshoot::search::State;
    ///
    /// let st = State::new(vec!['a']);
    /// st.with(|v| v.push('b'));
    /// let n = st.undo_redo(
    ///     || st.with(|v| v.len()),
    ///     |v| { v.pop(); },
    ///     |v| v.push('b'),
    /// );
    /// st.with(|v| v.pop());
    /// assert_eq!((n, st.into_inner()), (2, vec!['a']));
    /// ```
    pub fn undo_redo<R, B, U, D>(&self, body: B, undo: U, redo: D) -> R
    where
        B: FnOnce() -> R,
        U: FnMut(&mut S),
        D: FnMut(&mut S),
    {
        let w = Worker::current();
        if w.is_null() {
            // Outside every pool no handler can be asked: the clause never runs.
            return body();
        }
        // SAFETY: a non-null current worker is live and run by this thread.
        let w = unsafe { &*w };
        let frame = UndoFrame {
            link: SearchFrame {
                frame: Frame {
                    prev: w.head(),
                    vtable: Cell::new(Some(&UndoFrame::<S, U, D>::VTABLE)),
                },
                ops: &UndoFrame::<S, U, D>::OPS,
            },
            state: self,
            undo: UnsafeCell::new(undo),
            redo: UnsafeCell::new(redo),
            failure: UnsafeCell::new(None),
        };
        // Derived from the whole frame (repr(C), link first), so it casts back to it.
        let fp = &frame as *const UndoFrame<S, U, D> as *const Frame;
        w.push(fp);
        let own = catch_unwind(AssertUnwindSafe(body));
        w.pop(fp);
        // SAFETY: the frame is unlinked: nothing else touches the cell any more.
        if let Some(p) = unsafe { (*frame.failure.get()).take() } {
            drop(own);
            p.resume();
        }
        match own {
            Ok(v) => v,
            Err(p) => resume_unwind(p),
        }
    }
}
