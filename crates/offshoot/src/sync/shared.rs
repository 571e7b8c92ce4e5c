//! [`Shared`]: an object whose reads never wait and whose writes commit at one point
//! (the *instant methods* of Umatani's OPA thesis, §3.2 and §3.4).
//!
//! The object's state is an immutable **version** behind an atomically swappable pointer
//! (`arc-swap`'s `ArcSwap`). A read takes the current version at its start and reads it
//! for as long as it runs, whatever writers do meanwhile: it takes no lock and never
//! parks. A write runs on a private copy of the latest version (a [`Draft`]) and publishes
//! it as the new version in one store, at its end or at an explicit [`Draft::flush`]. So a
//! reader sees one whole version or another, never a half-written one, and a write that
//! panics — or is stopped by a sibling's failure or a eureka — before it publishes leaves
//! the object as it was (after a flush, as the flush left it).
//!
//! Invariants:
//! * A version, once published, is never written again; it is freed when the last reader
//!   holding it lets go (`Arc`'s count, with `arc-swap`'s protection of the load that
//!   takes it: a reader either holds the version it loaded or had not loaded it yet when
//!   the writer's store replaced it).
//! * Writers take `writer` (the lock word under [`Mutex`](super::Mutex): a waiting writer
//!   parks its task, never its worker) for the whole write, so the copy a write starts from
//!   is the latest version and no version is lost; only the holder publishes.
//! * A write by the task that holds `writer` is a re-entrant write: refused with a panic
//!   before it waits for itself.
//! * Work and span (`metrics/`): each version carries the span of the write that published
//!   it; a read or a write that starts from a version comes after that write.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::lock_word::LockWord;
use super::{holder_id, WaitOn};
use crate::metrics::Stamp;

/// One published state of a [`Shared`] object.
struct Version<T> {
    value: T,
    /// The span of the write that published it.
    stamp: Stamp,
}

impl<T> Version<T> {
    /// A version of `value` published by the running strand now.
    fn now(value: T) -> Arc<Version<T>> {
        let v = Version {
            value,
            stamp: Stamp::new(),
        };
        crate::metrics::raise(&v.stamp);
        Arc::new(v)
    }
}

/// A shared object whose reads never wait and whose writes commit at one point: OPA's
/// instant methods.
///
/// [`read`](Shared::read) runs a closure on a consistent snapshot of the state, taken at its
/// start, without any lock (lock-free; wait-free unless many reads on one thread overlap,
/// which `arc-swap` serves from a slower, still lock-free path). [`write`](Shared::write)
/// runs a closure on a private copy and publishes it when the closure returns — or earlier,
/// at each [`Draft::flush`]. Writers exclude each other by parking; readers never see a
/// partial update, and a write that panics before it publishes changes nothing.
///
/// ```
/// use offshoot::sync::Shared;
///
/// // A best-so-far table that every task reads and a few tasks improve.
/// let best = Shared::new((u64::MAX, String::new()));
/// offshoot::par_for(0..1000, |i| {
///     let cost = (i as u64 * 7919) % 1009;
///     if best.read(|b| cost < b.0) {
///         best.write(|b| {
///             if cost < b.0 {
///                 **b = (cost, format!("candidate {i}"));
///             }
///         });
///     }
/// });
/// assert_eq!(best.read(|b| b.0), 0);
/// ```
pub struct Shared<T> {
    current: ArcSwap<Version<T>>,
    writer: LockWord,
    /// What a deadlock report calls it besides its address ([`Shared::named`]).
    name: Option<&'static str>,
}

impl<T> Shared<T> {
    /// An object whose first version is `value`.
    ///
    /// ```
    /// let s = offshoot::sync::Shared::new(vec![1, 2]);
    /// assert_eq!(s.read(|v| v.len()), 2);
    /// ```
    pub fn new(value: T) -> Shared<T> {
        Shared {
            current: ArcSwap::new(Version::now(value)),
            writer: LockWord::new(),
            name: None,
        }
    }

    /// An object that a deadlock report names `name`: a writer that waits for it for ever is
    /// listed as waiting on `Shared::write "name" (0x…)`.
    ///
    /// ```
    /// let s = offshoot::sync::Shared::named("config", 3);
    /// assert_eq!(s.read(|v| *v), 3);
    /// ```
    pub fn named(name: &'static str, value: T) -> Shared<T> {
        Shared {
            name: Some(name),
            ..Shared::new(value)
        }
    }

    /// A read-only instant operation: runs `f` on the state as it is when the read starts,
    /// and returns its result. Never waits: a write in progress goes on on its own copy,
    /// and its commit, if it comes while `f` runs, does not change what `f` sees.
    ///
    /// ```
    /// use offshoot::sync::Shared;
    /// let s = Shared::new(5);
    /// let (seen, _) = offshoot::join(|| s.read(|v| *v), || s.write(|v| **v += 1));
    /// assert!(seen == 5 || seen == 6); // one version or the other, never a mix
    /// assert_eq!(s.read(|v| *v), 6);
    /// ```
    #[inline]
    pub fn read<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        let v = self.current.load();
        crate::metrics::absorb(&v.stamp);
        f(&v.value)
    }

    /// The current version, held for as long as the returned handle lives (also across
    /// waits, and sent to other tasks): a snapshot that later writes do not change.
    ///
    /// ```
    /// use offshoot::sync::Shared;
    /// let s = Shared::new(String::from("v1"));
    /// let old = s.snapshot();
    /// s.write(|v| v.push_str("+"));
    /// assert_eq!(&*old, "v1");
    /// assert_eq!(&*s.snapshot(), "v1+");
    /// ```
    pub fn snapshot(&self) -> Snapshot<T> {
        let v = self.current.load_full();
        crate::metrics::absorb(&v.stamp);
        Snapshot(v)
    }
}

impl<T: Clone> Shared<T> {
    /// A read-write instant operation: runs `f` on a private copy of the latest version
    /// and publishes the copy as the new version when `f` returns. Other writers park until
    /// this one has published (a waiting writer's worker goes on with other tasks); readers
    /// go on reading the old version meanwhile. [`Draft::flush`] publishes the copy earlier
    /// and goes on writing.
    ///
    /// If `f` panics, or is stopped (a sibling's failure, a eureka's resolution), the copy
    /// is dropped unpublished: the object keeps the last version published — the one `f`
    /// started from, or its last flush.
    ///
    /// # Panics
    /// If the calling task is already inside a write of this object (a write operation that
    /// calls a write operation of the same object would wait for itself).
    ///
    /// ```
    /// use offshoot::sync::Shared;
    /// let counters = Shared::new([0u32; 4]);
    /// offshoot::par_for(0..100, |i| counters.write(|c| c[i % 4] += 1));
    /// assert_eq!(counters.read(|c| *c), [25; 4]);
    ///
    /// // A write that panics before it publishes changes nothing.
    /// let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| counters.write(|c| {
    ///     c[0] = 999;
    ///     panic!("no");
    /// })));
    /// assert!(r.is_err());
    /// assert_eq!(counters.read(|c| c[0]), 25);
    /// ```
    #[track_caller]
    pub fn write<R>(&self, f: impl FnOnce(&mut Draft<'_, T>) -> R) -> R {
        self.write_as(holder_id(), Location::caller(), f)
    }

    /// [`Shared::write`] by the task (or thread) whose identity is `me` (the loom model
    /// gives its threads theirs).
    fn write_as<R>(
        &self,
        me: u64,
        at: &'static Location<'static>,
        f: impl FnOnce(&mut Draft<'_, T>) -> R,
    ) -> R {
        let held = self
            .lock_writer(me, || {
                WaitOn::new("Shared::write", self).at(at).named(self.name)
            })
            .unwrap_or_else(|| {
                panic!(
                    "offshoot::sync::Shared::write: a write of this object called a write of \
                     the same object (at {at}); a write operation may read the object (through \
                     its draft) but not start another write of it"
                )
            });
        let mut draft = self.draft(&held);
        let r = f(&mut draft);
        self.commit(draft);
        r
    }

    /// A private copy of the latest version, for the holder of the writer lock.
    pub(super) fn draft(&self, _held: &WriterLock<'_>) -> Draft<'_, T> {
        // The latest version: only the lock's holder publishes, and this task holds it.
        let base = self.current.load();
        crate::metrics::absorb(&base.stamp);
        Draft {
            value: base.value.clone(),
            object: self,
        }
    }
}

impl<T> Shared<T> {
    /// Whether task `me` holds the writer lock (is inside a write of this object).
    pub(super) fn is_writer(&self, me: u64) -> bool {
        self.writer.holder() == me
    }

    /// Takes the writer lock for task `me` if it is free (one CAS).
    #[inline]
    pub(super) fn try_lock_writer(&self, me: u64) -> Option<WriterLock<'_>> {
        self.writer
            .try_acquire(me)
            .then(|| WriterLock(&self.writer))
    }

    /// Takes the writer lock for task `me`, parking while another holds it (reported as
    /// waiting on what `on` builds); `None`, without waiting, if `me` holds it already (a
    /// re-entrant write, which the caller refuses). The uncontended path is one CAS: the
    /// holder is looked at only when it fails.
    #[inline]
    pub(super) fn lock_writer(&self, me: u64, on: impl Fn() -> WaitOn) -> Option<WriterLock<'_>> {
        if !self.writer.try_acquire(me) {
            // Exact when `me` holds it (only `me` could have released it since).
            if self.writer.holder() == me {
                return None;
            }
            self.writer.acquire(me, on);
        }
        Some(WriterLock(&self.writer))
    }

    /// Publishes `draft` as the new version (the holder of the writer lock, at the end of
    /// its write).
    pub(super) fn commit(&self, draft: Draft<'_, T>) {
        self.current.store(Version::now(draft.value));
    }

    /// The name given with [`Shared::named`].
    pub(super) fn name(&self) -> Option<&'static str> {
        self.name
    }
}

/// The writer lock of a [`Shared`], held by the calling task until dropped, however the
/// write ends.
pub(super) struct WriterLock<'a>(&'a LockWord);

impl Drop for WriterLock<'_> {
    // Inline: one swap and a test, at every write's end (in the caller's crate).
    #[inline]
    fn drop(&mut self) {
        self.0.release();
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.current.load();
        let mut d = f.debug_struct("Shared");
        if let Some(n) = self.name {
            d.field("name", &n);
        }
        d.field("value", &v.value).finish()
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Self {
        Shared::new(T::default())
    }
}

/// The private copy a [`Shared::write`] works on: it dereferences to the state, and
/// [`flush`](Draft::flush) publishes what it holds so far.
///
/// A draft exists only inside its write (the closure borrows it for the call), so a flush
/// outside a write does not compile:
///
/// ```compile_fail
/// use offshoot::sync::Shared;
/// let s = Shared::new(1);
/// let escaped = s.write(|d| d); // error: the draft cannot outlive the write
/// escaped.flush();
/// ```
pub struct Draft<'a, T> {
    value: T,
    object: &'a Shared<T>,
}

impl<T: Clone> Draft<'_, T> {
    /// Publishes the draft as it is now (OPA's `vflush`): readers from now on see it, and
    /// it stays even if the write panics later. The write goes on on the same draft.
    ///
    /// ```
    /// use offshoot::sync::Shared;
    /// let log = Shared::new(Vec::<&str>::new());
    /// let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| log.write(|l| {
    ///     l.push("step 1");
    ///     l.flush(); // step 1 is kept, whatever happens next
    ///     l.push("step 2");
    ///     panic!("failed in step 2");
    /// })));
    /// assert!(r.is_err());
    /// assert_eq!(log.read(|l| l.clone()), ["step 1"]);
    /// ```
    pub fn flush(&mut self) {
        self.object.current.store(Version::now(self.value.clone()));
    }
}

impl<T> Deref for Draft<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Draft<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Draft<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Draft").field(&self.value).finish()
    }
}

/// A version of a [`Shared`] object, kept alive while the handle lives
/// ([`Shared::snapshot`]); it dereferences to the state and never changes.
pub struct Snapshot<T>(Arc<Version<T>>);

impl<T> Deref for Snapshot<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0.value
    }
}

impl<T> Clone for Snapshot<T> {
    fn clone(&self) -> Self {
        Snapshot(self.0.clone())
    }
}

impl<T: fmt::Debug> fmt::Debug for Snapshot<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Snapshot").field(&self.0.value).finish()
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! A model check of the commit protocol that offshoot owns: writers serialized by the
    //! lock word, each copying the latest version under it and publishing its copy in one
    //! store (and a flush publishing midway), against a reader that reads twice. Run with
    //! `scripts/loom.sh`. `arc-swap` itself is not modelled: its load and store use std
    //! atomics, at which loom never switches threads, so each runs here as one indivisible
    //! step (an atomic pointer swap with its reference counts); its own protocol, debts and
    //! reclamation are arc-swap's to check (Miri runs `Shared` in `scripts/miri.sh`). The
    //! threads are outside every pool and park as threads do; they are given identities
    //! (`write_as`), as loom runs them on one OS thread whose thread-local identity they
    //! would share.
    use super::Shared;
    use loom::sync::Arc;
    use loom::thread;
    use std::panic::Location;

    /// Adds 1 to both halves, with a switch point between them in the private copy.
    fn bump(s: &Shared<[u64; 2]>, me: u64, flush: bool) {
        s.write_as(me, Location::caller(), |d| {
            d[0] += 1;
            thread::yield_now();
            d[1] += 1;
            if flush {
                d.flush();
                d[0] += 1;
                thread::yield_now();
                d[1] += 1;
            }
        });
    }

    /// No torn read (both halves equal), no read going back to an older version, and no
    /// lost write, whatever the interleaving of two writers and a reader.
    #[test]
    fn no_torn_read_and_no_lost_write() {
        loom::model(|| {
            let s = Arc::new(Shared::new([0u64; 2]));
            let w = {
                let s = s.clone();
                thread::spawn(move || bump(&s, 2, true))
            };
            let r = {
                let s = s.clone();
                thread::spawn(move || {
                    let first = s.read(|v| {
                        assert_eq!(v[0], v[1], "a torn read");
                        v[0]
                    });
                    let second = s.read(|v| {
                        assert_eq!(v[0], v[1], "a torn read");
                        v[0]
                    });
                    assert!(second >= first, "a read went back to an older version");
                })
            };
            bump(&s, 1, false);
            w.join().unwrap();
            r.join().unwrap();
            assert_eq!(s.read(|v| *v), [3, 3], "a write was lost");
        });
    }
}
