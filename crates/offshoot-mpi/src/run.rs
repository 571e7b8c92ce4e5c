//! [`Session::run`]: one distributed run — every rank calls it on its session, with its
//! pool and the same table of tasks; rank 0 runs the root, the others serve and steal
//! until it ends.
//!
//! Invariants:
//! * One run per pool at a time (the run's node is set on every worker of the pool); a
//!   second is [`Error::RunInProgress`].
//! * The calling thread is the agent (it alone uses the session's transport); the root
//!   runs on the pool, inside the run's stop region, from a thread of its own.
//! * Every rank returns only after rank 0 said `Done`; rank 0 returns after every live
//!   rank said `Bye`. The transport outlives the run (the session keeps it), so no rank
//!   finalizes MPI inside a run.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use offshoot::ThreadPool;

use crate::agent::Agent;
use crate::node::{install, Node};
use crate::session::Session;
use crate::task::Tasks;
use crate::transport::Transport;
use crate::wire::RankStats;

/// How a run balances and watches its ranks. The defaults suit a cluster and this
/// machine alike.
///
/// ```
/// let cfg = offshoot_mpi::Config::default();
/// assert_eq!(cfg.steal_attempts, 2);
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    /// Random steals a rank makes in a row before it registers on its lifelines (GLB's
    /// `w`).
    pub steal_attempts: usize,
    /// The base of the lifeline graph: rank `r`'s lifelines are `r + base^i` (mod P), so
    /// each rank has `ceil(log_base P)` of them (GLB's `l`; at least 2).
    pub lifeline_base: usize,
    /// How often a rank that runs other ranks' packages tells them it is alive, and how
    /// often a victim scans for lost thieves.
    pub heartbeat: Duration,
    /// A thief silent this long while it holds packages is declared lost and its packages
    /// run again by their victim. `None`: never (then a thief that stops answering stops
    /// the run, as it would without this layer).
    pub fault_timeout: Option<Duration>,
    /// How often a rank with lifeline waiters asks its pool for a package to push to them.
    pub push_interval: Duration,
    /// The longest nap of an agent with nothing to do (an idle, quiet rank wakes this
    /// often to look at the network: MPI has no receive that both blocks and lets a worker
    /// wake the agent).
    pub max_nap: Duration,
    /// The longest nap of an agent that is not quiet — whose pool runs work, or that
    /// steals: how late, at most, a victim sees a steal (MPI cannot wake it). Shorter
    /// answers sooner and costs a wake (a probe of the network; about 28 µs of CPU in a VM)
    /// that often. For a T1XXL-shaped tree on 4096 ranks the protocol model
    /// (`scripts/mpi-sim.sh`) predicts 0.76 efficiency at 200 µs and 0.94 at 20 µs with
    /// `push_interval` zero, when naps end when asked; 0.64 and 0.71 when they end 90 µs
    /// late, as on the VM it was calibrated on. Where a rank's agent shares a few cores
    /// with its workers, every wake is taken from a worker, and longer naps pay while
    /// nobody asks: [`calm_after`](Config::calm_after) gives them.
    pub busy_nap: Duration,
    /// Where a rank's agent shares cores with workers — the ranks on its machine
    /// ([`Transport::local_size`](crate::Transport::local_size)) run more workers and
    /// agents than the cores they may use — a rank whose pool is busy and that no rank
    /// asked for work this long is **calm**: its agent's naps grow to `max_nap` instead of
    /// `busy_nap`, until the next ask. While every rank runs work nobody asks, so the
    /// agents wake `max_nap` apart and leave the cores to the workers; the first ask after
    /// a calm spell is seen up to `max_nap` late, the ones after it within `busy_nap`.
    /// Where the agent has a core of its own its wakes cost the workers nothing, so it is
    /// never calm (the protocol model loses 5 points on 16 ranks of a T3L-shaped tree
    /// with calm spells there). `None`: never calm.
    pub calm_after: Option<Duration>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            steal_attempts: 2,
            lifeline_base: 2,
            heartbeat: Duration::from_millis(10),
            fault_timeout: Some(Duration::from_secs(10)),
            push_interval: Duration::from_micros(500),
            max_nap: Duration::from_millis(2),
            busy_nap: Duration::from_micros(200),
            calm_after: Some(Duration::from_millis(5)),
        }
    }
}

impl Config {
    /// The lifelines of `rank` in a run of `size` ranks: `rank + base^i` (mod `size`) for
    /// `i = 0, 1, …` below `size`, without repeats (`base` is
    /// [`lifeline_base`](Config::lifeline_base), at least 2). An idle rank registers on
    /// these and waits for one of them to push it work.
    ///
    /// ```
    /// let cfg = offshoot_mpi::Config::default();
    /// assert_eq!(cfg.lifelines(0, 8), vec![1, 2, 4]);
    /// assert_eq!(cfg.lifelines(6, 8), vec![7, 0, 2]);
    /// assert!(cfg.lifelines(0, 1).is_empty());
    /// ```
    pub fn lifelines(&self, rank: usize, size: usize) -> Vec<usize> {
        let mut lifelines = Vec::new();
        let mut step = 1;
        while step < size {
            let l = (rank + step) % size;
            if !lifelines.contains(&l) {
                lifelines.push(l);
            }
            step *= self.lifeline_base.max(2);
        }
        lifelines
    }
}

/// What [`Session::run`] refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Another distributed run uses this pool now.
    RunInProgress,
    /// The pool has no worker (it cannot run packages).
    NoWorkers,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::RunInProgress => write!(
                f,
                "offshoot-mpi: this pool takes part in another distributed run already; \
                 give each run its own pool"
            ),
            Error::NoWorkers => write!(f, "offshoot-mpi: the pool has no worker"),
        }
    }
}

impl std::error::Error for Error {}

/// What a rank gets back from [`Session::run`].
#[derive(Debug)]
pub struct Finished<R> {
    /// This rank's number.
    pub rank: usize,
    /// The root's value: on rank 0, unless the run's eureka stopped the root first; `None`
    /// on every other rank.
    pub value: Option<R>,
    /// Statistics: every rank's on rank 0, this rank's only elsewhere.
    pub stats: Vec<RankStats>,
    found: Option<Vec<u8>>,
}

impl<R> Finished<R> {
    /// The first solution reported with [`found`](crate::found) on any rank (on rank 0;
    /// `None` elsewhere, or when none was reported, or when it is not a `T`).
    pub fn found<T: DeserializeOwned>(&self) -> Option<T> {
        self.found
            .as_deref()
            .and_then(|b| postcard::from_bytes(b).ok())
    }
}

impl<X: Transport> Session<X> {
    /// Runs one distributed computation. Every rank calls it, with the same `tasks`; rank 0
    /// runs `root` on its pool and returns its value once every rank has finished; the other
    /// ranks run what they steal until then. The calling thread becomes the rank's agent (it
    /// alone uses the transport). A session runs any number of runs, one after another; every
    /// rank must make the same sequence of calls.
    ///
    /// Inside `root` (and the tasks it gives away), [`join`](crate::join) and
    /// [`handle`](crate::handle) give work to other ranks when they ask, [`found`](crate::found)
    /// stops the whole run, and [`Bound`](crate::Bound) shares a bound between ranks.
    ///
    /// # Errors
    ///
    /// [`Error::RunInProgress`] while another run uses this pool; [`Error::NoWorkers`]
    /// for a pool without workers.
    ///
    /// # Panics
    ///
    /// On rank 0, the root's panic — or that of a task it gave away, on whatever rank — resumes
    /// here, after every rank was stopped and has finished.
    ///
    /// # Example
    ///
    /// Two ranks as threads of one process (the loopback transport, for tests; a real program
    /// passes `Mpi`):
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize)]
    /// struct Fib(u64);
    /// impl offshoot_mpi::Task for Fib {
    ///     const NAME: &'static str = "fib";
    ///     type Output = u64;
    ///     fn run(self) -> u64 { fib(self.0) }
    /// }
    /// fn fib(n: u64) -> u64 {
    ///     if n < 2 { return n; }
    ///     if n < 18 {
    ///         let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    ///         return a + b;
    ///     }
    ///     let (a, b) = offshoot_mpi::join(|| fib(n - 1), Fib(n - 2));
    ///     a + b
    /// }
    ///
    /// let ranks = offshoot_mpi::loopback::cluster(2);
    /// let results: Vec<_> = std::thread::scope(|s| {
    ///     let hs: Vec<_> = ranks
    ///         .into_iter()
    ///         .map(|t| {
    ///             s.spawn(move || {
    ///                 let mut session = offshoot_mpi::Session::new(t);
    ///                 let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    ///                 let tasks = offshoot_mpi::Tasks::new().with::<Fib>();
    ///                 let cfg = offshoot_mpi::Config::default();
    ///                 let a = session.run(&pool, &tasks, &cfg, || fib(25)).unwrap();
    ///                 let b = session.run(&pool, &tasks, &cfg, || fib(20)).unwrap();
    ///                 (a.value, b.value)
    ///             })
    ///         })
    ///         .collect();
    ///     hs.into_iter().map(|h| h.join().unwrap()).collect()
    /// });
    /// assert_eq!(results[0], (Some(75025), Some(6765)));
    /// assert_eq!(results[1], (None, None));
    /// ```
    pub fn run<R, F>(
        &mut self,
        pool: &ThreadPool,
        tasks: &Tasks,
        config: &Config,
        root: F,
    ) -> Result<Finished<R>, Error>
    where
        F: FnOnce() -> R + Send,
        R: Send,
    {
        if pool.workers() == 0 {
            return Err(Error::NoWorkers);
        }
        let rank = self.rank();
        let node = Arc::new(Node::new(
            rank,
            self.size(),
            tasks.clone(),
            std::thread::current(),
        ));
        let Some(_installed) = install(pool, node.clone()) else {
            return Err(Error::RunInProgress);
        };
        // Results and bounds are set by this thread, outside the pool: the deadlock watch must
        // not call a frame that waits for a remote result stuck.
        let _waker = offshoot::sync::ExternalWaker::new();
        self.begin();
        let agent = Agent::new(self, node.clone(), pool, config.clone());
        if rank != 0 {
            let (stats, _) = agent.run(&|| false);
            return Ok(Finished {
                rank,
                value: None,
                stats,
                found: None,
            });
        }
        node.active.fetch_add(1, Ordering::AcqRel);
        let (outcome, stats, found) = std::thread::scope(|s| {
            let n = node.clone();
            let h = s.spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pool.run(|| offshoot::eureka::finish(&n.stop, root))
                }));
                if r.is_err() {
                    // A failure stops every rank's work for this run.
                    n.send(crate::node::Out::Resolve);
                }
                n.active.fetch_sub(1, Ordering::AcqRel);
                n.wake_agent();
                r
            });
            let (stats, found) = agent.run(&|| h.is_finished());
            (
                h.join().expect("the root's thread catches panics"),
                stats,
                found,
            )
        });
        match outcome {
            Ok(value) => Ok(Finished {
                rank,
                value,
                stats,
                found,
            }),
            Err(p) => std::panic::resume_unwind(p),
        }
    }
}
