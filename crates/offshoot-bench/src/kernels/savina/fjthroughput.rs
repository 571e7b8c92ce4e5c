//! `fork-join-throughput` (Savina's Fork Join (throughput)): K actors each receive N
//! messages. The driver sends message j (for j in 0..N) to every actor in turn; each
//! message costs a little work (one `mix`, Savina's does a sine), which the actor adds
//! to its sum; when the driver is done the actors end and their sums are added. The
//! K actors are independent, so K mailboxes drain in parallel: the kernel measures
//! message throughput with parallelism.
//!
//! - serial: the double loop over actors and messages;
//! - offshoot: K `offshoot::actor` actors in one `offshoot::finish`; the calling task
//!   sends, then drops the handles; each actor exits when its mailbox is empty and
//!   adds its sum to a shared atomic as its state is dropped; the finish waits;
//! - offshoot-tasks: K tasks in one `offshoot::scope`, each reading its
//!   `offshoot::sync::unbounded` channel until the driver drops the sender and writing
//!   its sum to its own slot;
//! - tokio: K ractor actors (`RSummer`), drained at the end; each adds its sum in
//!   `post_stop`;
//! - kameo: K kameo actors (`KSummer`), stopped gracefully at the end; their sums are
//!   in their final states;
//! - threads: K threads, each reading its `std::sync::mpsc` channel until the driver
//!   drops the sender, returning its sum.
//!
//! Inputs (K actors × N messages): test 4 × 100, quick 16 × 2 000, full 60 × 20 000.
//! Cutoff: none (one actor per mailbox).
//! Check: the sum of `mix(k·N + j)` over all k, j, computed by the serial loop; the
//! unit test also checks that a missing message changes it.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use offshoot::actor::{self, Actor, Context};

use super::{
    cast, drain, ended, joined, mix, spawn_kameo_ended, spawn_ractor, tell, KSummer, RSummer, GONE,
};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "fork-join-throughput",
    about: "K actors each receive N messages of a little work, draining in parallel",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Fork Join (throughput)",
};

/// K actors, N messages each.
#[derive(Clone, Copy, Debug)]
pub struct Fan {
    /// K.
    pub actors: u64,
    /// N.
    pub messages: u64,
}

impl Fan {
    /// Every message, in the driver's order: (actor, payload).
    fn each(self, mut send: impl FnMut(usize, u64)) {
        for j in 0..self.messages {
            for k in 0..self.actors {
                send(k as usize, k * self.messages + j);
            }
        }
    }
}

/// The plain loops.
pub fn serial(f: Fan) -> u64 {
    let mut sum = 0u64;
    f.each(|_, x| sum = sum.wrapping_add(mix(black_box(x))));
    sum
}

/// Sums the work of its messages; adds the sum to `out` as it is dropped (its exit).
struct Worker {
    sum: u64,
    out: Arc<AtomicU64>,
}

impl Actor for Worker {
    type Message = u64;
    fn receive(&mut self, x: u64, _: &mut Context<'_, Self>) {
        self.sum = self.sum.wrapping_add(mix(x));
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.out.fetch_add(self.sum, Ordering::Relaxed);
    }
}

/// offshoot actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(f: Fan) -> u64 {
    let out = Arc::new(AtomicU64::new(0));
    offshoot::finish(|| {
        let workers: Vec<_> = (0..f.actors)
            .map(|_| {
                actor::start(Worker {
                    sum: 0,
                    out: out.clone(),
                })
            })
            .collect();
        f.each(|k, x| workers[k].send(x));
    }); // the handles are dropped: each actor exits once its mailbox is empty
    out.load(Ordering::Relaxed)
}

/// A channel worker's loop (threads and tasks): the sum of its messages' work.
fn summed(inbox: impl IntoIterator<Item = u64>) -> u64 {
    inbox.into_iter().fold(0u64, |a, x| a.wrapping_add(mix(x)))
}

/// K tasks; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(f: Fan) -> u64 {
    let mut sums = vec![0u64; f.actors as usize];
    offshoot::scope(|s| {
        let senders: Vec<_> = sums
            .iter_mut()
            .map(|sum| {
                let (tx, rx) = offshoot::sync::unbounded::<u64>();
                s.spawn(move |_| *sum = summed(rx.iter()));
                tx
            })
            .collect();
        f.each(|k, x| senders[k].send(x).expect(GONE));
    }); // the senders are dropped: each task ends once its channel is empty
    sums.into_iter().fold(0u64, u64::wrapping_add)
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, f: Fan) -> u64 {
    let out = Arc::new(AtomicU64::new(0));
    rt.block_on(async {
        let mut workers = Vec::new();
        for _ in 0..f.actors {
            workers.push(
                spawn_ractor(
                    RSummer {
                        out: out.clone(),
                        after: |_| {},
                    },
                    (),
                )
                .await,
            );
        }
        f.each(|k, x| cast(&workers[k].0, x));
        for (worker, done) in workers {
            worker.drain().expect(GONE);
            joined(done).await;
        }
    });
    out.load(Ordering::Relaxed)
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, f: Fan) -> u64 {
    rt.block_on(async {
        let (workers, ends): (Vec<_>, Vec<_>) = (0..f.actors)
            .map(|_| spawn_kameo_ended(KSummer { after: (), sum: 0 }))
            .unzip();
        f.each(|k, x| tell(&workers[k], x));
        let mut sum = 0u64;
        for (worker, end) in workers.iter().zip(ends) {
            drain(worker).await;
            sum = sum.wrapping_add(ended(end).await.sum);
        }
        sum
    })
}

/// K threads.
pub fn threads(f: Fan) -> u64 {
    std::thread::scope(|s| {
        let (senders, workers): (Vec<_>, Vec<_>) = (0..f.actors)
            .map(|_| {
                let (tx, rx) = mpsc::channel::<u64>();
                let worker = s.spawn(move || summed(rx));
                (tx, worker)
            })
            .unzip();
        f.each(|k, x| senders[k].send(x).expect(GONE));
        drop(senders);
        workers
            .into_iter()
            .map(|w| w.join().expect(GONE))
            .fold(0u64, u64::wrapping_add)
    })
}

fn prepare(size: Size) -> Plain<Fan, u64> {
    let (actors, messages) = match size {
        Size::Test => (4, 100),
        Size::Quick => (16, 2_000),
        Size::Full => (60, 20_000),
    };
    let f = Fan { actors, messages };
    Plain::checked(
        f,
        format!("{actors} actors × {messages} messages"),
        |f, got| {
            // An independent order: actor by actor.
            let want = (0..f.actors * f.messages).fold(0u64, |a, x| a.wrapping_add(mix(x)));
            if got == want {
                Ok(())
            } else {
                Err(format!("sum {got}, expected {want}"))
            }
        },
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(ABOUT, prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_message_changes_the_sum() {
        let f = Fan {
            actors: 3,
            messages: 5,
        };
        let all = serial(f);
        let mut fewer = 0u64;
        f.each(|k, x| {
            if (k, x) != (2, 14) {
                fewer = fewer.wrapping_add(mix(x));
            }
        });
        assert_ne!(all, fewer);
        assert_eq!(threads(f), all);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(f)), all);
        assert_eq!(pool.run(|| offshoot_tasks(f)), all);
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
