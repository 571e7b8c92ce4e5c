//! The deadlock watch: when no task in the process can make progress — every worker of
//! every pool is idle — while tasks are parked on a token (a `sync` wait), nothing inside
//! the pools can ever wake them. The watch then lists those tasks and what each waits on,
//! and ends each of their waits with a panic that carries the list (Imam's thesis §2.4: say so
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
//!   them (Imam's thesis Fig. 2.13) leaves every worker idle with nothing parked. Imam's thesis §2.4 counts such
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
//!
//! A worker blocked in the operating system inside a task (a `std::sync` wait, a sleep,
//! blocking I/O) is none of this: it counts as awake, so no check is made, and whatever
//! waits for it waits silently. The blocked-worker report (`blocked.rs`) is the watch's
//! other half: a thread of its own that looks at the workers now and then and says on
//! stderr which one is blocked, for how long, and what to use instead.
//!
//! Files: the registry of pending tasks and idle actors (`pending.rs`), who holds a lock a
//! task waits for (`holder.rs`), threads outside the pools blocked in offshoot
//! (`outside.rs`), the report's text (`report.rs`), the awake count and the check itself
//! (`watch.rs`), the public `ExternalWaker` (`external.rs`), the blocked-worker report and
//! its thread (`blocked.rs`), and what the OS says about a worker's thread
//! (`thread_state.rs`).

mod blocked;
mod external;
mod holder;
mod outside;
mod pending;
mod report;
mod thread_state;
mod watch;

pub(crate) use blocked::{BlockedWatch, ReportAfter};
pub use external::ExternalWaker;
pub(crate) use holder::{Holder, HolderProbe, HoldsLock};
pub(crate) use outside::{blocked_outside, outside_read_released, outside_read_taken, Blocking};
pub(crate) use pending::{add_pending, remove_pending, Pending, PendingKey};
pub(crate) use report::{Object, Report};
pub(crate) use thread_state::current_os_thread;
pub(crate) use watch::{register, watch, went_idle, woke};
