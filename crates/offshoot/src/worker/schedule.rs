//! The worker thread: its body (the fiber driver, which runs the scheduler loop on a fiber)
//! and the scheduler loop, which finds work (its own detached jobs, injected jobs, its own
//! parked chains, a victim's answer) and runs it, sleeping when there is none.

use std::ptr;

use super::sleep::{Patience, Refusals};
use super::steal::Settled;
use super::{Worker, LOCAL, RETARGET_AFTER};
use crate::job::{JobHeader, JobRef};
use crate::mailbox::{Mailbox, Target, REPLY_NOTHING, REPLY_PENDING};

impl Worker {
    /// The body of a worker thread: the fiber driver (`fiber/mod.rs`), which runs `schedule` on
    /// a fiber.
    pub(crate) fn thread_main(&self, stack_size: usize) {
        /// Counts the worker out of the deadlock watch's awake workers however it ends.
        struct Awake;
        impl Drop for Awake {
            fn drop(&mut self) {
                crate::deadlock::went_idle();
            }
        }
        /// Tells `build` that the worker died before it started, if it unwinds that early
        /// (a report that came first stands).
        struct Starting<'a>(&'a Worker);
        impl Drop for Starting<'_> {
            fn drop(&mut self) {
                let w = self.0;
                w.registry().report_start(
                    w.index,
                    Err("its thread ended before it could run tasks".to_string()),
                );
            }
        }
        let _ = self.thread.set(std::thread::current());
        self.set_os_thread();
        crate::deadlock::woke();
        let _awake = Awake;
        let _starting = Starting(self);
        // Both together: a count of at least one means the worker is set.
        LOCAL.with(|l| {
            l.worker.set(self);
            l.replace_seeds(self.seed_base);
            // SAFETY: the word is this thread's, and the mailbox detaches it below, before
            // the thread can exit; this thread runs one worker at a time (`build_with`
            // refuses a second), so no other word is attached.
            unsafe { self.mailbox.attach_limit(&l.limit) };
        });
        /// Detaches the limit word however the worker ends (also by unwinding), so no
        /// other thread writes this thread's storage after it exits.
        struct Detach<'a>(&'a Worker);
        impl Drop for Detach<'_> {
            fn drop(&mut self) {
                self.0.mailbox.detach_limit();
            }
        }
        let detach = Detach(self);
        self.drive(stack_size);
        debug_assert_eq!(self.seed_count(), 0, "a worker ended with seeds counted");
        drop(detach);
        // Both together: a count of at least one must never outlive the worker it implies.
        LOCAL.with(|l| {
            l.replace_seeds(0);
            l.worker.set(ptr::null());
        });
    }

    /// The scheduler loop, at the base of every fiber: run this worker's own detached jobs,
    /// else take injected work, else work on this worker's parked chains, else steal, else
    /// sleep. Returns true when a parked fiber is ready (this fiber then gives way to it),
    /// false when the pool terminates.
    ///
    /// While it looks for work the worker keeps one request posted to a victim (`asking`)
    /// rather than sending one, waiting a moment and withdrawing it: a victim answers only
    /// at its polls, and a join whose first half runs serial code for milliseconds polls
    /// once, right after it planted its seed; a request withdrawn at that moment would miss
    /// the seed for the whole of that half. The request is settled (withdrawn, or its answer
    /// taken) before the worker runs anything else, and moved to another victim now and
    /// then in pools of more than two workers.
    pub(crate) fn schedule(&self) -> bool {
        let reg = self.registry();
        let mut patience = Patience::new();
        // The victim this worker's request waits at, and how many passes it has waited.
        let mut asking: Option<(usize, u32)> = None;
        let mut refused = Refusals::default();
        loop {
            // Before anything else runs here, the request is settled (withdrawn, or its
            // answer taken, and run first if it brings a job): a worker never holds two
            // jobs, since the first may park its fiber and leave the second unstarted while
            // its owner waits for it, and a task this worker runs may send requests of its
            // own through the same reply slot.
            if self.has_ready_fiber() {
                if self.settle_and_run(&mut asking) {
                    patience.reset();
                    continue;
                }
                return true;
            }
            if self.has_local_jobs() {
                // Detached jobs started on this worker run before anything injected, and
                // before the worker sleeps or exits (`local_jobs.rs`). The request is settled
                // first, and its job run first if it brought one.
                if !self.settle_and_run(&mut asking) {
                    // Settling answers requests meanwhile, which may have taken the job.
                    if let Some(job) = self.pop_local_job() {
                        self.run_taken(job);
                    }
                }
                patience.reset();
                continue;
            }
            if let Some(job) = reg.pop_injected() {
                // An injected job is owned by whoever pops it from the injector. The request
                // is settled only now: a worker that lost the race for the job keeps its
                // request where it is, at the winner, whose first join is about to poll.
                if let Some(answer) = asking
                    .take()
                    .and_then(|(v, _)| self.settle_request(v).job())
                {
                    // Two jobs in hand: the injected one goes back for the next worker that looks.
                    reg.inject(job);
                    self.run_taken(answer);
                } else {
                    self.run_taken(job);
                }
                patience.reset();
                continue;
            }
            if reg.is_terminating() {
                if self.settle_and_run(&mut asking) {
                    patience.reset();
                    continue;
                }
                return false;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                // Nothing runs on this fiber, so no region here can be cancelled: clear a
                // stray stop (a parked fiber rescans its own chain when it resumes).
                let _ = self.stop_requested();
            }
            if self.has_parked_work() {
                // Work may be left on the chains of this worker's parked tasks: run it here,
                // after the request is settled.
                if self.settle_and_run(&mut asking) {
                    patience.reset();
                    continue;
                }
                if let Some(job) = self.find_work(Target::Any, self.index) {
                    self.stats.materialized.bump();
                    self.run_taken(job);
                    patience.reset();
                    continue;
                }
            }
            if asking.is_none() {
                if let Some(v) = self.random_victim() {
                    if self
                        .mailbox
                        .send_request(self.index, &reg.worker(v).mailbox, Target::Any)
                    {
                        self.stats.requests_sent.bump();
                        asking = Some((v, 0));
                    }
                }
            }
            if asking.is_some() {
                self.await_reply(true);
            }
            if let Some((v, looks)) = &mut asking {
                match self.mailbox.reply() {
                    REPLY_PENDING => {
                        *looks += 1;
                        if *looks >= RETARGET_AFTER
                            && reg.num_workers() > 2
                            && Mailbox::try_withdraw(self.index, &reg.worker(*v).mailbox)
                        {
                            // This victim has not polled for a while: ask another one.
                            self.stats.withdrawn.bump();
                            asking = None;
                        }
                    }
                    REPLY_NOTHING => {
                        asking = None;
                        refused.note();
                    }
                    p => {
                        asking = None;
                        refused.reset();
                        self.run_taken(JobRef(p as usize as *const JobHeader));
                        patience.reset();
                        continue;
                    }
                }
            }
            let news = || {
                self.remote().has_news()
                    || self.mailbox.has_request()
                    || reg.has_injected()
                    || (asking.is_some() && self.mailbox.reply() != REPLY_PENDING)
            };
            if let Some(d) = patience.fail_watching(news) {
                if reg.busy_workers() == 0 {
                    // Nobody runs anything that could answer: sleep without a request (and
                    // so without a timeout).
                    if self.settle_and_run(&mut asking) {
                        patience.reset();
                        continue;
                    }
                }
                if refused.skip_posted_sleep() {
                    // The victims polled with nothing to give: sleep without a request, so
                    // that their polls do not wake this worker each time (doubling the
                    // unposted naps after each refusal in a row, up to 64).
                    if self.settle_and_run(&mut asking) {
                        patience.reset();
                        continue;
                    }
                }
                self.mailbox.set_posted_at(asking.take().map(|(v, _)| v));
                match self.idle_sleep(d) {
                    Settled::Job(job) => {
                        refused.reset();
                        self.run_taken(job);
                        patience.reset();
                    }
                    Settled::Refused => refused.note(),
                    // The victim did not poll during the nap: it runs serial code, and its
                    // next poll is worth a posted request.
                    Settled::Withdrawn => refused.reset(),
                    Settled::NotPosted => {}
                }
            }
        }
    }

    /// Settles the scheduler loop's request, if one is out (`settle_request`), and runs the
    /// job of its answer, if it brought one. Returns whether it ran a job.
    fn settle_and_run(&self, asking: &mut Option<(usize, u32)>) -> bool {
        match asking
            .take()
            .and_then(|(v, _)| self.settle_request(v).job())
        {
            Some(job) => {
                self.run_taken(job);
                true
            }
            None => false,
        }
    }

    /// Runs a job this worker took (from the injector, a victim's answer or its own parked
    /// chains), counted busy.
    fn run_taken(&self, job: JobRef) {
        self.registry().busy(self, || self.run_stolen(job));
    }
}
