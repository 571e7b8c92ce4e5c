//! `scope`: lexically scoped tasks that may borrow from the caller's stack (like rayon's
//! `scope`), built on the finish machinery of `finish.rs`.
//!
//! A [`Scope`] is a handle on one finish. `Scope::spawn` puts the task on the calling
//! worker's frame of that finish (found on the worker's list of current finish frames), or
//! in the finish's inbox when the worker has none (the handle was carried into unrelated
//! work or to a thread outside the pool).
//!
//! A [`ScopeFifo`] ([`scope_fifo`], rayon's) is the same on a *fifo* finish, whose frames
//! run their pending tasks oldest first.
//!
//! Invariant: a task spawned on a scope may borrow anything that outlives `'scope`, because
//! the scope's finish does not return — by value or by unwinding — before every task is
//! done or dropped.

use std::marker::PhantomData;

use crate::broadcast::BroadcastContext;

use crate::finish::{
    finish_core, finish_fifo, record_err, resume_failure, spawn_into, try_outcome, Failure,
    FinishState, Handoff,
};
use crate::pool::in_worker;

/// A handle on the tasks of one [`scope`] call; see there.
pub struct Scope<'scope> {
    state: *const FinishState,
    /// Invariant in `'scope`, like rayon's scope: tasks may borrow for exactly `'scope`.
    marker: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

// SAFETY: the handle is a pointer to a finish state that is `Sync` and outlives `'scope`;
// spawning through a shared handle from any thread is supported (see `spawn_into`).
unsafe impl Send for Scope<'_> {}
// SAFETY: as above.
unsafe impl Sync for Scope<'_> {}

impl<'scope> Scope<'scope> {
    fn new(state: *const FinishState) -> Self {
        Scope {
            state,
            marker: PhantomData,
        }
    }

    /// Spawns `body` as a task of this scope. It may borrow anything that outlives the
    /// scope, and gets the scope handle to spawn more.
    ///
    /// ```
    /// let mut v = vec![1, 2, 3, 4];
    /// offshoot::scope(|s| {
    ///     for x in v.iter_mut() {
    ///         s.spawn(move |_| *x *= 10);
    ///     }
    /// });
    /// assert_eq!(v, [10, 20, 30, 40]);
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let st = self.state as usize;
        spawn_into(
            self.state,
            move || body(&Scope::new(st as *const FinishState)),
            Handoff::Now,
        );
    }
}

impl<'scope> Scope<'scope> {
    /// rayon's `Scope::spawn_broadcast`: runs `body` once on every worker of the current
    /// pool, as part of this scope (which waits for every run). It is one task of the scope
    /// that [`broadcast`](crate::broadcast())s: each worker runs its share when it next looks
    /// for work, so a worker busy with a long task delays the others' wait, not the scope's
    /// other tasks.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let seen: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
    /// pool.scope(|s| s.spawn_broadcast(|_, ctx| {
    ///     seen[ctx.index()].fetch_add(1, Ordering::Relaxed);
    /// }));
    /// assert!(seen.iter().all(|n| n.load(Ordering::Relaxed) == 1));
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.spawn(move |s| {
            crate::broadcast(|ctx| body(s, ctx));
        });
    }

    /// Spawns a team of `n` tasks `f(0)`, …, `f(n - 1)` with one operation: the team enters
    /// the scope as a single task that runs as a lazily split loop, so idle workers take
    /// halves of what remains instead of single tasks (Venetis et al.'s batches).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let hits = AtomicUsize::new(0);
    /// offshoot::scope(|s| s.spawn_batch(1000, |_i| {
    ///     hits.fetch_add(1, Ordering::Relaxed);
    /// }));
    /// assert_eq!(hits.into_inner(), 1000);
    /// ```
    pub fn spawn_batch<F>(&self, n: usize, f: F)
    where
        F: Fn(usize) + Sync + Send + 'scope,
    {
        if n == 0 {
            return;
        }
        self.spawn(move |_| crate::par_for(0..n, f));
    }

    /// Spawns every closure of `tasks` with one operation (see [`Scope::spawn_batch`]).
    ///
    /// ```
    /// let mut out = vec![0u32; 4];
    /// offshoot::scope(|s| {
    ///     s.spawn_batch_iter(out.iter_mut().enumerate().map(|(i, x)| move |_: &offshoot::Scope<'_>| *x = i as u32 * 10));
    /// });
    /// assert_eq!(out, [0, 10, 20, 30]);
    /// ```
    pub fn spawn_batch_iter<I, F>(&self, tasks: I)
    where
        I: IntoIterator<Item = F>,
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        use crate::par_iter::{IntoParallelIterator, ParallelIterator};
        let tasks: Vec<F> = tasks.into_iter().collect();
        if tasks.is_empty() {
            return;
        }
        self.spawn(move |s| tasks.into_par_iter().for_each(|f| f(s)));
    }
}

/// Creates a scope in which tasks that borrow from the caller's stack can be spawned;
/// returns once `op` and every task spawned in the scope have finished.
///
/// Outside every pool, `scope` runs in the global pool.
///
/// # Panics
///
/// The first panic (of `op` or of a task) wins; the other tasks are stopped at their next
/// poll point, tasks not yet started never start, and the winner resumes in the caller
/// once every task has ended.
///
/// # Example
///
/// ```
/// let data = vec![1u64, 2, 3, 4, 5, 6, 7, 8];
/// let (mut left, mut right) = (0, 0);
/// offshoot::scope(|s| {
///     s.spawn(|_| left = data[..4].iter().sum());
///     s.spawn(|_| right = data[4..].iter().sum());
/// });
/// assert_eq!(left + right, 36);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    in_worker(|w| match finish_core(w, |st| op(&Scope::new(st))) {
        Ok(v) => v,
        Err(f) => resume_failure(f),
    })
}

/// A handle on the tasks of one [`try_scope`] call: like [`Scope`], for tasks that return
/// `Result<(), E>`.
pub struct TryScope<'scope, E> {
    inner: Scope<'scope>,
    marker: PhantomData<fn(E) -> E>,
}

impl<E> std::fmt::Debug for TryScope<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TryScope").finish_non_exhaustive()
    }
}

impl<'scope, E: Send + 'static> TryScope<'scope, E> {
    /// Spawns a task that can fail; its `Err` fails the scope and stops the other tasks.
    ///
    /// ```
    /// let inputs = ["1", "2", "x", "4"];
    /// let r: Result<(), std::num::ParseIntError> = offshoot::try_scope(|s| {
    ///     for t in &inputs {
    ///         s.spawn(move |_| t.parse::<u32>().map(drop));
    ///     }
    ///     Ok(())
    /// });
    /// assert!(r.is_err());
    /// ```
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&TryScope<'scope, E>) -> Result<(), E> + Send + 'scope,
    {
        let st = self.inner.state as usize;
        spawn_into(
            self.inner.state,
            move || {
                let state = st as *const FinishState;
                let s = TryScope {
                    inner: Scope::new(state),
                    marker: PhantomData,
                };
                if let Err(e) = body(&s) {
                    // SAFETY: the task runs while its finish waits for it.
                    unsafe { (*state).fail(Failure::Error(Box::new(e))) };
                }
            },
            Handoff::Now,
        );
    }
}

/// Like [`scope`], for a body and tasks that can fail: the first `Err` or panic wins, the
/// other tasks are stopped, and once every task has ended the error is returned (or the
/// panic resumed).
///
/// ```
/// let r: Result<u32, String> = offshoot::try_scope(|s| {
///     s.spawn(|_| Err("task failed".to_string()));
///     Ok(5)
/// });
/// assert_eq!(r, Err("task failed".to_string()));
/// ```
pub fn try_scope<'scope, OP, R, E>(op: OP) -> Result<R, E>
where
    OP: FnOnce(&TryScope<'scope, E>) -> Result<R, E> + Send,
    R: Send,
    E: Send + 'static,
{
    in_worker(|w| {
        try_outcome(finish_core(w, |st| {
            let s = TryScope {
                inner: Scope::new(st),
                marker: PhantomData,
            };
            record_err(st, op(&s))
        }))
    })
}

/// A handle on the tasks of one [`scope_fifo`] call (rayon's `ScopeFifo`); see there.
pub struct ScopeFifo<'scope> {
    inner: Scope<'scope>,
}

impl std::fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFifo").finish_non_exhaustive()
    }
}

impl<'scope> ScopeFifo<'scope> {
    fn new(state: *const FinishState) -> Self {
        ScopeFifo {
            inner: Scope::new(state),
        }
    }

    /// Spawns `body` as a task of this scope. Tasks that one worker spawned and still
    /// holds run in the order they were spawned (see [`scope_fifo`]).
    ///
    /// ```
    /// use std::sync::Mutex;
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let order = Mutex::new(Vec::new());
    /// pool.scope_fifo(|s| {
    ///     for i in 0..4 {
    ///         let order = &order;
    ///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
    /// ```
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        let st = self.inner.state as usize;
        spawn_into(
            self.inner.state,
            move || body(&ScopeFifo::new(st as *const FinishState)),
            Handoff::Now,
        );
    }

    /// rayon's `ScopeFifo::spawn_broadcast`: as [`Scope::spawn_broadcast`].
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let runs = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| s.spawn_broadcast(|_, _ctx| {
    ///     runs.fetch_add(1, Ordering::Relaxed);
    /// }));
    /// assert_eq!(runs.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        self.spawn_fifo(move |s| {
            crate::broadcast(|ctx| body(s, ctx));
        });
    }
}

/// rayon's `scope_fifo`: a [`scope`] whose tasks run **oldest first**. Each worker runs the
/// tasks it spawned (and still holds) in the order they were spawned, where a [`scope`]
/// runs them newest first; a worker that asks for work takes the newer half of them. As in
/// rayon, there is no order across workers: a task handed to another worker may run before
/// older ones.
///
/// Outside every pool, `scope_fifo` runs in the global pool.
///
/// # Panics
///
/// As [`scope`]: the first panic wins, stops the other tasks, and resumes in the caller.
///
/// ```
/// let mut v = vec![0u32; 8];
/// offshoot::scope_fifo(|s| {
///     for (i, x) in v.iter_mut().enumerate() {
///         s.spawn_fifo(move |_| *x = i as u32 * 2);
///     }
/// });
/// assert_eq!(v, [0, 2, 4, 6, 8, 10, 12, 14]);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    in_worker(|w| match finish_fifo(w, |st| op(&ScopeFifo::new(st))) {
        Ok(v) => v,
        Err(f) => resume_failure(f),
    })
}
