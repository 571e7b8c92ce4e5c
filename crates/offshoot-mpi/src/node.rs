//! [`Node`]: what one rank's workers and its agent share during a run — the packages this
//! rank gave away and the frames waiting for their results, the results and news the
//! workers hand to the agent, and the run's stop.
//!
//! Invariants:
//! * A package id is unique on its rank; its [`Pending`] entry lives from the export until
//!   its first result is put (the frame waits on the entry's promise); a later result for
//!   the same id (a recovered package whose thief answered after all) finds no entry and is
//!   dropped, so no result is lost or counted twice.
//! * Workers never touch the transport: they push to `outbox` and unpark the agent.
//! * A worker's `NODE` pointer is set only between `install` and the drop of its
//!   `Installed` guard, which holds the node alive across that span.
//! * `active` counts the root and the packages this rank runs (from their injection until
//!   they end); the agent answers another rank's steal only while it is above zero.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;

use offshoot::eureka::Search;
use offshoot::sync::Promise;
use offshoot::ThreadPool;

use crate::task::{Task, Tasks};
use crate::wire::{encode_package, Outcome, Package};

/// A package this rank gave away, until its result is in.
pub(crate) struct Pending {
    pub(crate) promise: Promise<Outcome>,
    /// The rank that took it (set by the agent when it sends it).
    pub(crate) thief: Option<usize>,
    /// The package as sent, kept to run it here if the thief stops answering.
    pub(crate) package: Vec<u8>,
}

/// What workers hand to the agent.
pub(crate) enum Out {
    /// The result of package `id`, for rank `to`.
    Result {
        to: usize,
        id: u64,
        outcome: Outcome,
    },
    /// A better bound, for every rank.
    Bound(i64),
    /// The run's eureka resolved here: tell every rank.
    Resolve,
    /// A solution found here, for rank 0.
    Found(Vec<u8>),
}

/// One rank's shared state during a run.
pub(crate) struct Node {
    pub(crate) rank: usize,
    /// The run has this rank only: no other rank can ask for work, so `join` and `handle`
    /// take offshoot's own paths (a package could never leave).
    pub(crate) alone: bool,
    pub(crate) tasks: Tasks,
    next_id: AtomicU64,
    pub(crate) pending: Mutex<HashMap<u64, Pending>>,
    pub(crate) outbox: Mutex<Vec<Out>>,
    agent: Thread,
    /// The run's stop: every task this rank runs for the run is inside a region registered
    /// on it; resolving it stops them all (a distributed eureka, or a failure).
    pub(crate) stop: Search<()>,
    /// The root and the packages running on this rank.
    pub(crate) active: AtomicUsize,
    /// Packages injected into the pool that have not started yet.
    pub(crate) queued: AtomicUsize,
    /// The best bound of the run's [`Bound`](crate::Bound), as this rank knows it.
    pub(crate) bound: AtomicI64,
}

thread_local! {
    /// The node of the run whose pool this thread works for (set on every worker of the
    /// pool for the run's duration; null otherwise). A raw pointer, so that the per-node
    /// paths (`Bound::get` in a branch-and-bound loop) read it with one load: the
    /// [`Installed`] guard holds a strong count for as long as any worker's pointer is set.
    static NODE: Cell<*const Node> = const { Cell::new(std::ptr::null()) };
}

/// The pools that take part in a run now (by address), so one pool serves one run at a time.
static POOLS: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// The node of the run the calling thread's pool takes part in, if any.
pub(crate) fn current() -> Option<Arc<Node>> {
    let p = NODE.with(Cell::get);
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null pointer came from `Arc::as_ptr` of the node the `Installed` guard
    // holds, and the guard clears every worker's pointer before it drops its count; so the
    // node is alive with at least that count, and this adds one for the new `Arc`.
    unsafe {
        Arc::increment_strong_count(p);
        Some(Arc::from_raw(p))
    }
}

/// Calls `f` with the node of the calling thread's run (no reference count touched: the
/// paths that run per task or per node use this).
#[inline]
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Node>) -> R) -> R {
    let p = NODE.with(Cell::get);
    // SAFETY: as in `current`: a set pointer names a node the `Installed` guard keeps
    // alive until after the pointer is cleared, and `f` cannot outlive this call.
    f(unsafe { p.as_ref() })
}

/// Makes `node` the current one on every worker of `pool` for the duration of a run;
/// `None` when the pool takes part in a run already.
pub(crate) fn install(pool: &ThreadPool, node: Arc<Node>) -> Option<Installed<'_>> {
    let addr = pool as *const ThreadPool as usize;
    {
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        if pools.contains(&addr) {
            return None;
        }
        pools.push(addr);
    }
    let p = Arc::as_ptr(&node) as usize;
    pool.broadcast(|_| NODE.with(|n| n.set(p as *const Node)));
    Some(Installed { pool, _node: node })
}

/// Clears the pool's node when dropped; holds the node alive until then.
pub(crate) struct Installed<'p> {
    pool: &'p ThreadPool,
    _node: Arc<Node>,
}

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        // The broadcast returns once every worker has cleared its pointer, so `_node`'s
        // count, dropped after this, is no longer needed by any of them.
        self.pool
            .broadcast(|_| NODE.with(|n| n.set(std::ptr::null())));
        let addr = self.pool as *const ThreadPool as usize;
        POOLS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&p| p != addr);
    }
}

impl Node {
    pub(crate) fn new(rank: usize, size: usize, tasks: Tasks, agent: Thread) -> Node {
        Node {
            rank,
            alone: size == 1,
            tasks,
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            outbox: Mutex::new(Vec::new()),
            agent,
            stop: Search::new(),
            active: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            bound: AtomicI64::new(i64::MAX),
        }
    }

    /// Packages `task` for another rank: records it as pending and returns the bytes for
    /// the agent and the promise its result will be put in.
    pub(crate) fn export<T: Task>(&self, task: &T) -> (Vec<u8>, Promise<Outcome>) {
        // Relaxed: only uniqueness matters.
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let payload = postcard::to_stdvec(task)
            .unwrap_or_else(|e| panic!("offshoot-mpi: a {:?} task did not encode: {e}", T::NAME));
        let bytes = encode_package(&Package {
            id,
            name: T::NAME.to_string(),
            payload,
        });
        let promise = Promise::named("offshoot-mpi: a package's result");
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                id,
                Pending {
                    promise: promise.clone(),
                    thief: None,
                    package: bytes.clone(),
                },
            );
        (bytes, promise)
    }

    /// Puts the result of package `id`, if it is still pending; returns whether it was.
    pub(crate) fn complete(&self, id: u64, outcome: Outcome) -> bool {
        let entry = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        match entry {
            Some(p) => {
                // A promise is put once: the entry was removed under the lock, so only
                // this call puts it.
                let _ = p.promise.put(outcome);
                true
            }
            None => false,
        }
    }

    /// Hands `out` to the agent and wakes it.
    pub(crate) fn send(&self, out: Out) {
        self.outbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(out);
        self.agent.unpark();
    }

    pub(crate) fn wake_agent(&self) {
        self.agent.unpark();
    }

    /// Runs the package `bytes` (made by some rank's `export`) on this rank, inside the run's
    /// stop: its outcome.
    pub(crate) fn run_package(&self, pkg: &Package) -> Outcome {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            offshoot::eureka::finish(&self.stop, || self.tasks.run(&pkg.name, &pkg.payload))
        }));
        match r {
            Ok(Some(Ok(v))) => Outcome::Value(v),
            Ok(Some(Err(why))) => Outcome::Failed(format!("on rank {}: {why}", self.rank)),
            Ok(None) => Outcome::Stopped,
            Err(p) => Outcome::Failed(format!(
                "on rank {}: it panicked: {}",
                self.rank,
                panic_message(&*p)
            )),
        }
    }
}

/// The text of a panic payload (a `&str` or a `String`), or a placeholder.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a payload that is not a string".to_string()
    }
}
