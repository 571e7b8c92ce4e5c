//! offshoot across processes and machines: the same lazy, request-driven load balancing as
//! offshoot's, between ranks of an MPI job.
//!
//! Each process (one per node, or per NUMA domain) runs an ordinary offshoot pool and one
//! agent thread that owns the network. Work moves between ranks the way it moves between
//! workers: only when a rank's own workers found nothing does it ask another rank, and the
//! victim answers from its **oldest** block that can *package* work — a [`join`] whose
//! second half is a [`Task`], or a search [`handle`] whose exporter returns one. A package
//! is the task's value, serialized with serde, plus its name; every rank knows the same
//! [`Tasks`]. The result travels back to the victim, whose frame waits for it parked, as
//! it waits for a local thief. Idle ranks register on lifelines and go quiet (X10 GLB's
//! scheme); the root returning on rank 0 is global termination. [`found`] stops the whole
//! run (a distributed eureka) and [`Bound`] shares a branch-and-bound bound. A victim
//! keeps every package it gave away until its result is in, and runs it again itself if
//! its thief stops answering (Yasugi et al., `../shared/seeds/004`, §6).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! /// Counts the ways to place `n` queens, with the first rows split as tasks.
//! #[derive(Serialize, Deserialize)]
//! struct Queens { n: usize, cols: Vec<usize> }
//!
//! impl offshoot_mpi::Task for Queens {
//!     const NAME: &'static str = "queens";
//!     type Output = u64;
//!     fn run(self) -> u64 { count(self.n, self.cols) }
//! }
//!
//! fn count(n: usize, cols: Vec<usize>) -> u64 {
//!     if cols.len() == n { return 1; }
//!     let ok = |c: usize| cols.iter().enumerate()
//!         .all(|(r, &q)| q != c && cols.len() - r != q.abs_diff(c));
//!     let next: Vec<Vec<usize>> = (0..n).filter(|&c| ok(c))
//!         .map(|c| { let mut v = cols.clone(); v.push(c); v }).collect();
//!     split(n, next)
//! }
//!
//! /// Halves the list of children; each half may run on another rank.
//! fn split(n: usize, mut kids: Vec<Vec<usize>>) -> u64 {
//!     match kids.len() {
//!         0 => 0,
//!         1 => count(n, kids.pop().unwrap()),
//!         k => {
//!             let rest = kids.split_off(k / 2);
//!             let (a, b) = offshoot_mpi::join(|| split(n, kids), Split { n, kids: rest });
//!             a + b
//!         }
//!     }
//! }
//!
//! #[derive(Serialize, Deserialize)]
//! struct Split { n: usize, kids: Vec<Vec<usize>> }
//! impl offshoot_mpi::Task for Split {
//!     const NAME: &'static str = "split";
//!     type Output = u64;
//!     fn run(self) -> u64 { split(self.n, self.kids) }
//! }
//!
//! // Two ranks as threads (a real program: one process per rank under `mpirun`, with
//! // `offshoot_mpi::Mpi::init()` as the transport).
//! let tasks = offshoot_mpi::Tasks::new().with::<Queens>().with::<Split>();
//! let out: Vec<_> = std::thread::scope(|s| {
//!     offshoot_mpi::loopback::cluster(2)
//!         .into_iter()
//!         .map(|t| {
//!             let tasks = &tasks;
//!             s.spawn(move || {
//!                 let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
//!                 let mut session = offshoot_mpi::Session::new(t);
//!                 session.run(&pool, tasks, &Default::default(), || count(7, vec![])).unwrap()
//!             })
//!         })
//!         .collect::<Vec<_>>()
//!         .into_iter()
//!         .map(|h| h.join().unwrap())
//!         .collect()
//! });
//! assert_eq!(out[0].value, Some(40));
//! ```
//!
//! # What happens when a rank dies
//!
//! Open MPI 4.1 (Debian's) has no fault tolerance: a process that dies aborts the whole
//! job (`mpirun` exits non-zero), before this layer can react. What this layer survives is
//! a thief that **stops answering** — hung, or cut off — while the job goes on: its
//! victims run its packages again after [`Config::fault_timeout`], and a late result is
//! dropped, so no result is lost or counted twice. With Open MPI 5 built with ULFM
//! (`MPIX_Comm_revoke`, `MPIX_Comm_shrink`), a real death could be turned into the same
//! event; the `mpi` crate does not wrap those calls yet.

#![warn(missing_docs)]

mod agent;
mod eureka;
mod fork;
pub mod loopback;
#[cfg(feature = "mpi")]
mod mpi_transport;
mod node;
mod run;
mod session;
mod task;
mod transport;
mod wire;

pub use eureka::{found, Bound};
pub use fork::{handle, join};
#[cfg(feature = "mpi")]
pub use mpi_transport::{InitError, Mpi};
pub use run::{Config, Error, Finished};
pub use session::Session;
pub use task::{Task, Tasks};
pub use transport::Transport;
pub use wire::RankStats;
