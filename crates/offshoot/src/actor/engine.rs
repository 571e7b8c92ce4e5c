//! The engine under every actor and selector: mailboxes, the schedule word, the user's
//! state, the reservation of the owning finish, and the drain task.
//!
//! Invariants:
//! * The actor holds one count of the finish it was started in (a `Reservation`) from
//!   `start` until it exits, so that finish cannot end before the actor exits. The count is
//!   given back by the exiting drain (a task of that finish, so the finish is still waiting
//!   for it when the count goes).
//! * `inner` (the user's state, the enabled mask, the round-robin cursor, the reservation)
//!   is touched only by the holder of the schedule token (`handshake.rs`): the drain, or a
//!   sender between winning the token and spawning the drain (it reads nothing of `inner`:
//!   the finish to spawn into is the immutable `home`).
//! * Exactly one way out: `exit` (asked for by the handler, on a stop request or with no
//!   handle left once the readable mailboxes are empty, on a panic of the handler or a guard, on the all-disabled
//!   error, or when a drain task is dropped unrun because its finish failed). It marks the
//!   word `EXITED`, sweeps the mailboxes (counting what it drops), drops the user's state and
//!   then the reservation.
//! * A drain processes at most `BUDGET` messages, then spawns its successor (keeping the
//!   token) and returns: a task boundary, so that a busy actor does not hold its worker for
//!   ever, and thieves can take the successor.
//! * A drain that a handler's send schedules (the handler runs in a drain task, and the
//!   receiver belongs to the same finish) is spawned as the continuation of the running
//!   drain (`Handoff::WithOthers`): alone on the frame, it is not handed to another
//!   worker before the running drain polls (between messages, or in the handler) or ends,
//!   and then runs on this worker. A chain with one message in flight (request-reply,
//!   a ring) so stays on one worker instead of crossing to an idle one at every message;
//!   a handler that sends to two or more idle actors offers them at once. Only where a
//!   task runs changes: the spawned drain is on the frame either way.

use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use super::handshake::{Empty, Schedule, Wake};
use super::mailbox::{all, Mailboxes, MAX_MAILBOXES};
use super::selector::{Mailbox, Order, Selector, SelectorContext};
use crate::deadlock::{self, PendingKey, Report};
use crate::finish::{Handoff, Reservation, ReservedFinish};
use crate::pool::Registry;
use crate::worker::Worker;

/// Messages one drain task processes before it hands over to a successor task.
pub(crate) const BUDGET: u32 = 64;

thread_local! {
    /// The task identity (`Worker::task_id`) of the drain running its handler on this
    /// thread, or 0. Compared with the running task's identity, so a handler that parked
    /// (another task then runs here) or a task the handler forked does not count as it.
    static DRAIN_TASK: Cell<u64> = const { Cell::new(0) };
}

/// The identity of the task running on this thread (`Worker::task_id`), 0 outside every
/// pool (never a task's identity).
fn running_task() -> u64 {
    let w = Worker::current();
    if w.is_null() {
        0
    } else {
        // SAFETY: a non-null current worker is live and run by this thread.
        unsafe { (*w).task_id() }
    }
}

/// How a send offers the drain it schedules: as the continuation of the calling code if
/// that is a drain's handler (not a task it forked, not a task that runs while its handler
/// is parked), else at once.
fn handoff() -> Handoff {
    let task = running_task();
    if task != 0 && DRAIN_TASK.with(Cell::get) == task {
        Handoff::WithOthers
    } else {
        Handoff::Now
    }
}

struct Inner<S> {
    behavior: Option<S>,
    /// The mailboxes enabled by the handler (`SelectorContext::enable` and friends).
    enabled: u64,
    /// `enabled` and the guards as last evaluated: the mailboxes the drain reads.
    ready: u64,
    /// Round robin: the mailbox to look at first.
    next: usize,
    home: Option<Reservation>,
}

pub(crate) struct Engine<S: Selector> {
    schedule: Schedule,
    /// Live handles (`SelectorRef`s); the last one dropped asks the actor to stop.
    refs: AtomicUsize,
    dropped: AtomicU64,
    home: ReservedFinish,
    /// The pool the actor runs in, and its entry in the deadlock watch's list of what
    /// waits to be started (`deadlock::Pending`): an idle actor that has not exited is
    /// work its finish waits for that no worker holds.
    pool: *const Registry,
    key: PendingKey,
    mailboxes: Mailboxes<S::Message>,
    inner: UnsafeCell<Inner<S>>,
}

// SAFETY: `inner` is touched by the token holder only (one thread at a time; the token
// passes with acquire/release, see `handshake.rs`), so sharing the engine shares no
// unsynchronized access; the user's state and messages are `Send`; the reservation and
// `home` are used only as their own invariants allow.
unsafe impl<S: Selector> Sync for Engine<S> {}
// SAFETY: as above.
unsafe impl<S: Selector> Send for Engine<S> {}

/// The guards of `s` as a mask.
fn guards<S: Selector>(s: &S) -> u64 {
    let mut m = 0;
    for i in 0..S::Mailbox::COUNT {
        if s.guard(S::Mailbox::from_index(i)) {
            m |= 1 << i;
        }
    }
    m
}

/// The drain task's closure state: holds the token. Dropped unrun (its finish failed and
/// discards its pending tasks), it exits the actor, so the reservation is given back.
struct Drain<S: Selector>(Option<Arc<Engine<S>>>);

impl<S: Selector> Drop for Drain<S> {
    fn drop(&mut self) {
        if let Some(e) = self.0.take() {
            // SAFETY: this drain holds the token.
            unsafe { e.exit() };
        }
    }
}

impl<S: Selector> Engine<S> {
    /// Starts `behavior` in the innermost finish of the calling task.
    pub(crate) fn start(behavior: S, caller: &str) -> Arc<Engine<S>> {
        let ready = all(Self::mailbox_count(caller)) & guards(&behavior);
        Self::check_ready(ready, caller);
        Self::new_in_finish(Schedule::new(ready), Some(behavior), ready, caller)
    }

    /// Starts the state that `make` builds, given the engine (to make handles to itself
    /// from), in the innermost finish of the calling task. The caller holds the token
    /// while `make` runs, so no drain runs before the state exists; messages sent
    /// meanwhile (by `make`, or through handles it passed on) wait in the mailboxes and are
    /// processed after.
    pub(crate) fn start_with(make: impl FnOnce(&Arc<Self>) -> S, caller: &str) -> Arc<Self> {
        Self::mailbox_count(caller);
        let e = Self::new_in_finish(Schedule::held(), None, 0, caller);
        let behavior = match catch_unwind(AssertUnwindSafe(|| make(&e))) {
            Ok(b) => b,
            Err(payload) => {
                // SAFETY: the token is held (since `new_in_finish`).
                unsafe { e.exit() };
                resume_unwind(payload)
            }
        };
        // SAFETY: the token is held: nobody else touches `inner`.
        let inner = unsafe { &mut *e.inner.get() };
        let ready = inner.enabled & guards(&behavior);
        inner.behavior = Some(behavior);
        inner.ready = ready;
        if ready == 0 {
            // SAFETY: the token is held.
            unsafe { e.exit() };
            Self::check_ready(ready, caller);
        }
        // Give the token back, or drain what arrived meanwhile (or exit on a stop asked
        // meanwhile), as a drain that found nothing to read does.
        match e
            .schedule
            .on_empty(ready, || e.unreferenced(), |r| e.mailboxes.any(r))
        {
            // SAFETY: the token is held, and passes to the drain.
            Empty::Again => unsafe { e.spawn_drain(Handoff::Now) },
            // SAFETY: the token is held.
            Empty::Exit => unsafe { e.exit() },
            Empty::Released => {}
        }
        e
    }

    /// The number of mailboxes, checked.
    fn mailbox_count(caller: &str) -> usize {
        let n = S::Mailbox::COUNT;
        assert!(
            (1..=MAX_MAILBOXES).contains(&n),
            "{caller}: a selector has 1 to {MAX_MAILBOXES} mailboxes, not {n}"
        );
        n
    }

    fn check_ready(ready: u64, caller: &str) {
        assert!(
            ready != 0,
            "{caller}: every mailbox is disabled by its guard at start: the selector could \
             never receive a message"
        );
    }

    /// The engine, holding a reservation of the innermost finish of the calling task and
    /// listed with the deadlock watch.
    fn new_in_finish(
        schedule: Schedule,
        behavior: Option<S>,
        ready: u64,
        caller: &str,
    ) -> Arc<Self> {
        let n = S::Mailbox::COUNT;
        let home = Reservation::take_for(caller);
        // `take_for` checked that this runs on a worker.
        // SAFETY: a non-null current worker is live and run by this thread.
        let pool = unsafe { (*Worker::current()).registry() } as *const Registry;
        deadlock::add_pending(|key| {
            Arc::new(Engine {
                schedule,
                refs: AtomicUsize::new(1),
                dropped: AtomicU64::new(0),
                home: home.finish(),
                pool,
                key,
                mailboxes: Mailboxes::new(n),
                inner: UnsafeCell::new(Inner {
                    behavior,
                    enabled: all(n),
                    ready,
                    next: 0,
                    home: Some(home),
                }),
            })
        })
    }

    /// Sends `msg` to mailbox `i`: never blocks; after exit the message is dropped and
    /// counted.
    pub(crate) fn send(self: &Arc<Self>, i: usize, msg: S::Message) {
        if self.schedule.exited() {
            drop(msg);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.mailboxes.push(i, msg);
        match self.schedule.notify(1 << i) {
            Wake::Nothing => {}
            // SAFETY: `notify` gave this thread the token.
            Wake::Spawn => unsafe { self.spawn_drain(handoff()) },
            Wake::Exited => {
                let n = self.mailboxes.sweep(i);
                self.dropped.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    /// Asks the actor to exit once its readable mailboxes are empty.
    pub(crate) fn stop(self: &Arc<Self>) {
        if self.schedule.request_stop() == Wake::Spawn {
            // SAFETY: `request_stop` gave this thread the token.
            unsafe { self.spawn_drain(Handoff::Now) };
        }
    }

    pub(crate) fn exited(&self) -> bool {
        self.schedule.exited()
    }

    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// No handle is left, so no message can come any more (only the handler can make a
    /// new handle, and only the token holder calls this).
    fn unreferenced(&self) -> bool {
        self.refs.load(Ordering::Acquire) == 0
    }

    pub(crate) fn add_ref(&self) {
        self.refs.fetch_add(1, Ordering::Relaxed);
    }

    /// Drops a handle. After the last one, an idle actor is woken (a drain spawned) to
    /// see that no handle is left, and exits once its readable mailboxes are empty.
    pub(crate) fn release_ref(self: &Arc<Self>) {
        // AcqRel: pairs with the acquire load in `unreferenced`, so the drain that sees
        // no handle left sees every send made through them.
        if self.refs.fetch_sub(1, Ordering::AcqRel) == 1 && self.schedule.poke() == Wake::Spawn {
            // SAFETY: `poke` gave this thread the token.
            unsafe { self.spawn_drain(Handoff::Now) };
        }
    }

    /// Spawns the drain task into the actor's finish; `Handoff::WithOthers` from a
    /// handler, as its continuation (see the module header).
    ///
    /// # Safety
    /// The caller holds the token (and so the actor has not exited: its reservation is
    /// held until the drain spawned here gives it back).
    unsafe fn spawn_drain(self: &Arc<Self>, handoff: Handoff) {
        let drain = Drain(Some(self.clone()));
        let task = move || {
            let mut drain = drain;
            let e = drain.0.take().expect("a drain runs once");
            e.drain();
        };
        // SAFETY: the reservation is held (above); the drain task keeps the finish alive
        // while it runs, also after it gave the reservation back.
        unsafe { self.home.spawn(task, handoff) };
    }

    /// The drain: runs the handler on the readable messages, one at a time, until none is
    /// left (then gives the token back), the budget is spent (then spawns a successor), or
    /// the actor exits.
    fn drain(self: &Arc<Self>) {
        // SAFETY: the caller holds the token: nobody else touches `inner`.
        let inner = unsafe { &mut *self.inner.get() };
        // The drain runs as a task of its own (a spawned task), so this is its identity
        // until it returns (the previous value is put back then).
        struct Handler(u64);
        impl Drop for Handler {
            fn drop(&mut self) {
                DRAIN_TASK.with(|d| d.set(self.0));
            }
        }
        let _handler = Handler(DRAIN_TASK.with(|d| d.replace(running_task())));
        let round_robin = S::ORDER == Order::RoundRobin;
        let mut budget = BUDGET;
        loop {
            let Some((i, msg)) = self
                .mailboxes
                .pop(inner.ready, round_robin, &mut inner.next)
            else {
                match self.schedule.on_empty(
                    inner.ready,
                    || self.unreferenced(),
                    |ready| self.mailboxes.any(ready),
                ) {
                    Empty::Again => continue,
                    Empty::Exit => {
                        // SAFETY: the token is held.
                        unsafe { self.exit() };
                    }
                    // The token is gone: `inner` belongs to the next drain.
                    Empty::Released => {}
                }
                return;
            };
            let mut ctx = SelectorContext::new(self, inner.enabled);
            let behavior = inner.behavior.as_mut().expect("a live actor has its state");
            let first = budget == BUDGET;
            let step = catch_unwind(AssertUnwindSafe(|| {
                if !first {
                    // Between messages: answer a thief, so that drains this one's handler
                    // scheduled (kept here as its continuation) can be taken while it goes
                    // on; honour a stop (it unwinds as a failure of the handler would).
                    crate::poll();
                }
                behavior.receive(S::Mailbox::from_index(i), msg, &mut ctx);
                if ctx.exiting() {
                    return None;
                }
                let ready = ctx.enabled() & guards(behavior);
                assert!(
                    ready != 0,
                    "offshoot::actor: every mailbox of the selector is disabled after a \
                     message (by the handler or its guards): it could never receive again; \
                     call `exit` to end it"
                );
                Some((ctx.enabled(), ready))
            }));
            match step {
                Ok(Some((enabled, ready))) => {
                    inner.enabled = enabled;
                    inner.ready = ready;
                }
                Ok(None) => {
                    // SAFETY: the token is held.
                    unsafe { self.exit() };
                    return;
                }
                Err(payload) => {
                    // SAFETY: the token is held. The panic then fails the finish (the
                    // drain runs as one of its tasks).
                    unsafe { self.exit() };
                    resume_unwind(payload);
                }
            }
            budget -= 1;
            if budget == 0 {
                // SAFETY: the token is held and passes to the successor.
                unsafe { self.spawn_drain(Handoff::Now) };
                return;
            }
        }
    }

    /// Exits: marks the word, sweeps the mailboxes, drops the user's state, then gives the
    /// reservation back.
    ///
    /// # Safety
    /// The caller holds the token, and gives it up here.
    unsafe fn exit(&self) {
        self.schedule.exit();
        deadlock::remove_pending(self.key);
        let n = self.mailboxes.sweep_all();
        self.dropped.fetch_add(n, Ordering::Relaxed);
        // SAFETY: the token is held.
        let inner = unsafe { &mut *self.inner.get() };
        // Taken before the state is dropped, so that a panicking destructor still gives it
        // back (as a local, during the unwind).
        let home = inner.home.take();
        drop(inner.behavior.take());
        drop(home);
    }
}

/// An idle actor that has not exited, seen by the deadlock watch: when no worker of any
/// pool is awake, nothing inside the pools can send to it any more (a handle held by a
/// thread outside the pools must come with an `ExternalWaker`), so the finish it was
/// started in would wait for it for ever — actors that wait for each other's messages
/// (selectors waiting for replies with their other mailboxes disabled), or an actor that
/// holds a handle to itself.
impl<S: Selector> deadlock::Pending for Engine<S> {
    fn pool(&self) -> *const Registry {
        self.pool
    }

    fn is_pending(&self) -> bool {
        self.schedule.is_idle()
    }

    fn is_actor(&self) -> bool {
        true
    }

    fn describe(&self, text: &mut String) {
        use std::fmt::Write as _;
        // An actor is a one-mailbox selector behind the private wrapper `Solo`: name the
        // user's type.
        let name = std::any::type_name::<S>();
        let (kind, name) = match name
            .strip_prefix("offshoot::actor::Solo<")
            .and_then(|n| n.strip_suffix('>'))
        {
            Some(actor) => ("actor", actor),
            None => ("selector", name),
        };
        let _ = write!(
            text,
            "\n  {kind} {name} {:p} is idle and has not exited (the finish it was started in \
             waits for it), with no message it may read",
            self as *const Self,
        );
        if S::Mailbox::COUNT > 1 {
            let _ = write!(
                text,
                " (readable mailboxes {:#b})",
                self.schedule.ready_mask()
            );
        }
    }

    /// Takes the token of the idle actor and spawns a task into its finish that exits it
    /// and raises the report, so the report comes out of that finish.
    fn fail(self: Arc<Self>, report: Arc<Report>) -> bool {
        if self.schedule.poke() != Wake::Spawn {
            return false;
        }
        // Holds the token: exits the actor when run, or when dropped unrun.
        let drain = Drain(Some(self.clone()));
        // SAFETY: the token is held, so the actor has not exited and its reservation is
        // held until the task below gives it back.
        unsafe {
            self.home.spawn(
                move || {
                    drop(drain);
                    report.raise()
                },
                Handoff::Now,
            )
        };
        true
    }
}
