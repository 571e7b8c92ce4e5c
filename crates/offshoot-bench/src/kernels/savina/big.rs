//! `big` (Savina's Big): N actors each send M pings, one at a time, to pseudo-random
//! neighbours, and answer every ping they receive with a pong. Ping k of actor a
//! (k = a·M + i for its i-th ping) goes to the neighbour that `mix(k)` picks among the
//! other N−1 actors; the pong carries `mix(!k)`, which the pinger adds to its sum before
//! it sends its next ping. An actor that got its M-th pong tells a sink, which ends
//! after N completions; the actors (which hold handles to each other) are then stopped
//! and report what they counted. Many-to-many traffic: N pings in flight at any time.
//!
//! - serial: the loop over the N·M pings, counting each at its target and adding its
//!   pong value;
//! - offshoot: the actors are `offshoot::actor` actors (`mesh::offshoot`) that receive
//!   their neighbours' addresses and the sink's in a first `Link` message; the sink is
//!   an actor counting down the completions, then putting an `offshoot::sync::Promise`
//!   the calling task waits for; the calling task then stops the actors, whose exits
//!   (their states dropped) hand back their counts;
//! - offshoot-tasks: one task per actor in an `offshoot::scope`, its mailbox an
//!   `offshoot::sync` channel, the calling task as the sink counting the completions on a
//!   channel of its own (`mesh::tasks`); a `None` message ends an actor's loop, leaving
//!   its counts in place;
//! - tokio: the same actors in ractor (`mesh::tokio`); the sink is a ractor actor,
//!   awaited; the actors are drained and hand back their counts in `post_stop`;
//! - kameo: the same actors in kameo (`mesh::kameo`); the sink is a kameo actor, awaited
//!   until it stops; the actors are stopped gracefully, their counts in their final
//!   states;
//! - threads: one thread per actor with an `std::sync::mpsc` mailbox, the calling
//!   thread as the sink (`mesh::threads`); a `None` message stops an actor, which
//!   returns its counts.
//!
//! Inputs (N actors, M pings each): test 6, 20; quick 32, 400; full 120, 4 000
//! (Savina's default N with fewer pings).
//! Cutoff: none.
//! Check: (pings received, pongs received, Σ pong values, Σ pings received by a ·
//! mix(a)) must be (N·M, N·M, Σ mix(!k) over k < N·M, Σ mix(target of k) over the
//! pings k): a lost, doubled or misrouted message changes it.

use std::hint::black_box;

use super::mesh::{self, Member};
use super::mix;
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "big",
    about: "N actors ping pseudo-random neighbours M times each, every ping answered by a pong",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Big",
};

/// N actors, M pings each.
#[derive(Clone, Copy, Debug)]
pub struct Big {
    /// N (at least 2).
    pub actors: u64,
    /// M.
    pub pings: u64,
}

impl Big {
    /// The number of actor `me`'s `i`-th ping.
    fn ping_id(self, me: u64, i: u64) -> u64 {
        me * self.pings + i
    }

    /// The target of ping `k` sent by `me`: one of the other actors.
    fn target(self, me: u64, k: u64) -> u64 {
        (me + 1 + mix(k) % (self.actors - 1)) % self.actors
    }
}

/// The value a pong to ping `k` carries.
fn pong_value(k: u64) -> u64 {
    mix(!k)
}

/// The answer: (pings received, pongs received, Σ pong values, Σ pings received by a ·
/// mix(a)), the sums wrapping.
pub type Counts = (u64, u64, u64, u64);

/// Adds two [`Counts`].
fn add(a: Counts, b: Counts) -> Counts {
    (
        a.0 + b.0,
        a.1 + b.1,
        a.2.wrapping_add(b.2),
        a.3.wrapping_add(b.3),
    )
}

/// The plain loop.
pub fn serial(b: Big) -> Counts {
    let mut received = vec![0u64; b.actors as usize];
    let mut sum = 0u64;
    for me in 0..b.actors {
        for i in 0..b.pings {
            let k = black_box(b.ping_id(me, i));
            received[b.target(me, k) as usize] += 1;
            sum = sum.wrapping_add(pong_value(k));
        }
    }
    let weighted = received.iter().enumerate().fold(0u64, |w, (a, &r)| {
        w.wrapping_add(r.wrapping_mul(mix(a as u64)))
    });
    let total = b.actors * b.pings;
    (total, total, sum, weighted)
}

/// The oracle: the counts from each ping on its own.
fn check(b: &Big, got: Counts) -> Result<(), String> {
    let total = b.actors * b.pings;
    let sum = (0..total).fold(0u64, |s, k| s.wrapping_add(pong_value(k)));
    let weighted = (0..total).fold(0u64, |w, k| w.wrapping_add(mix(b.target(k / b.pings, k))));
    let want = (total, total, sum, weighted);
    if got == want {
        Ok(())
    } else {
        Err(format!("counts {got:?}, expected {want:?}"))
    }
}

/// What actors receive, whoever carries it.
#[derive(Clone, Copy, Debug)]
enum Msg {
    /// Send the first ping.
    Start,
    /// Ping `k` from actor `from`.
    Ping { from: u64, k: u64 },
    /// The answer to this actor's last ping.
    Pong(u64),
}

/// One actor's logic, the same on every contender: `send(to, msg)` reaches actor `to`,
/// `done()` the sink.
struct Node {
    b: Big,
    me: u64,
    sent: u64,
    pings: u64,
    pongs: u64,
    sum: u64,
}

impl Node {
    fn new(b: Big, me: u64) -> Self {
        Node {
            b,
            me,
            sent: 0,
            pings: 0,
            pongs: 0,
            sum: 0,
        }
    }

    fn counts(&self) -> Counts {
        (
            self.pings,
            self.pongs,
            self.sum,
            self.pings.wrapping_mul(mix(self.me)),
        )
    }
}

impl Member for Node {
    type Msg = Msg;
    fn receive(&mut self, msg: Msg, mut send: impl FnMut(usize, Msg), mut done: impl FnMut()) {
        let b = self.b;
        match msg {
            Msg::Start => {}
            Msg::Ping { from, k } => {
                self.pings += 1;
                send(from as usize, Msg::Pong(pong_value(k)));
                return;
            }
            Msg::Pong(v) => {
                self.pongs += 1;
                self.sum = self.sum.wrapping_add(v);
            }
        }
        if self.sent < b.pings {
            let k = b.ping_id(self.me, self.sent);
            self.sent += 1;
            send(
                b.target(self.me, k) as usize,
                Msg::Ping { from: self.me, k },
            );
        } else {
            done();
        }
    }
}

/// The members, each with its `Start`.
fn mesh_of(b: Big) -> (Vec<Node>, impl Iterator<Item = (usize, Msg)>) {
    let nodes = (0..b.actors).map(|me| Node::new(b, me)).collect();
    (nodes, (0..b.actors as usize).map(|a| (a, Msg::Start)))
}

/// Sums the members' counts.
fn total(nodes: Vec<Node>) -> Counts {
    nodes.iter().map(Node::counts).fold((0, 0, 0, 0), add)
}

/// offshoot actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(b: Big) -> Counts {
    let (nodes, starts) = mesh_of(b);
    total(mesh::offshoot(nodes, starts, b.actors))
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, b: Big) -> Counts {
    let (nodes, starts) = mesh_of(b);
    total(mesh::tokio(rt, nodes, starts, b.actors))
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, b: Big) -> Counts {
    let (nodes, starts) = mesh_of(b);
    total(mesh::kameo(rt, nodes, starts, b.actors))
}

/// One task per actor; the calling task is the sink. Call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(b: Big) -> Counts {
    let (nodes, starts) = mesh_of(b);
    total(mesh::tasks(nodes, starts, b.actors))
}

/// One thread per actor; the calling thread is the sink.
pub fn threads(b: Big) -> Counts {
    let (nodes, starts) = mesh_of(b);
    total(mesh::threads(nodes, starts, b.actors))
}

fn prepare(size: Size) -> Plain<Big, Counts> {
    let (actors, pings) = match size {
        Size::Test => (6, 20),
        Size::Quick => (32, 400),
        Size::Full => (120, 4_000),
    };
    let b = Big { actors, pings };
    Plain::checked(b, format!("{actors} actors, {pings} pings each"), check)
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(ABOUT, prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_rejects_a_misrouted_ping() {
        let b = Big {
            actors: 4,
            pings: 10,
        };
        let right = serial(b);
        assert_eq!((right.0, right.1), (40, 40));
        check(&b, right).unwrap();
        check(&b, threads(b)).unwrap();
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        check(&b, pool.run(|| offshoot(b))).unwrap();
        check(&b, pool.run(|| offshoot_tasks(b))).unwrap();
        // One ping counted at actor 0 instead of its target: only the weighted sum moves.
        let k = (0..40).find(|&k| b.target(k / 10, k) != 0).unwrap();
        let moved = right
            .3
            .wrapping_sub(mix(b.target(k / 10, k)))
            .wrapping_add(mix(0));
        assert!(check(&b, (right.0, right.1, right.2, moved)).is_err());
        // Without pings, every actor reports at its start.
        let none = Big {
            actors: 3,
            pings: 0,
        };
        assert_eq!(pool.run(|| offshoot(none)), (0, 0, 0, 0));
        assert_eq!(pool.run(|| offshoot_tasks(none)), (0, 0, 0, 0));
        assert_eq!(threads(none), (0, 0, 0, 0));
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
