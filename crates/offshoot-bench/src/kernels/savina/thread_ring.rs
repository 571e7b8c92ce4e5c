//! `thread-ring` (Savina's Thread Ring): R actors in a ring pass a token T hops. The
//! driver gives the token, valued T, to actor 0; an actor receiving t > 0 passes t-1
//! to the next actor; the actor receiving 0 is the holder: it reports its index and
//! sends `Exit` round the ring, each actor passing it on and exiting, up to the one
//! before the holder. Nothing runs in parallel: one message is in flight at a time,
//! each to another actor, so the kernel measures the hand-over between actors (every
//! hop wakes an idle one).
//!
//! - serial: the loop counting the token down round the ring;
//! - offshoot: R `offshoot::actor` actors, wired by a `Link` message each (an actor's
//!   handle is known only once it is started); the holder's index goes to the calling
//!   task through an `offshoot::sync::Promise`; the hops are counted per actor and
//!   added to a shared atomic as each actor's state is dropped (its exit), which the
//!   enclosing `offshoot::finish` waits for;
//! - offshoot-tasks: R tasks in one `offshoot::scope`, each reading its
//!   `offshoot::sync::unbounded` channel and sending to the next one's, each writing
//!   (its hops, whether it was the holder) to its own slot;
//! - tokio: the same ring of ractor actors (hops added in `post_stop`), the join
//!   handles awaited;
//! - kameo: the same ring of kameo actors, each awaited until it has stopped; the hops
//!   are in their final states;
//! - threads: R threads, each reading its `std::sync::mpsc` channel and sending to the
//!   next one's.
//!
//! Inputs (R actors, T hops): test 8 actors, 100 hops; quick 64, 10 000; full 100,
//! 100 000 (Savina's defaults).
//! Cutoff: none (one actor per ring member).
//! Check: the holder is T mod R and the hops add up to T.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use offshoot::actor::{self, Actor, ActorRef, Context};

use super::{cast, ended, joined, spawn_kameo_ended, spawn_ractor, tell, KRef, GONE};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "thread-ring",
    about: "a ring of R actors passes a token T hops, one message in flight",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Thread Ring",
};

/// R actors, T hops.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    /// R.
    pub actors: u64,
    /// T.
    pub hops: u64,
}

impl Ring {
    /// The oracle: (holder, hops) = (T mod R, T).
    pub fn expected(self) -> (u64, u64) {
        (self.hops % self.actors, self.hops)
    }
}

/// The plain loop: (holder, hops).
pub fn serial(r: Ring) -> (u64, u64) {
    let (mut at, mut t, mut hops) = (0, r.hops, 0);
    while black_box(t) > 0 {
        t -= 1;
        hops += 1;
        at = (at + 1) % r.actors;
    }
    (at, hops)
}

/// What a ring member sends on: the token, the `Exit` of the holder `origin`, or
/// nothing.
enum Step {
    Pass(u64),
    Exit(u64),
    Stay,
}

/// Member `me` of a ring of `n`, counting its hops in `hops`, receives a token
/// (`Ok(t)`) or an `Exit` sent round by the holder `origin` (`Err(origin)`). Returns
/// what to send to the next member and whether this member ends.
fn step(me: u64, n: u64, token: Result<u64, u64>, hops: &mut u64) -> (Step, bool) {
    match token {
        Ok(0) => (Step::Exit(me), true),
        Ok(t) => {
            *hops += 1;
            (Step::Pass(t - 1), false)
        }
        Err(origin) if (me + 1) % n == origin => (Step::Stay, true),
        Err(origin) => (Step::Exit(origin), true),
    }
}

/// The offshoot member's messages.
enum Msg {
    Link(ActorRef<Member>),
    Token(u64),
    Exit(u64),
}

/// A ring member; its hops are added to `out` as it is dropped (its exit).
struct Member {
    me: u64,
    n: u64,
    next: Option<ActorRef<Member>>,
    hops: u64,
    out: Arc<AtomicU64>,
    holder: offshoot::sync::Promise<u64>,
}

impl Actor for Member {
    type Message = Msg;
    fn receive(&mut self, msg: Msg, ctx: &mut Context<'_, Self>) {
        let token = match msg {
            Msg::Link(next) => {
                self.next = Some(next);
                return;
            }
            Msg::Token(t) => Ok(t),
            Msg::Exit(origin) => Err(origin),
        };
        if token == Ok(0) {
            self.holder.put(self.me).expect("thread-ring: one holder");
        }
        let (send, end) = step(self.me, self.n, token, &mut self.hops);
        let next = self
            .next
            .as_ref()
            .expect("thread-ring: linked before the token");
        match send {
            Step::Pass(t) => next.send(Msg::Token(t)),
            Step::Exit(origin) => next.send(Msg::Exit(origin)),
            Step::Stay => {}
        }
        if end {
            ctx.exit();
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.out.fetch_add(self.hops, Ordering::Relaxed);
    }
}

/// offshoot actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(r: Ring) -> (u64, u64) {
    let out = Arc::new(AtomicU64::new(0));
    let holder = offshoot::sync::Promise::new();
    let at = offshoot::finish(|| {
        let ring: Vec<_> = (0..r.actors)
            .map(|me| {
                actor::start(Member {
                    me,
                    n: r.actors,
                    next: None,
                    hops: 0,
                    out: out.clone(),
                    holder: holder.clone(),
                })
            })
            .collect();
        for (i, member) in ring.iter().enumerate() {
            member.send(Msg::Link(ring[(i + 1) % ring.len()].clone()));
        }
        ring[0].send(Msg::Token(r.hops));
        *holder.get()
    }); // every member has exited
    (at, out.load(Ordering::Relaxed))
}

/// The ractor member's messages.
enum RMsg {
    Link(ractor::ActorRef<RMsg>),
    Token(u64),
    Exit(u64),
}

/// ractor's ring member: its state is (next, hops); it adds its hops to `hops` and,
/// if it is the holder, its index to `holder` (plus one, so 0 means none yet).
struct RMember {
    me: u64,
    n: u64,
    hops: Arc<AtomicU64>,
    holder: Arc<AtomicU64>,
}

type RState = (Option<ractor::ActorRef<RMsg>>, u64);

impl ractor::Actor for RMember {
    type Msg = RMsg;
    type State = RState;
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<RMsg>,
        _: (),
    ) -> Result<RState, ractor::ActorProcessingErr> {
        Ok((None, 0))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<RMsg>,
        msg: RMsg,
        (next, hops): &mut RState,
    ) -> Result<(), ractor::ActorProcessingErr> {
        let token = match msg {
            RMsg::Link(n) => {
                *next = Some(n);
                return Ok(());
            }
            RMsg::Token(t) => Ok(t),
            RMsg::Exit(origin) => Err(origin),
        };
        if token == Ok(0) {
            self.holder.store(self.me + 1, Ordering::Relaxed);
        }
        let (send, end) = step(self.me, self.n, token, hops);
        let next = next.as_ref().expect("thread-ring: linked before the token");
        match send {
            Step::Pass(t) => cast(next, RMsg::Token(t)),
            Step::Exit(origin) => cast(next, RMsg::Exit(origin)),
            Step::Stay => {}
        }
        if end {
            myself.stop(None);
        }
        Ok(())
    }
    async fn post_stop(
        &self,
        _: ractor::ActorRef<RMsg>,
        (_, hops): &mut RState,
    ) -> Result<(), ractor::ActorProcessingErr> {
        self.hops.fetch_add(*hops, Ordering::Relaxed);
        Ok(())
    }
}

/// A ring of ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, r: Ring) -> (u64, u64) {
    let (hops, holder) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    rt.block_on(async {
        let mut ring = Vec::new();
        for me in 0..r.actors {
            let member = RMember {
                me,
                n: r.actors,
                hops: hops.clone(),
                holder: holder.clone(),
            };
            ring.push(spawn_ractor(member, ()).await);
        }
        for (i, (member, _)) in ring.iter().enumerate() {
            cast(member, RMsg::Link(ring[(i + 1) % ring.len()].0.clone()));
        }
        cast(&ring[0].0, RMsg::Token(r.hops));
        for (_, done) in ring {
            joined(done).await;
        }
    });
    let at = holder
        .load(Ordering::Relaxed)
        .checked_sub(1)
        .expect("no holder");
    (at, hops.load(Ordering::Relaxed))
}

/// The kameo member's messages (as ractor's).
enum KMsg {
    Link(KRef<KMember>),
    Token(u64),
    Exit(u64),
}

/// kameo's ring member: it counts its hops and, if it is the holder, stores its index
/// in `holder` (plus one, so 0 means none yet).
#[derive(kameo::Actor)]
struct KMember {
    me: u64,
    n: u64,
    next: Option<KRef<KMember>>,
    hops: u64,
    holder: Arc<AtomicU64>,
}

impl kameo::message::Message<KMsg> for KMember {
    type Reply = ();
    async fn handle(&mut self, msg: KMsg, ctx: &mut kameo::message::Context<Self, ()>) {
        let token = match msg {
            KMsg::Link(n) => {
                self.next = Some(n);
                return;
            }
            KMsg::Token(t) => Ok(t),
            KMsg::Exit(origin) => Err(origin),
        };
        if token == Ok(0) {
            self.holder.store(self.me + 1, Ordering::Relaxed);
        }
        let (send, end) = step(self.me, self.n, token, &mut self.hops);
        let next = self
            .next
            .as_ref()
            .expect("thread-ring: linked before the token");
        match send {
            Step::Pass(t) => tell(next, KMsg::Token(t)),
            Step::Exit(origin) => tell(next, KMsg::Exit(origin)),
            Step::Stay => {}
        }
        if end {
            ctx.stop();
        }
    }
}

/// A ring of kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, r: Ring) -> (u64, u64) {
    let holder = Arc::new(AtomicU64::new(0));
    let hops = rt.block_on(async {
        let (ring, ends): (Vec<_>, Vec<_>) = (0..r.actors)
            .map(|me| {
                spawn_kameo_ended(KMember {
                    me,
                    n: r.actors,
                    next: None,
                    hops: 0,
                    holder: holder.clone(),
                })
            })
            .unzip();
        for (i, member) in ring.iter().enumerate() {
            tell(member, KMsg::Link(ring[(i + 1) % ring.len()].clone()));
        }
        tell(&ring[0], KMsg::Token(r.hops));
        let mut hops = 0;
        for end in ends {
            hops += ended(end).await.hops;
        }
        hops
    });
    let at = holder
        .load(Ordering::Relaxed)
        .checked_sub(1)
        .expect("no holder");
    (at, hops)
}

/// A channel ring member's loop (threads and tasks): member `me` of a ring of `n`
/// receives with `recv` and sends to the next member with `send` until it ends;
/// returns (its hops, whether it was the holder).
fn member(
    me: u64,
    n: u64,
    mut recv: impl FnMut() -> Result<u64, u64>,
    send: impl Fn(Result<u64, u64>),
) -> (u64, bool) {
    let mut hops = 0;
    loop {
        let token = recv();
        let (next, end) = step(me, n, token, &mut hops);
        match next {
            Step::Pass(t) => send(Ok(t)),
            Step::Exit(origin) => send(Err(origin)),
            Step::Stay => {}
        }
        if end {
            return (hops, token == Ok(0));
        }
    }
}

/// The answer from each member's (hops, whether it was the holder), in ring order.
fn tally(members: impl IntoIterator<Item = (u64, bool)>) -> (u64, u64) {
    let mut answer = (u64::MAX, 0);
    for (i, (hops, holder)) in members.into_iter().enumerate() {
        answer.1 += hops;
        if holder {
            answer.0 = i as u64;
        }
    }
    answer
}

/// A ring of R threads.
pub fn threads(r: Ring) -> (u64, u64) {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..r.actors)
        .map(|_| mpsc::channel::<Result<u64, u64>>())
        .unzip();
    std::thread::scope(|s| {
        let members: Vec<_> = receivers
            .into_iter()
            .enumerate()
            .map(|(i, inbox)| {
                let next = senders[(i + 1) % senders.len()].clone();
                s.spawn(move || {
                    member(
                        i as u64,
                        r.actors,
                        || inbox.recv().expect(GONE),
                        |t| next.send(t).expect(GONE),
                    )
                })
            })
            .collect();
        senders[0].send(Ok(r.hops)).expect(GONE);
        tally(members.into_iter().map(|m| m.join().expect(GONE)))
    })
}

/// A ring of R tasks; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(r: Ring) -> (u64, u64) {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..r.actors)
        .map(|_| offshoot::sync::unbounded::<Result<u64, u64>>())
        .unzip();
    let mut ends = vec![(0, false); senders.len()];
    offshoot::scope(|s| {
        for ((i, inbox), end) in receivers.into_iter().enumerate().zip(&mut ends) {
            let next = senders[(i + 1) % senders.len()].clone();
            s.spawn(move |_| {
                *end = member(
                    i as u64,
                    r.actors,
                    || inbox.recv().expect(GONE),
                    |t| next.send(t).expect(GONE),
                );
            });
        }
        senders[0].send(Ok(r.hops)).expect(GONE);
    });
    tally(ends)
}

fn prepare(size: Size) -> Plain<Ring, (u64, u64)> {
    let (actors, hops) = match size {
        Size::Test => (8, 100),
        Size::Quick => (64, 10_000),
        Size::Full => (100, 100_000),
    };
    let r = Ring { actors, hops };
    Plain::new(
        r,
        format!("{actors} actors, {hops} hops"),
        r.expected(),
        "(holder, hops)",
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
    fn the_holder_is_t_mod_r() {
        let r = Ring {
            actors: 5,
            hops: 13,
        };
        assert_eq!(r.expected(), (3, 13));
        assert_eq!(serial(r), (3, 13));
        assert_eq!(threads(r), (3, 13));
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(r)), (3, 13));
        // A token of 0 stays with actor 0; a ring of one passes to itself.
        assert_eq!(pool.run(|| offshoot(Ring { actors: 4, hops: 0 })), (0, 0));
        assert_eq!(threads(Ring { actors: 1, hops: 3 }), (0, 3));
        assert_eq!(pool.run(|| offshoot_tasks(r)), (3, 13));
        assert_eq!(
            pool.run(|| offshoot_tasks(Ring { actors: 1, hops: 3 })),
            (0, 3)
        );
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
