//! [`RwWord`]: the reader-writer lock under [`RwLock`](super::RwLock): one atomic word that
//! counts the readers or marks a writer, and the lists of the tasks that wait.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file):
//! * `word` holds the number of read holders in its low bits ([`READERS`]), or [`WRITER`]
//!   while a task writes (then no reader holds), with [`QUEUED`] set while tasks may wait
//!   in `waiters` or a woken writer is on its way back. Only a CAS that finds no writer
//!   (and, for a writer, no reader) takes the lock, acquire; only a holder's release gives
//!   it back, release; the pair publishes what the holders did.
//! * Without contention, reading and writing touch only `word`: a CAS to take it, a
//!   `fetch_sub` (reader) or a CAS (writer) to give it back. The fast paths take the lock
//!   only while `QUEUED` is clear, so once a task waits every newcomer goes through
//!   `waiters`' lock, where the wait lists and `writers_waiting` decide.
//! * Writers are preferred: a writer that fails counts itself in `writers_waiting` (under
//!   `waiters`' lock, with `QUEUED` set) until it gets the lock or its wait is interrupted,
//!   and a reader under that lock waits while `writers_waiting > 0`. So a stream of readers
//!   cannot starve a writer; a task that reads twice while a writer waits deadlocks, as
//!   with any writer-preferring lock.
//! * Waking: the release that leaves the lock free with `QUEUED` set (the last reader, or
//!   the writer) wakes, under `waiters`' lock, one queued writer, else every queued reader;
//!   the woken compete again (no hand-off). A waiter sets `QUEUED` and queues its token
//!   under that lock, and the release's read-modify-write of `word` either sees `QUEUED`
//!   (and then finds the token) or makes the waiter's CAS fail (it looks again): no lost
//!   wake-up, as in `lock_word.rs`.
//! * `QUEUED` is sticky: a release leaves it set. It is cleared only under `waiters`' lock —
//!   by a task that takes the lock there when nobody waits, or by a waking release that
//!   finds nobody left waiting and the word exactly `QUEUED` (then nobody holds the lock
//!   and no fast path can change the word). A `QUEUED` left behind by an interrupted wait
//!   only sends the next newcomer through the slow path once.
//! * `writer` holds the writing task's identity while it writes, for the deadlock watch
//!   (relaxed: only the watch reads it, and a check trusts it only once every task
//!   involved has parked). It is stored just after the CAS that takes the lock and cleared
//!   just before the release, so a writer bit with `writer` 0 means a thread outside the
//!   pools in between (a task there would be awake, which voids any check).
//! * `outside_readers` counts the read shares that threads outside every pool hold, plus
//!   those they are trying to take: such a thread counts itself before each attempt and
//!   uncounts itself after a failed one or after its release. So while readers hold the
//!   lock, a zero count means only tasks do. Each outside thread also records the shares
//!   it holds (`deadlock::outside_read_taken`), so the deadlock watch can tell whether
//!   every counted share belongs to a thread blocked in offshoot (then it may declare a
//!   deadlock) or not (an outside reader will release, or is still taking its share).

use std::cell::Cell;

use crate::atomics::{AtomicU64, Ordering};

use super::{wait_locked, WaitList, WaitOn};
use crate::deadlock::{Holder, HolderProbe, HoldsLock};

/// Set in `word` while tasks may wait (module invariants).
const QUEUED: u64 = 1 << 62;
/// Set in `word` while a task writes.
const WRITER: u64 = 1 << 61;
/// The reader count's bits.
const READERS: u64 = WRITER - 1;

/// How many times a task that finds the lock taken looks at it again before it queues (one
/// under loom, to keep models small). As for `LockWord`.
const SPINS: u32 = if cfg!(loom) { 1 } else { 100 };

/// The tasks waiting for an [`RwWord`], under one lock.
struct Waiters {
    readers: WaitList,
    writers: WaitList,
    /// Writers between their first failed attempt and their success or interrupted wait.
    writers_waiting: usize,
}

impl Waiters {
    /// Whether anybody waits or is on the way back from a wait: then `QUEUED` must stay.
    fn any(&self) -> bool {
        self.writers_waiting > 0 || !self.readers.is_empty() || !self.writers.is_empty()
    }
}

/// See the module docs.
pub(crate) struct RwWord {
    word: AtomicU64,
    /// The writing task's identity, or 0 (for the deadlock watch only).
    writer: AtomicU64,
    /// Read shares held or sought by threads outside every pool (module invariants).
    outside_readers: AtomicU64,
    waiters: crate::atomics::Mutex<Waiters>,
}

impl RwWord {
    crate::atomics::const_unless_loom! {
        /// A free lock.
        pub(crate) fn new() -> RwWord {
            RwWord {
                word: AtomicU64::new(0),
                writer: AtomicU64::new(0),
                outside_readers: AtomicU64::new(0),
                waiters: crate::atomics::Mutex::new(Waiters {
                    readers: WaitList::new(),
                    writers: WaitList::new(),
                    writers_waiting: 0,
                }),
            }
        }
    }

    /// How many tasks read, and whether one writes: a snapshot.
    pub(crate) fn state(&self) -> (u64, bool) {
        let w = self.word.load(Ordering::Relaxed);
        (w & READERS, w & WRITER != 0)
    }

    /// Takes a read share if no writer holds or waits (`QUEUED` clear); `outside` says
    /// whether the caller is a thread outside every pool (then it counts itself in
    /// `outside_readers`, and its release must say so too).
    #[inline]
    pub(crate) fn try_read(&self, outside: bool) -> bool {
        if outside {
            return self.outside_attempt(|| self.try_read_share());
        }
        self.try_read_share()
    }

    /// An attempt to take a read share by a thread outside every pool: counted in
    /// `outside_readers` before it and uncounted if it fails (module invariants).
    #[cold]
    fn outside_attempt(&self, attempt: impl FnOnce() -> bool) -> bool {
        // SeqCst, like the watch's read of the count: the count is up before the share can
        // be seen taken.
        self.outside_readers.fetch_add(1, Ordering::SeqCst);
        let ok = attempt();
        if ok {
            crate::deadlock::outside_read_taken(self as *const RwWord as usize);
        } else {
            // SeqCst: the failed attempt's uncount, in the same total order as the watch's read
            // in `holder_now`.
            self.outside_readers.fetch_sub(1, Ordering::SeqCst);
        }
        ok
    }

    #[inline]
    fn try_read_share(&self) -> bool {
        let mut w = self.word.load(Ordering::Relaxed);
        while w & (WRITER | QUEUED) == 0 {
            // Acquire: pairs with the release of the last writer.
            match self
                .word
                .compare_exchange_weak(w, w + 1, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
        false
    }

    /// Takes a read share, parking while a writer holds or waits for the lock.
    /// (`outside` as for [`try_read`](Self::try_read).)
    #[inline]
    pub(crate) fn read(&self, outside: bool, on: impl Fn() -> WaitOn) {
        if !self.try_read(outside) {
            self.read_contended(outside, on);
        }
    }

    #[cold]
    #[inline(never)]
    fn read_contended(&self, outside: bool, on: impl Fn() -> WaitOn) {
        for _ in 0..SPINS {
            std::hint::spin_loop();
            if self.try_read(outside) {
                return;
            }
        }
        wait_locked(
            || self.lock_waiters(),
            || on().probed(HolderProbe::of(self)),
            |q: &mut Waiters| {
                let mut w = self.word.load(Ordering::Relaxed);
                loop {
                    if w & WRITER == 0 && q.writers_waiting == 0 {
                        // No writer holds or waits: share, keeping QUEUED only for those
                        // still queued.
                        let new = ((w & READERS) + 1) | if q.any() { QUEUED } else { 0 };
                        let took = if outside {
                            self.outside_attempt(|| self.take(&mut w, new))
                        } else {
                            self.take(&mut w, new)
                        };
                        if took {
                            return Some(());
                        }
                    } else if self.flag_queued(&mut w) {
                        return None;
                    }
                }
            },
            |q| &mut q.readers,
            |_| {},
        )
    }

    /// A waiter's attempt to take the lock under `waiters`' lock, from word `*w` to `new`;
    /// on failure `*w` is the word now (look again).
    fn take(&self, w: &mut u64, new: u64) -> bool {
        // Acquire: pairs with the release of the previous holders.
        match self
            .word
            .compare_exchange(*w, new, Ordering::Acquire, Ordering::Relaxed)
        {
            Ok(_) => true,
            Err(now) => {
                *w = now;
                false
            }
        }
    }

    /// A waiter that cannot have the lock, under `waiters`' lock: sets `QUEUED` in `*w` if it
    /// is not set yet, and says whether it may queue; false if the word changed meanwhile
    /// (`*w` is the word now: look again).
    fn flag_queued(&self, w: &mut u64) -> bool {
        if *w & QUEUED == 0 {
            // Relaxed: the token is published by `waiters`' lock, which the waking release
            // takes.
            if let Err(now) =
                self.word
                    .compare_exchange(*w, *w | QUEUED, Ordering::Relaxed, Ordering::Relaxed)
            {
                *w = now;
                return false;
            }
        }
        true
    }

    /// Gives a read share back (taken with the same `outside`); the last reader out wakes
    /// the waiting.
    #[inline]
    pub(crate) fn read_release(&self, outside: bool) {
        // Release: pairs with the acquire CAS of the next writer.
        let prev = self.word.fetch_sub(1, Ordering::Release);
        debug_assert!(prev & READERS != 0 && prev & WRITER == 0, "no reader held");
        if prev & (QUEUED | READERS) == QUEUED | 1 {
            self.wake();
        }
        if outside {
            // SeqCst: uncounted after the wake is queued (as an `ExternalWaker` drops after
            // its wake), in one total order with the watch's SeqCst read of the count
            // (`holder_now`) and the increment in `outside_attempt`.
            self.outside_readers.fetch_sub(1, Ordering::SeqCst);
            crate::deadlock::outside_read_released(self as *const RwWord as usize);
            if prev & QUEUED != 0 {
                // Tasks wait while other readers remain: if those are outside threads
                // blocked in offshoot, nothing else would make the deadlock watch look.
                crate::deadlock::watch();
            }
        }
    }

    /// Takes the lock for writing for task `me` if nobody holds it and nobody waits.
    #[inline]
    pub(crate) fn try_write(&self, me: u64) -> bool {
        // Acquire: pairs with the release of the previous holders.
        let ok = self
            .word
            .compare_exchange(0, WRITER, Ordering::Acquire, Ordering::Relaxed)
            .is_ok();
        if ok {
            self.writer.store(me, Ordering::Relaxed);
        }
        ok
    }

    /// Takes the lock for writing for task `me`, parking while anyone else holds it.
    #[inline]
    pub(crate) fn write(&self, me: u64, on: impl Fn() -> WaitOn) {
        if !self.try_write(me) {
            self.write_contended(me, on);
        }
    }

    #[cold]
    #[inline(never)]
    fn write_contended(&self, me: u64, on: impl Fn() -> WaitOn) {
        for _ in 0..SPINS {
            std::hint::spin_loop();
            if self.word.load(Ordering::Relaxed) == 0 && self.try_write(me) {
                return;
            }
        }
        // Whether this writer counts itself in `writers_waiting`.
        let waiting = Cell::new(false);
        wait_locked(
            || self.lock_waiters(),
            || on().probed(HolderProbe::of(self)),
            |q: &mut Waiters| {
                let mut w = self.word.load(Ordering::Relaxed);
                loop {
                    if w & (WRITER | READERS) == 0 {
                        // Free: take it, keeping QUEUED for the others still waiting.
                        let others = q.writers_waiting - usize::from(waiting.get()) > 0
                            || !q.readers.is_empty()
                            || !q.writers.is_empty();
                        if self.take(&mut w, WRITER | if others { QUEUED } else { 0 }) {
                            if waiting.replace(false) {
                                q.writers_waiting -= 1;
                            }
                            self.writer.store(me, Ordering::Relaxed);
                            return Some(());
                        }
                        continue;
                    }
                    if !waiting.replace(true) {
                        q.writers_waiting += 1;
                    }
                    if self.flag_queued(&mut w) {
                        return None;
                    }
                }
            },
            |q| &mut q.writers,
            |q| {
                // Interrupted (a stop or a deadlock): this writer no longer holds readers
                // back; the last such writer lets them go.
                if waiting.get() {
                    q.writers_waiting -= 1;
                    if q.writers_waiting == 0 && self.word.load(Ordering::Relaxed) & WRITER == 0 {
                        q.readers.wake_all();
                    }
                }
            },
        )
    }

    /// Gives the write lock back, waking the waiting if any.
    #[inline]
    pub(crate) fn write_release(&self) {
        self.writer.store(0, Ordering::Relaxed);
        // Release: pairs with the acquire CAS of the next holders.
        if self
            .word
            .compare_exchange(WRITER, 0, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // QUEUED is set (nothing else changes while a writer holds): keep it, free the
            // lock and wake.
            let prev = self.word.fetch_and(QUEUED, Ordering::Release);
            debug_assert_eq!(prev, WRITER | QUEUED, "a write release found {prev:#x}");
            self.wake();
        }
    }

    /// The lock became free with `QUEUED` set: wake one queued writer, else every queued
    /// reader; if nobody waits at all, clear the stale `QUEUED`.
    #[cold]
    #[inline(never)]
    fn wake(&self) {
        let mut q = self.lock_waiters();
        if !q.writers.wake_one() {
            q.readers.wake_all();
        }
        if !q.any() {
            // Exactly QUEUED: nobody holds the lock, and the fast paths leave a word with
            // QUEUED alone; a holder that came through the slow path meanwhile fails this.
            let _ = self
                .word
                .compare_exchange(QUEUED, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Locks the wait lists, ignoring poisoning (no critical section on it runs user code).
    fn lock_waiters(&self) -> impl std::ops::DerefMut<Target = Waiters> + '_ {
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HoldsLock for RwWord {
    fn holder_now(&self) -> Holder {
        loop {
            // SeqCst: the watch's read of the word before its read of `outside_readers`
            // below, in one total order with the outside readers' SeqCst count updates
            // (`outside_attempt`, `read_release`).
            let w = self.word.load(Ordering::SeqCst);
            if w & WRITER != 0 {
                return match self.writer.load(Ordering::Relaxed) {
                    // Between an outside writer's CAS and its store, or its clear and release.
                    0 => Holder::Outside(0),
                    id => Holder::of(id),
                };
            }
            if w & READERS == 0 {
                return Holder::Free;
            }
            // SeqCst: pairs with `outside_attempt`'s SeqCst increment (made before the share
            // is taken) and the decrements after a failed attempt or a release.
            if let count @ 1.. = self.outside_readers.load(Ordering::SeqCst) {
                return Holder::OutsideReaders {
                    lock: self as *const RwWord as usize,
                    count: count as usize,
                };
            }
            // No outside share counted, so the shares seen are tasks' — unless the last
            // outside reader released between the two reads: its uncount comes after its
            // release of the share and its wake, and the load above that saw the uncount
            // acquired them, so the word read again shows the release. Only a word that did
            // not change is a share held by tasks (a release seen as held would be a wake on
            // its way declared a deadlock).
            if self.word.load(Ordering::SeqCst) == w {
                return Holder::Task(0);
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the reader-writer word against its wait lists: run with
    //! `scripts/loom.sh`. The threads are outside every pool, so they park as threads do.
    //! A lost wake-up deadlocks the model, which loom reports; a writer beside anyone else
    //! trips the `inside` counts, and the entry count checks that each got in once.
    use super::RwWord;
    use crate::fiber::WaitOn;
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    struct Guarded {
        lock: RwWord,
        readers_inside: AtomicUsize,
        writers_inside: AtomicUsize,
        entries: AtomicUsize,
    }

    fn read(g: &Guarded) {
        g.lock.read(false, || WaitOn::new("RwWord::read", g));
        g.readers_inside.fetch_add(1, Ordering::SeqCst);
        assert_eq!(
            g.writers_inside.load(Ordering::SeqCst),
            0,
            "a reader beside a writer"
        );
        g.entries.fetch_add(1, Ordering::SeqCst);
        g.readers_inside.fetch_sub(1, Ordering::SeqCst);
        g.lock.read_release(false);
    }

    fn write(g: &Guarded, me: u64) {
        g.lock.write(me, || WaitOn::new("RwWord::write", g));
        assert_eq!(
            g.writers_inside.fetch_add(1, Ordering::SeqCst),
            0,
            "two writers at once"
        );
        assert_eq!(
            g.readers_inside.load(Ordering::SeqCst),
            0,
            "a writer beside a reader"
        );
        g.entries.fetch_add(1, Ordering::SeqCst);
        g.writers_inside.fetch_sub(1, Ordering::SeqCst);
        g.lock.write_release();
    }

    fn guarded() -> Arc<Guarded> {
        Arc::new(Guarded {
            lock: RwWord::new(),
            readers_inside: AtomicUsize::new(0),
            writers_inside: AtomicUsize::new(0),
            entries: AtomicUsize::new(0),
        })
    }

    /// The deadlock watch reads the holder while a thread outside every pool releases the
    /// last read share: it sees the share held by outside readers, or the lock free, never
    /// a share held by a task (which would make a release on its way look like a deadlock).
    #[test]
    fn the_watch_never_takes_an_outside_share_for_a_tasks() {
        use crate::deadlock::{Holder, HoldsLock};
        loom::model(|| {
            let g = guarded();
            assert!(g.lock.try_read(true));
            let g1 = g.clone();
            let r = thread::spawn(move || g1.lock.read_release(true));
            let h = g.lock.holder_now();
            assert!(
                matches!(h, Holder::Free | Holder::OutsideReaders { count: 1, .. }),
                "an outside reader's share was read as a task's"
            );
            r.join().unwrap();
            assert!(matches!(g.lock.holder_now(), Holder::Free));
        });
    }

    /// A reader and a writer on two threads while the main thread writes: the last
    /// reader's wake and a writer's wake both race new arrivals.
    #[test]
    fn readers_and_writers_contend() {
        loom::model(|| {
            let g = guarded();
            let (g1, g2) = (g.clone(), g.clone());
            let r = thread::spawn(move || read(&g1));
            let w = thread::spawn(move || write(&g2, 2));
            write(&g, 1);
            r.join().unwrap();
            w.join().unwrap();
            assert_eq!(g.entries.load(Ordering::SeqCst), 3);
            assert_eq!(g.lock.state(), (0, false));
            assert!(g.lock.try_write(1), "the lock was left taken or flagged");
        });
    }

    /// Two readers share while a writer waits for both to leave, then the lock is free
    /// again for the fast paths.
    #[test]
    fn a_writer_waits_for_two_readers() {
        loom::model(|| {
            let g = guarded();
            let (g1, g2) = (g.clone(), g.clone());
            let r1 = thread::spawn(move || read(&g1));
            let r2 = thread::spawn(move || read(&g2));
            write(&g, 1);
            r1.join().unwrap();
            r2.join().unwrap();
            assert_eq!(g.entries.load(Ordering::SeqCst), 3);
            assert!(g.lock.try_read(false), "the lock was left taken or flagged");
        });
    }
}
