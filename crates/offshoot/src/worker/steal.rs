//! Answering and stealing: the victim's side of a request (`answer_request`: the oldest
//! frame with work in the region the request targets gives it) and the thief's side
//! (`steal_from`: send one request, wait for the answer while answering requests sent to
//! this worker, withdraw it if the victim does not pick it up; `await_reply` and
//! `settle_request`, which the scheduler loop's request uses too), and running what was
//! taken.
//!
//! Invariants:
//! * Every request this worker takes is answered, with work or with nothing, before the
//!   worker does anything else that could wait; a worker that waits for a reply keeps
//!   answering requests sent to it, so two workers asking each other cannot deadlock.
//! * A request is answered from the **oldest** frame that has work (nearest the bottom of
//!   the chain), restricted to the region its target allows (`Target`): while a worker
//!   waits at a join it lends only work of that join's thief, at a finish only work of
//!   that finish.
//! * A job runs with a seed count of its own (`run_stolen`), so seeds held below it do
//!   not keep it from planting the seeds a worker waiting for it can take back.

use std::ptr;
use std::sync::atomic::Ordering;

use super::sleep::{SPIN_LOOKS, WITHDRAW_AFTER};

use super::Worker;
use crate::finish::{FinishFrame, FinishState};
use crate::frame::{Frame, FrameKind, StolenJobFrame};
use crate::job::{JobHeader, JobRef, Mode};
use crate::mailbox::{Mailbox, Target, REPLY_NOTHING, REPLY_PENDING};

impl Worker {
    /// Takes and answers the pending request, if any.
    pub(crate) fn answer_request(&self) {
        // Package requests first: they are rarer, and answering them needs no slot.
        self.answer_exports();
        let reg = self.registry();
        let Some((thief, target)) = self
            .mailbox
            .take_request(|i| &*reg.worker(i).mailbox as *const Mailbox)
        else {
            return;
        };
        // A thread that unwinds (a destructor using the runtime) gives no work away: what it
        // runs now belongs to a region being torn down, and a stolen part could be stopped,
        // which the unwinding destructor could not honour.
        let work = if std::thread::panicking() {
            None
        } else {
            self.find_work(target, thief)
        };
        let answer = match work {
            Some(job) => {
                self.trace_hand_out(thief, job.0 as u64);
                self.stats.answered_work.bump();
                self.stats.materialized.bump();
                job.0 as u64
            }
            None => {
                self.stats.answered_empty.bump();
                REPLY_NOTHING
            }
        };
        let t = reg.worker(thief);
        if answer != REPLY_NOTHING && self.meter.on() {
            // Relaxed: the answer's store below (a release) publishes it (`metrics/strand.rs`).
            t.meter
                .handed_at
                .store(crate::metrics::strand::now_ticks(), Ordering::Relaxed);
        }
        t.mailbox.answer(answer);
        // The thief may sleep with this request posted (`idle_sleep`): wake it. It stored
        // its sleep state before posting the request this worker took (acquire), so this
        // reads that state or a later one.
        t.unpark_if_sleeping();
        // Work went out and more is left here: wake one more sleeper, with a request to this
        // worker posted for it (its slot was just freed). Planting seeds tells nobody, and a
        // thief that takes a job wakes only one sleeper (`Registry::busy`), so without this a
        // pool of many workers that were all asleep when work arrived comes up one sleeper
        // per steal, while the first busy workers sit on seeds (16 workers: a millisecond).
        // With two workers the thief is the only other worker.
        if answer != REPLY_NOTHING && reg.num_workers() > 2 && self.has_offerable_work() {
            reg.wake_one(Some(self));
        }
    }

    /// Finds work for `thief` in the region `target` allows: for a request that allows any
    /// work, the oldest of this worker's own detached jobs (`local_jobs.rs`: they belong to
    /// no region, so nothing else may take them); else the oldest frame with work in that
    /// region, on the running chain first, then on the chains of parked fibers (whose work
    /// would otherwise wait as long as they do).
    pub(crate) fn find_work(&self, target: Target, thief: usize) -> Option<JobRef> {
        if matches!(target, Target::Any) {
            if let Some(job) = self.pop_local_job() {
                return Some(job);
            }
        }
        // SAFETY: the running chain is live and only this worker touches it.
        if let Some((f, ctx)) = unsafe { Self::find_in_chain(self.head(), target) } {
            // SAFETY: `f` is a live frame of this worker.
            if let Some(answer) = unsafe { (*f).table().answer } {
                // The oldest candidate answers as a whole (a spawn-request handler, which
                // may decline: `search::answer` asks it and, failing that, the younger
                // frames in order, LBTC's Fig. 6 (Yasugi et al.)).
                // SAFETY: `f` is a live frame of this worker, in the allowed region, and
                // every frame between it and the head is too.
                return unsafe { answer(self, thief, f, ctx) };
            }
            // SAFETY: `f` is a live frame of this worker whose table said it has work.
            return Some(unsafe { ((*f).table().offer)(f, self, thief, ctx) });
        }
        let mut found = None;
        self.on_parked_chains(|| {
            self.parked_chains(|saved| {
                // SAFETY: a parked fiber's chain is live while it is parked, and only this
                // worker's thread touches it.
                let found_here = unsafe { Self::find_in_chain(saved.get().head, target) };
                // A frame that answers as a whole (a search handler) is not asked on a parked
                // chain: what it runs (undo/redo) would act on the state of a task that is not
                // running. The parked task's own polls ask it when it runs.
                // SAFETY: frames of a parked chain are live.
                let found_here =
                    found_here.filter(|&(f, _)| unsafe { (*f).table().answer.is_none() });
                if let Some((f, ctx)) = found_here {
                    // Handing out a join seed uncounts it from the running chain's count: move
                    // that to the parked chain it belongs to.
                    // (So is the hint that the parked chain held the seed limit.)
                    let mut s = saved.get();
                    let before = self.replace_seed_count(s.seeds);
                    let held = self.held_limit.replace(s.held_limit);
                    // SAFETY: as above.
                    found = Some(unsafe { ((*f).table().offer)(f, self, thief, ctx) });
                    s.seeds = self.replace_seed_count(before);
                    s.held_limit = self.held_limit.replace(held);
                    saved.set(s);
                    true
                } else {
                    false
                }
            })
        });
        found
    }

    /// The oldest frame of the chain from `head` that has work in the region `target`
    /// allows, with the state of the innermost finish around it.
    ///
    /// # Safety
    /// `head` starts a live chain of this worker.
    pub(super) unsafe fn find_in_chain(
        head: *const Frame,
        target: Target,
    ) -> Option<(*const Frame, *const FinishState)> {
        let mut best: *const Frame = ptr::null();
        let mut best_ctx: *const FinishState = ptr::null();
        // While true, frames are inside the allowed region.
        let mut in_region = true;
        let mut found_boundary = matches!(target, Target::Any);
        let mut f = head;
        while !f.is_null() {
            // SAFETY: frames in the chain are live and only this worker touches them.
            unsafe {
                let vt = (*f).table();
                let mut boundary_here = false;
                match (target, vt.kind) {
                    (Target::Job(j), FrameKind::StolenJob)
                        if in_region && (*(f as *const StolenJobFrame)).job as usize == j =>
                    {
                        in_region = false;
                        found_boundary = true;
                    }
                    (Target::Finish(s), FrameKind::Finish)
                        if in_region && (*(f as *const FinishFrame)).state as usize == s =>
                    {
                        boundary_here = true;
                        found_boundary = true;
                    }
                    _ => {}
                }
                if in_region && (vt.has_work)(f) {
                    best = f;
                    best_ctx = ptr::null();
                }
                if boundary_here {
                    in_region = false;
                }
                if vt.kind == FrameKind::Finish && !best.is_null() && best_ctx.is_null() {
                    best_ctx = (*(f as *const FinishFrame)).state;
                }
                f = (*f).prev;
            }
        }
        if best.is_null() || !found_boundary {
            return None;
        }
        debug_assert!(!best_ctx.is_null(), "work outside every finish");
        Some((best, best_ctx))
    }

    /// Whether this worker could give work to a thief: a detached job of its own queued, or
    /// a frame with work on the running chain.
    pub(super) fn has_offerable_work(&self) -> bool {
        // SAFETY: the running chain is live.
        self.has_local_jobs() || unsafe { self.chain_has_work(self.head()) }
    }

    /// [`Worker::chain_has_work`] for the chain of a parked fiber (see
    /// [`Worker::scanning_parked`]).
    ///
    /// # Safety
    /// As [`Worker::chain_has_work`].
    pub(crate) unsafe fn parked_chain_has_work(&self, head: *const Frame) -> bool {
        // SAFETY: the caller's contract.
        self.on_parked_chains(|| unsafe { self.chain_has_work(head) })
    }

    /// Whether some frame of the chain from `head` could give work to a thief.
    ///
    /// # Safety
    /// `head` starts a live chain of this worker (the running one, or a parked fiber's: then
    /// through `parked_chain_has_work`), and the caller is this worker's thread.
    pub(crate) unsafe fn chain_has_work(&self, head: *const Frame) -> bool {
        let mut f = head;
        while !f.is_null() {
            // SAFETY: frames in the chain are live.
            unsafe {
                if ((*f).table().has_work)(f) {
                    return true;
                }
                f = (*f).prev;
            }
        }
        false
    }

    pub(super) fn next_random(&self) -> u64 {
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        x
    }

    /// Counts a job this worker took (`Registry::busy`), before it runs.
    pub(crate) fn jobs_began(&self) {
        // Relaxed: a hint for thieves (`runs_jobs`); written by this worker only.
        self.jobs
            .store(self.jobs.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// Uncounts a job this worker ran to its end.
    pub(crate) fn jobs_ended(&self) {
        // Relaxed: as in `jobs_began`. Every `jobs_began` is paired with this on the same
        // thread; saturating all the same, since a wrong hint must never panic.
        self.jobs.store(
            self.jobs.load(Ordering::Relaxed).saturating_sub(1),
            Ordering::Relaxed,
        );
    }

    /// Whether this worker runs a job (a hint for choosing a victim: it may end any moment,
    /// and a job may be parked while its worker looks for work).
    pub(crate) fn runs_jobs(&self) -> bool {
        // Relaxed: a hint; the request handshake decides.
        self.jobs.load(Ordering::Relaxed) > 0
    }

    /// A worker other than this one to ask for work — in a pool of more than two, one that
    /// runs a job and is awake, if any, found from a random start — or `None` in a
    /// one-worker pool.
    pub(crate) fn random_victim(&self) -> Option<usize> {
        let reg = self.registry();
        let n = reg.num_workers();
        if n < 2 {
            return None;
        }
        if n == 2 {
            return Some(1 - self.index);
        }
        // A worker asleep for lack of work has nothing to give and a closed mailbox, and an
        // awake one that runs no job answers "nothing": only a worker that runs a job can
        // hold seeds. Look at every other worker once, from a random one on, and take the
        // first that runs a job and is awake; else the first awake one; else the random
        // one. Random draws alone mostly find other idle thieves when few workers have
        // work, and each refusal backs the thief off (`docs/DESIGN-NOTES.md`).
        let other = |i: usize| if i >= self.index { i + 1 } else { i };
        let start = (self.next_random() % (n as u64 - 1)) as usize;
        let mut awake = None;
        for k in 0..n - 1 {
            let v = other((start + k) % (n - 1));
            let w = reg.worker(v);
            if w.is_idle_sleeping() {
                continue;
            }
            if w.runs_jobs() {
                return Some(v);
            }
            awake.get_or_insert(v);
        }
        Some(awake.unwrap_or(other(start)))
    }

    /// Sends one request to `victim` and waits for its answer, answering requests sent to
    /// this worker meanwhile. Withdraws the request if the victim does not pick it up soon.
    pub(crate) fn steal_from(&self, victim: usize, target: Target) -> Option<JobRef> {
        let v = self.registry().worker(victim);
        if !self.mailbox.send_request(self.index, &v.mailbox, target) {
            return None;
        }
        self.stats.requests_sent.bump();
        self.await_reply(false);
        self.settle_request(victim).job()
    }

    /// Waits a while for the answer to this worker's request (spinning, then yielding the
    /// core), answering requests sent to this worker meanwhile; returns early when the
    /// answer comes or other work does: a fiber woken for this worker from another thread or
    /// a kick, and with `watch_injected` work injected into the pool. A wake from another
    /// worker is then picked up within a cache-line transfer, not a system call.
    pub(super) fn await_reply(&self, watch_injected: bool) {
        let reg = self.registry();
        for looks in 0..WITHDRAW_AFTER {
            if self.mailbox.reply() != REPLY_PENDING
                || self.remote().has_news()
                || (watch_injected && reg.has_injected())
            {
                return;
            }
            if self.mailbox.has_request() {
                self.answer_request();
            }
            if looks < SPIN_LOOKS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Ends this worker's outstanding request to `victim`: withdraws it if the victim has not
    /// taken it, else waits for the answer (the victim answers a request it took before it
    /// does anything else), answering requests sent to this worker meanwhile.
    pub(super) fn settle_request(&self, victim: usize) -> Settled {
        if self.mailbox.reply() == REPLY_PENDING
            && Mailbox::try_withdraw(self.index, &self.registry().worker(victim).mailbox)
        {
            self.stats.withdrawn.bump();
            return Settled::Withdrawn;
        }
        loop {
            match self.mailbox.reply() {
                REPLY_PENDING => {
                    if self.mailbox.has_request() {
                        self.answer_request();
                    }
                    std::hint::spin_loop();
                }
                REPLY_NOTHING => return Settled::Refused,
                p => return Settled::Job(JobRef(p as usize as *const JobHeader)),
            }
        }
    }

    /// Runs a job received from a thief's reply (or popped from the injector).
    ///
    /// The job may belong to a region that was cancelled while this worker was idle and
    /// cleared its stop bit; raising the bit makes the job's first poll scan the new frames,
    /// so such a job stops at once instead of running unstopped.
    ///
    /// The job starts with a seed count of its own: seeds held below it (this worker may be
    /// waiting at a join) must not stop it from planting the seeds that a worker waiting for
    /// *it* can take back.
    pub(crate) fn run_stolen(&self, job: JobRef) {
        self.mailbox.raise_stop();
        let held = self.replace_seed_count(0);
        let held_limit = self.held_limit.replace(false);
        let metered = self.meter.on().then(|| self.meter.enter_job());
        self.as_new_task(|| {
            let task = self.task_id();
            self.trace_task_begin(task, job.0 as u64);
            // SAFETY: the job came through a reply to this worker's request, so this worker
            // owns it (mailbox invariant 3) and it is live until it signals completion.
            unsafe { job.execute(self, Mode::Stolen) };
            self.trace_task_end(task);
        });
        if let Some(saved) = metered {
            self.meter.leave_job(saved);
        }
        debug_assert_eq!(self.seed_count(), 0, "a finished job left seeds counted");
        self.set_seed_count(held);
        self.held_limit.set(held_limit);
    }
}

/// How a worker's outstanding request ended (`settle_request`, `idle_sleep`).
pub(super) enum Settled {
    /// The victim gave this job; the worker now owns it.
    Job(JobRef),
    /// The victim answered that it had nothing to give.
    Refused,
    /// Withdrawn before the victim took it.
    Withdrawn,
    /// No request was out.
    NotPosted,
}

impl Settled {
    /// The job of an answer with work.
    pub(super) fn job(self) -> Option<JobRef> {
        match self {
            Settled::Job(job) => Some(job),
            _ => None,
        }
    }
}
