//! Package requests: another process (through a thread outside the pool, e.g. the one that
//! owns MPI in `offshoot-mpi`) asks this pool for work it can ship, and a worker answers at
//! its next poll from the **oldest** frame on its running chain that can package (a search
//! handler given an exporter: `State::handle_with_export`), as a thief's request is
//! answered from the oldest frame that has work.
//!
//! A request is a [`PackageCell`]. The asker pushes it on one worker's queue and raises
//! that worker's `EXPORT` bit (`Mailbox::raise_export`, then `unpark_if_sleeping`). The
//! worker, at its next poll (`answer_request` looks first), drains its queue: for each cell
//! it asks its chain; with no package there it passes the cell on to the next worker that
//! runs jobs, and answers "nothing" once every worker was asked.
//!
//! Invariants:
//! * A cell is answered exactly once, with a package or with nothing: the worker that holds
//!   it (popped from its queue, or passed on to it) answers or passes it on, and a worker
//!   that goes to sleep answers its queue first (`quiet` in `idle_sleep` reads the bit).
//! * Only the owner calls a frame's `export` entry, at a poll point of its running chain,
//!   never while it unwinds and never re-entrantly (the search module's answering flag).
//! * The asker never blocks a worker: it waits on the cell's own condition variable, never
//!   on anything a worker holds while it runs tasks.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::Worker;
use crate::frame::Frame;

/// One package request, shared by its asker and the worker that holds it.
pub(crate) struct PackageCell {
    state: Mutex<CellState>,
    answered: Condvar,
}

enum CellState {
    /// Not answered yet; `left` workers (this one included) may still be asked.
    Asking {
        left: usize,
    },
    Answered(Option<Vec<u8>>),
    /// The asker took the answer.
    Taken,
}

impl PackageCell {
    pub(crate) fn new(workers: usize) -> Arc<PackageCell> {
        Arc::new(PackageCell {
            state: Mutex::new(CellState::Asking { left: workers }),
            answered: Condvar::new(),
        })
    }

    fn answer(&self, package: Option<Vec<u8>>) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        debug_assert!(
            matches!(*s, CellState::Asking { .. }),
            "a package cell answered twice"
        );
        *s = CellState::Answered(package);
        drop(s);
        self.answered.notify_all();
    }

    /// Answers "nothing" without asking any worker (none runs a job).
    pub(crate) fn answer_nothing(&self) {
        self.answer(None);
    }

    /// One worker asked, without a package: how many may still be asked.
    fn one_asked(&self) -> usize {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match &mut *s {
            CellState::Asking { left } => {
                *left = left.saturating_sub(1);
                *left
            }
            _ => 0,
        }
    }

    /// The answer, once: `Some(Some(p))` a package, `Some(None)` nothing, `None` not yet.
    pub(crate) fn try_take(&self) -> Option<Option<Vec<u8>>> {
        self.wait_take(Duration::ZERO)
    }

    /// Waits up to `timeout` for the answer and takes it (see [`PackageCell::try_take`]).
    pub(crate) fn wait_take(&self, timeout: Duration) -> Option<Option<Vec<u8>>> {
        let end = Instant::now() + timeout;
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match std::mem::replace(&mut *s, CellState::Taken) {
                CellState::Answered(p) => return Some(p),
                CellState::Taken => {
                    panic!("offshoot: a package request's answer was taken twice")
                }
                asking => *s = asking,
            }
            let now = Instant::now();
            if now >= end {
                return None;
            }
            s = self
                .answered
                .wait_timeout(s, end - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A worker's queue of package requests.
#[derive(Default)]
pub(crate) struct ExportQueue(Mutex<Vec<Arc<PackageCell>>>);

impl Worker {
    /// Gives `cell` to this worker: it answers at its next poll, or passes it on.
    pub(crate) fn ask_package(&self, cell: Arc<PackageCell>) {
        self.exports
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(cell);
        // After the push: the owner that sees the bit finds the cell.
        self.mailbox.raise_export();
        self.unpark_if_sleeping();
    }

    /// Answers every package request that waits here (see the module docs).
    #[cold]
    #[inline(never)]
    pub(super) fn answer_exports(&self) {
        if !self.mailbox.take_export() {
            return;
        }
        let cells = std::mem::take(&mut *self.exports.0.lock().unwrap_or_else(|e| e.into_inner()));
        for cell in cells {
            match self.find_package() {
                Some(p) => cell.answer(Some(p)),
                None => self.pass_on(cell),
            }
        }
    }

    /// Passes a cell this worker could not serve to the next worker that runs jobs, or
    /// answers "nothing" when none is left to ask.
    fn pass_on(&self, cell: Arc<PackageCell>) {
        let reg = self.registry();
        let n = reg.num_workers();
        let mut left = cell.one_asked();
        let mut next = self.index;
        while left > 0 {
            next = (next + 1) % n;
            let w = reg.worker(next);
            if w.runs_jobs() {
                w.ask_package(cell);
                return;
            }
            left = cell.one_asked();
        }
        cell.answer(None);
    }

    /// The oldest frame of the running chain that can package, asked for a package.
    fn find_package(&self) -> Option<Vec<u8>> {
        if std::thread::panicking() {
            return None;
        }
        let mut oldest: *const Frame = std::ptr::null();
        let mut f = self.head();
        while !f.is_null() {
            // SAFETY: frames of the running chain are live and only this worker touches them.
            unsafe {
                let vt = (*f).table();
                if vt.export.is_some() && (vt.has_work)(f) {
                    oldest = f;
                }
                f = (*f).prev;
            }
        }
        if oldest.is_null() {
            return None;
        }
        // SAFETY: `oldest` is a live frame of this worker's running chain whose table has an
        // `export` entry; this is its owner, at a poll point.
        unsafe { ((*oldest).table().export.expect("checked above"))(self, oldest) }
    }
}
