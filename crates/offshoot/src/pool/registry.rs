//! The registry of a pool's workers: the injector that work from outside enters by, the
//! sleepers and busy counts, termination, and `run_outside` (a root job on the caller's
//! stack). See `pool/mod.rs` for the invariants.

use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::Thread;

use crate::detached::Hooks;
use crate::fiber::{WaitOn, Waiter};
use crate::finish::finish_root;
use crate::job::{JobHeader, JobRef, Mode};
use crate::stats::Stats;
use crate::unwind::is_stopped;
use crate::worker::{SpareBlocks, Worker};

pub(crate) struct Registry {
    pub(super) workers: Box<[Worker]>,
    pub(super) injector: Mutex<VecDeque<JobRef>>,
    pub(super) injected: AtomicUsize,
    pub(super) sleepers: AtomicIsize,
    pub(super) busy: AtomicUsize,
    pub(super) terminating: AtomicBool,
    /// Whether the deadlock watch may end the waits of this pool's tasks.
    pub(super) deadlock_detection: bool,
    /// The blocked-worker report's delay and episodes (`deadlock/blocked.rs`).
    pub(crate) blocked: crate::deadlock::BlockedWatch,
    /// The trace logs, if the pool records a trace (`worker/trace_log.rs`).
    pub(crate) trace: Option<Box<crate::worker::trace_log::Recorder>>,
    /// The work/span rows, if the pool measures them (`metrics/`).
    pub(crate) metrics: Option<Box<crate::metrics::Collector>>,
    /// Batches of free task blocks passed between the workers' free lists.
    pub(crate) spare_blocks: SpareBlocks,
    /// The rayon-style handlers set through `ThreadPoolBuilder` (`compat.rs`; run by
    /// `detached.rs`).
    pub(crate) hooks: Hooks,
    /// Which workers have started, and the first that could not (`build` waits for it).
    pub(super) start: Mutex<Start>,
    pub(super) started: std::sync::Condvar,
}

/// The start-up reports of a pool's workers.
pub(super) struct Start {
    pub(super) reported: Vec<bool>,
    pub(super) count: usize,
    pub(super) failed: Option<(usize, String)>,
    /// Worker bodies ([`WorkerMain`]) that have ended: run to the end, or dropped unrun.
    pub(super) exited: usize,
}

impl Registry {
    #[inline]
    pub(crate) fn worker(&self, i: usize) -> &Worker {
        &self.workers[i]
    }

    #[inline]
    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    /// Worker `i` has started (it can run tasks) or could not (`Err`, why); only its first
    /// report counts.
    pub(crate) fn report_start(&self, i: usize, r: Result<(), String>) {
        let mut st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        if std::mem::replace(&mut st.reported[i], true) {
            return;
        }
        st.count += 1;
        if let Err(why) = r {
            st.failed.get_or_insert((i, why));
        }
        drop(st);
        self.started.notify_all();
    }

    /// A worker body ended (see [`WorkerMain`]).
    pub(super) fn report_exit(&self) {
        self.start.lock().unwrap_or_else(|e| e.into_inner()).exited += 1;
        self.started.notify_all();
    }

    /// Waits until `n` worker bodies have ended.
    pub(super) fn wait_exited(&self, n: usize) {
        let mut st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        while st.exited < n {
            st = self.started.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits until every worker started, or one could not (its index and why).
    pub(super) fn wait_started(&self) -> Result<(), (usize, String)> {
        let mut st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(f) = &st.failed {
                return Err(f.clone());
            }
            if st.count == self.workers.len() {
                return Ok(());
            }
            st = self.started.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether every worker reported a good start: the pool was built (a drop then need not
    /// wait for the workers; see `ThreadPool`'s drop).
    pub(super) fn all_started(&self) -> bool {
        let st = self.start.lock().unwrap_or_else(|e| e.into_inner());
        st.count == self.workers.len() && st.failed.is_none()
    }

    pub(crate) fn inject(&self, job: JobRef) {
        let mut q = self.injector.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back(job);
        // SeqCst: news for a sleeper, published before `wake_one` reads `sleepers` (worker/sleep.rs, "The protocol").
        self.injected.fetch_add(1, Ordering::SeqCst);
        drop(q);
        self.wake_one(None);
    }

    pub(crate) fn pop_injected(&self) -> Option<JobRef> {
        if !self.has_injected() {
            return None;
        }
        let mut q = self.injector.lock().unwrap_or_else(|e| e.into_inner());
        let j = q.pop_front();
        if j.is_some() {
            // SeqCst: in the same total order as `inject`'s increment and the sleepers'
            // `has_injected` reads; a decrement is news for nobody (the queue's mutex hands
            // over the jobs), so no pairing needs more than its atomicity.
            self.injected.fetch_sub(1, Ordering::SeqCst);
        }
        j
    }

    pub(crate) fn has_injected(&self) -> bool {
        // SeqCst: the sleeper's read of injected work after its SeqCst stores of `sleep_state`
        // and `sleepers` (worker/sleep.rs, "The protocol"); pairs with `inject`'s SeqCst
        // increment before `wake_one` reads `sleepers`.
        self.injected.load(Ordering::SeqCst) > 0
    }

    /// Runs `f` (a job worker `w` took) counted as busy; wakes an idle sleeper first, with a
    /// request to `w` already posted for it (`Worker::wake_if_idle`): the job's first join may
    /// come long before the sleeper is up and asking, and long before `w` polls again.
    pub(crate) fn busy(&self, w: &Worker, f: impl FnOnce()) {
        // SeqCst: a Dekker pair with idle sleepers: this increment, then `wake_one` reads
        // `sleepers` (SeqCst); a sleeper adds itself to `sleepers` (SeqCst), then reads
        // `busy_workers`. So a sleeper that reads no busy worker and sleeps without a timeout
        // is seen by `wake_one` here: a busy worker may plant seeds without telling anyone.
        self.busy.fetch_add(1, Ordering::SeqCst);
        w.jobs_began();
        self.wake_one(Some(w));
        f();
        w.jobs_ended();
        // SeqCst: in the order of the increment above; a decrement only lets later sleepers
        // sleep without a timeout, nothing waits for it.
        self.busy.fetch_sub(1, Ordering::SeqCst);
    }

    pub(crate) fn busy_workers(&self) -> usize {
        // SeqCst: the sleeper's read after its SeqCst `sleepers_add(1)`; pairs with `busy`'s
        // SeqCst increment before its `wake_one` (see there).
        self.busy.load(Ordering::SeqCst)
    }

    /// How many workers sleep for lack of work now (a hint).
    pub(crate) fn idle_sleepers(&self) -> usize {
        // Relaxed: a hint for callers outside the sleep protocol.
        self.sleepers.load(Ordering::Relaxed).max(0) as usize
    }

    pub(crate) fn sleepers_add(&self, d: isize) {
        // SeqCst: the sleeper's side of the handshake (worker/sleep.rs, "The protocol").
        self.sleepers.fetch_add(d, Ordering::SeqCst);
    }

    /// Wakes one worker that sleeps for lack of work, if any, with a request to `poster`
    /// posted on its behalf when given (`Worker::wake_if_idle`).
    ///
    /// The check is inlined (every spawn calls it), the wake is not.
    #[inline]
    pub(crate) fn wake_one(&self, poster: Option<&Worker>) {
        // SeqCst: read after the news was published (worker/sleep.rs, "The protocol").
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.wake_one_sleeper(poster);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn wake_one_sleeper(&self, poster: Option<&Worker>) {
        for w in self.workers.iter() {
            if w.wake_if_idle(poster) {
                return;
            }
        }
    }

    /// Asks every worker to scan its frames for a cancelled region.
    pub(crate) fn broadcast_stop(&self) {
        for w in self.workers.iter() {
            w.signal_stop();
        }
    }

    pub(crate) fn is_terminating(&self) -> bool {
        // SeqCst: the sleeper's read after its SeqCst store of `sleep_state`; pairs with
        // `terminate`'s SeqCst store before it reads every worker's state (worker/sleep.rs,
        // "The protocol").
        self.terminating.load(Ordering::SeqCst)
    }

    pub(crate) fn deadlock_detection(&self) -> bool {
        self.deadlock_detection
    }

    /// Whether something queued for this pool could still wake one of its workers: an
    /// injected job, a wake, kick or stop queued on a worker, or a job answering the
    /// request a sleeping worker left posted (its victim may have gone idle since it
    /// answered, before the sleeper runs again).
    pub(crate) fn has_news(&self) -> bool {
        self.has_injected()
            || self
                .workers
                .iter()
                .any(|w| w.remote().has_news() || w.stop_raised() || w.holds_answered_job())
    }

    pub(super) fn terminate(&self) {
        // SeqCst: news for sleepers (worker/sleep.rs, "The protocol").
        self.terminating.store(true, Ordering::SeqCst);
        for w in self.workers.iter() {
            w.wake_if_idle(None);
            w.unpark_if_sleeping();
        }
    }

    pub(super) fn stats(&self) -> Stats {
        let mut s = Stats::default();
        for w in self.workers.iter() {
            s.add(&w.stats);
        }
        s
    }

    /// The loose work of the pool's workers so far (nanoseconds, units; `metrics/`).
    pub(super) fn loose_work(&self) -> (u64, u64) {
        self.workers.iter().fold((0, 0), |(n, u), w| {
            let (wn, wu) = w.meter().loose();
            (n + wn, u + wu)
        })
    }

    /// Runs `f` as the root of a finish on one of this pool's workers, from a thread that
    /// is not one of them, and waits for it.
    pub(super) fn run_outside<F, R>(&self, f: F) -> R
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        let me = Worker::current();
        // SAFETY: a non-null current worker is run by this thread.
        let me = (!me.is_null()).then(|| unsafe { &*me });
        // A task of another pool's worker parks on its token while it waits (its worker
        // goes on with its own pool's work, and the deadlock watch sees the wait).
        let waiter = me.filter(|w| w.on_fiber()).map(|_| Waiter::prepare());
        let job = RootJob {
            header: JobHeader::new(RootJob::<F, R>::execute, ptr::null()),
            func: std::cell::UnsafeCell::new(Some(f)),
            result: std::cell::UnsafeCell::new(None),
            latch: AtomicBool::new(false),
            caller: match &waiter {
                Some(w) => Caller::Task(w.clone()),
                None => Caller::Thread(std::thread::current()),
            },
        };
        // The header is the first field (repr(C)); the pointer covers the whole job.
        self.inject(JobRef(&job as *const RootJob<F, R> as *const JobHeader));
        if let Some(waiter) = waiter {
            if job.latch.load(Ordering::Acquire) {
                waiter.abandon();
            } else {
                // Not interruptible: the job lives in this frame and runs in the other pool
                // until it ends; a deadlock there is ended there, and its panic comes back
                // through the job.
                let on = WaitOn::new("ThreadPool::run", &job.header).uninterruptible();
                let _ = waiter.park(on);
            }
            // The waker set the latch before its wake.
            assert!(
                job.latch.load(Ordering::Acquire),
                "offshoot: internal error: woken before the pool's job ended"
            );
        } else if let Some(me) = me {
            // A worker that cannot park (no fibers: Miri): keep answering requests of its own
            // pool while it waits (its older frames may hold work), and run jobs injected
            // into its own pool — the job this worker waits for may itself call back into
            // this worker's pool (A.run → B.run → A.run), and when every worker of that pool
            // waits here, nobody else could run it.
            let own = me.registry();
            while !job.latch.load(Ordering::Acquire) {
                if let Some(j) = own.pop_injected() {
                    // An injected job is owned by whoever pops it.
                    own.busy(me, || me.run_stolen(j));
                    continue;
                }
                me.answer_request();
                me.nap(
                    // SeqCst (the latch): not needed for a pairing: the job's worker sets the
                    // latch with release and then unparks this thread unconditionally
                    // (`Caller::Thread`), and an unpark that comes before the park makes it
                    // return at once; acquire would do. `has_injected` pairs as in
                    // `idle_sleep`.
                    || job.latch.load(Ordering::SeqCst) || own.has_injected(),
                    std::time::Duration::from_micros(200),
                );
            }
        } else {
            // A lock this thread holds is released by nobody until the job ends (the
            // deadlock watch; the executing worker sets the latch before its unpark).
            let _blocked = crate::deadlock::blocked_outside(&job.latch);
            while !job.latch.load(Ordering::Acquire) {
                std::thread::park();
            }
        }
        // SAFETY: the latch (acquire) says the executing worker wrote the result and no
        // longer touches the job.
        match unsafe { (*job.result.get()).take() } {
            Some(Ok(v)) => v,
            Some(Err(p)) => resume_unwind(p),
            None => unreachable!("offshoot: a finished root job left no result"),
        }
    }
}

/// A closure injected by `run` from outside the pool; lives on the caller's stack, which
/// blocks until `latch` is set.
#[repr(C)]
struct RootJob<F, R> {
    header: JobHeader,
    func: std::cell::UnsafeCell<Option<F>>,
    result: std::cell::UnsafeCell<Option<std::thread::Result<R>>>,
    latch: AtomicBool,
    caller: Caller,
}

/// Who waits for a root job, and how the job's end wakes it.
enum Caller {
    /// A thread outside every pool, parked: unpark it.
    Thread(Thread),
    /// A task of another pool's worker, parked on its token: wake it.
    Task(Waiter),
}

impl<F: FnOnce() -> R + Send, R: Send> RootJob<F, R> {
    /// # Safety
    /// `h` is the header (first field) of a live `RootJob<F, R>` injected by `run`, executed
    /// once by the worker that popped it; the caller of `run` waits for the latch, so the job
    /// lives until it is set.
    unsafe fn execute(h: *const JobHeader, w: &Worker, _mode: Mode) {
        // SAFETY: `h` is the header of a `RootJob<F, R>` whose caller waits for the latch.
        let job = unsafe { &*(h as *const Self) };
        // SAFETY: the job is executed once, by the worker that popped it.
        let f = unsafe { (*job.func.get()).take() }.expect("offshoot: root job run twice");
        // A pool that measures records the run as a row (`metrics/`): the root strand
        // starts after every span measured before (`Clock::run_start`); the loose work of
        // the pool's workers meanwhile is added.
        let metered = w.meter().on().then(|| {
            let loose = w.registry().loose_work();
            let start = crate::metrics::Clock::run_start();
            (loose, start, w.meter().begin(start))
        });
        let r = catch_unwind(AssertUnwindSafe(|| match finish_root(w, |_| f()) {
            Ok(v) => v,
            Err(failure) => crate::finish::resume_failure(failure),
        }));
        if let Some((loose0, start, saved)) = metered {
            // The root task's fiber resumes only on the worker that ran it.
            let end = w.meter().end(saved);
            end.finish_run();
            let mut end = end.since(&start);
            let reg = w.registry();
            let loose = reg.loose_work();
            end.work_t += loose.0.saturating_sub(loose0.0);
            end.work_units += loose.1.saturating_sub(loose0.1);
            if let Some(c) = reg.metrics.as_deref() {
                c.record("", end);
            }
        }
        let r = match r {
            Err(p) if is_stopped(&p) => {
                Err(Box::new("offshoot: internal error: a stop escaped to ThreadPool::run") as _)
            }
            r => r,
        };
        // SAFETY: as above; the caller reads the result only after the latch.
        unsafe { *job.result.get() = Some(r) };
        let caller = match &job.caller {
            Caller::Thread(t) => Caller::Thread(t.clone()),
            Caller::Task(w) => Caller::Task(w.clone()),
        };
        job.latch.store(true, Ordering::Release);
        // The job may be gone now.
        match caller {
            Caller::Thread(t) => t.unpark(),
            Caller::Task(w) => {
                w.wake();
            }
        }
    }
}
