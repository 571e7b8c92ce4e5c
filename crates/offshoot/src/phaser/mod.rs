//! Phasers (Imam's thesis ch. 3; HJlib's `HjPhaser`): barriers for tasks that meet at
//! phase boundaries many times, with modes, split-phase operation, single blocks and
//! dynamic registration. A task that waits parks (its worker runs other tasks).
//!
//! A [`Registration`] is one task's membership: its [`Mode`], the phase it signals next
//! (`sig`) and the phase whose end it waits for next (`wait`). Phase `k` ends when every
//! registration that signals has signalled `k`; registrations may be phases apart (a
//! signal-only one can run ahead), so the state counts, per phase, the signalling
//! registrations that still have to signal it.
//!
//! # Deadlock freedom
//!
//! As in HJlib, a program whose tasks synchronise on phasers only with the barrier —
//! [`Registration::next`] for a task on one phaser, [`next_all`] over *every*
//! registration of a task on several — cannot deadlock on its phasers, provided its
//! registrations are made as HJlib makes them: with [`Registration::child`] for a task
//! about to be created (at its creator's phase), or with [`Phaser::register`] on a phaser
//! that has no signalling member yet. Each such call signals every phaser the task is
//! registered on before it waits on any; and with such registrations a task's phase on
//! each of its phasers is one count of barrier calls (its creator's when it was created,
//! plus its own) plus an offset that is the same for every member of that phaser. So a member that holds back the phase a task waits for is
//! blocked in an earlier call than the task's, and a cycle of such waits cannot close.
//!
//! Outside these conditions a deadlock is possible, and the deadlock watch reports it:
//! * `next` on each of several registrations in turn: a task waits on its first phaser
//!   before signalling its second, and deadlocks with a task doing the same in the other
//!   order (as explicit [`signal`](Registration::signal) / [`wait`](Registration::wait)
//!   can, thesis Fig. 2.14);
//! * `register` on a phaser with signalling members joins the phase after the one in
//!   progress, a phase ahead of them: two tasks that each joined one of two shared
//!   phasers late both wait in `next_all` for a phase the other signals only in its next
//!   call;
//! * a task that holds a registration while it waits for something else (a `join`, the
//!   end of a `scope`, a lock): drop or pass on a registration it no longer uses.
//!
//! Invariants (all under `Inner::state`'s lock):
//! * `pending[k]` = how many signalling registrations have `sig == k`. Phases below the
//!   least key are ended; `ended` is that least key (or, with no signalling registration,
//!   the value it had when the last one left — it never decreases: registrations join at
//!   or after it).
//! * A waiter for phase `k` waits on `events[k]`, set (and removed) when `ended` passes
//!   `k`, or when the last signalling registration leaves (nothing can hold `k` back then);
//!   so the map holds only phases someone still waits for, and is empty while no
//!   registration signals.
//! * A registration leaves (`Drop`: at the end of its task, also by panic or stop) by
//!   removing its count, so a task that is gone never holds a phase back.
//! * Phase accumulators (`accumulator.rs`): a member hands its partials in before its
//!   signal (or its leaving) is counted.
//! * `single` blocks of phase `k` run once: the first registration to arrive claims
//!   `singles[k]` and runs the block after phase `k` ended; the others wait for its event.
//!   `singles_done` is the least phase whose single may still run; entries below it are
//!   removed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::fiber::WaitOn;
use crate::sync::Event;

mod accumulator;

pub use accumulator::PhaseAccumulator;

/// How a task takes part in a phaser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Signals only: the phase cannot end until it signals, but it never waits (it may run
    /// phases ahead).
    Sig,
    /// Waits only: it waits for phases to end and never holds one back.
    Wait,
    /// Signals and waits: the usual barrier member.
    SigWait,
    /// As [`Mode::SigWait`], and may run [`Registration::single`] blocks.
    SigWaitSingle,
}

impl Mode {
    fn signals(self) -> bool {
        !matches!(self, Mode::Wait)
    }
    fn waits(self) -> bool {
        !matches!(self, Mode::Sig)
    }
    /// Whether a registration in `self` may make one in `child` (no capability it lacks).
    fn covers(self, child: Mode) -> bool {
        (self.signals() || !child.signals())
            && (self.waits() || !child.waits())
            && (self == Mode::SigWaitSingle || child != Mode::SigWaitSingle)
    }
}

/// A phaser: tasks register with a [`Mode`] and meet at the end of each phase.
/// Registrations are made with [`Phaser::register`] (into the next phase) or, for a task
/// about to be spawned, with [`Registration::child`] (into its parent's phase).
///
/// ```
/// use offshoot::phaser::{Mode, Phaser};
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// // Eight tasks, three phases: nobody starts phase p + 1 before all finished phase p.
/// let ph = Phaser::new();
/// let me = ph.register(Mode::SigWait);
/// let done = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];
/// offshoot::scope(|s| {
///     for _ in 0..8 {
///         let mut r = me.child(Mode::SigWait);
///         let done = &done;
///         s.spawn(move |_| {
///             for p in 0..3 {
///                 if p > 0 {
///                     assert_eq!(done[p - 1].load(Ordering::SeqCst), 8);
///                 }
///                 done[p].fetch_add(1, Ordering::SeqCst);
///                 r.next();
///             }
///         });
///     }
///     drop(me); // the creator takes no part in the phases
/// });
/// ```
#[derive(Clone, Default)]
pub struct Phaser {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Phaser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.inner.lock();
        f.debug_struct("Phaser")
            .field("ended", &s.ended)
            .field("signalling", &s.pending.values().sum::<usize>())
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    /// What the deadlock report calls it besides its address ([`Phaser::named`]).
    name: Option<&'static str>,
}

#[derive(Default)]
struct State {
    pending: BTreeMap<u64, usize>,
    ended: u64,
    events: BTreeMap<u64, Arc<Event<()>>>,
    singles: BTreeMap<u64, Arc<Event<()>>>,
    singles_done: u64,
    /// Work/span (`metrics/`): the latest span among each pending phase's signals, and
    /// the span at which the phases that ended did (a phase ends after the one before it,
    /// so one value covers them all).
    signal_spans: BTreeMap<u64, crate::metrics::Span>,
    ended_span: crate::metrics::Span,
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// Recomputes `ended` after a count changed; returns the events of the phases that
    /// ended now (to set outside the lock). No allocation unless a phase ended with a
    /// waiter.
    fn settle(&mut self) -> Vec<Arc<Event<()>>> {
        let mut woken = Vec::new();
        if let Some((&least, _)) = self.pending.first_key_value() {
            debug_assert!(least >= self.ended, "a phase un-ended");
            self.ended = least;
        } else {
            // The last signalling member left: nothing can hold any phase back any more,
            // so every waiter goes on (as a wait begun now returns at once, `event_for`),
            // also those waiting for a phase that member had not signalled.
            woken.extend(std::mem::take(&mut self.events).into_values());
        }
        while let Some(e) = self.events.first_entry() {
            if *e.key() >= self.ended {
                break;
            }
            woken.push(e.remove());
        }
        while let Some(e) = self.signal_spans.first_entry() {
            if *e.key() >= self.ended {
                break;
            }
            self.ended_span = self.ended_span.max(e.remove());
        }
        woken
    }

    /// Work/span: the span at which phase `phase` ended, for a member that waited for it
    /// (a member that lags behind the phaser by more than one phase gets a later one).
    fn end_span(&self, phase: u64) -> crate::metrics::Span {
        self.signal_spans
            .range(..=phase)
            .fold(self.ended_span, |a, (_, s)| a.max(*s))
    }

    /// The event to park on until phase `phase` has ended, or `None` if it has (or no
    /// signalling member is left to hold it back).
    fn event_for(&mut self, phase: u64) -> Option<Arc<Event<()>>> {
        if self.ended > phase || self.pending.is_empty() {
            None
        } else {
            Some(self.events.entry(phase).or_default().clone())
        }
    }

    fn add(&mut self, phase: u64) {
        *self.pending.entry(phase).or_insert(0) += 1;
    }

    fn remove(&mut self, phase: u64) {
        let n = self
            .pending
            .get_mut(&phase)
            .expect("a signalling registration is counted");
        *n -= 1;
        if *n == 0 {
            self.pending.remove(&phase);
        }
    }
}

fn wake(events: Vec<Arc<Event<()>>>) {
    for e in events {
        // Each event left the map under the lock: set once.
        let _ = e.set(());
    }
}

impl Phaser {
    /// A phaser with no registrations.
    ///
    /// ```
    /// let ph = offshoot::phaser::Phaser::new();
    /// assert_eq!(ph.ended_phases(), 0);
    /// ```
    pub fn new() -> Phaser {
        Phaser::default()
    }

    /// A phaser with no registrations, which a deadlock report names `name`: a member that
    /// waits for a phase that never ends is listed as waiting on `Phaser "name" (0x…)`
    /// instead of `Phaser 0x…`. Clones share the name. Naming costs nothing until such a
    /// report is written.
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let ph = Phaser::named("time step");
    /// let mut r = ph.register(Mode::SigWait);
    /// r.next();
    /// assert_eq!(ph.ended_phases(), 1);
    /// ```
    pub fn named(name: &'static str) -> Phaser {
        Phaser {
            inner: Arc::new(Inner {
                name: Some(name),
                ..Inner::default()
            }),
        }
    }

    /// Registers a new member in `mode`, into the next phase: the one after the phase in
    /// progress (with no signalling member yet, the next one to end). To start several
    /// members in the same phase, register one and make the others with
    /// [`Registration::child`]. A member that joins a phase ahead of the others this way
    /// is outside the deadlock freedom of [`next_all`] (see [deadlock
    /// freedom](self#deadlock-freedom)).
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let ph = Phaser::new();
    /// let mut a = ph.register(Mode::SigWait);
    /// a.next();
    /// // Phase 1 is in progress (`a` has not signalled it): `b` joins the next one.
    /// let b = ph.register(Mode::SigWait);
    /// assert_eq!((a.phase(), b.phase()), (1, 2));
    /// ```
    pub fn register(&self, mode: Mode) -> Registration {
        let mut s = self.inner.lock();
        // With signalling members, phase `ended` is in progress: join the one after it.
        // With none, `ended` is the next phase to end.
        let phase = if s.pending.is_empty() {
            s.ended
        } else {
            s.ended + 1
        };
        Registration::counted(&self.inner, &mut s, mode, phase)
    }

    /// How many phases have ended.
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let ph = Phaser::new();
    /// let mut r = ph.register(Mode::SigWait);
    /// r.next();
    /// r.next();
    /// assert_eq!(ph.ended_phases(), 2);
    /// ```
    pub fn ended_phases(&self) -> u64 {
        self.inner.lock().ended
    }
}

/// One task's membership in a [`Phaser`]: made by [`Phaser::register`] or
/// [`Registration::child`], moved into the task, and left when dropped (at the end of the
/// task, also if it panics or is stopped), so it never holds a phase back once gone.
pub struct Registration {
    inner: Arc<Inner>,
    mode: Mode,
    /// The phase this registration signals next.
    sig: u64,
    /// The phase whose end it waits for next.
    wait: u64,
    /// Its partials of phase accumulators for phase `sig` (`accumulator.rs`).
    partials: accumulator::Partials,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("mode", &self.mode)
            .field("sig", &self.sig)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl Registration {
    /// A new member of `inner` in `mode` at `phase`, counted in `s` (its locked state).
    fn counted(inner: &Arc<Inner>, s: &mut State, mode: Mode, phase: u64) -> Registration {
        if mode.signals() {
            s.add(phase);
        }
        Registration {
            inner: inner.clone(),
            mode,
            sig: phase,
            wait: phase,
            partials: Vec::new(),
        }
    }

    /// A registration for a task about to be created, in `mode`, at this registration's
    /// phase (so the phase in progress waits for it as well).
    ///
    /// # Panics
    ///
    /// If `mode` has a capability this registration lacks (a [`Mode::Wait`] member cannot
    /// make a signalling one; only [`Mode::SigWaitSingle`] makes single-capable ones).
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let ph = Phaser::new();
    /// let parent = ph.register(Mode::SigWait);
    /// let child = parent.child(Mode::Wait);
    /// assert_eq!(child.phase(), parent.phase());
    /// ```
    pub fn child(&self, mode: Mode) -> Registration {
        assert!(
            self.mode.covers(mode),
            "offshoot: a {:?} registration cannot make a {mode:?} one (a child gets at most \
             its parent's capabilities)",
            self.mode
        );
        // A SigWait parent that signalled early (split phase) still waits for `wait`: the
        // child starts there, as its parent will.
        let phase = if self.mode.waits() {
            self.wait
        } else {
            self.sig
        };
        let mut s = self.inner.lock();
        let phase = phase.max(s.ended);
        Registration::counted(&self.inner, &mut s, mode, phase)
    }

    /// Its mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The phase it is in: the one whose end it waits for next (for [`Mode::Sig`], the one
    /// it signals next).
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let mut r = Phaser::new().register(Mode::SigWait);
    /// assert_eq!(r.phase(), 0);
    /// r.next();
    /// assert_eq!(r.phase(), 1);
    /// ```
    pub fn phase(&self) -> u64 {
        if self.mode.waits() {
            self.wait
        } else {
            self.sig
        }
    }

    /// Signals that this task has reached the end of its phase, without waiting (the first
    /// half of a split-phase barrier: do unrelated work, then [`wait`](Self::wait)). A
    /// [`Mode::Sig`] member signals the next phase each time (it may run ahead); a
    /// signal-and-wait member signals its current phase once (a second signal before its
    /// wait does nothing).
    ///
    /// # Panics
    ///
    /// On a [`Mode::Wait`] registration.
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let ph = Phaser::new();
    /// let mut r = ph.register(Mode::SigWait);
    /// r.signal(); // phase 0 ends here: r is its only signaller
    /// assert_eq!(ph.ended_phases(), 1);
    /// r.wait(); // returns at once
    /// assert_eq!(r.phase(), 1);
    /// ```
    pub fn signal(&mut self) {
        assert!(
            self.mode.signals(),
            "offshoot: a Mode::Wait registration cannot signal; register with Mode::SigWait \
             or Mode::Sig to hold phases back"
        );
        if self.mode.waits() && self.sig > self.wait {
            return; // signalled this phase already
        }
        // Before the signal counts: the phase cannot end without this member's puts.
        self.hand_in_partials();
        let woken = {
            let mut s = self.inner.lock();
            Registration::count_signal(&mut self.sig, &mut s)
        };
        wake(woken);
    }

    /// Counts a member's signal of phase `*sig` in `s` (the locked state) and moves it to
    /// the next; returns the events of the phases that ended.
    fn count_signal(sig: &mut u64, s: &mut State) -> Vec<Arc<Event<()>>> {
        if let Some(m) = crate::metrics::current_on() {
            let span = m.checkpoint().span();
            let e = s.signal_spans.entry(*sig).or_default();
            *e = e.max(span);
        }
        s.remove(*sig);
        *sig += 1;
        s.add(*sig);
        s.settle()
    }

    /// Waits for the end of its phase, then moves to the next (a signal-and-wait member
    /// that has not signalled this phase signals first). The task parks while it waits.
    /// With no signalling member left on the phaser, nothing can hold a phase back: the
    /// wait returns at once.
    ///
    /// # Panics
    ///
    /// On a [`Mode::Sig`] registration.
    #[track_caller]
    pub fn wait(&mut self) {
        let at = std::panic::Location::caller();
        assert!(
            self.mode.waits(),
            "offshoot: a Mode::Sig registration cannot wait; register with Mode::SigWait or \
             Mode::Wait"
        );
        if self.mode.signals() && self.sig == self.wait {
            self.signal();
        }
        self.await_end(self.wait, at);
        self.wait += 1;
    }

    /// Parks until phase `phase` has ended (at once if it has, or if no signalling member
    /// is left to hold it back).
    fn await_end(&self, phase: u64, at: &'static std::panic::Location<'static>) {
        let event = self.inner.lock().event_for(phase);
        self.park_on(event, phase, at);
    }

    /// Parks on `event` (the end of `phase`), if any; the program called the wait at `at`.
    fn park_on(
        &self,
        event: Option<Arc<Event<()>>>,
        phase: u64,
        at: &'static std::panic::Location<'static>,
    ) {
        if let Some(e) = event {
            e.wait_on(
                WaitOn::new("Phaser", Arc::as_ptr(&self.inner))
                    .at(at)
                    .named(self.inner.name)
                    .in_phase(phase),
            );
        }
        if let Some(m) = crate::metrics::current_on() {
            // Work/span: the wait ends after the phase's last signal.
            let span = self.inner.lock().end_span(phase);
            m.absorb(span);
        }
    }

    /// Signal and wait: the barrier, on this one registration's phaser.
    ///
    /// Tasks on one phaser that synchronise on it only with `next` cannot deadlock on it
    /// (see [deadlock freedom](self#deadlock-freedom) for the conditions). A task
    /// registered on **several** phasers must not call `next` on each in turn: it waits on
    /// the first before it signals the second, so two tasks that do so in opposite orders
    /// wait for each other for ever. Use [`next_all`] with all of its registrations
    /// instead.
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// let ph = Phaser::new();
    /// let a = ph.register(Mode::SigWait);
    /// let mut b = a.child(Mode::SigWait);
    /// let mut a = a;
    /// offshoot::join(|| a.next(), || b.next());
    /// assert_eq!(ph.ended_phases(), 1);
    /// ```
    #[track_caller]
    pub fn next(&mut self) {
        if !matches!(self.mode, Mode::SigWait | Mode::SigWaitSingle) || self.sig != self.wait {
            // Sig or Wait only, or signalled already (split phase): the two halves.
            self.signal();
            self.wait();
            return;
        }
        // The usual barrier member: signal and look for the phase's end under one lock.
        self.hand_in_partials();
        let phase = self.wait;
        let (woken, event) = {
            let mut s = self.inner.lock();
            let woken = Registration::count_signal(&mut self.sig, &mut s);
            (woken, s.event_for(phase))
        };
        wake(woken);
        self.park_on(event, phase, std::panic::Location::caller());
        self.wait += 1;
    }

    /// `next`, with `body` run by exactly one member between the end of this phase and the
    /// start of the next (every member of a phase must call `single`, all with the same
    /// body's meaning). Returns what the body returned on the member that ran it.
    ///
    /// # Panics
    ///
    /// On a registration that is not [`Mode::SigWaitSingle`]. If the body panics, the
    /// panic resumes on the member that ran it; the others go on.
    ///
    /// ```
    /// use offshoot::phaser::{Mode, Phaser};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let ph = Phaser::new();
    /// let a = ph.register(Mode::SigWaitSingle);
    /// let mut b = a.child(Mode::SigWaitSingle);
    /// let mut a = a;
    /// let runs = AtomicUsize::new(0);
    /// offshoot::join(
    ///     || a.single(|| runs.fetch_add(1, Ordering::SeqCst)),
    ///     || b.single(|| runs.fetch_add(1, Ordering::SeqCst)),
    /// );
    /// assert_eq!(runs.load(Ordering::SeqCst), 1);
    /// ```
    #[track_caller]
    pub fn single<R>(&mut self, body: impl FnOnce() -> R) -> Option<R> {
        let at = std::panic::Location::caller();
        assert!(
            self.mode == Mode::SigWaitSingle,
            "offshoot: single needs a Mode::SigWaitSingle registration, this one is {:?}",
            self.mode
        );
        let phase = self.wait;
        self.signal();
        // Wait for the phase's end without moving on (this member is counted at the next
        // phase now, so a signaller is always left).
        self.await_end(phase, at);
        // Claim the single of `phase`, or wait for the one who did.
        let claim = {
            let mut s = self.inner.lock();
            if phase < s.singles_done {
                Err(None)
            } else if let Some(e) = s.singles.get(&phase) {
                Err(Some(e.clone()))
            } else {
                let e = Arc::new(Event::new());
                s.singles.insert(phase, e.clone());
                Ok(e)
            }
        };
        let out = match claim {
            Ok(done) => {
                /// Ends the single (also if the body panics): later arrivals go on.
                struct End<'a>(&'a Inner, u64, Arc<Event<()>>);
                impl Drop for End<'_> {
                    fn drop(&mut self) {
                        {
                            let mut s = self.0.lock();
                            s.singles_done = s.singles_done.max(self.1 + 1);
                            let done = s.singles_done;
                            let later = s.singles.split_off(&done);
                            s.singles = later;
                        }
                        let _ = self.2.set(());
                    }
                }
                let _end = End(&self.inner, phase, done);
                Some(body())
            }
            Err(Some(e)) => {
                e.wait_on(
                    WaitOn::new("Phaser single", Arc::as_ptr(&self.inner))
                        .at(at)
                        .named(self.inner.name)
                        .in_phase(phase),
                );
                None
            }
            Err(None) => None,
        };
        self.wait += 1;
        out
    }
}

/// HJlib's `next` for a task registered on several phasers: signals through every
/// registration in `regs` that signals, then waits through every one that waits — each
/// moving to its next phase. Unlike a call of [`Registration::next`] on each in turn, no
/// wait comes before a signal, so tasks that hold registrations on the same phasers, in
/// any order, cannot deadlock when each passes every registration it holds and the
/// registrations were made as HJlib makes them (see [deadlock
/// freedom](self#deadlock-freedom): not a [`Phaser::register`] a phase late). The mode of each is honoured: a [`Mode::Sig`] one only
/// signals (it may run ahead), a [`Mode::Wait`] one only waits, and a signal-and-wait one
/// that signalled already (split phase) only waits. With no registration it does nothing.
///
/// ```
/// use offshoot::phaser::{self, Mode, Phaser};
///
/// // Two tasks, each on both phasers, listing them in opposite orders: with `next` on
/// // each in turn they would wait for each other for ever.
/// let (ph1, ph2) = (Phaser::new(), Phaser::new());
/// let (mut a1, mut b1) = (ph1.register(Mode::SigWait), ph2.register(Mode::SigWait));
/// let (mut a2, mut b2) = (a1.child(Mode::SigWait), b1.child(Mode::SigWait));
/// offshoot::join(
///     || phaser::next_all(&mut [&mut a1, &mut b1]),
///     || phaser::next_all(&mut [&mut b2, &mut a2]),
/// );
/// assert_eq!((ph1.ended_phases(), ph2.ended_phases()), (1, 1));
/// ```
#[track_caller]
pub fn next_all(regs: &mut [&mut Registration]) {
    for r in regs.iter_mut().filter(|r| r.mode.signals()) {
        // A signal-and-wait member that signalled already does nothing here.
        r.signal();
    }
    for r in regs.iter_mut().filter(|r| r.mode.waits()) {
        // Signalled above: only the wait is left.
        r.wait();
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if !self.mode.signals() {
            return;
        }
        self.hand_in_partials();
        let woken = {
            let mut s = self.inner.lock();
            s.remove(self.sig);
            s.settle()
        };
        wake(woken);
    }
}
