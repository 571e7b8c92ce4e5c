//! Data-driven tasks not yet started and idle actors, registered while they could be part
//! of a deadlock (sharded slabs; see the module docs).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::pool::Registry;

use super::Report;

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
pub(super) struct Shard {
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

pub(super) const SHARDS: usize = 16;
pub(super) static PENDING: [Mutex<Shard>; SHARDS] = [const {
    Mutex::new(Shard {
        slots: Vec::new(),
        free: Vec::new(),
        clean_at: 64,
    })
}; SHARDS];

pub(super) fn lock_shard(i: usize) -> std::sync::MutexGuard<'static, Shard> {
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

/// The pending tasks of the pools in `watched`; the other live entries go to `others`.
/// Reclaims the dead entries it passes (tasks dropped unstarted, actors whose handles and
/// state are gone), as a declaration does when its slab is full: after a burst of actors,
/// the next checks would otherwise scan all of them again (a scan slower than a worker's
/// nap keeps being voided by the wake-ups). An entry whose task can still call
/// [`remove_pending`] holds a strong count, so it is never reclaimed here.
pub(super) fn pending_in(
    watched: &[&Registry],
    others: &mut Vec<Arc<dyn Pending>>,
) -> Vec<Arc<dyn Pending>> {
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
