//! Waiting at a join whose other half was stolen (`wait_for_job`) and at the end of a
//! finish (`wait_finish`), without running unrelated work on top of the waiting frame.
//!
//! Invariants:
//! * While it waits at a join, a worker runs only jobs taken back from that join's thief
//!   (leapfrogging, `Target::Job`); at a finish, only work of that finish (its inbox, its
//!   pending tasks, work taken from workers that hold work of it: `Target::Finish`).
//! * A stop that reaches the waiting worker is passed on (to the thief as a failure of
//!   the join's `a` side, or as a cancel of the finish) and honoured by the caller after
//!   the wait: the waiting frame is never left while work in it may still run.
//! * When there is nothing to take back, the waiter parks its fiber (`park_until`) so the
//!   worker can run other fibers, or naps (`sleep.rs`) when it may not park yet.

use std::sync::atomic::Ordering;

use super::sleep::Patience;
use super::Worker;
use crate::finish::{FinishFrame, FinishState};
use crate::job::{JobHeader, FAILED_A, NOT_FAILED};
use crate::mailbox::Target;

impl Worker {
    /// Waits at a join until the thief of `job` has finished it, taking work back from that
    /// thief only (leapfrogging). A stop that reaches this worker meanwhile is passed on to
    /// the thief (the join's `a` side counts as failed) and honoured by the caller after the
    /// wait.
    pub(crate) fn wait_for_job(&self, job: &JobHeader) {
        let thief = job.thief.get();
        let mut patience = Patience::new();
        loop {
            if job.done.load(Ordering::Acquire) {
                return;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                if self.stop_requested()
                    && job
                        .failed
                        .compare_exchange(NOT_FAILED, FAILED_A, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    self.registry().worker(thief).signal_stop();
                }
            }
            // A job this worker took from one of its own parked chains has no other worker
            // to take work back from.
            if thief != self.index {
                if let Some(back) =
                    self.steal_from(thief, Target::Job(job as *const JobHeader as usize))
                {
                    self.stats.steal_backs.bump();
                    self.run_stolen(back);
                    patience.reset();
                    continue;
                }
            }
            // SeqCst (the condition's load of `done`): pairs with `thief_done`'s SeqCst store
            // of `done`, made before its kick; the driver evaluates the condition after taking
            // that kick (`has_ready_fiber`), so acquire would do. SeqCst matches the `nap`
            // condition below.
            if (thief == self.index || !patience.spinning())
                && self.park_until("join (its stolen half)", &|| {
                    job.done.load(Ordering::SeqCst)
                })
            {
                patience.reset();
                continue;
            }
            if let Some(d) = patience.fail() {
                // SeqCst: read by `nap` after its SeqCst store of `sleep_state`: a Dekker pair
                // with `thief_done` (store `done`, then `kick` reads `sleep_state`): the waiter
                // sees `done`, or the thief sees it sleeping and unparks it.
                self.nap(|| job.done.load(Ordering::SeqCst), d);
            }
        }
    }

    /// Waits until every task of the finish `state` is done. Runs tasks that other workers
    /// put in the finish's inbox and tasks taken from workers that hold work of this finish;
    /// when there are none, parks (the last task, or a new inbox task, kicks this worker).
    /// A stop that reaches this worker meanwhile cancels the finish; the caller honours it.
    pub(crate) fn wait_finish(&self, state: &FinishState, frame: &FinishFrame) {
        let mut patience = Patience::new();
        loop {
            if state.outstanding() == 0 {
                return;
            }
            if frame.has_local_work() {
                frame.drain(self);
                patience.reset();
                continue;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                if self.stop_requested() {
                    state.cancel();
                }
            }
            if let Some(v) = self.random_victim() {
                if let Some(job) =
                    self.steal_from(v, Target::Finish(state as *const FinishState as usize))
                {
                    self.stats.steal_backs.bump();
                    self.run_stolen(job);
                    patience.reset();
                    continue;
                }
            }
            let ready = || state.outstanding() == 0 || state.inbox_len() > 0;
            if !patience.spinning() && self.park_until("finish (its tasks)", &ready) {
                patience.reset();
                continue;
            }
            if let Some(d) = patience.fail() {
                self.nap(ready, d);
            }
        }
    }
}
