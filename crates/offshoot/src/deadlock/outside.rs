//! Threads outside every pool that are blocked in an offshoot wait, and the `RwLock` read
//! shares such threads hold.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::watch::watch;

/// A wait of a thread outside every pool that says whether it has ended, for
/// [`blocked_outside`].
pub(crate) trait Blocking: Sync {
    /// Whether whatever the thread waits for has happened (it may not have run yet).
    fn ended(&self) -> bool;
}

impl Blocking for AtomicBool {
    fn ended(&self) -> bool {
        // SeqCst: read by the deadlock check under `BLOCKED`'s lock, inside its `AWAKE` window.
        // The flag blocked on is the root job's `latch` (pool/registry.rs), set with release by
        // the worker that ran the job before its unpark; acquire is what pairs with that store
        // (that worker is awake, which voids the window anyway). SeqCst keeps the read in the
        // check's total order.
        self.load(Ordering::SeqCst)
    }
}

/// A thread outside every pool blocked in an offshoot wait, in [`BLOCKED`].
pub(super) struct Blocked {
    /// The thread's identity.
    id: u64,
    /// The wait's address, and how to read whether it has ended.
    wait: usize,
    ended: unsafe fn(usize) -> bool,
    /// The reader-writer locks it held read shares of when it blocked (see
    /// [`outside_read_taken`]).
    reads: Vec<usize>,
}

/// Threads outside every pool blocked in an offshoot wait. An entry lives exactly as long
/// as its [`BlockedOutside`] guard.
pub(super) static BLOCKED: Mutex<Vec<Blocked>> = Mutex::new(Vec::new());

// The read shares the calling thread, outside every pool, holds: the addresses of their
// locks (`sync::RwWord`), one entry per share.
#[cfg(not(loom))]
thread_local! {
    static OUTSIDE_READS: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The calling thread, outside every pool, took a read share of the lock at `lock`: it is
/// recorded with the thread's blocked waits, so that the watch can tell whether every
/// outside reader of a lock is blocked.
pub(crate) fn outside_read_taken(lock: usize) {
    #[cfg(not(loom))]
    OUTSIDE_READS.with(|r| r.borrow_mut().push(lock));
    #[cfg(loom)]
    let _ = lock;
}

/// The calling thread gave back a read share taken with [`outside_read_taken`].
pub(crate) fn outside_read_released(lock: usize) {
    #[cfg(not(loom))]
    OUTSIDE_READS.with(|r| {
        let mut r = r.borrow_mut();
        if let Some(i) = r.iter().rposition(|&l| l == lock) {
            r.swap_remove(i);
        }
    });
    #[cfg(loom)]
    let _ = lock;
}

/// The guard of a thread's entry in the list of blocked outside threads.
pub(crate) struct BlockedOutside<'a> {
    addr: usize,
    _wait: std::marker::PhantomData<&'a ()>,
}

/// Records that the calling thread, if it is outside every pool, is blocked until `wait`
/// ends, for as long as the guard lives: a lock it holds is then one that nobody running
/// will release (the watch's check of locks held by outside threads, see the module docs).
/// The guard must be made before the thread last looks at `wait`, and `wait` must be ended
/// by its waker (not by the thread after it wakes), so that an ended wait is never seen as
/// blocked. None for a task, or under loom.
pub(crate) fn blocked_outside<W: Blocking>(wait: &W) -> Option<BlockedOutside<'_>> {
    /// # Safety
    /// `addr` is the address of a live `W`.
    unsafe fn ended<W: Blocking>(addr: usize) -> bool {
        // SAFETY: guaranteed by the caller.
        unsafe { (*(addr as *const W)).ended() }
    }
    if cfg!(loom) {
        return None;
    }
    let id = crate::worker::task_id::holder_id();
    if id & crate::worker::task_id::OUTSIDE_THREAD == 0 {
        return None;
    }
    let addr = wait as *const W as usize;
    #[cfg(not(loom))]
    let reads = OUTSIDE_READS.with(|r| r.borrow().clone());
    #[cfg(loom)]
    let reads = Vec::new();
    BLOCKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Blocked {
            id,
            wait: addr,
            ended: ended::<W>,
            reads,
        });
    let guard = BlockedOutside {
        addr,
        _wait: std::marker::PhantomData,
    };
    if !wait.ended() {
        watch();
    }
    Some(guard)
}

impl Drop for BlockedOutside<'_> {
    fn drop(&mut self) {
        let mut list = BLOCKED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = list.iter().position(|b| b.wait == self.addr) {
            list.swap_remove(i);
        }
    }
}

/// Whether thread `id`, outside every pool, is blocked in an offshoot wait that has not
/// ended (0: an unknown thread, never known to be blocked).
pub(super) fn is_blocked_outside(id: u64) -> bool {
    id != 0 && blocked_now(|b| b.filter(|b| b.id == id).count() > 0)
}

/// How many read shares of the lock at `lock` threads outside every pool hold while they
/// are blocked in offshoot waits that have not ended.
pub(super) fn blocked_outside_reads(lock: usize) -> usize {
    blocked_now(|b| {
        b.map(|b| b.reads.iter().filter(|&&l| l == lock).count())
            .sum()
    })
}

/// Calls `f` with the entries of [`BLOCKED`] whose wait has not ended, under its lock.
pub(super) fn blocked_now<R>(f: impl FnOnce(&mut dyn Iterator<Item = &Blocked>) -> R) -> R {
    let list = BLOCKED.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut list
        .iter()
        // SAFETY: an entry's wait is alive while the entry is listed (its guard, which
        // removes it under this lock, lives no longer than the wait).
        .filter(|b| !unsafe { (b.ended)(b.wait) }))
}
