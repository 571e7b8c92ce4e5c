//! The request handshake between an idle worker (the thief) and a busy one (the victim).
//!
//! Every worker owns one [`Mailbox`]. Its `attention` word is what the victim reads at each
//! poll point, so the poll fast path is one relaxed load and a branch. The word holds:
//!
//! * bits 0..32 — a pending request: `thief index + 1`, or 0 when there is none;
//! * [`CLOSED`] — the owner sleeps and answers no request: thieves must go elsewhere;
//! * [`STOP`] — some region on the owner's stack may have been cancelled: the owner must
//!   scan its frame chain at its next poll (see `worker/mod.rs`).
//! * [`EXPORT`] — a package request waits in the owner's export queue (`worker/export.rs`):
//!   another process asks for work, which only a frame that can package answers.
//!
//! `join` does not read this word on its commonest path; it compares its seed count with the
//! owner's limit word instead, which every write that makes this word news for the owner
//! (a request, a stop) raises afterwards (`limit_word.rs`).
//!
//! The thief's own mailbox carries the `reply` slot and the request's `target`.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file):
//! 1. A victim holds at most one request; a thief has at most one request outstanding.
//! 2. A request is either withdrawn by its thief (then the victim never sees it) or taken by
//!    the victim (then the thief's withdraw fails) — never both.
//! 3. A taken request is answered exactly once, with work or with [`REPLY_NOTHING`].
//! 4. The thief writes `reply = PENDING` and its target *before* publishing the request
//!    (release); the victim reads them *after* taking it (acquire). The victim's answer is
//!    published with release and read by the thief with acquire, so the job the answer
//!    points to is fully initialised when the thief sees it.

use crate::atomics::{AtomicU32, AtomicU64, Ordering};
use crate::limit_word::LimitLink;

/// Bits of `attention` holding `thief index + 1`.
pub(crate) const REQ_MASK: u64 = 0xFFFF_FFFF;
/// The owner sleeps: it accepts no request.
pub(crate) const CLOSED: u64 = 1 << 32;
/// The owner must scan its frames for a cancelled region.
pub(crate) const STOP: u64 = 1 << 33;
/// A package request waits in the owner's export queue.
pub(crate) const EXPORT: u64 = 1 << 34;

/// `reply` value while the answer has not come.
pub(crate) const REPLY_PENDING: u64 = 0;
/// `reply` value of a request answered with "nothing here".
pub(crate) const REPLY_NOTHING: u64 = 1;

/// What a request asks for. `Any` is an idle worker's request; the others restrict the
/// answer to work that the requester is waiting for (leapfrogging).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// Any work: the oldest offerable seed on the victim's stack.
    Any,
    /// Only work above the frame that runs this stolen job (the address of its header).
    Job(usize),
    /// Only work in the region of this finish (the address of its state).
    Finish(usize),
}

impl Target {
    fn encode(self) -> (u64, u64) {
        match self {
            Target::Any => (0, 0),
            Target::Job(p) => (1, p as u64),
            Target::Finish(p) => (2, p as u64),
        }
    }
    fn decode(kind: u64, ptr: u64) -> Target {
        match kind {
            1 => Target::Job(ptr as usize),
            2 => Target::Finish(ptr as usize),
            _ => Target::Any,
        }
    }
}

/// One worker's side of the handshake. See the module docs for the protocol.
pub(crate) struct Mailbox {
    attention: AtomicU64,
    reply: AtomicU64,
    /// Where the owner's outstanding request from an idle sleep waits: one more than the
    /// victim's index, or 0 (see `Worker::idle_sleep`). Written by the owner, or by the
    /// worker that wakes it and posts a request on its behalf (`Worker::wake_if_idle`), never
    /// both at once.
    posted_at: AtomicU64,
    target_kind: AtomicU64,
    target_ptr: AtomicU64,
    /// The owner's limit word (`limit_word.rs`), raised after every write that gives the
    /// owner something to look at: a request ([`Mailbox::send_request`]) or a stop
    /// ([`Mailbox::raise_stop`]).
    limit: LimitLink,
}

impl Mailbox {
    pub(crate) fn new() -> Mailbox {
        Mailbox {
            attention: AtomicU64::new(0),
            reply: AtomicU64::new(REPLY_PENDING),
            posted_at: AtomicU64::new(0),
            target_kind: AtomicU64::new(0),
            target_ptr: AtomicU64::new(0),
            limit: LimitLink::new(),
        }
    }

    /// Attaches the owner's limit word (see [`LimitLink::attach`]).
    ///
    /// # Safety
    /// As [`LimitLink::attach`]: the owner calls [`Mailbox::detach_limit`] before the word
    /// goes away.
    pub(crate) unsafe fn attach_limit(&self, word: &AtomicU32) {
        // SAFETY: per this function's contract.
        unsafe { self.limit.attach(word) }
    }

    /// Detaches the owner's limit word; no raise writes it once this returns.
    pub(crate) fn detach_limit(&self) {
        self.limit.detach();
    }

    /// The poll fast path: is there anything (a request or a stop) for the owner to look at?
    #[inline(always)]
    pub(crate) fn needs_attention(&self) -> bool {
        self.attention.load(Ordering::Relaxed) != 0
    }

    /// Whether a request waits in this mailbox.
    #[inline]
    pub(crate) fn has_request(&self) -> bool {
        self.attention.load(Ordering::Relaxed) & REQ_MASK != 0
    }

    // ----- thief side -------------------------------------------------------------------

    /// Sends a request from `self` (the thief, index `thief`) to `victim`. Returns `false`
    /// when the victim already holds a request or sleeps; the thief then tries elsewhere.
    pub(crate) fn send_request(&self, thief: usize, victim: &Mailbox, target: Target) -> bool {
        let (kind, ptr) = target.encode();
        self.reply.store(REPLY_PENDING, Ordering::Relaxed);
        self.target_kind.store(kind, Ordering::Relaxed);
        self.target_ptr.store(ptr, Ordering::Relaxed);
        let mut cur = victim.attention.load(Ordering::Relaxed);
        loop {
            if cur & (REQ_MASK | CLOSED) != 0 {
                return false;
            }
            match victim.attention.compare_exchange_weak(
                cur,
                cur | (thief as u64 + 1),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    // After the request is in the word: the victim's next `join` polls.
                    victim.limit.raise();
                    return true;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// Withdraws `thief`'s request from `victim`. `true`: withdrawn, no answer will come.
    /// `false`: the victim has taken it and will answer; the thief must wait for the reply.
    pub(crate) fn try_withdraw(thief: usize, victim: &Mailbox) -> bool {
        let mine = thief as u64 + 1;
        let mut cur = victim.attention.load(Ordering::Relaxed);
        loop {
            if cur & REQ_MASK != mine {
                return false;
            }
            match victim.attention.compare_exchange_weak(
                cur,
                cur & !REQ_MASK,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// The answer to this thief's outstanding request, if it came.
    #[inline]
    pub(crate) fn reply(&self) -> u64 {
        self.reply.load(Ordering::Acquire)
    }

    /// [`Mailbox::reply`] read by a thief about to sleep with its request posted: SeqCst,
    /// after its own SeqCst store of its sleep state, pairing with the victim's SeqCst
    /// answer and its read of that state (`answer_request`): either the thief sees the
    /// answer, or the victim sees the thief asleep and wakes it.
    pub(crate) fn reply_before_sleep(&self) -> u64 {
        self.reply.load(Ordering::SeqCst)
    }

    /// Records where this mailbox's owner has a request posted from an idle sleep (`None`:
    /// nowhere).
    pub(crate) fn set_posted_at(&self, victim: Option<usize>) {
        // Relaxed: read by the owner itself, or after the waker's release store of the
        // owner's sleep state (`Worker::wake_if_idle`), which orders it.
        self.posted_at
            .store(victim.map_or(0, |v| v as u64 + 1), Ordering::Relaxed);
    }

    /// Where this mailbox's owner has a request posted from an idle sleep.
    pub(crate) fn posted_at(&self) -> Option<usize> {
        // Relaxed: as in `set_posted_at`.
        match self.posted_at.load(Ordering::Relaxed) {
            0 => None,
            v => Some(v as usize - 1),
        }
    }

    /// Whether this mailbox's owner sleeps with its request posted (`posted_at`) and the
    /// victim has answered it with a job the owner has not yet taken: work that no other
    /// list shows, news for the deadlock watch (`Registry::has_news`). The owner clears
    /// `posted_at` only after it counts itself awake again (`Worker::idle_sleep`).
    pub(crate) fn holds_answered_job(&self) -> bool {
        // SeqCst for the reply: pairs with the victim's answer like `reply_before_sleep`;
        // `posted_at` was set before the owner counted itself idle (a SeqCst read-modify-
        // write the watch's SeqCst read of that count synchronises with).
        self.posted_at().is_some()
            && !matches!(
                self.reply.load(Ordering::SeqCst),
                REPLY_PENDING | REPLY_NOTHING
            )
    }

    // ----- victim side ------------------------------------------------------------------

    /// Takes the pending request, if any: the thief's index and what it asks for. The caller
    /// must answer it with [`Mailbox::answer`] on the thief's mailbox.
    pub(crate) fn take_request(
        &self,
        thieves: impl Fn(usize) -> *const Mailbox,
    ) -> Option<(usize, Target)> {
        if self.attention.load(Ordering::Relaxed) & REQ_MASK == 0 {
            return None;
        }
        let old = self.attention.fetch_and(!REQ_MASK, Ordering::Acquire);
        let req = old & REQ_MASK;
        if req == 0 {
            return None; // withdrawn in between
        }
        let thief = (req - 1) as usize;
        // SAFETY: `thieves` maps a worker index of this pool to its mailbox, which lives as
        // long as the pool's registry, which outlives every worker that polls.
        let tm = unsafe { &*thieves(thief) };
        let target = Target::decode(
            tm.target_kind.load(Ordering::Relaxed),
            tm.target_ptr.load(Ordering::Relaxed),
        );
        Some((thief, target))
    }

    /// Answers this mailbox's owner (a thief) with `value`: a job address or
    /// [`REPLY_NOTHING`].
    pub(crate) fn answer(&self, value: u64) {
        debug_assert_ne!(value, REPLY_PENDING);
        // SeqCst (it is also a release): the waker's side of the sleep handshake with a
        // thief that sleeps with its request posted (`reply_before_sleep`).
        self.reply.store(value, Ordering::SeqCst);
    }

    /// Closes the mailbox before the owner sleeps. Fails (returns `false`) while a request
    /// is pending: the owner must answer it first.
    pub(crate) fn close(&self) -> bool {
        let mut cur = self.attention.load(Ordering::Relaxed);
        loop {
            if cur & REQ_MASK != 0 {
                return false;
            }
            // SeqCst: step 1 of the sleeper's side of the handshake (worker/sleep.rs, "The
            // protocol"). Against thieves the CAS on this one word decides alone (a close and a
            // request cannot both succeed); SeqCst keeps it in the total order before the
            // sleeper's SeqCst store of `sleep_state` and its reads of the news
            // (`stop_raised`).
            match self.attention.compare_exchange_weak(
                cur,
                cur | CLOSED,
                Ordering::SeqCst,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Reopens the mailbox after sleeping.
    pub(crate) fn open(&self) {
        // SeqCst: as `close`; thieves' CASes on this one word see the reopening in its
        // modification order, and no other variable pairs with it (the owner is already
        // `RUNNING`). Kept to match `close`.
        self.attention.fetch_and(!CLOSED, Ordering::SeqCst);
    }

    /// Asks the owner to scan for a cancelled region at its next poll.
    pub(crate) fn raise_stop(&self) {
        // SeqCst: news for a sleeping owner (worker/sleep.rs, "The protocol").
        self.attention.fetch_or(STOP, Ordering::SeqCst);
        // After the bit is in the word: the owner's next `join` polls.
        self.limit.raise();
    }

    /// Whether the stop bit is set.
    pub(crate) fn stop_raised(&self) -> bool {
        // SeqCst: the sleeper's read of the stop news after its SeqCst store of `sleep_state`;
        // pairs with `raise_stop`'s SeqCst `fetch_or` before the raiser's `unpark_if_sleeping`
        // (worker/sleep.rs, "The protocol").
        self.attention.load(Ordering::SeqCst) & STOP != 0
    }

    /// Tells the owner that a package request waits in its export queue (pushed before this
    /// call). The caller then wakes the owner if it sleeps (`unpark_if_sleeping`).
    pub(crate) fn raise_export(&self) {
        // SeqCst: news for a sleeping owner, as `raise_stop` (worker/sleep.rs, "The
        // protocol"); it is also a release of the queue's push, though the queue's own lock
        // orders that.
        self.attention.fetch_or(EXPORT, Ordering::SeqCst);
        self.limit.raise();
    }

    /// Whether the export bit is set (the sleeper's read of that news).
    pub(crate) fn export_raised(&self) -> bool {
        // SeqCst: pairs with `raise_export`'s `fetch_or`, as `stop_raised` with `raise_stop`.
        self.attention.load(Ordering::SeqCst) & EXPORT != 0
    }

    /// Clears the export bit; returns whether it was set. The caller then drains its export
    /// queue (a request pushed after the clear raises the bit again).
    #[inline]
    pub(crate) fn take_export(&self) -> bool {
        if self.attention.load(Ordering::Relaxed) & EXPORT == 0 {
            return false;
        }
        self.attention.fetch_and(!EXPORT, Ordering::AcqRel) & EXPORT != 0
    }

    /// Clears the stop bit; returns whether it was set. The caller then scans its frames
    /// and raises the bit again if a cancelled region remains.
    pub(crate) fn take_stop(&self) -> bool {
        if self.attention.load(Ordering::Relaxed) & STOP == 0 {
            return false;
        }
        self.attention.fetch_and(!STOP, Ordering::AcqRel) & STOP != 0
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the handshake: run with `scripts/loom.sh`.
    use super::*;
    use crate::atomics::Permit;
    use loom::sync::Arc;
    use loom::thread;

    const JOB: u64 = 0x1000;

    fn mailboxes(n: usize) -> Arc<Vec<Mailbox>> {
        Arc::new((0..n).map(|_| Mailbox::new()).collect())
    }

    /// A thief that sends one request and gives up after `patience` looks at its reply.
    /// Returns Some(reply) if answered, None if withdrawn or refused.
    fn thief(mb: &[Mailbox], me: usize, victim: usize, patience: usize) -> Option<u64> {
        if !mb[me].send_request(me, &mb[victim], Target::Any) {
            return None;
        }
        for _ in 0..patience {
            let r = mb[me].reply();
            if r != REPLY_PENDING {
                return Some(r);
            }
            thread::yield_now();
        }
        settle(mb, me, victim)
    }

    /// The thief's end of an outstanding request after it wakes (`settle_request`):
    /// withdraw it, or wait for the answer the victim owes.
    fn settle(mb: &[Mailbox], me: usize, victim: usize) -> Option<u64> {
        if mb[me].reply() == REPLY_PENDING && Mailbox::try_withdraw(me, &mb[victim]) {
            return None;
        }
        loop {
            let r = mb[me].reply();
            if r != REPLY_PENDING {
                return Some(r);
            }
            thread::yield_now();
        }
    }

    /// Two thieves race for one victim that polls twice and has one job to give.
    /// Every taken request is answered exactly once; the job goes to at most one thief;
    /// a withdrawn request is never answered.
    #[test]
    fn two_thieves_one_victim() {
        loom::model(|| {
            let mb = mailboxes(3);
            let mut hs = Vec::new();
            for me in 1..3 {
                let mb = mb.clone();
                hs.push(thread::spawn(move || thief(&mb, me, 0, 1)));
            }
            let mut job_left = true;
            let mut answered = 0;
            for _ in 0..2 {
                if let Some((t, target)) = mb[0].take_request(|i| &mb[i] as *const Mailbox) {
                    assert_eq!(target, Target::Any);
                    let v = if job_left { JOB } else { REPLY_NOTHING };
                    job_left = false;
                    mb[t].answer(v);
                    answered += 1;
                }
                thread::yield_now();
            }
            // The victim now goes to sleep: requests still pending get answered first.
            while !mb[0].close() {
                // The request may be withdrawn between the failed close and the take.
                if let Some((t, _)) = mb[0].take_request(|i| &mb[i] as *const Mailbox) {
                    mb[t].answer(REPLY_NOTHING);
                    answered += 1;
                }
            }
            let got: Vec<Option<u64>> = hs.into_iter().map(|h| h.join().unwrap()).collect();
            let jobs = got.iter().filter(|r| **r == Some(JOB)).count();
            let replies = got.iter().filter(|r| r.is_some()).count();
            assert!(jobs <= 1);
            assert_eq!(
                replies, answered,
                "every taken request answered exactly once"
            );
            // After closing, no request can get in.
            assert!(!mb[1].send_request(1, &mb[0], Target::Any));
        });
    }

    /// A stop raised while a thief requests and withdraws is seen by the owner.
    #[test]
    fn stop_bit_is_not_lost() {
        loom::model(|| {
            let mb = mailboxes(2);
            let done = Arc::new(loom::sync::atomic::AtomicBool::new(false));
            let (m2, d2) = (mb.clone(), done.clone());
            let h = thread::spawn(move || {
                let _ = thief(&m2, 1, 0, 0);
                d2.store(true, Ordering::SeqCst);
            });
            mb[0].raise_stop();
            let mut seen_stop = false;
            while !(seen_stop && done.load(Ordering::SeqCst)) {
                if let Some((t, _)) = mb[0].take_request(|i| &mb[i] as *const Mailbox) {
                    mb[t].answer(REPLY_NOTHING);
                }
                seen_stop |= mb[0].take_stop();
                thread::yield_now();
            }
            h.join().unwrap();
            assert!(!mb[0].has_request());
        });
    }

    const RUNNING: u8 = 0;
    const IDLE_SLEEP: u8 = 1;
    const WAKING: u8 = 3;

    /// A thief sleeps with its request posted (`Worker::idle_sleep`) while its victim runs
    /// and polls until it has answered (`answer_request` then wakes a sleeping thief). The
    /// thief is never left asleep with its answer in its slot: a lost wake-up leaves it
    /// parked for good, which loom reports as a deadlock. As in `ready_stack.rs`'s model,
    /// a `SeqCst` fence stands between each side's store and load, since loom treats
    /// `SeqCst` accesses as `AcqRel`.
    #[test]
    fn a_thief_asleep_with_its_request_posted_is_woken_by_the_answer() {
        loom::model(|| {
            let mb = mailboxes(2);
            let state = Arc::new(loom::sync::atomic::AtomicU8::new(RUNNING));
            let permit = Arc::new(Permit::default());
            let (m2, s2, p2) = (mb.clone(), state.clone(), permit.clone());
            let thief = thread::spawn(move || {
                assert!(m2[1].send_request(1, &m2[0], Target::Any));
                s2.store(IDLE_SLEEP, Ordering::SeqCst);
                loom::sync::atomic::fence(Ordering::SeqCst);
                if m2[1].reply_before_sleep() == REPLY_PENDING {
                    p2.park();
                }
                s2.store(RUNNING, Ordering::SeqCst);
                settle(&m2, 1, 0)
            });
            // The victim polls until it has answered the request (it runs, so it polls).
            loop {
                if let Some((t, _)) = mb[0].take_request(|i| &mb[i] as *const Mailbox) {
                    mb[t].answer(JOB);
                    loom::sync::atomic::fence(Ordering::SeqCst);
                    if state.load(Ordering::SeqCst) != RUNNING {
                        permit.unpark();
                    }
                    break;
                }
                thread::yield_now();
            }
            assert_eq!(thief.join().unwrap(), Some(JOB));
        });
    }

    /// The deadlock watch against a thief that falls asleep with its request posted while
    /// its victim answers it with a job and then goes idle (`Worker::idle_sleep`,
    /// `answer_request`, `deadlock::watch`). The thief counts itself idle before it looks
    /// at its reply, and awake again (bumping the generation) before it clears `posted_at`
    /// and takes the job. A check the victim then runs — the count of awake workers, the
    /// news, the count again — never finds every worker idle, nothing news, and the count
    /// unchanged while the job waits in the thief's slot: that would report the task
    /// waiting for the job as stuck (it did, before the watch saw the answered request).
    #[test]
    fn a_job_in_a_sleeping_thiefs_reply_slot_is_news_for_the_watch() {
        use loom::sync::atomic::{fence, AtomicU64, AtomicU8};
        const ONE: u64 = 1;
        const GENERATION: u64 = 1 << 32;
        loom::model(|| {
            let mb = mailboxes(2);
            let state = Arc::new(AtomicU8::new(RUNNING));
            let awake = Arc::new(AtomicU64::new(2 * ONE));
            let permit = Arc::new(Permit::default());
            let (m2, s2, a2, p2) = (mb.clone(), state.clone(), awake.clone(), permit.clone());
            let thief = thread::spawn(move || {
                assert!(m2[1].send_request(1, &m2[0], Target::Any));
                m2[1].set_posted_at(Some(0));
                s2.store(IDLE_SLEEP, Ordering::SeqCst);
                fence(Ordering::SeqCst);
                a2.fetch_sub(ONE, Ordering::SeqCst);
                if m2[1].reply_before_sleep() == REPLY_PENDING {
                    p2.park();
                }
                s2.store(RUNNING, Ordering::SeqCst);
                a2.fetch_add(GENERATION + ONE, Ordering::SeqCst);
                m2[1].set_posted_at(None);
                settle(&m2, 1, 0)
            });
            loop {
                if let Some((t, _)) = mb[0].take_request(|i| &mb[i] as *const Mailbox) {
                    mb[t].answer(JOB);
                    fence(Ordering::SeqCst);
                    if state.load(Ordering::SeqCst) != RUNNING {
                        permit.unpark();
                    }
                    break;
                }
                thread::yield_now();
            }
            // The victim goes idle and checks, as `deadlock::watch` does.
            awake.fetch_sub(ONE, Ordering::SeqCst);
            let before = awake.load(Ordering::SeqCst);
            if before & (GENERATION - 1) == 0 {
                let news = mb[1].holds_answered_job();
                if awake.load(Ordering::SeqCst) == before {
                    assert!(
                        news,
                        "every worker idle, and the job in a reply slot unseen"
                    );
                }
            }
            assert_eq!(thief.join().unwrap(), Some(JOB));
        });
    }

    /// A worker that takes a job wakes a sleeper and posts a request to itself on the
    /// sleeper's behalf (`Worker::wake_if_idle`), while the sleeper may be waking by itself
    /// (`idle_sleep`'s CAS out of `IDLE_SLEEP`, waiting out `WAKING`). The request is
    /// posted only for a sleeper the waker claimed, the sleeper sees it, and the job the
    /// waker then hands out at its poll reaches the sleeper; a request the sleeper withdrew
    /// is never answered.
    #[test]
    fn a_request_posted_for_a_woken_sleeper_reaches_it() {
        loom::model(|| {
            let mb = mailboxes(2);
            let state = Arc::new(loom::sync::atomic::AtomicU8::new(IDLE_SLEEP));
            let posted = Arc::new(loom::sync::atomic::AtomicBool::new(false));
            let (m2, s2, p2) = (mb.clone(), state.clone(), posted.clone());
            let sleeper = thread::spawn(move || {
                // Awake, by the waker or by a timeout: back to RUNNING unless claimed.
                while let Err(WAKING) =
                    s2.compare_exchange(IDLE_SLEEP, RUNNING, Ordering::SeqCst, Ordering::Acquire)
                {
                    thread::yield_now();
                }
                if p2.load(Ordering::Relaxed) {
                    settle(&m2, 1, 0)
                } else {
                    None
                }
            });
            // The waker (worker 0), about to run a job.
            let mut handed = false;
            if state
                .compare_exchange(IDLE_SLEEP, WAKING, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                if mb[1].send_request(1, &mb[0], Target::Any) {
                    posted.store(true, Ordering::Relaxed);
                }
                state.store(RUNNING, Ordering::SeqCst);
            }
            // The job's first join polls.
            if let Some((t, _)) = mb[0].take_request(|i| &mb[i] as *const Mailbox) {
                mb[t].answer(JOB);
                handed = true;
            }
            let got = sleeper.join().unwrap();
            assert_eq!(
                got == Some(JOB),
                handed,
                "a handed-out job reached the sleeper"
            );
            assert!(!mb[0].has_request(), "no request left behind");
        });
    }

    /// `join` reads the mailbox only after its limit word was raised (`limit_word.rs`,
    /// invariant 2): a request or a stop that comes while the owner re-arms its word is
    /// either seen by the owner's read right after the re-arm, or leaves the word raised,
    /// so the next `join` polls. Never both missed.
    #[test]
    fn a_request_or_stop_during_a_rearm_is_seen_or_raises_the_limit() {
        use crate::limit_word::{rearm, RAISED};
        for stop in [false, true] {
            loom::model(move || {
                let mb = mailboxes(2);
                let word = Arc::new(AtomicU32::new(RAISED));
                // SAFETY: `word` outlives the model; the owner detaches it at the end.
                unsafe { mb[0].attach_limit(&word) };
                let m2 = mb.clone();
                let h = thread::spawn(move || {
                    if stop {
                        m2[0].raise_stop();
                    } else {
                        assert!(m2[1].send_request(1, &m2[0], Target::Any));
                    }
                });
                // The owner's `join_raised`: re-arm, then poll.
                rearm(&word, 8);
                let seen = mb[0].needs_attention();
                h.join().unwrap();
                assert!(
                    seen || word.load(Ordering::Relaxed) == RAISED,
                    "the owner missed the news and its limit word is lowered"
                );
                mb[0].detach_limit();
            });
        }
    }
}
