//! The synchronization that loom model-checks, switched to loom's model-checked versions
//! under `--cfg loom` (see `scripts/loom.sh`); otherwise plain re-exports of `std`.
//!
//! Invariant: only the code that loom tests run goes through this shim — the request
//! handshake (`mailbox.rs`), the park/wake token (`token.rs`), the cross-worker ready
//! stack (`ready_stack.rs`), a future block's reference count (`sync/refcount.rs`), a
//! eureka's write-once slot and value chain (`eureka/slot.rs`, `eureka/chain.rs`), an
//! N-version eureka's vote counts and agreed value (`eureka/nversion.rs`), an actor's
//! schedule word (`actor/handshake.rs`), the lock word under `sync::Mutex` and
//! `sync::Monitor` (`sync/lock_word.rs`: its word and its wait list's lock), an
//! `sync::Object`'s routes, waiter counts and wait lists' lock (`sync/object.rs`), the same for
//! `sync::RwLock` (`sync/rw_word.rs`), and what `sync::Event`'s
//! check-then-park uses: its lock and value cell, and the parking of a thread outside every
//! pool (`fiber::Waiter`), the link through which other threads raise a worker's limit
//! word (`limit_word.rs`), and an owned handle's words and result cell (`sync/handle.rs`,
//! with the completion words of `sync/completion.rs` that every future shares). The rest
//! of the runtime uses `std` directly, so a `--cfg loom` build runs the loom tests only.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
};
#[cfg(loom)]
pub(crate) use loom::sync::Mutex;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicPtr, AtomicU32, AtomicU64, AtomicU8, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, OnceLock};

pub(crate) use std::sync::atomic::Ordering;

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// `std::cell::UnsafeCell` with loom's interface (`with_mut`), so that loom checks
/// every access of a cell that goes through it against the accesses of other threads.
#[cfg(not(loom))]
#[repr(transparent)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(v: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(v))
    }

    /// Calls `f` with a pointer to the value, for writing.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// Parking and unparking threads (`std::thread`'s, or loom's model threads).
pub(crate) mod thread {
    #[cfg(loom)]
    pub(crate) use loom::thread::{current, park, yield_now, Thread};
    #[cfg(not(loom))]
    pub(crate) use std::thread::{current, park, yield_now, Thread};
}

#[cfg(loom)]
pub(crate) use loom_once::OnceLock;

#[cfg(loom)]
mod loom_once {
    use loom::sync::atomic::AtomicBool;
    use loom::sync::Mutex;
    use std::sync::atomic::Ordering;

    /// The part of `std::sync::OnceLock` that `sync::Event` uses, for loom: the value is
    /// published by a loom flag stored with release once it is in place and loaded with
    /// acquire by `get` (the ordering std's gives); a loom mutex serialises initialisers.
    /// The std cell inside is only storage (loom runs every model thread on one OS thread).
    pub(crate) struct OnceLock<T> {
        done: AtomicBool,
        init: Mutex<()>,
        cell: std::sync::OnceLock<T>,
    }

    impl<T> OnceLock<T> {
        pub(crate) fn new() -> OnceLock<T> {
            OnceLock {
                done: AtomicBool::new(false),
                init: Mutex::new(()),
                cell: std::sync::OnceLock::new(),
            }
        }

        pub(crate) fn get(&self) -> Option<&T> {
            if self.done.load(Ordering::Acquire) {
                self.cell.get()
            } else {
                None
            }
        }

        pub(crate) fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
            if let Some(v) = self.get() {
                return v;
            }
            let _g = self.init.lock().unwrap();
            if !self.done.load(Ordering::Acquire) {
                let _ = self.cell.set(f());
                self.done.store(true, Ordering::Release);
            }
            self.cell.get().expect("initialised above")
        }
    }
}

/// `std::thread::park`/`unpark` for loom models: a permit an unpark sets and a park waits for
/// and clears, on loom's mutex and condition variable.
#[cfg(all(test, loom))]
#[derive(Default)]
pub(crate) struct Permit {
    set: loom::sync::Mutex<bool>,
    cv: loom::sync::Condvar,
}

#[cfg(all(test, loom))]
impl Permit {
    pub(crate) fn park(&self) {
        let mut set = self.set.lock().unwrap();
        while !*set {
            set = self.cv.wait(set).unwrap();
        }
        *set = false;
    }

    pub(crate) fn unpark(&self) {
        *self.set.lock().unwrap() = true;
        self.cv.notify_one();
    }
}

/// Defines a constructor that is a `const fn` in every build but the loom one, whose
/// primitives cannot be made in a `const fn` (that build runs only the loom tests, which
/// make their objects at run time): one body, and one doc comment, for both.
macro_rules! const_unless_loom {
    ($(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        $(#[$attr])*
        #[cfg(not(loom))]
        $vis const fn $name($($arg: $ty),*) -> $ret $body

        $(#[$attr])*
        #[cfg(loom)]
        $vis fn $name($($arg: $ty),*) -> $ret $body
    };
}
pub(crate) use const_unless_loom;
