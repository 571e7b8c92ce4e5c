//! `ring`: Imam's Figure 3.1, a ring of 64 tasks each waiting on its
//! neighbour. In each of R rounds, 64 tasks are started and wired into a ring
//! by one link (a channel of capacity 1) per task; task 0 starts a token, and
//! every task, K times, waits for the token from task i-1 and passes it on to
//! task i+1 incremented by one. After K laps the token comes back to task 0,
//! which ends the round with it. Nothing runs in parallel: the kernel measures
//! what a hand-over between waiting tasks costs (64·K per round) and whether
//! 64 waiting tasks need 64 threads.
//!
//! - serial: the plain loop adding one per hop (`black_box` keeps the hops);
//! - offshoot: the 64 tasks are task 0 (the calling task) and 63
//!   `Scope::spawn`s in one `offshoot::scope`; the links are
//!   `offshoot::sync::bounded(1)` channels, whose waits park the task, not the
//!   worker, so the 64 tasks share the pool's 1 or 2 workers;
//! - threads: the same program on 64 OS threads (the calling thread and 63 of
//!   `std::thread::scope`), the links `std::sync::mpsc::sync_channel(1)`:
//!   every wait blocks its thread (the blocking baseline);
//! - go (a peer in another language, [`crate::peers`]): the same program on 64 goroutines
//!   (the calling one and 63 started with `go`, joined by a `sync.WaitGroup`), the links
//!   channels of capacity 1, under `GOMAXPROCS(workers)`; its serial version is the plain
//!   loop, one increment per hop (Go's compiler keeps them all);
//! - java (a peer too): the same program on a `ForkJoinPool(workers)`, the calling task (a
//!   pool worker) and 63 `CompletableFuture.runAsync` tasks joined by
//!   `CompletableFuture.allOf(..).join()`, the links `ArrayBlockingQueue`s of capacity 1: a
//!   wait blocks its thread, and the pool starts spare threads for the blocked ones (up to 64
//!   threads in all); its serial version is the plain loop with the token in an array cell
//!   read and written by opaque `VarHandle` accesses, one increment per hop (C2 folds a plain
//!   counted loop of increments).
//!
//! Per hop: divide the time by 64·K·R. Inputs (R rounds × K laps): test 2 × 5,
//! quick 4 × 50, full 10 × 200.
//! Cutoff: none (one task per ring member).
//! Check: round r starts the token at r, so the answer, the sum of the
//! tokens that come back, must be R(R-1)/2 + 64·K·R.

use std::hint::black_box;

use super::plain::{self, call, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::harness::Contender;
use crate::par::Spawn;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "ring",
    about: "64 tasks in a ring pass a token on, each waiting for the one before it",
    cutoff: "none",
    source: "Imam's thesis Figure 3.1, the ring of waiting tasks",
};

/// Tasks in the ring.
pub const TASKS: usize = 64;

/// What a link reports when the task at its other end is gone: that task
/// panicked (its panic is the one that matters).
const GONE: &str = "ring: a neighbour task ended early";

/// The receiving end of a link.
trait Take: Send {
    /// Waits for the token.
    fn take(&self) -> u64;
}

/// The sending end of a link.
trait Pass: Send {
    /// Hands the token on (the link has room: one token is in the ring).
    fn pass(&self, token: u64);
}

impl Take for offshoot::sync::Receiver<u64> {
    fn take(&self) -> u64 {
        self.recv().expect(GONE)
    }
}

impl Pass for offshoot::sync::Sender<u64> {
    fn pass(&self, token: u64) {
        self.send(token).expect(GONE);
    }
}

impl Take for std::sync::mpsc::Receiver<u64> {
    fn take(&self) -> u64 {
        self.recv().expect(GONE)
    }
}

impl Pass for std::sync::mpsc::SyncSender<u64> {
    fn pass(&self, token: u64) {
        self.send(token).expect(GONE);
    }
}

/// Wires a ring from `channel`: entry i is task i's (sender to task i+1,
/// receiver from task i-1).
fn wire<S, R>(mut channel: impl FnMut() -> (S, R)) -> Vec<(S, R)> {
    let (senders, mut receivers): (Vec<S>, Vec<R>) = (0..TASKS).map(|_| channel()).unzip();
    receivers.rotate_right(1);
    senders.into_iter().zip(receivers).collect()
}

/// One round on a wired ring: starts tasks 1 to 63 in `scope`, each of which,
/// `laps` times, takes the token from task i-1 and passes it on plus one; the
/// calling task is task 0, which `laps` times passes the token on plus one
/// (first `start`) and takes it back from task 63. Returns the last token.
fn round<'s, S: Pass + 's, R: Take + 's>(
    scope: impl Spawn<'s>,
    ring: Vec<(S, R)>,
    start: u64,
    laps: u64,
) -> u64 {
    let mut ring = ring.into_iter();
    let (to_next, from_last) = ring.next().expect("a ring has a task 0");
    for (to_next, from_last) in ring {
        scope.spawn_task(move || {
            for _ in 0..laps {
                let token = from_last.take();
                to_next.pass(token + 1);
            }
        });
    }
    let mut token = start;
    for _ in 0..laps {
        to_next.pass(token + 1);
        token = from_last.take();
    }
    token
}

/// One round of the plain loop.
pub fn serial_round(start: u64, laps: u64) -> u64 {
    let mut token = start;
    for _ in 0..laps {
        for _ in 0..TASKS {
            token = black_box(token) + 1;
        }
    }
    token
}

/// One round on offshoot; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_round(start: u64, laps: u64) -> u64 {
    let ring = wire(|| offshoot::sync::bounded::<u64>(1));
    offshoot::scope(|s| round(s, ring, start, laps))
}

/// One round on 64 OS threads.
pub fn threads_round(start: u64, laps: u64) -> u64 {
    let ring = wire(|| std::sync::mpsc::sync_channel::<u64>(1));
    std::thread::scope(|s| round(s, ring, start, laps))
}

/// R rounds of K laps.
#[derive(Clone, Copy, Debug)]
pub struct Rounds {
    /// R.
    pub rounds: u64,
    /// K.
    pub laps: u64,
}

impl Rounds {
    /// Runs every round with `round` and sums the tokens that come back.
    fn sum(self, round: fn(u64, u64) -> u64) -> u64 {
        (0..self.rounds).map(|r| round(r, self.laps)).sum()
    }

    /// The oracle: R(R-1)/2 + 64·K·R.
    pub fn expected(self) -> u64 {
        self.rounds * (self.rounds - 1) / 2 + TASKS as u64 * self.laps * self.rounds
    }
}

/// The plain loop, every round.
pub fn serial(r: Rounds) -> u64 {
    r.sum(serial_round)
}

/// offshoot, every round; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(r: Rounds) -> u64 {
    r.sum(offshoot_round)
}

/// OS threads, every round.
pub fn threads(r: Rounds) -> u64 {
    r.sum(threads_round)
}

fn prepare(size: Size) -> Plain<Rounds, u64> {
    let (rounds, laps) = match size {
        Size::Test => (2, 5),
        Size::Quick => (4, 50),
        Size::Full => (10, 200),
    };
    let r = Rounds { rounds, laps };
    let label = format!("{TASKS} tasks, {rounds} rounds × {laps} laps");
    let what = "sum of the final tokens";
    Plain::new(r, label, r.expected(), what)
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(serial))
        .offshoot(call(offshoot))
        .threads(call(threads))
        .peers(
            &[Contender::Go, Contender::Java],
            plain::peer_args(|r: &Rounds| vec![r.rounds.to_string(), r.laps.to_string()]),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_round_adds_one_per_hop() {
        assert_eq!(serial_round(7, 3), 7 + 3 * 64);
        assert_eq!(threads_round(7, 3), 7 + 3 * 64);
        assert_eq!(Rounds { rounds: 2, laps: 5 }.expected(), 1 + 2 * 5 * 64);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
