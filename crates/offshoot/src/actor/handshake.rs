//! An actor's schedule word: who may run its handler, and the idle/scheduled handshake
//! between senders and the drain task (model-checked by the loom tests at the bottom).
//!
//! The word is `IDLE`, `SCHEDULED` or `EXITED`. Holding `SCHEDULED` is a **token**: its
//! holder (one drain task, in flight or about to be spawned) is the only code that touches
//! the actor's state, its enabled mask and its reservation. Beside the word, `ready` is the
//! mask of mailboxes the drain would read (enabled and guarded), written by the token
//! holder before it gives the token back, and `stop` a request to exit once the readable
//! mailboxes are empty.
//!
//! Invariants:
//! * `IDLE → SCHEDULED` only by a successful compare-and-swap (a sender, a stop request, or
//!   the drain taking its token back), so at most one drain is in flight per actor.
//! * `SCHEDULED → IDLE` and `SCHEDULED → EXITED` only by the token holder; `EXITED` is final.
//! * No lost wake-up: a message pushed into a mailbox in `ready` while the actor is idle is
//!   seen by its sender (which then schedules a drain) or by the drain's re-check after it
//!   went idle (which then takes the token back) — possibly both, and then one of the two
//!   compare-and-swaps wins. The two sides are a Dekker pair: *push; fence; load the word*
//!   against *store the word; fence; look at the mailboxes*, the `SeqCst` fences ordering
//!   them (whichever fence comes first in their total order, the other side's load after its
//!   own fence sees what was written before the first).
//! * No message sent before the end is dropped by it: a drain that finds nothing to read
//!   and sees a stop request or no handle left looks at the mailboxes once more before it
//!   exits (`on_empty`). Its pop may have come before a message that a sender pushed right
//!   before it asked to stop or dropped the last handle; the acquire that reads the request
//!   (the handle count) orders that push before the second look. No handle left is final
//!   while the token is held (only the handler makes new handles), so a message found then
//!   is processed, and nothing can arrive after the second look finds none.
//! * No message stranded after exit: the same pair between *push; fence; load* and the
//!   exit's *store `EXITED`; fence; sweep*: the sender sees `EXITED` (and sweeps its own
//!   mailbox) or the exit's sweep sees the message (both may pop; each message is popped
//!   once, the queues being multi-consumer).

use crate::atomics::{fence, AtomicU64, AtomicU8, Ordering};

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const EXITED: u8 = 2;

/// What the token holder does after its pop found nothing readable (`Schedule::on_empty`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Empty {
    /// Exit: a stop was requested or no handle is left, and nothing readable is queued.
    Exit,
    /// Read again: a message arrived (or the token was taken back after going idle).
    Again,
    /// The token was given back: the caller holds nothing and must not touch the actor.
    Released,
}

/// What a sender must do after its push.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// Nothing: a drain is in flight, or the mailbox is not readable now.
    Nothing,
    /// The sender took the token: it must spawn the drain.
    Spawn,
    /// The actor exited: the sender must sweep the mailbox it pushed into.
    Exited,
}

pub(crate) struct Schedule {
    state: AtomicU8,
    stop: AtomicU8,
    ready: AtomicU64,
}

impl Schedule {
    /// An idle actor whose readable mailboxes are `ready`.
    pub(crate) fn new(ready: u64) -> Schedule {
        Schedule {
            state: AtomicU8::new(IDLE),
            stop: AtomicU8::new(0),
            ready: AtomicU64::new(ready),
        }
    }

    /// A starting actor whose starter holds the token (`Engine::start_with`): it gives it
    /// back as a drain does (`on_empty`) once the state exists.
    pub(crate) fn held() -> Schedule {
        Schedule {
            state: AtomicU8::new(SCHEDULED),
            stop: AtomicU8::new(0),
            ready: AtomicU64::new(0),
        }
    }

    /// Whether the actor exited. Acquire: pairs with the release store in `exit`, so a
    /// caller that sees `true` also sees what the actor did before it exited.
    pub(crate) fn exited(&self) -> bool {
        self.state.load(Ordering::Acquire) == EXITED
    }

    /// Whether the actor is idle (no drain in flight, not exited). For the deadlock watch,
    /// which reads it when no worker is awake.
    pub(crate) fn is_idle(&self) -> bool {
        self.state.load(Ordering::Acquire) == IDLE
    }

    /// The readable mailboxes the last drain published (for reports).
    pub(crate) fn ready_mask(&self) -> u64 {
        self.ready.load(Ordering::Relaxed)
    }

    /// Whether a stop was requested (read by the token holder). Acquire: pairs with the
    /// release store in `request_stop`, so a message its caller sent before is visible.
    pub(crate) fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Acquire) != 0
    }

    /// The token holder found no message in the mailboxes it reads (`ready`): exit (a stop
    /// was requested or `unreferenced()`, no handle is left, and a second look with
    /// `pending` finds nothing — see the module header), or go idle (`idle`).
    /// `pending(mask)` says whether a mailbox in `mask` holds a message.
    pub(crate) fn on_empty(
        &self,
        ready: u64,
        unreferenced: impl Fn() -> bool,
        pending: impl Fn(u64) -> bool,
    ) -> Empty {
        if self.stop_requested() || unreferenced() {
            // The pop that found nothing may have run before a push whose sender then
            // asked to stop or dropped the last handle: the acquires above order that push
            // before this look.
            return if pending(ready) {
                Empty::Again
            } else {
                Empty::Exit
            };
        }
        if self.idle(ready, |r| unreferenced() || pending(r)) {
            Empty::Again
        } else {
            Empty::Released
        }
    }

    /// A sender's half, after it pushed into the mailbox(es) `bits`.
    pub(crate) fn notify(&self, bits: u64) -> Wake {
        // Pairs with the fences in `idle` and `exit` (see the module header): after it,
        // either this load sees `IDLE`/`EXITED` and the `ready` written before that store,
        // or the drain's re-check (the exit's sweep) sees the push.
        fence(Ordering::SeqCst);
        match self.state.load(Ordering::Relaxed) {
            EXITED => Wake::Exited,
            SCHEDULED => Wake::Nothing,
            _ => {
                if self.ready.load(Ordering::Relaxed) & bits == 0 {
                    return Wake::Nothing;
                }
                self.take_token()
            }
        }
    }

    /// Asks the actor to exit once its readable mailboxes are empty. Returns `Spawn` when
    /// the caller took the token (the actor was idle) and must spawn the drain that exits.
    pub(crate) fn request_stop(&self) -> Wake {
        // Release: pairs with the acquire in `stop_requested`.
        self.stop.store(1, Ordering::Release);
        self.poke()
    }

    /// Wakes an idle actor to re-check its exit conditions (its last handle was dropped,
    /// which the caller wrote before). Returns `Spawn` when the caller took the token.
    pub(crate) fn poke(&self) -> Wake {
        // Pairs with the fence in `idle`, as in `notify`: the drain's re-check sees what
        // the caller wrote before (the request, the handle count), or this load sees `IDLE`.
        fence(Ordering::SeqCst);
        match self.state.load(Ordering::Relaxed) {
            IDLE => self.take_token(),
            EXITED => Wake::Exited,
            _ => Wake::Nothing,
        }
    }

    fn take_token(&self) -> Wake {
        // Acquire on success: pairs with the release store of `IDLE` in `idle`, so the
        // drain spawned next sees the actor's state as the previous drain left it (the
        // spawn itself carries that on to the drain's thread).
        match self
            .state
            .compare_exchange(IDLE, SCHEDULED, Ordering::Acquire, Ordering::Relaxed)
        {
            Ok(_) => Wake::Spawn,
            // Another sender (or the drain) took it; or the actor exited in between, and
            // then its sweep comes after this push (its fence is after ours, since our load
            // did not see `EXITED`), so nothing is stranded.
            Err(_) => Wake::Nothing,
        }
    }

    /// The token holder's half when it found nothing to read: publishes `ready` and gives
    /// the token back, then re-checks (`pending(ready)`: is a mailbox in `ready` non-empty,
    /// or has the last handle gone? and the stop request). Returns `true` if it took the token back and must drain on;
    /// `false` means it holds nothing and must not touch the actor any more.
    fn idle(&self, ready: u64, pending: impl Fn(u64) -> bool) -> bool {
        // Relaxed: published by the fence below, for `notify` (see there).
        self.ready.store(ready, Ordering::Relaxed);
        // Release: pairs with the acquire of the next `take_token`.
        self.state.store(IDLE, Ordering::Release);
        // Pairs with the fence in `notify` / `request_stop` (the module header's Dekker
        // pair): a push or stop that this re-check misses sees `IDLE` and `ready`.
        fence(Ordering::SeqCst);
        if !self.stop_requested() && !pending(ready) {
            return false;
        }
        self.take_token() == Wake::Spawn
    }

    /// The token holder exits. The caller sweeps every mailbox afterwards.
    pub(crate) fn exit(&self) {
        // Release: pairs with the acquire in `exited`.
        self.state.store(EXITED, Ordering::Release);
        // Pairs with the fence in `notify`: a push that the caller's sweep misses sees
        // `EXITED`, and its sender sweeps it.
        fence(Ordering::SeqCst);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The handshake against a model mailbox (a count of messages): run with
    //! `scripts/loom.sh`. A "drain" is a loom thread that holds the token; every pushed
    //! message must be processed by a drain or swept after exit, never both, never lost,
    //! and no two drains may overlap.
    use super::{Empty, Schedule, Wake};
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    struct Model {
        sched: Schedule,
        queue: AtomicUsize,
        processed: AtomicUsize,
        swept: AtomicUsize,
        running: AtomicUsize,
        /// Live handles.
        refs: AtomicUsize,
    }

    impl Model {
        fn pop(&self) -> bool {
            let mut n = self.queue.load(Ordering::Acquire);
            while n > 0 {
                match self
                    .queue
                    .compare_exchange(n, n - 1, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => return true,
                    Err(m) => n = m,
                }
            }
            false
        }

        /// A drain: processes up to `exit_after` messages, then exits if asked to, or
        /// once no handle is left (`refs`), as the engine's drain does (`on_empty`).
        fn drain(&self, exit_after: Option<usize>) {
            assert_eq!(self.running.fetch_add(1, Ordering::SeqCst), 0, "two drains");
            loop {
                while self.pop() {
                    let done = self.processed.fetch_add(1, Ordering::SeqCst) + 1;
                    if exit_after == Some(done) {
                        self.exit();
                        return;
                    }
                }
                // Not counted while the token may be given back (another drain may run).
                self.running.fetch_sub(1, Ordering::SeqCst);
                let next = self.sched.on_empty(
                    1,
                    || self.refs.load(Ordering::Acquire) == 0,
                    |_| self.queue.load(Ordering::Acquire) > 0,
                );
                if next == Empty::Released {
                    return;
                }
                assert_eq!(self.running.fetch_add(1, Ordering::SeqCst), 0, "two drains");
                if next == Empty::Exit {
                    self.exit();
                    return;
                }
            }
        }

        /// Drops a handle; after the last one, an idle actor is poked to exit.
        fn release_handle(&self) {
            if self.refs.fetch_sub(1, Ordering::AcqRel) == 1 && self.sched.poke() == Wake::Spawn {
                self.drain(None);
            }
        }

        fn exit(&self) {
            self.sched.exit();
            while self.pop() {
                self.swept.fetch_add(1, Ordering::SeqCst);
            }
            self.running.fetch_sub(1, Ordering::SeqCst);
        }

        /// A sender: push, notify, and run the drain itself when it took the token.
        fn send(&self, exit_after: Option<usize>) {
            self.queue.fetch_add(1, Ordering::Release);
            match self.sched.notify(1) {
                Wake::Spawn => self.drain(exit_after),
                Wake::Exited => {
                    while self.pop() {
                        self.swept.fetch_add(1, Ordering::SeqCst);
                    }
                }
                Wake::Nothing => {}
            }
        }
    }

    fn model() -> Arc<Model> {
        Arc::new(Model {
            sched: Schedule::new(1),
            queue: AtomicUsize::new(0),
            processed: AtomicUsize::new(0),
            swept: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            refs: AtomicUsize::new(1),
        })
    }

    /// Two senders race one drain going idle: both messages are processed (a lost
    /// wake-up would leave one in the queue at the end).
    #[test]
    fn two_senders_no_lost_wakeup() {
        loom::model(|| {
            let m = model();
            let m2 = m.clone();
            let t = thread::spawn(move || m2.send(None));
            m.send(None);
            t.join().unwrap();
            assert_eq!(m.processed.load(Ordering::SeqCst), 2);
            assert_eq!(m.queue.load(Ordering::SeqCst), 0);
        });
    }

    /// The actor exits after its first message while another sender races it: the second
    /// message is processed or swept, exactly once, and nothing stays queued.
    #[test]
    fn exit_races_a_send() {
        loom::model(|| {
            let m = model();
            let m2 = m.clone();
            let t = thread::spawn(move || m2.send(Some(1)));
            m.send(Some(1));
            t.join().unwrap();
            assert_eq!(m.processed.load(Ordering::SeqCst), 1);
            assert_eq!(m.swept.load(Ordering::SeqCst), 1);
            assert_eq!(m.queue.load(Ordering::SeqCst), 0);
        });
    }

    /// A stop request races a send: the actor ends exited, and the message was processed
    /// or swept.
    #[test]
    fn stop_races_a_send() {
        loom::model(|| {
            let m = model();
            let m2 = m.clone();
            let t = thread::spawn(move || m2.send(None));
            if m.sched.request_stop() == Wake::Spawn {
                m.drain(None);
            }
            t.join().unwrap();
            assert!(m.sched.exited());
            let (p, s) = (
                m.processed.load(Ordering::SeqCst),
                m.swept.load(Ordering::SeqCst),
            );
            assert_eq!(p + s, 1);
            assert_eq!(m.queue.load(Ordering::SeqCst), 0);
        });
    }

    /// A drain in flight (its token taken by an earlier wake) finds the mailbox empty
    /// while another thread sends one message and then ends the actor with `then`: the
    /// message sent before the end is processed, never swept by the exit.
    fn a_send_then(then: fn(&Model)) {
        loom::model(move || {
            let m = model();
            assert_eq!(m.sched.poke(), Wake::Spawn);
            let m2 = m.clone();
            let t = thread::spawn(move || {
                m2.send(None);
                then(&m2);
            });
            m.drain(None);
            t.join().unwrap();
            assert!(m.sched.exited());
            assert_eq!(m.processed.load(Ordering::SeqCst), 1);
            assert_eq!(m.swept.load(Ordering::SeqCst), 0);
        });
    }

    /// The sender drops the last handle after its send (pingpong lost its last reply
    /// this way: the reply's sender dropped the asker's last handle).
    #[test]
    fn last_handle_dropped_after_a_send() {
        a_send_then(Model::release_handle);
    }

    /// The sender asks the actor to stop after its send.
    #[test]
    fn stop_requested_after_a_send() {
        a_send_then(|m| {
            if m.sched.request_stop() == Wake::Spawn {
                m.drain(None);
            }
        });
    }
}
