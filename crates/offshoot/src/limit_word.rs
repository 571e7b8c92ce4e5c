//! The limit word: the thread-local number that `join` compares its seed count with, which
//! other threads *raise* to send that worker's next `join` through its poll.
//!
//! `join`'s commonest path (the worker already holds `SEED_LIMIT` unstolen seeds: plant
//! none) must be as cheap as a call. Its test is one compare of two words of the same
//! thread-local, the seed count and this limit: count ≥ limit runs the two sides as plain
//! calls, with no poll. The poll still happens, because every write that gives the owner
//! something to look at (a thief's request, a stop; `mailbox.rs`) also raises the limit to
//! [`RAISED`], above every count, so the owner's next `join` fails the compare and takes the
//! path that polls. There it re-arms the limit ([`rearm`], then reads the mailbox), and the
//! joins after that are plain calls again. A raised limit that nobody needed costs one trip
//! through that path.
//!
//! The word lives in the worker thread's thread-local storage, which is freed when the
//! thread exits, and the threads that raise it hold only the worker. [`LimitLink`] (in the
//! worker's mailbox) is how they reach it safely.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file and in
//! `mailbox.rs`):
//! 1. **No write after detach.** A raise writes the word only while it is attached: the
//!    owner's [`LimitLink::detach`] returns only once no raise can still write it. (A
//!    raise counts itself in `writers` before it reads the word's address, and uncounts
//!    itself after its write; detach clears the address, then waits for the count to drain.
//!    A `SeqCst` fence on each side, between its write and its read, orders the two: either
//!    the raise sees the cleared address, or detach sees the raise counted.)
//! 2. **No lost raise.** Either the owner's re-arm is followed by a read of the mailbox that
//!    sees what the raiser wrote before raising, or the raise comes after the re-arm in the
//!    word's modification order (the word stays [`RAISED`]). The raiser's write of the
//!    mailbox, a `SeqCst` fence, its raise; the owner's re-arm, a `SeqCst` fence, its read
//!    of the mailbox.
//! 3. Only the owner lowers the word (re-arms it), and only to `SEED_LIMIT` while its seed
//!    count carries no mark (`worker/mod.rs`); any other change of the count (a fiber
//!    switch, a stolen job's own count, an `isolated` section) raises the word, so a stale
//!    limit can only send a `join` through the polling path, never past a poll or a mark.

use crate::atomics::{fence, AtomicPtr, AtomicU32, Ordering};

/// The value of a raised limit: above every seed count and every mark, so the next `join`
/// takes its polling path.
pub(crate) const RAISED: u32 = u32::MAX;

/// A word that a [`LimitLink`] raises: the thread-local limit (an `AtomicU32`), or a loom
/// model's stand-in.
pub(crate) trait LimitWord {
    /// Sets the word to [`RAISED`].
    fn raise(&self);
}

impl LimitWord for AtomicU32 {
    #[inline]
    fn raise(&self) {
        // Relaxed: ordered by the fences of the handshake (module invariant 2).
        self.store(RAISED, Ordering::Relaxed);
    }
}

/// Where a worker's limit word lives while its thread runs the worker, and who is writing
/// it. Owned by the worker's mailbox; see the module docs.
pub(crate) struct LimitLink<W: LimitWord = AtomicU32> {
    /// The attached word, or null.
    at: AtomicPtr<W>,
    /// Raises between their count and their uncount (invariant 1).
    writers: AtomicU32,
}

impl<W: LimitWord> LimitLink<W> {
    pub(crate) fn new() -> Self {
        LimitLink {
            at: AtomicPtr::new(std::ptr::null_mut()),
            writers: AtomicU32::new(0),
        }
    }

    /// Attaches the owner's word; raises from now on write it.
    ///
    /// # Safety
    /// `word` stays valid until [`LimitLink::detach`] has returned, which the owner calls
    /// before the word's storage goes away (its thread exits); at most one word is attached
    /// at a time.
    pub(crate) unsafe fn attach(&self, word: &W) {
        // Release: a raise that loads the address (acquire, via its fence) sees the word
        // initialised.
        self.at.store(word as *const W as *mut W, Ordering::Release);
    }

    /// Detaches the word: once this returns, no raise writes it any more (invariant 1).
    /// Owner only.
    pub(crate) fn detach(&self) {
        self.at.store(std::ptr::null_mut(), Ordering::Relaxed);
        // SeqCst: pairs with the fence in `raise` (invariant 1).
        fence(Ordering::SeqCst);
        // Acquire: pairs with each raise's release uncount, so its write happens before the
        // word's storage is reused.
        while self.writers.load(Ordering::Acquire) != 0 {
            // Rare and short: a raise in flight is a few instructions.
            crate::atomics::thread::yield_now();
        }
    }

    /// Raises the attached word, if any. Call it after the write that gives the owner
    /// something to look at (invariant 2).
    #[inline]
    pub(crate) fn raise(&self) {
        self.writers.fetch_add(1, Ordering::Relaxed);
        // SeqCst: orders the caller's write of the mailbox and the count above before the
        // read of the address and the raise (invariants 1 and 2); pairs with the fences in
        // `detach` and `rearm`.
        fence(Ordering::SeqCst);
        let p = self.at.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: the word is attached and, while this raise is counted, cannot be
            // detached and freed (invariant 1; `attach`'s contract).
            unsafe { (*p).raise() };
        }
        // Release: pairs with `detach`'s acquire load.
        self.writers.fetch_sub(1, Ordering::Release);
    }
}

/// Re-arms a limit word at `limit` (owner only), then fences: the caller reads its mailbox
/// next, and sees every request or stop whose raise came before this re-arm
/// (invariant 2).
#[inline]
pub(crate) fn rearm(word: &AtomicU32, limit: u32) {
    word.store(limit, Ordering::Relaxed);
    // SeqCst: pairs with the fence in `LimitLink::raise`.
    fence(Ordering::SeqCst);
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of invariant 1: run with `scripts/loom.sh`. Invariant 2 is checked
    //! with the mailbox's real writes in `mailbox.rs`.
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;

    /// A limit word whose every raise loom checks against the owner's reuse of the storage
    /// after `detach`: the raise touches `live` (a read, which other raises may share)
    /// around its write, and the owner writes `live` once it has detached, so a raise not
    /// ordered before `detach`'s return is a data race loom reports.
    struct Probe {
        word: loom::sync::atomic::AtomicU32,
        live: UnsafeCell<()>,
    }

    impl LimitWord for Probe {
        fn raise(&self) {
            self.live.with(|_| ());
            self.word.store(RAISED, Ordering::Relaxed);
            self.live.with(|_| ());
        }
    }

    /// A probe word and a link it is attached to.
    fn attached() -> (Arc<Probe>, Arc<LimitLink<Probe>>) {
        let word = Arc::new(Probe {
            word: loom::sync::atomic::AtomicU32::new(8),
            live: UnsafeCell::new(()),
        });
        let link = Arc::new(LimitLink::<Probe>::new());
        // SAFETY: the `Arc` keeps `word` alive for the whole model, and each test detaches
        // it before the owner reuses it.
        unsafe { link.attach(&word) };
        (word, link)
    }

    /// Two raisers race the owner's detach; after it the owner reuses the storage. No
    /// raise may write it then.
    #[test]
    fn no_raise_writes_a_detached_word() {
        loom::model(|| {
            let (word, link) = attached();
            let raisers: Vec<_> = (0..2)
                .map(|_| {
                    let link = link.clone();
                    thread::spawn(move || link.raise())
                })
                .collect();
            link.detach();
            // The storage is the owner's again: a plain write, which races with any raise
            // not ordered before `detach`'s return.
            word.live.with_mut(|_| ());
            for r in raisers {
                r.join().unwrap();
            }
        });
    }

    /// A raise that ended before detach is in the word (the link writes the attached word,
    /// not some other place).
    #[test]
    fn a_raise_before_detach_is_written() {
        loom::model(|| {
            let (word, link) = attached();
            let l2 = link.clone();
            let raiser = thread::spawn(move || l2.raise());
            raiser.join().unwrap();
            link.detach();
            assert_eq!(word.word.load(Ordering::Relaxed), RAISED);
        });
    }
}
