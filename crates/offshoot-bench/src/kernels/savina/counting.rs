//! `counting` (Savina's Counting Actor): one producer sends N increments to a counter
//! actor, then asks it for the total. The counter only adds, so the kernel measures
//! one-way message throughput into one actor: the producer never waits until the end.
//! Increment i adds i (Savina's adds 1), so a lost, repeated or reordered-into-the-ask
//! message changes the answer.
//!
//! - serial: the loop adding 0..N;
//! - offshoot: the calling task sends to a `Counter` actor, then sends `Get` with an
//!   `offshoot::sync::Promise` and waits on it (the task parks; the worker runs the
//!   counter's drains meanwhile);
//! - offshoot-tasks: a counter task (`offshoot::scope`) reading an
//!   `offshoot::sync::unbounded` channel; `Get` carries a reply channel's `Sender`, on
//!   which the calling task waits (it parks);
//! - tokio: a ractor counter; the producer is the `block_on` future, which `cast`s the
//!   increments and asks with ractor's `call` (an `RpcReplyPort`);
//! - kameo: a kameo counter on the same runtime, sent `tell`s and asked with `ask`
//!   (its handler for `Get` returns the total and stops the actor);
//! - threads: a counter thread reading a `std::sync::mpsc` channel, asked through a
//!   reply channel.
//!
//! Inputs (N increments): test 1 000, quick 100 000, full 1 000 000.
//! Cutoff: none.
//! Check: the total is N(N-1)/2.

use std::hint::black_box;
use std::sync::mpsc;

use offshoot::actor::{self, Actor, Context};

use super::{cast, joined, spawn_kameo, spawn_ractor, stopped, tell, GONE};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "counting",
    about: "a producer sends N increments to a counter actor, then asks for the total",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Counting Actor",
};

/// The oracle: N(N-1)/2.
pub fn expected(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// The plain loop.
pub fn serial(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        total += black_box(i);
    }
    total
}

/// The offshoot counter's messages.
enum Msg {
    Add(u64),
    Get(offshoot::sync::Promise<u64>),
}

/// Adds what it is sent; answers `Get` and exits.
struct Counter(u64);

impl Actor for Counter {
    type Message = Msg;
    fn receive(&mut self, msg: Msg, ctx: &mut Context<'_, Self>) {
        match msg {
            Msg::Add(i) => self.0 += i,
            Msg::Get(p) => {
                p.put(self.0).expect("counting: one answer");
                ctx.exit();
            }
        }
    }
}

/// offshoot actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(n: u64) -> u64 {
    let counter = actor::start(Counter(0));
    for i in 0..n {
        counter.send(Msg::Add(i));
    }
    let total = offshoot::sync::Promise::new();
    counter.send(Msg::Get(total.clone()));
    *total.get()
}

/// The ractor counter's messages.
enum RMsg {
    Add(u64),
    Get(ractor::RpcReplyPort<u64>),
}

/// ractor's counter: its state is the total.
struct RCounter;

impl ractor::Actor for RCounter {
    type Msg = RMsg;
    type State = u64;
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<RMsg>,
        _: (),
    ) -> Result<u64, ractor::ActorProcessingErr> {
        Ok(0)
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<RMsg>,
        msg: RMsg,
        total: &mut u64,
    ) -> Result<(), ractor::ActorProcessingErr> {
        match msg {
            RMsg::Add(i) => *total += i,
            RMsg::Get(reply) => {
                reply.send(*total)?;
                myself.stop(None);
            }
        }
        Ok(())
    }
}

/// A ractor counter on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, n: u64) -> u64 {
    rt.block_on(async {
        let (counter, done) = spawn_ractor(RCounter, ()).await;
        for i in 0..n {
            cast(&counter, RMsg::Add(i));
        }
        let total = match counter.call(RMsg::Get, None).await.expect(GONE) {
            ractor::rpc::CallResult::Success(t) => t,
            _ => panic!("{GONE}"),
        };
        joined(done).await;
        total
    })
}

/// kameo's counter: the total.
#[derive(kameo::Actor)]
struct KCounter(u64);

/// kameo's increment.
struct Add(u64);

/// kameo's request for the total.
struct Get;

impl kameo::message::Message<Add> for KCounter {
    type Reply = ();
    async fn handle(&mut self, Add(i): Add, _: &mut kameo::message::Context<Self, ()>) {
        self.0 += i;
    }
}

impl kameo::message::Message<Get> for KCounter {
    type Reply = u64;
    async fn handle(&mut self, _: Get, ctx: &mut kameo::message::Context<Self, u64>) -> u64 {
        ctx.stop();
        self.0
    }
}

/// A kameo counter on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, n: u64) -> u64 {
    rt.block_on(async {
        let counter = spawn_kameo(KCounter(0));
        for i in 0..n {
            tell(&counter, Add(i));
        }
        let total = counter.ask(Get).await.unwrap_or_else(|_| panic!("{GONE}"));
        stopped(&counter).await;
        total
    })
}

/// The channel counter's messages (threads and tasks); `R` is the reply channel's
/// sender.
enum TMsg<R> {
    Add(u64),
    Get(R),
}

/// A channel counter's loop: adds the increments until `Get`; returns the total and
/// where to send it.
fn count<R>(inbox: impl IntoIterator<Item = TMsg<R>>) -> (u64, R) {
    let mut total = 0;
    for msg in inbox {
        match msg {
            TMsg::Add(i) => total += i,
            TMsg::Get(reply) => return (total, reply),
        }
    }
    panic!("{GONE}")
}

/// A counter thread.
pub fn threads(n: u64) -> u64 {
    let (to_counter, inbox) = mpsc::channel::<TMsg<mpsc::SyncSender<u64>>>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let (total, reply) = count(inbox);
            reply.send(total).expect(GONE);
        });
        for i in 0..n {
            to_counter.send(TMsg::Add(i)).expect(GONE);
        }
        let (reply, answer) = mpsc::sync_channel(1);
        to_counter.send(TMsg::Get(reply)).expect(GONE);
        answer.recv().expect(GONE)
    })
}

/// A counter task; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(n: u64) -> u64 {
    let (to_counter, inbox) = offshoot::sync::unbounded::<TMsg<offshoot::sync::Sender<u64>>>();
    offshoot::scope(|s| {
        s.spawn(move |_| {
            let (total, reply) = count(inbox.iter());
            reply.send(total).expect(GONE);
        });
        for i in 0..n {
            to_counter.send(TMsg::Add(i)).expect(GONE);
        }
        let (reply, answer) = offshoot::sync::bounded(1);
        to_counter.send(TMsg::Get(reply)).expect(GONE);
        answer.recv().expect(GONE)
    })
}

fn prepare(size: Size) -> Plain<u64, u64> {
    let n = match size {
        Size::Test => 1_000,
        Size::Quick => 50_000,
        Size::Full => 1_000_000,
    };
    Plain::new(n, format!("{n} increments"), expected(n), "total")
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(ABOUT, prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_counts_every_increment_once() {
        assert_eq!(expected(5), 10);
        assert_eq!(serial(5), 10);
        assert_eq!(threads(5), 10);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(5)), 10);
        assert_eq!(pool.run(|| offshoot(0)), 0);
        assert_eq!(pool.run(|| offshoot_tasks(5)), 10);
        assert_eq!(pool.run(|| offshoot_tasks(0)), 0);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        assert_eq!(tokio(&rt, 5), 10);
        assert_eq!(kameo(&rt, 5), 10);
        assert_eq!(kameo(&rt, 0), 0);
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
