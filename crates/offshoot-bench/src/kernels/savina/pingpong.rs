//! `pingpong` (Savina's PingPong): two actors exchange N messages. A ping actor sends
//! the value i to a pong actor, which replies i+1; the ping actor adds the reply to its
//! sum and sends the next value, N times, then reports the sum. Nothing runs in
//! parallel: the kernel measures a message's round trip between two actors (2N sends
//! and receives, each waiting on the one before).
//!
//! - serial: the loop summing i+1;
//! - offshoot: a `Ping` and a `Pong` actor (`offshoot::actor`); the reply address
//!   travels in the message (`Context::myself`), and the ping actor hands the sum to the
//!   calling task through an `offshoot::sync::Promise` and exits; the pong actor exits
//!   when its last handle is dropped;
//! - offshoot-tasks: the calling task pings a pong task (`offshoot::scope`) over an
//!   `offshoot::sync::unbounded` channel; each request carries a clone of the ping's
//!   reply `Sender` (the actor version's `Context::myself`); the pong task's loop ends
//!   when the request channel closes;
//! - tokio: the same two actors in ractor on the harness's tokio runtime; the ping actor
//!   stops itself, then the pong actor is drained;
//! - kameo: the same two actors in kameo on the same runtime; the ping actor stops
//!   itself (`Context::stop`), then the pong actor is stopped gracefully;
//! - threads: the calling thread pings a pong thread over two `std::sync::mpsc`
//!   channels.
//!
//! Inputs (N exchanges): test 200, quick 8 000, full 200 000.
//! Cutoff: none.
//! Check: the sum of i+1 for i in 0..N, N(N+1)/2.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use offshoot::actor::{self, Actor, ActorRef, Context};
use offshoot::sync::{unbounded, Sender};

use super::{cast, drained, joined, spawn_kameo, spawn_ractor, stopped, tell, KRef, GONE};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "pingpong",
    about: "two actors exchange N messages, each reply answering a request",
    cutoff: "none",
    source: "Savina (shamsimam/savina) PingPong",
};

/// The oracle: N(N+1)/2.
pub fn expected(n: u64) -> u64 {
    n * (n + 1) / 2
}

/// The plain loop.
pub fn serial(n: u64) -> u64 {
    (0..n).map(|i| black_box(i) + 1).sum()
}

/// Answers i with i+1.
struct Pong;

impl Actor for Pong {
    type Message = (u64, ActorRef<Ping>);
    fn receive(&mut self, (i, reply): (u64, ActorRef<Ping>), _: &mut Context<'_, Self>) {
        reply.send(i + 1);
    }
}

/// Sums the replies and sends the next request until N are done.
struct Ping {
    pong: ActorRef<Pong>,
    sent: u64,
    n: u64,
    sum: u64,
    done: offshoot::sync::Promise<u64>,
}

impl Actor for Ping {
    type Message = u64;
    fn receive(&mut self, reply: u64, ctx: &mut Context<'_, Self>) {
        self.sum += reply;
        if self.sent < self.n {
            self.pong.send((self.sent, ctx.myself()));
            self.sent += 1;
        } else {
            self.done.put(self.sum).expect("pingpong: one answer");
            ctx.exit();
        }
    }
}

/// offshoot actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(n: u64) -> u64 {
    let done = offshoot::sync::Promise::new();
    let pong = actor::start(Pong);
    let ping = actor::start(Ping {
        pong: pong.clone(),
        sent: 1,
        n,
        sum: 0,
        done: done.clone(),
    });
    if n == 0 {
        return 0;
    }
    pong.send((0, ping));
    *done.get()
}

/// offshoot tasks and channels; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(n: u64) -> u64 {
    let (to_pong, pong_in) = unbounded::<(u64, Sender<u64>)>();
    let (reply, ping_in) = unbounded::<u64>();
    offshoot::scope(|s| {
        s.spawn(move |_| {
            for (i, reply) in pong_in.iter() {
                reply.send(i + 1).expect(GONE);
            }
        });
        let mut sum = 0;
        for i in 0..n {
            to_pong.send((i, reply.clone())).expect(GONE);
            sum += ping_in.recv().expect(GONE);
        }
        drop(to_pong); // the pong task's loop ends
        sum
    })
}

/// ractor's pong: answers i with i+1.
struct RPong;

impl ractor::Actor for RPong {
    type Msg = (u64, ractor::ActorRef<u64>);
    type State = ();
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        _: (),
    ) -> Result<(), ractor::ActorProcessingErr> {
        Ok(())
    }
    async fn handle(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        (i, reply): Self::Msg,
        _: &mut (),
    ) -> Result<(), ractor::ActorProcessingErr> {
        cast(&reply, i + 1);
        Ok(())
    }
}

/// ractor's ping: its state is (next i, sum); it stores the sum in `out` and stops.
struct RPing {
    pong: ractor::ActorRef<(u64, ractor::ActorRef<u64>)>,
    n: u64,
    out: Arc<AtomicU64>,
}

impl ractor::Actor for RPing {
    type Msg = u64;
    type State = (u64, u64);
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<u64>,
        _: (),
    ) -> Result<(u64, u64), ractor::ActorProcessingErr> {
        Ok((1, 0))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<u64>,
        reply: u64,
        (sent, sum): &mut (u64, u64),
    ) -> Result<(), ractor::ActorProcessingErr> {
        *sum += reply;
        if *sent < self.n {
            cast(&self.pong, (*sent, myself));
            *sent += 1;
        } else {
            self.out.store(*sum, Ordering::Relaxed);
            myself.stop(None);
        }
        Ok(())
    }
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let out = Arc::new(AtomicU64::new(0));
    rt.block_on(async {
        let (pong, pong_done) = spawn_ractor(RPong, ()).await;
        let ping = RPing {
            pong: pong.clone(),
            n,
            out: out.clone(),
        };
        let (ping, ping_done) = spawn_ractor(ping, ()).await;
        cast(&pong, (0, ping));
        joined(ping_done).await;
        pong.drain().expect(GONE);
        joined(pong_done).await;
    });
    out.load(Ordering::Relaxed)
}

/// kameo's pong: answers i with i+1.
#[derive(kameo::Actor)]
struct KPong;

impl kameo::message::Message<(u64, KRef<KPing>)> for KPong {
    type Reply = ();
    async fn handle(
        &mut self,
        (i, reply): (u64, KRef<KPing>),
        _: &mut kameo::message::Context<Self, ()>,
    ) {
        tell(&reply, i + 1);
    }
}

/// kameo's ping: sums the replies and sends the next request until N are done, then
/// stores the sum in `out` and stops.
#[derive(kameo::Actor)]
struct KPing {
    pong: KRef<KPong>,
    sent: u64,
    n: u64,
    sum: u64,
    out: Arc<AtomicU64>,
}

impl kameo::message::Message<u64> for KPing {
    type Reply = ();
    async fn handle(&mut self, reply: u64, ctx: &mut kameo::message::Context<Self, ()>) {
        self.sum += reply;
        if self.sent < self.n {
            tell(&self.pong, (self.sent, ctx.actor_ref().clone()));
            self.sent += 1;
        } else {
            self.out.store(self.sum, Ordering::Relaxed);
            ctx.stop();
        }
    }
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let out = Arc::new(AtomicU64::new(0));
    rt.block_on(async {
        let pong = spawn_kameo(KPong);
        let ping = spawn_kameo(KPing {
            pong: pong.clone(),
            sent: 1,
            n,
            sum: 0,
            out: out.clone(),
        });
        tell(&pong, (0, ping.clone()));
        stopped(&ping).await;
        drained(&pong).await;
    });
    out.load(Ordering::Relaxed)
}

/// The calling thread pings a pong thread.
pub fn threads(n: u64) -> u64 {
    let (to_pong, pong_in) = mpsc::channel::<u64>();
    let (to_ping, ping_in) = mpsc::channel::<u64>();
    std::thread::scope(|s| {
        s.spawn(move || {
            for i in pong_in {
                to_ping.send(i + 1).expect(GONE);
            }
        });
        let mut sum = 0;
        for i in 0..n {
            to_pong.send(i).expect(GONE);
            sum += ping_in.recv().expect(GONE);
        }
        drop(to_pong); // the pong thread's loop ends
        sum
    })
}

fn prepare(size: Size) -> Plain<u64, u64> {
    let n = match size {
        Size::Test => 200,
        Size::Quick => 4_000,
        Size::Full => 200_000,
    };
    Plain::new(
        n,
        format!("{n} exchanges"),
        expected(n),
        "sum of the replies",
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
    fn every_contender_sums_the_replies() {
        assert_eq!(serial(10), expected(10));
        assert_eq!(threads(10), 55);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(10)), 55);
        assert_eq!(pool.run(|| offshoot(1)), 1);
        assert_eq!(pool.run(|| offshoot(0)), 0);
        assert_eq!(pool.run(|| offshoot_tasks(10)), 55);
        assert_eq!(pool.run(|| offshoot_tasks(0)), 0);
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
