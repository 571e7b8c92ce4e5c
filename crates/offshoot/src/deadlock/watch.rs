//! The awake count, the pools the watch knows, and the check that declares a deadlock.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::fiber::Woken;
use crate::pool::Registry;

use super::outside::{blocked_outside_reads, is_blocked_outside};
use super::pending::pending_in;
use super::report::{describe_wait, waiters};
use super::{Holder, Pending, Report};

pub(super) const ONE_AWAKE: u64 = 1;
pub(super) const GENERATION: u64 = 1 << 32;
pub(super) const COUNT_MASK: u64 = GENERATION - 1;

/// Awake workers of every pool (low bits) and a generation bumped by every increment.
pub(super) static AWAKE: AtomicU64 = AtomicU64::new(0);
/// Live [`ExternalWaker`]s.
pub(super) static EXTERNAL: AtomicUsize = AtomicUsize::new(0);
/// Every pool built.
pub(super) static POOLS: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// Registers a new pool with the watch (before its workers start).
pub(crate) fn register(reg: &Arc<Registry>) {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.retain(|w| w.strong_count() > 0);
    pools.push(Arc::downgrade(reg));
    drop(pools);
    if reg.blocked.on() {
        super::blocked::pool_added(reg);
    }
}

/// A worker becomes awake: it starts, or it leaves its idle sleep (before it looks at news).
pub(crate) fn woke() {
    // SeqCst: a worker counts itself awake before it reads any news (`deadlock` invariants).
    // Pairs with the check's two SeqCst reads of `AWAKE` (`check`) around its reads of the news
    // and the parked lists: in the single total order this increment comes before the first
    // read (the check sees a worker awake), between the two (the generation changed: the check
    // is void), or after the second (the snapshot predates whatever this worker does next).
    // Acquire/release could not order this worker's later reads of news against the check's
    // reads.
    AWAKE.fetch_add(GENERATION + ONE_AWAKE, Ordering::SeqCst);
}

/// A worker stops being awake: it goes to sleep for lack of work, or it exits.
pub(crate) fn went_idle() {
    // SeqCst: a worker going to sleep published its token-parked fibers (under the list's
    // lock) and its pool's `sleepers` before (`idle_sleep`); a check whose SeqCst read sees
    // the lower count comes after this in the total order, so its SeqCst reads of the news
    // and the lists that follow see what the worker did before going idle (or exiting).
    AWAKE.fetch_sub(ONE_AWAKE, Ordering::SeqCst);
}

/// If no worker of any pool is awake, checks for a deadlock and resolves it. Returns
/// whether it woke any task. Called by an idle worker (counted idle, nothing to do), and by
/// a thread outside every pool that has just recorded itself as blocked
/// ([`blocked_outside`]) or gave back a read share while tasks wait for the lock: a lock it
/// (or another blocked thread) holds may be all that tasks of idle pools wait for, and no
/// worker may go idle again to look.
pub(crate) fn watch() -> bool {
    // SeqCst: read after what made the caller ask (an idle worker's SeqCst `went_idle`; an
    // outside thread's blocked record, under `BLOCKED`'s lock, or its SeqCst uncount of a read
    // share), in one total order with every `woke`/`went_idle` and the `ExternalWaker` count.
    // A quick look only: `check` reads both again under `CHECKING`.
    if AWAKE.load(Ordering::SeqCst) & COUNT_MASK != 0 || EXTERNAL.load(Ordering::SeqCst) != 0 {
        return false;
    }
    request_check()
}

/// Serializes checks: a check reads its snapshot and resolves what it found (interrupts,
/// failed pending tasks) before another starts. Overlapping, a second check could see a
/// pending task the first had already started (no longer pending, its wake not yet news)
/// and declare a second deadlock with part of the first one's tasks.
pub(super) static CHECKING: Mutex<()> = Mutex::new(());

/// Waits for a check under way to end, then checks (the state may have changed since that
/// check looked: a worker went idle, an outside thread blocked). The caller makes its own
/// check rather than leave it to another thread: a worker still counted idle while it
/// checks keeps its check's snapshot valid, where a check handed to another thread could
/// be voided, again and again, by the asking worker's next wake-up. Returns whether the
/// check woke any task.
pub(super) fn request_check() -> bool {
    // Dropped after the lock (declared first): the last handle of a pool or of a pending
    // task may go with them, and their drops run the user's destructors, which must not
    // run inside a check (one that waits would ask for a check itself).
    let mut hold = Hold::default();
    let _serial = CHECKING.lock().unwrap_or_else(|e| e.into_inner());
    check(&mut hold)
}

/// What a check holds alive while it looks: the pools and the pending tasks it found.
#[derive(Default)]
pub(super) struct Hold {
    regs: Vec<Arc<Registry>>,
    pending: Vec<Arc<dyn Pending>>,
    others: Vec<Arc<dyn Pending>>,
}

/// One check (see the module docs), made by the holder of [`CHECKING`]; what it finds stays
/// alive in `hold`.
pub(super) fn check(hold: &mut Hold) -> bool {
    // SeqCst: the first read of the check's window (`deadlock` invariants); with the second
    // read below, in the single total order of every `woke` (each bumps the generation), the
    // same word twice means no worker was awake in between. `EXTERNAL` is read in the same
    // order, against `ExternalWaker::new`/`drop`.
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
    // SeqCst: the window's second read (see `before` above): pairs with `woke`'s SeqCst
    // increment.
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
            past_seed_limit |=
                describe_wait(&mut text, &w.thread_name(), e, holders.next().flatten());
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
            super::report::emit(&format!(
                "{text}\nNone of these waits can be ended: the tasks go on waiting."
            ));
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
