//! The waiting interface that `sync/` builds on: a [`Waiter`] is the park/wake token of
//! one waiting task, with what it waits on ([`WaitOn`], for the deadlock report) and how
//! the wait ended ([`Woken`]); a [`Parker`] is what a wake reaches (a fiber of a worker,
//! or a thread outside every pool).
//!
//! Invariants:
//! * A token wake resumes a fiber at most once per park: the waker moves the token's state
//!   from `ARMED`/`PARKED` to `WOKEN` by compare-and-swap on a word that carries the park's
//!   epoch, and only a `PARKED` → `WOKEN` transition queues the fiber. The driver moves
//!   `ARMED` → `PARKED` only after the fiber's stack is no longer in use; if the wake came
//!   first, the driver queues the fiber itself. An interrupt is one more waker: it wins that
//!   same compare-and-swap (from `PARKED` only) and stores why before it queues the fiber,
//!   so a waker that loses finds the token woken and wakes someone else; the woken task
//!   reads (and clears) why after it resumes. These transitions, and who queues, live in
//!   `token.rs`, which loom model-checks with the driver's side modelled; `sync::Event`'s
//!   check-then-park is model-checked over them too (`scripts/loom.sh`).

use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::Fiber;
use crate::atomics::thread::{self as shim_thread, Thread};
use crate::token::{Token, Woke};
use crate::worker::Worker;

/// What a parked task waits on, as reports name it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitOn {
    /// The construct and operation, e.g. "Mutex" or "Channel::recv".
    pub(crate) what: &'static str,
    /// The address of the object waited on.
    pub(crate) addr: usize,
    /// The name its creator gave it (`named` constructors), if any.
    pub(crate) name: Option<&'static str>,
    /// Whether a stop or a deadlock may end the wait.
    pub(crate) interruptible: bool,
    /// For a phaser, the phase whose end it waits for.
    pub(crate) phase: Option<u64>,
    /// For an object with named operations, the operation whose restoring it waits for.
    pub(crate) operation: Option<&'static str>,
    /// For a lock, how the deadlock watch reads who holds it at a check.
    pub(crate) probe: Option<crate::deadlock::HolderProbe>,
    /// Where the program called the waiting operation (`#[track_caller]`), if known.
    pub(crate) at: Option<&'static std::panic::Location<'static>>,
}

impl WaitOn {
    /// A wait on `obj`, which a stop or a deadlock may end.
    pub(crate) fn new<T: ?Sized>(what: &'static str, obj: *const T) -> WaitOn {
        WaitOn {
            what,
            addr: obj as *const () as usize,
            name: None,
            interruptible: true,
            phase: None,
            operation: None,
            probe: None,
            at: None,
        }
    }

    /// The same wait, called from `at` in the program (a deadlock report prints it).
    pub(crate) fn at(self, at: &'static std::panic::Location<'static>) -> WaitOn {
        WaitOn {
            at: Some(at),
            ..self
        }
    }

    /// The same wait, on an object named `name` (`None`: unnamed).
    pub(crate) fn named(self, name: Option<&'static str>) -> WaitOn {
        WaitOn { name, ..self }
    }

    /// The same wait, named `name` unless it carries a name already (a construct built on
    /// an unnamed inner object names the wait itself).
    pub(crate) fn or_named(self, name: Option<&'static str>) -> WaitOn {
        WaitOn {
            name: self.name.or(name),
            ..self
        }
    }

    /// The same wait, for the end of phaser phase `phase`.
    pub(crate) fn in_phase(self, phase: u64) -> WaitOn {
        WaitOn {
            phase: Some(phase),
            ..self
        }
    }

    /// The same wait, for operation `operation` of the object to be restored.
    pub(crate) fn for_operation(self, operation: &'static str) -> WaitOn {
        WaitOn {
            operation: Some(operation),
            ..self
        }
    }

    /// The same wait on a lock whose holder the deadlock watch reads through `probe`.
    pub(crate) fn probed(self, probe: crate::deadlock::HolderProbe) -> WaitOn {
        WaitOn {
            probe: Some(probe),
            ..self
        }
    }

    /// The same wait, which neither a stop nor a deadlock ends.
    pub(crate) fn uninterruptible(self) -> WaitOn {
        WaitOn {
            interruptible: false,
            ..self
        }
    }
}

/// How a token wait ended.
pub(crate) enum Woken {
    /// Its waker woke it: what it waited for may have happened.
    Normal,
    /// A region on its task's chain was cancelled: the wait unwinds as stopped.
    Stopped,
    /// The deadlock watch ended it.
    Deadlock(Arc<crate::deadlock::Report>),
}

impl Woken {
    /// Unwinds the calling task for a wait that was interrupted (not `Normal`).
    pub(crate) fn raise(self) -> ! {
        match self {
            Woken::Normal => unreachable!("offshoot: raise on a wait that ended normally"),
            Woken::Stopped => crate::unwind::raise_stopped(),
            Woken::Deadlock(r) => r.raise(),
        }
    }
}

/// Where a woken token sends its owner.
pub(super) enum WakeTarget {
    /// A fiber of a worker: queue it on that worker.
    Fiber {
        fiber: *mut Fiber,
        worker: *const Worker,
    },
    /// A thread outside every pool (or one that cannot switch): unpark it.
    Thread(Thread),
}

/// The park/wake state of one fiber or one outside thread (`token.rs`), and whom a wake
/// wakes.
pub(crate) struct Parker {
    pub(super) token: Token,
    pub(super) target: WakeTarget,
    /// Set by an interrupt (after it won the wake) until the woken task reads `why`.
    pub(super) interrupted: AtomicBool,
    pub(super) why: Mutex<Option<Woken>>,
}

// SAFETY: the raw pointers name a fiber and its worker; a waker only dereferences the worker
// (alive as long as its registry, which outlives every parked task of the pool) and passes
// the fiber pointer back to that worker, whose owner thread alone touches the fiber.
unsafe impl Send for Parker {}
// SAFETY: as above; the shared state is atomic.
unsafe impl Sync for Parker {}

impl crate::deadlock::Blocking for Parker {
    /// A thread's wait has ended once its token is woken (by the waker, before its unpark).
    fn ended(&self) -> bool {
        self.token.is_woken()
    }
}

impl Parker {
    pub(super) fn new(target: WakeTarget) -> Parker {
        Parker {
            token: Token::new(),
            target,
            interrupted: AtomicBool::new(false),
            why: Mutex::new(None),
        }
    }

    /// Ends the park of epoch `epoch` early, for `why`, if it is still parked and no waker
    /// came first. The caller then queues the fiber. Returns whether it did.
    pub(super) fn interrupt(&self, epoch: u64, why: Woken) -> bool {
        if !self.token.interrupt(epoch) {
            return false;
        }
        *self.why.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        // SeqCst: not needed for a pairing: the flag (and `why`, under its mutex) is written
        // before the caller queues the fiber (`Remote::push_ready` or the driver's own ready
        // list), and the fiber reads it in `woken` only after its driver took it from that
        // queue, which orders the two. Kept: no loom model covers this flag.
        self.interrupted.store(true, Ordering::SeqCst);
        true
    }

    /// How the park that just ended ended (clearing an interrupt's reason).
    pub(super) fn woken(&self) -> Woken {
        // SeqCst: see `interrupt`: read by the resumed fiber, after the queue that resumed it;
        // acquire would do.
        if !self.interrupted.load(Ordering::SeqCst) {
            return Woken::Normal;
        }
        // SeqCst: the owner clears the flag of the park that ended, before its next arm; no
        // other thread writes it then (see `interrupt`).
        self.interrupted.store(false, Ordering::SeqCst);
        self.why
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or(Woken::Normal)
    }
}

pub(super) fn thread_parker() -> Arc<Parker> {
    Arc::new(Parker::new(WakeTarget::Thread(shim_thread::current())))
}

// Under loom the model's threads are loom's, with loom's thread-locals.
#[cfg(not(loom))]
thread_local! {
    static THREAD_PARKER: Arc<Parker> = thread_parker();
}
#[cfg(loom)]
loom::thread_local! {
    static THREAD_PARKER: Arc<Parker> = thread_parker();
}

/// A one-shot right to wake one wait of one task. Cheap to clone; waking a stale token (an
/// earlier wait of the same task, or a wait that was abandoned) does nothing.
#[derive(Clone)]
pub(crate) struct Waiter {
    pub(super) parker: Arc<Parker>,
    pub(super) epoch: u64,
}

impl std::fmt::Debug for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiter")
            .field("epoch", &self.epoch)
            .finish()
    }
}

impl Waiter {
    /// Arms a new wait for the calling task (a task on a worker, or any other thread).
    ///
    /// A task that unwinds (a destructor that waits while a panic passes through it) waits
    /// on its thread's parker, blocking its worker as a `std` wait would, instead of parking
    /// its fiber: std's "panicking" state (`std::thread::panicking`, the count a panic
    /// raises until it is caught) belongs to the thread, so every task the worker switched
    /// to meanwhile would inherit it: the runtime would ignore its stops and give none of its
    /// work away, and mutex guards it dropped would poison their mutexes. The cost: the
    /// worker's other tasks wait until the destructor's wait ends, so a destructor that
    /// waits, during unwinding, for one of them (or, on a 1-worker pool, for any work of the
    /// pool) deadlocks, as it would with `std::sync` in a thread pool.
    pub(crate) fn prepare() -> Waiter {
        let w = Worker::current();
        if !w.is_null() && !std::thread::panicking() {
            // SAFETY: the current worker is run by this thread.
            let w = unsafe { &*w };
            if let Some(p) = w.running_parker() {
                let epoch = p.token.arm();
                return Waiter { parker: p, epoch };
            }
        }
        let parker = THREAD_PARKER.with(|p| p.clone());
        let epoch = parker.token.arm();
        Waiter { parker, epoch }
    }

    /// Wakes the wait this token was armed for, if it is still on. Returns whether this
    /// call woke it (false if it was woken before, or abandoned, or is an old one).
    pub(crate) fn wake(&self) -> bool {
        let p = &*self.parker;
        let woke = p.token.wake(self.epoch);
        match &p.target {
            WakeTarget::Thread(t) if woke != Woke::No => t.unpark(),
            WakeTarget::Fiber { fiber, worker } if woke == Woke::Parked => {
                // SAFETY: see `Parker`'s Send impl: the worker outlives its parked fibers.
                let w = unsafe { &**worker };
                if ptr::eq(Worker::current(), *worker) {
                    // Woken from its own worker (a task handing over to a task parked on
                    // the same worker): straight onto the driver's ready list — no lock,
                    // and the worker is awake, running this.
                    w.push_ready_local(*fiber);
                } else {
                    w.remote().push_ready(*fiber);
                    w.unpark_if_sleeping();
                }
            }
            _ => {}
        }
        woke != Woke::No
    }

    /// Gives up a wait that was armed but not parked on (the awaited thing happened while
    /// registering). Returns true if a wake arrived first (the caller may have been handed
    /// something, e.g. a lock, that it must now pass on).
    pub(crate) fn abandon(&self) -> bool {
        self.parker.token.abandon(self.epoch)
    }

    /// Whether `other` is this same token (same task, same wait).
    pub(crate) fn same(&self, other: &Waiter) -> bool {
        Arc::ptr_eq(&self.parker, &other.parker) && self.epoch == other.epoch
    }

    /// Parks the calling task until this token is woken, recording that it waits `on`.
    /// Must be called by the task that armed it. Returns how the wait ended: by a wake, or
    /// (only for a task on a fiber, and only if `on` is interruptible and the task was not
    /// unwinding when it parked) by a stop or a deadlock. An interrupted wait must take its
    /// token off the wait list it queued it on, then unwind with [`Woken::raise`].
    pub(crate) fn park(&self, on: WaitOn) -> Woken {
        match &self.parker.target {
            WakeTarget::Thread(_) => {
                // A thread outside every pool tells the deadlock watch that it is blocked
                // here until the token is woken (a lock it holds is then released by nobody).
                let _blocked = crate::deadlock::blocked_outside(&*self.parker);
                while !self.parker.token.is_woken() {
                    shim_thread::park();
                }
                Woken::Normal
            }
            WakeTarget::Fiber { worker, .. } => {
                // SAFETY: this token belongs to the running fiber of this thread's worker.
                let w = unsafe { &**worker };
                // A wait begun while unwinding cannot unwind again (that would abort).
                let on = if std::thread::panicking() {
                    on.uninterruptible()
                } else {
                    on
                };
                if !w.park_token(on) {
                    panic!(
                        "offshoot: no stack could be mapped to park this task ({}); raise \
                         vm.max_map_count, lower Builder::stack_size, or let fewer tasks wait \
                         at once",
                        std::io::Error::last_os_error()
                    );
                }
                debug_assert!(self.parker.token.is_woken());
                self.parker.woken()
            }
        }
    }
}
