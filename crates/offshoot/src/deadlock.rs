//! The deadlock watch: when no task in the process can make progress — every worker of
//! every pool is idle — while tasks are parked on a token (a `sync` wait), nothing inside
//! the pools can ever wake them. The watch then lists those tasks and what each waits on,
//! and ends each of their waits with a panic that carries the list (002 §2.4: say so
//! instead of hanging). An object waited on is named by its construct and address, and by
//! the name its creator gave it if any (`Promise::named`, `Mutex::named`, …: a
//! `&'static str` stored in the object, read only when a task parks on it or a report is
//! written).
//!
//! What it can see, and what it cannot:
//! * Work inside the pools: a worker is *awake* from the moment it starts until it exits,
//!   except while it sleeps in its scheduler for lack of work (`Worker::idle_sleep`), after a
//!   full pass found no ready fiber, no injected job, no work on its parked chains and
//!   nothing to steal. An awake worker may wake anything; an idle one wakes nothing before
//!   it has become awake again. The count is process-wide, so tasks of one pool may wait on
//!   values that tasks of another pool set.
//! * News that would make an idle worker awake: a token wake or a kick queued for it
//!   (`Remote::has_news`), a stop raised on it (a stop ends token waits in cancelled regions,
//!   see `fiber/`), a job injected into its pool, a job in the reply to the request it left
//!   posted when it fell asleep (`Mailbox::holds_answered_job`: the victim that answered
//!   may go idle before the sleeper runs again).
//! * Waits across pools: a task of pool P that enters pool Q (`Q.run`) parks on its token
//!   until Q's job ends, listed as waiting on `ThreadPool::run` (not interruptible: the job
//!   lives in the waiting frame), and its worker goes on or goes idle. So a wait nothing
//!   can end inside Q's job (or a cycle P → Q → P of such waits) leaves every worker idle
//!   and is reported; the waits inside the job are the ones ended, and their panic comes
//!   back to P through the job. (Under Miri, where tasks run on no fiber, the caller's
//!   worker waits awake instead, and such a wait is not seen.)
//! * Data-driven tasks not yet started (`sync::spawn_when` whose dependencies are not all
//!   put): they hold no fiber and no worker, only a count of their finish, so a cycle of
//!   them (002 Fig. 2.13) leaves every worker idle with nothing parked. 002 §2.4 counts such
//!   pending tasks as blocked: each registers a [`Pending`] entry here when it is declared
//!   and removes it when it starts (a slab per shard, so declarations on different threads
//!   rarely share a lock, and an entry never outlives its task's start); a check
//!   lists the pending ones of the watched pools beside the parked tasks, and a declared
//!   deadlock fails each of them — it is spawned as a task that raises the report instead
//!   of running its body, so the report comes out of the finish that waits for it.
//! * Idle actors and selectors (`actor/`) that have not exited: like a pending task, an
//!   actor holds a count of its finish and no fiber while idle, and it registers a
//!   [`Pending`] entry at start (removed at exit) that counts while it is idle. With no
//!   worker awake nothing can send to it, so its finish would wait for ever; a declared
//!   deadlock names it, takes its token and spawns a task into its finish that exits it
//!   and raises the report.
//! * Not threads outside every pool. A value set, a lock released or a job started
//!   (`ThreadPool::run`) by such a thread wakes tasks the watch would have declared stuck.
//!   No count of the handles such a thread holds can tell: handles are `Arc`-shared and
//!   moved freely, and a move leaves no trace. So such a thread announces itself with an
//!   [`ExternalWaker`], and no deadlock is declared while one is alive.
//! * Except for locks, which know their holder. A parked task that waits for a
//!   [`Mutex`](crate::sync::Mutex), a [`Monitor`](crate::sync::Monitor) or a
//!   [`RwLock`](crate::sync::RwLock) carries a [`HolderProbe`], and a check reads who holds
//!   the lock *now*. Held by a thread outside every pool, the lock will be released (that
//!   thread needs no guard), unless the thread is itself blocked in an offshoot wait that
//!   has not ended — a `sync` wait or `ThreadPool::run` — which it records while it waits
//!   ([`blocked_outside`]; the waker ends the wait before it unparks the thread, so an
//!   ended wait never looks blocked). A free lock means a release whose wake is on its
//!   way. In both cases no deadlock is declared. (A thread that will end a blocked
//!   holder's wait wakes the tasks through it: it must hold an `ExternalWaker`.) The check is then made again when
//!   something changes: the release wakes a waiter (a worker wakes and later goes idle), or
//!   the holder blocks, and a thread that records itself blocked runs a check itself
//!   (`watch`), since no worker may go idle again to do it. A `RwLock` counts
//!   the read shares outside threads hold (or are taking), and each such thread keeps the
//!   locks it reads in a thread-local list that it copies into its blocked record: the
//!   lock is stuck only if the blocked threads' records account for every counted share.
//!
//! Invariants:
//! * `AWAKE` holds the number of awake workers (low 32 bits) and a generation that every
//!   increment bumps (high 32 bits). A worker counts itself awake *before* it takes any news
//!   (`woke`), so a wake it consumes can never be hidden from a check that saw it idle; a
//!   sleeper claimed by a waker (`Worker::wake_if_idle`, which may hand it work that no list
//!   shows: a reply to a request posted on its behalf) is counted by the claimer, at the
//!   claim.
//! * A check reads `AWAKE` (no worker awake), then the external count, then every pool's
//!   news and token-parked lists, then `AWAKE` again: the same word twice means no worker
//!   was awake at any point in between, so the lists and news it read were a consistent
//!   snapshot of a state nothing inside the pools could leave.
//! * One check at a time, from its snapshot to the end of what it resolves (`CHECKING`):
//!   an overlapping check could list the rest of a deadlock the first one is still ending
//!   and declare it again with a report that lacks the tasks already ended. A worker that
//!   finds a check under way waits for it, then makes its own (still counted idle, so that
//!   its own wake-ups cannot void the check it asked for). An external waker drops its
//!   count only after its wake is queued, so a check that reads the count as zero sees the
//!   wake as news.
//! * A declared deadlock interrupts each parked task's token by compare-and-swap from
//!   `PARKED` under the park's epoch (`fiber/remote.rs`), holding the owner's list lock so that the
//!   fiber cannot be resumed and freed meanwhile. Waits that cannot be interrupted (begun
//!   while unwinding, or re-entering a monitor) are listed but not woken; if only such waits
//!   remain, nothing can end them: the report goes to stderr once (each listed wait is
//!   marked reported) and they keep waiting.
//! * A pending entry is failed at most once and started at most once, never both: starting
//!   and failing both take its job out of one mutex (`sync/promise.rs`). A check lists
//!   pending entries inside the same `AWAKE` window as the parked tasks, so a dependency
//!   put by an awake worker in between invalidates the check.

use std::fmt::Write as _;
use std::panic::resume_unwind;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::fiber::Woken;
use crate::pool::Registry;

/// A task that waits to be started, holding no fiber and no worker (a data-driven task
/// whose dependencies are not all ready).
pub(crate) trait Pending: Send + Sync {
    /// The pool it will run in (its registry's address).
    fn pool(&self) -> *const Registry;
    /// Whether it still waits (neither started nor failed).
    fn is_pending(&self) -> bool;
    /// Appends a line that says what it waits on to a report.
    fn describe(&self, text: &mut String);
    /// Whether it is an idle actor (else a task not yet started), for the report's count.
    fn is_actor(&self) -> bool {
        false
    }
    /// Starts it as a task that raises `report` instead of running its body; false if it
    /// was no longer pending.
    fn fail(self: Arc<Self>, report: Arc<Report>) -> bool;
}

/// One shard of the pending list: a slab of entries. A task's entry is removed when it
/// starts or fails ([`remove_pending`]); an entry whose task was dropped unstarted (its
/// dependencies dropped unput) no longer upgrades and is reclaimed when the slab is full.
struct Shard {
    slots: Vec<Option<Weak<dyn Pending>>>,
    free: Vec<usize>,
    /// Slab length at which a declaration first reclaims dead entries.
    clean_at: usize,
}

/// Where a pending task's entry is, to remove it when the task starts or fails.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingKey {
    shard: usize,
    slot: usize,
}

const SHARDS: usize = 16;
static PENDING: [Mutex<Shard>; SHARDS] = [const {
    Mutex::new(Shard {
        slots: Vec::new(),
        free: Vec::new(),
        clean_at: 64,
    })
}; SHARDS];

fn lock_shard(i: usize) -> std::sync::MutexGuard<'static, Shard> {
    PENDING[i].lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers a pending task (see [`Pending`]) on the calling thread's shard: `make` builds
/// it, given the key that [`remove_pending`] takes once it starts or fails.
pub(crate) fn add_pending<T: Pending + 'static>(make: impl FnOnce(PendingKey) -> Arc<T>) -> Arc<T> {
    thread_local! {
        static SHARD: usize = {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS
        };
    }
    let shard = SHARD.with(|s| *s);
    let mut sh = lock_shard(shard);
    if sh.free.is_empty() && sh.slots.len() >= sh.clean_at {
        let Shard { slots, free, .. } = &mut *sh;
        for (i, e) in slots.iter_mut().enumerate() {
            if e.as_ref().is_some_and(|w| w.strong_count() == 0) {
                *e = None;
                free.push(i);
            }
        }
        sh.clean_at = (2 * (sh.slots.len() - sh.free.len())).max(64);
    }
    let slot = sh.free.pop().unwrap_or_else(|| {
        sh.slots.push(None);
        sh.slots.len() - 1
    });
    let task = make(PendingKey { shard, slot });
    let weak: Weak<dyn Pending> = Arc::downgrade(&task) as _;
    sh.slots[slot] = Some(weak);
    task
}

/// Removes the entry of a task that started or failed.
pub(crate) fn remove_pending(key: PendingKey) {
    let mut sh = lock_shard(key.shard);
    if sh.slots[key.slot].take().is_some() {
        sh.free.push(key.slot);
    }
}

/// Who holds a lock that a task waits for, as the watch reads it during a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    /// Nobody: a release happened, and its wake of a waiter is on its way.
    Free,
    /// Tasks (the identity of the one that holds it alone, 0 for readers).
    Task(u64),
    /// A thread outside every pool (its identity, or 0 when the lock cannot say which).
    Outside(u64),
    /// Read shares of the reader-writer lock at `lock`, `count` of them held or sought by
    /// threads outside every pool (the others by tasks).
    OutsideReaders { lock: usize, count: usize },
}

impl Holder {
    /// Classifies the identity a lock records for its holder (0: free).
    pub(crate) fn of(id: u64) -> Holder {
        if id == 0 {
            Holder::Free
        } else if id & crate::worker::task_id::OUTSIDE_THREAD != 0 {
            Holder::Outside(id)
        } else {
            Holder::Task(id)
        }
    }
}

/// A lock that can say who holds it now, for [`HolderProbe`].
pub(crate) trait HoldsLock {
    /// Who holds it: a snapshot, exact while nothing else runs.
    fn holder_now(&self) -> Holder;
}

/// How the watch reads who holds the lock a parked task waits for (`WaitOn::probe`): the
/// lock's address and a reader for its type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HolderProbe {
    addr: usize,
    read: unsafe fn(usize) -> Holder,
}

impl HolderProbe {
    /// A probe of `lock`.
    pub(crate) fn of<L: HoldsLock>(lock: &L) -> HolderProbe {
        /// # Safety
        /// `addr` is the address of a live `L`.
        unsafe fn read<L: HoldsLock>(addr: usize) -> Holder {
            // SAFETY: guaranteed by the caller.
            unsafe { (*(addr as *const L)).holder_now() }
        }
        HolderProbe {
            addr: lock as *const L as usize,
            read: read::<L>,
        }
    }

    /// Reads the holder.
    ///
    /// # Safety
    /// The lock must be alive: the watch calls this only for a task parked in a wait on it
    /// (the wait borrows the lock) while it holds the list the task is parked on.
    unsafe fn holder(self) -> Holder {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.read)(self.addr) }
    }
}

/// A wait of a thread outside every pool that says whether it has ended, for
/// [`blocked_outside`].
pub(crate) trait Blocking: Sync {
    /// Whether whatever the thread waits for has happened (it may not have run yet).
    fn ended(&self) -> bool;
}

impl Blocking for AtomicBool {
    fn ended(&self) -> bool {
        self.load(Ordering::SeqCst)
    }
}

/// A thread outside every pool blocked in an offshoot wait, in [`BLOCKED`].
struct Blocked {
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
static BLOCKED: Mutex<Vec<Blocked>> = Mutex::new(Vec::new());

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
fn is_blocked_outside(id: u64) -> bool {
    id != 0 && blocked_now(|b| b.filter(|b| b.id == id).count() > 0)
}

/// How many read shares of the lock at `lock` threads outside every pool hold while they
/// are blocked in offshoot waits that have not ended.
fn blocked_outside_reads(lock: usize) -> usize {
    blocked_now(|b| {
        b.map(|b| b.reads.iter().filter(|&&l| l == lock).count())
            .sum()
    })
}

/// Calls `f` with the entries of [`BLOCKED`] whose wait has not ended, under its lock.
fn blocked_now<R>(f: impl FnOnce(&mut dyn Iterator<Item = &Blocked>) -> R) -> R {
    let list = BLOCKED.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut list
        .iter()
        // SAFETY: an entry's wait is alive while the entry is listed (its guard, which
        // removes it under this lock, lives no longer than the wait).
        .filter(|b| !unsafe { (b.ended)(b.wait) }))
}

/// The pending tasks of the pools in `watched`; the other live entries go to `others`.
/// Reclaims the dead entries it passes (tasks dropped unstarted, actors whose handles and
/// state are gone), as a declaration does when its slab is full: after a burst of actors,
/// the next checks would otherwise scan all of them again (a scan slower than a worker's
/// nap keeps being voided by the wake-ups). An entry whose task can still call
/// [`remove_pending`] holds a strong count, so it is never reclaimed here.
fn pending_in(watched: &[&Registry], others: &mut Vec<Arc<dyn Pending>>) -> Vec<Arc<dyn Pending>> {
    PENDING
        .iter()
        .flat_map(|s| {
            let mut shard = s.lock().unwrap_or_else(|e| e.into_inner());
            let Shard { slots, free, .. } = &mut *shard;
            let mut live = Vec::new();
            for (i, e) in slots.iter_mut().enumerate() {
                if let Some(w) = e {
                    match w.upgrade() {
                        Some(p) => live.push(p),
                        None => {
                            *e = None;
                            free.push(i);
                        }
                    }
                }
            }
            live
        })
        .filter_map(|p| {
            if p.is_pending() && watched.iter().any(|r| std::ptr::eq(*r, p.pool())) {
                Some(p)
            } else {
                // Kept alive until the check has let go of its lock (see `Hold`).
                others.push(p);
                None
            }
        })
        .collect()
}

/// "2 tasks wait", "1 actor waits", "1 task and 3 actors wait".
fn waiters(tasks: usize, actors: usize) -> String {
    let n = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
    let verb = if tasks + actors == 1 { "waits" } else { "wait" };
    match (tasks, actors) {
        (t, 0) => format!("{} {verb}", n(t, "task")),
        (0, a) => format!("{} {verb}", n(a, "actor")),
        (t, a) => format!("{} and {} {verb}", n(t, "task"), n(a, "actor")),
    }
}

/// An object waited on, as a report names it: `Mutex 0x7f…` when unnamed, `Mutex
/// "accounts" (0x7f…)` when its creator named it (`Mutex::named`), the name quoted and
/// escaped as `{:?}` writes it.
pub(crate) struct Object {
    /// The construct and operation, e.g. "Mutex" or "Channel::recv".
    pub(crate) what: &'static str,
    pub(crate) name: Option<&'static str>,
    pub(crate) addr: usize,
}

impl std::fmt::Display for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name {
            None => write!(f, "{} {:#x}", self.what, self.addr),
            Some(name) => write!(f, "{} {name:?} ({:#x})", self.what, self.addr),
        }
    }
}

/// The report of one declared deadlock, shared by the waits it ends.
pub(crate) struct Report {
    text: String,
    /// Whether one of the ended waits has panicked with it already.
    raised: AtomicBool,
}

impl Report {
    /// Ends the calling task's wait with the report: the first wait to get here panics (the
    /// panic hook prints the report once), the others unwind with the same message quietly.
    pub(crate) fn raise(&self) -> ! {
        if self.raised.swap(true, Ordering::SeqCst) {
            resume_unwind(Box::new(self.text.clone()))
        }
        panic!("{}", self.text)
    }
}

const ONE_AWAKE: u64 = 1;
const GENERATION: u64 = 1 << 32;
const COUNT_MASK: u64 = GENERATION - 1;

/// Awake workers of every pool (low bits) and a generation bumped by every increment.
static AWAKE: AtomicU64 = AtomicU64::new(0);
/// Live [`ExternalWaker`]s.
static EXTERNAL: AtomicUsize = AtomicUsize::new(0);
/// Every pool built.
static POOLS: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// Registers a new pool with the watch (before its workers start).
pub(crate) fn register(reg: &Arc<Registry>) {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.retain(|w| w.strong_count() > 0);
    pools.push(Arc::downgrade(reg));
}

/// A worker becomes awake: it starts, or it leaves its idle sleep (before it looks at news).
pub(crate) fn woke() {
    AWAKE.fetch_add(GENERATION + ONE_AWAKE, Ordering::SeqCst);
}

/// A worker stops being awake: it goes to sleep for lack of work, or it exits.
pub(crate) fn went_idle() {
    AWAKE.fetch_sub(ONE_AWAKE, Ordering::SeqCst);
}

/// If no worker of any pool is awake, checks for a deadlock and resolves it. Returns
/// whether it woke any task. Called by an idle worker (counted idle, nothing to do), and by
/// a thread outside every pool that has just recorded itself as blocked
/// ([`blocked_outside`]) or gave back a read share while tasks wait for the lock: a lock it
/// (or another blocked thread) holds may be all that tasks of idle pools wait for, and no
/// worker may go idle again to look.
pub(crate) fn watch() -> bool {
    if AWAKE.load(Ordering::SeqCst) & COUNT_MASK != 0 || EXTERNAL.load(Ordering::SeqCst) != 0 {
        return false;
    }
    request_check()
}

/// Serializes checks: a check reads its snapshot and resolves what it found (interrupts,
/// failed pending tasks) before another starts. Overlapping, a second check could see a
/// pending task the first had already started (no longer pending, its wake not yet news)
/// and declare a second deadlock with part of the first one's tasks.
static CHECKING: Mutex<()> = Mutex::new(());

/// Waits for a check under way to end, then checks (the state may have changed since that
/// check looked: a worker went idle, an outside thread blocked). The caller makes its own
/// check rather than leave it to another thread: a worker still counted idle while it
/// checks keeps its check's snapshot valid, where a check handed to another thread could
/// be voided, again and again, by the asking worker's next wake-up. Returns whether the
/// check woke any task.
fn request_check() -> bool {
    // Dropped after the lock (declared first): the last handle of a pool or of a pending
    // task may go with them, and their drops run the user's destructors, which must not
    // run inside a check (one that waits would ask for a check itself).
    let mut hold = Hold::default();
    let _serial = CHECKING.lock().unwrap_or_else(|e| e.into_inner());
    check(&mut hold)
}

/// What a check holds alive while it looks: the pools and the pending tasks it found.
#[derive(Default)]
struct Hold {
    regs: Vec<Arc<Registry>>,
    pending: Vec<Arc<dyn Pending>>,
    others: Vec<Arc<dyn Pending>>,
}

/// One check (see the module docs), made by the holder of [`CHECKING`]; what it finds stays
/// alive in `hold`.
fn check(hold: &mut Hold) -> bool {
    let before = AWAKE.load(Ordering::SeqCst);
    if before & COUNT_MASK != 0 || EXTERNAL.load(Ordering::SeqCst) != 0 {
        return false;
    }
    hold.regs = {
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        pools.retain(|w| w.strong_count() > 0);
        pools.iter().filter_map(Weak::upgrade).collect()
    };
    let Hold {
        regs,
        pending,
        others,
    } = hold;
    if regs.iter().any(|r| r.has_news()) {
        return false;
    }
    let watched: Vec<&Registry> = regs
        .iter()
        .map(|r| &**r)
        .filter(|r| r.deadlock_detection() && !r.is_terminating())
        .collect();
    // The owners cannot resume (and free) a listed fiber while its list is locked.
    let mut lists: Vec<_> = watched
        .iter()
        .flat_map(|r| (0..r.num_workers()).map(move |i| r.worker(i)))
        .map(|w| (w, w.token_parked()))
        .collect();
    *pending = pending_in(&watched, others);
    if lists.iter().all(|(_, l)| l.is_empty()) && pending.is_empty() {
        return false;
    }
    // A lock that a parked task waits for and that is free (its release's wake is on its
    // way) or held by a thread outside the pools that is not blocked in an offshoot wait
    // will be released: no deadlock (module docs). Read while the lists are locked, so each
    // lock is alive; a blocked outside holder's entry is read last.
    let mut holders = Vec::new();
    for (_, list) in &lists {
        for e in list.iter() {
            let Some(probe) = e.on.probe else {
                holders.push(None);
                continue;
            };
            // SAFETY: the entry's task is parked in a wait on the lock, which it borrows,
            // and cannot resume while its list is locked.
            let h = unsafe { probe.holder() };
            match h {
                Holder::Free => return false,
                Holder::Outside(id) if !is_blocked_outside(id) => return false,
                Holder::OutsideReaders { lock, count } if blocked_outside_reads(lock) < count => {
                    return false
                }
                _ => holders.push(Some(h)),
            }
        }
    }
    if AWAKE.load(Ordering::SeqCst) != before {
        return false;
    }
    let actors = pending.iter().filter(|p| p.is_actor()).count();
    let tasks = lists.iter().map(|(_, l)| l.len()).sum::<usize>() + pending.len() - actors;
    let mut text = format!(
        "offshoot: deadlock: no task can make progress: every worker is idle, and {} \
         on something that nothing running can wake:",
        waiters(tasks, actors)
    );
    let mut past_seed_limit = false;
    let mut holders = holders.into_iter();
    for (w, list) in &lists {
        for e in list.iter() {
            let holder = holders.next().flatten();
            let _ = write!(
                text,
                "\n  task {} (on {}) waits on {}",
                e.task,
                w.thread_name(),
                Object {
                    what: e.on.what,
                    name: e.on.name,
                    addr: e.on.addr
                }
            );
            if let Some(p) = e.on.phase {
                let _ = write!(text, " for the end of phase {p}");
            }
            match holder {
                Some(Holder::Outside(id)) => {
                    let _ = write!(
                        text,
                        ", held by thread {id} outside the pools (its task_id), which itself \
                         waits in offshoot"
                    );
                }
                Some(Holder::OutsideReaders { count, .. }) => {
                    let _ = write!(
                        text,
                        ", read by {count} thread{} outside the pools, which {} waits in offshoot",
                        if count == 1 { "" } else { "s" },
                        if count == 1 { "itself" } else { "each" }
                    );
                }
                Some(Holder::Task(id)) if id != 0 => {
                    let _ = write!(text, ", held by task {id}");
                }
                _ => {}
            }
            if !e.on.interruptible {
                // Begun while its task unwound, or re-entering a monitor.
                text.push_str(" (a wait that cannot be ended: it goes on)");
            }
            if e.past_seed_limit {
                past_seed_limit = true;
                text.push_str(" (maybe inside joins that planted no seed: see below)");
            }
            if let Some(at) = e.on.at {
                let _ = write!(text, "; called at {at}");
            }
        }
    }
    if past_seed_limit {
        text.push_str(
            "\nA join whose worker already offers enough older work to thieves plants no seed: \
             its second closure starts only after its first returns, as in the serial program. \
             A first closure that waits for its second (a consumer waiting on its producer) then \
             waits for ever; start the side that others wait on as a task instead \
             (offshoot::scope with s.spawn, or offshoot::sync::spawn_future).",
        );
    }
    for p in pending.iter() {
        p.describe(&mut text);
    }
    if pending.is_empty()
        && !lists
            .iter()
            .any(|(_, l)| l.iter().any(|e| e.on.interruptible))
    {
        // Nothing to wake; say so once for these waits.
        let mut new = false;
        for (_, l) in lists.iter_mut() {
            for e in l.iter_mut() {
                new |= !std::mem::replace(&mut e.reported, true);
            }
        }
        if new {
            eprintln!("{text}\nNone of these waits can be ended: the tasks go on waiting.");
        }
        return false;
    }
    text.push_str(
        "\nEach of these waits panics with this report (a data-driven task not yet started runs \
         as a task that panics with it; an idle actor exits, and the finish it was started in \
         fails with it). A thread outside the pools that will still wake a task (or send to an \
         actor) must hold an offshoot::sync::ExternalWaker while it may; \
         Builder::deadlock_detection(false) turns this check off.",
    );
    let report = Arc::new(Report {
        text,
        raised: AtomicBool::new(false),
    });
    let mut woke_any = false;
    for (w, list) in &lists {
        for e in list.iter().filter(|e| e.on.interruptible) {
            // SAFETY: the entry is in its owner's list, which this thread holds locked, so
            // the fiber is parked and alive, and its token with it.
            woke_any |= unsafe { w.interrupt_remote(e, Woken::Deadlock(report.clone())) };
        }
    }
    // Fail the pending tasks with the parked fibers' lists unlocked (starting a task takes
    // its finish's inbox lock).
    drop(lists);
    for p in pending.iter() {
        woke_any |= p.clone().fail(report.clone());
    }
    woke_any
}

/// Announces that the holder — a thread outside every pool, typically — may still wake
/// tasks of a pool: set a [`Promise`](crate::sync::Promise) or an [`Event`](crate::sync::Event),
/// send on a channel, add permits, or start work in a pool
/// ([`ThreadPool::run`](crate::ThreadPool::run)) that does so (releasing a lock needs no
/// guard, see below). While any `ExternalWaker` is
/// alive, no pool declares a deadlock.
///
/// A pool sees its own workers (and those of every other pool), not other threads. Without
/// a guard, a task that waits for such a thread while every worker is idle looks exactly
/// like a task that waits forever, and its wait ends with an `offshoot: deadlock` panic
/// (see [`Builder::deadlock_detection`](crate::Builder::deadlock_detection)). Locks are the
/// exception: a thread that only holds an offshoot [`Mutex`](crate::sync::Mutex),
/// [`Monitor`](crate::sync::Monitor) or [`RwLock`](crate::sync::RwLock) that tasks wait
/// for needs no guard — the watch sees the holder, and reports the wait only while that
/// thread is itself blocked in an offshoot wait (a lock held across `pool.run` that the job
/// waits for). A third thread that will end such a holder's wait (put the promise it
/// waits for) wakes the tasks through it, and needs a guard. Create the
/// guard *before* the tasks could start waiting for the outside thread — before handing
/// the pool the work, or before the handshake that lets it go on — and drop it once the
/// wake is done (dropping it after the wake is what makes the wake visible to the watch).
/// Clones count separately, so each of several outside threads can hold one.
///
/// ```
/// use offshoot::sync::{ExternalWaker, Promise};
///
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let answer = Promise::new();
/// let setter = {
///     let (answer, guard) = (answer.clone(), ExternalWaker::new());
///     std::thread::spawn(move || {
///         std::thread::sleep(std::time::Duration::from_millis(10));
///         answer.put(42).unwrap();
///         drop(guard); // after the put
///     })
/// };
/// // The pool goes idle while its task waits; the guard says the value is coming.
/// assert_eq!(pool.run(|| *answer.get()), 42);
/// setter.join().unwrap();
/// ```
#[derive(Debug)]
pub struct ExternalWaker {
    _private: (),
}

impl ExternalWaker {
    /// Announces an outside waker until the guard is dropped.
    ///
    /// ```
    /// let guard = offshoot::sync::ExternalWaker::new();
    /// // ... hand a promise to a thread outside every pool, which puts it, then:
    /// drop(guard);
    /// ```
    pub fn new() -> ExternalWaker {
        EXTERNAL.fetch_add(1, Ordering::SeqCst);
        ExternalWaker { _private: () }
    }
}

impl Default for ExternalWaker {
    fn default() -> Self {
        ExternalWaker::new()
    }
}

impl Clone for ExternalWaker {
    fn clone(&self) -> Self {
        ExternalWaker::new()
    }
}

impl Drop for ExternalWaker {
    fn drop(&mut self) {
        EXTERNAL.fetch_sub(1, Ordering::SeqCst);
    }
}
