//! [`Barrier`]: a cyclic barrier for tasks, built on [`Event`].
//!
//! Invariants:
//! * Each round (generation) has its own event; the last task to arrive sets it and starts
//!   a new round under the lock, so a task arriving for the next round never sees the old
//!   round's event.
//! * A task whose wait is ended by a stop (or a deadlock) has arrived all the same: it
//!   counts for its round, which the others may then complete without it.

use std::sync::Arc;

use super::{lock, Event};

struct Round {
    arrived: usize,
    done: Arc<Event<()>>,
}

/// A barrier for `n` tasks: each [`Barrier::wait`] parks until `n` have arrived; then all
/// go on and the barrier can be used again.
///
/// ```
/// use offshoot::sync::Barrier;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let b = Barrier::new(4);
/// let before = AtomicUsize::new(0);
/// offshoot::scope(|s| {
///     for _ in 0..4 {
///         s.spawn(|_| {
///             before.fetch_add(1, Ordering::SeqCst);
///             b.wait();
///             assert_eq!(before.load(Ordering::SeqCst), 4);
///         });
///     }
/// });
/// ```
pub struct Barrier {
    n: usize,
    round: std::sync::Mutex<Round>,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
}

/// What [`Barrier::wait`] tells each task: exactly one per round is the leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Whether this task was the last to arrive (one per round).
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let b = offshoot::sync::Barrier::new(2);
    /// let (x, y) = pool.run(|| offshoot::join(|| b.wait().is_leader(), || b.wait().is_leader()));
    /// assert!(x ^ y); // exactly one of the two tasks leads
    /// ```
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl std::fmt::Debug for Barrier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Barrier").field("n", &self.n).finish()
    }
}

impl Barrier {
    /// A barrier for `n` tasks (`n == 0` behaves as 1: nobody waits).
    ///
    /// ```
    /// let b = offshoot::sync::Barrier::new(1);
    /// assert!(b.wait().is_leader()); // a barrier of one opens at once
    /// ```
    pub fn new(n: usize) -> Barrier {
        Barrier {
            n: n.max(1),
            round: std::sync::Mutex::new(Round {
                arrived: 0,
                done: Arc::new(Event::new()),
            }),
            name: None,
        }
    }

    /// A barrier for `n` tasks, which a deadlock report names `name`: a task that waits at
    /// it for ever is listed as waiting on `Barrier "name" (0x…)` instead of `Barrier 0x…`.
    /// Naming costs nothing until such a report is written.
    ///
    /// ```
    /// let b = offshoot::sync::Barrier::named("end of step", 1);
    /// assert!(b.wait().is_leader());
    /// ```
    pub fn named(name: &'static str, n: usize) -> Barrier {
        Barrier {
            name: Some(name),
            ..Barrier::new(n)
        }
    }

    /// Parks until `n` tasks have called `wait` in this round.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let b = offshoot::sync::Barrier::new(3);
    /// let arrived = AtomicUsize::new(0);
    /// pool.run(|| {
    ///     offshoot::scope(|s| {
    ///         for _ in 0..3 {
    ///             s.spawn(|_| {
    ///                 arrived.fetch_add(1, Ordering::SeqCst);
    ///                 b.wait(); // parks until all three arrived
    ///                 assert_eq!(arrived.load(Ordering::SeqCst), 3);
    ///             });
    ///         }
    ///     })
    /// });
    /// ```
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        let at = std::panic::Location::caller();
        let done = {
            let mut r = lock(&self.round);
            r.arrived += 1;
            if r.arrived == self.n {
                let done = std::mem::replace(&mut r.done, Arc::new(Event::new()));
                r.arrived = 0;
                drop(r);
                let _ = done.set(());
                return BarrierWaitResult(true);
            }
            r.done.clone()
        };
        done.wait_on(
            crate::fiber::WaitOn::new("Barrier", self)
                .at(at)
                .named(self.name),
        );
        BarrierWaitResult(false)
    }
}
