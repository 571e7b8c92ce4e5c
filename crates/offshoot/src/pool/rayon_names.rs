//! rayon's method names on [`ThreadPool`] (`install`, `spawn`, `scope`, `join`,
//! `broadcast`, …), beside offshoot's own in `handle.rs`: thin layers over offshoot's API
//! (`compat.rs` has rayon's free functions and builder; `broadcast.rs` the broadcasts).

use crate::broadcast::{broadcast_in, spawn_broadcast_in, BroadcastContext};
use crate::compat::{yield_now, Yield};
use crate::detached::spawn_detached;
use crate::scope::{Scope, ScopeFifo};

use super::ThreadPool;

/// rayon's method names on [`ThreadPool`].
impl ThreadPool {
    /// rayon's name for [`ThreadPool::run`] (an alias: the same call): runs `op` in this
    /// pool and returns its value, as rayon's `install` does. It does not wait for the
    /// detached tasks `op` starts with [`spawn`](crate::spawn()) (rayon's, which nothing
    /// waits for). Like `run`, it waits for the tasks `op` starts with offshoot's
    /// [`finish::spawn`](crate::finish::spawn()) outside any inner finish — a construct
    /// rayon code does not use.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let n = pool.install(|| offshoot::current_num_threads());
    /// assert_eq!(n, 2);
    /// ```
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.run(op)
    }

    /// rayon's name for [`ThreadPool::workers`]: the number of worker threads of this pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// assert_eq!(pool.current_num_threads(), 3);
    /// ```
    pub fn current_num_threads(&self) -> usize {
        self.workers()
    }

    /// rayon's name for [`ThreadPool::current_worker_index`]: the calling thread's index in
    /// this pool, `None` if it is no worker of it.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.current_thread_index(), None);
    /// assert!(pool.install(|| pool.current_thread_index()).is_some());
    /// ```
    pub fn current_thread_index(&self) -> Option<usize> {
        self.current_worker_index()
    }

    /// Starts `f` in this pool and returns at once; nothing waits for it (rayon's
    /// `ThreadPool::spawn`). Its panic goes to the pool's
    /// [panic handler](crate::ThreadPoolBuilder::panic_handler), and aborts the process without
    /// one. Tasks it spawns with [`finish::spawn`](crate::finish::spawn()) are joined at its
    /// end; [`spawn`](crate::spawn()) called on a worker of this pool does what this does. A
    /// dropped pool still runs the tasks started before the drop, in the background: the
    /// drop returns at once, and each worker exits once they have run (see
    /// [Dropping a pool](ThreadPool#dropping-a-pool)).
    ///
    /// ```
    /// use std::sync::mpsc;
    ///
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// pool.spawn(move || tx.send(6 * 7).unwrap());
    /// assert_eq!(rx.recv().unwrap(), 42);
    /// ```
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_detached(self.registry(), f);
    }

    /// [`join`](crate::join) in this pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// assert_eq!(pool.join(|| 1, || 2), (1, 2));
    /// ```
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.run(|| crate::join(a, b))
    }

    /// [`scope`](crate::scope()) in this pool.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (mut a, mut b) = (0, 0);
    /// pool.scope(|s| {
    ///     s.spawn(|_| a = 1);
    ///     s.spawn(|_| b = 2);
    /// });
    /// assert_eq!(a + b, 3);
    /// ```
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.run(|| crate::scope(op))
    }

    /// rayon's `ThreadPool::in_place_scope`: a [`scope`](crate::scope()) in this pool. As
    /// with [`in_place_scope`](crate::in_place_scope), the body runs on a worker (of this pool), so `op` must be
    /// `Send`; it is [`ThreadPool::scope`].
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut x = 0;
    /// pool.in_place_scope(|s| s.spawn(|_| x += 1));
    /// assert_eq!(x, 1);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.scope(op)
    }

    /// rayon's `ThreadPool::spawn_fifo`: [`ThreadPool::spawn`], whose detached tasks
    /// already start in the order they were spawned (see [`spawn_fifo`](crate::spawn_fifo)).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// let (tx, rx) = mpsc::channel();
    /// for i in 0..3 {
    ///     let tx = tx.clone();
    ///     pool.spawn_fifo(move || tx.send(i).unwrap());
    /// }
    /// drop(tx);
    /// assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2]);
    /// ```
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.spawn(f);
    }

    /// [`scope_fifo`](crate::scope_fifo) in this pool: a scope whose tasks run oldest
    /// first.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let (mut a, mut b) = (0, 0);
    /// pool.scope_fifo(|s| {
    ///     s.spawn_fifo(|_| a = 1);
    ///     s.spawn_fifo(|_| b = 2);
    /// });
    /// assert_eq!(a + b, 3);
    /// ```
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.run(|| crate::scope_fifo(op))
    }

    /// rayon's `ThreadPool::in_place_scope_fifo`: [`ThreadPool::scope_fifo`] (the body
    /// runs on a worker of this pool, so `op` must be `Send`).
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let mut x = 0;
    /// pool.in_place_scope_fifo(|s| s.spawn_fifo(|_| x += 1));
    /// assert_eq!(x, 1);
    /// ```
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.scope_fifo(op)
    }

    /// [`yield_now`] for a worker of this pool; `None` on any other thread.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    /// assert_eq!(pool.yield_now(), None);
    /// assert!(pool.install(|| pool.yield_now()).is_some());
    /// ```
    pub fn yield_now(&self) -> Option<Yield> {
        self.current_worker_index()?;
        yield_now()
    }
}

/// rayon's broadcasts on [`ThreadPool`].
impl ThreadPool {
    /// [`broadcast`](crate::broadcast()) in this pool: runs `op` once on each of its workers, results in
    /// worker-index order.
    ///
    /// ```
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let names = pool.broadcast(|ctx| format!("worker {} of {}", ctx.index(), ctx.num_threads()));
    /// assert_eq!(names, ["worker 0 of 2", "worker 1 of 2"]);
    /// ```
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        broadcast_in(self.registry(), op)
    }

    /// [`spawn_broadcast`](crate::spawn_broadcast()) in this pool.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let pool = offshoot::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let seen = Arc::new(AtomicUsize::new(0));
    /// let s = seen.clone();
    /// pool.spawn_broadcast(move |_| {
    ///     s.fetch_add(1, Ordering::SeqCst);
    /// });
    /// while seen.load(Ordering::SeqCst) < 2 {
    ///     std::thread::yield_now();
    /// }
    /// ```
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        spawn_broadcast_in(self.registry(), op);
    }
}
