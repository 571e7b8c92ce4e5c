//! `chameneos` (Savina's Chameneos): C creatures, each of one of three colours, visit a
//! mall M times in all. The mall pairs visitors as they come: the first waits; the
//! second is sent the first's colour and address, takes the complement of the two
//! colours (its own if they are equal, else the third), tells the first the new colour,
//! and both count a meeting and visit again. After M meetings the mall sends every
//! visitor away; each creature then reports its meetings and colour, and the mall ends
//! when all C are gone.
//!
//! - serial: the loop pairing the visitors in a fixed queue order;
//! - offshoot: the mall and the creatures are `offshoot::actor` actors (the creatures'
//!   addresses travel in the messages); they report to shared atomics, and the calling
//!   task waits in an `offshoot::finish`;
//! - offshoot-tasks: one task per creature in an `offshoot::scope` and the calling task
//!   as the mall, reading the visits from an `offshoot::sync` channel; a visit carries a
//!   fresh `offshoot::sync::Promise` and the creature waits on it (every visit brings
//!   exactly one news): the mall puts a partner or the order to leave there, and a
//!   creature that was given a partner puts its new colour into the partner's promise.
//!   A creature task returns when sent away;
//! - tokio: the same actors in ractor; the mall stops after the last creature, the
//!   creatures stop when sent away;
//! - kameo: the same actors in kameo, stopping as ractor's do;
//! - threads: one thread per creature with its `std::sync::mpsc` mailbox; the calling
//!   thread is the mall.
//!
//! Who meets whom depends on the order the visits reach the mall, so the final colours
//! are not deterministic and there is no checksum of them to compare. The answer is
//! what the reports must show whatever the order: the meetings the creatures counted
//! (each meeting counts twice), how many creatures reported, how many reported an
//! invalid colour, and the differences of the colour counts modulo 3, which a meeting
//! never changes (two of one colour: no change; two different: those two counts lose
//! one each and the third gains two).
//!
//! Inputs (C creatures, M meetings): test 5, 100; quick 10, 4 000; full 100, 100 000.
//! Cutoff: none.
//! Check: 2M meetings counted, C reports, no invalid colour, and the colour counts'
//! differences modulo 3 those of the starting colours (creature i starts with colour
//! i mod 3).

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use offshoot::actor::{self, Actor, ActorRef, Context};
use offshoot::sync::Promise;

use super::{cast, joined, spawn_kameo, spawn_ractor, stopped, tell, KRef, GONE};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "chameneos",
    about:
        "a mall actor pairs creature actors for M meetings; each pair takes the complement colour",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Chameneos",
};

/// C creatures, M meetings.
#[derive(Clone, Copy, Debug)]
pub struct Mall {
    /// C (at least 2).
    pub creatures: usize,
    /// M.
    pub meetings: u64,
}

/// Creature i's starting colour (0, 1 or 2).
fn initial(i: usize) -> u8 {
    (i % 3) as u8
}

/// The colour two creatures of colours a and b both take when they meet.
fn complement(a: u8, b: u8) -> u8 {
    if a == b {
        a
    } else {
        3 - a - b
    }
}

/// What the reports show (the answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Σ meetings counted by the creatures.
    pub meetings: u64,
    /// How many creatures reported.
    pub creatures: u64,
    /// How many reported a colour outside 0..3.
    pub invalid: u64,
    /// (n0 − n1) mod 3 and (n1 − n2) mod 3 of the colour counts n.
    pub residues: [u64; 2],
}

impl Tally {
    /// The tally of colour counts `n`.
    fn of(meetings: u64, creatures: u64, invalid: u64, n: [u64; 3]) -> Tally {
        let diff = |a: u64, b: u64| (a % 3 + 3 - b % 3) % 3;
        Tally {
            meetings,
            creatures,
            invalid,
            residues: [diff(n[0], n[1]), diff(n[1], n[2])],
        }
    }
}

/// The reports, from any thread.
#[derive(Default)]
struct Census {
    meetings: AtomicU64,
    creatures: AtomicU64,
    invalid: AtomicU64,
    colours: [AtomicU64; 3],
}

impl Census {
    /// A creature's report.
    fn report(&self, meetings: u64, colour: u8) {
        self.meetings.fetch_add(meetings, Ordering::Relaxed);
        self.creatures.fetch_add(1, Ordering::Relaxed);
        match self.colours.get(colour as usize) {
            Some(n) => n.fetch_add(1, Ordering::Relaxed),
            None => self.invalid.fetch_add(1, Ordering::Relaxed),
        };
    }

    fn tally(&self) -> Tally {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Tally::of(
            get(&self.meetings),
            get(&self.creatures),
            get(&self.invalid),
            [0, 1, 2].map(|c| get(&self.colours[c])),
        )
    }
}

/// The plain loop: the visitors queue at the mall in a fixed order.
pub fn serial(m: Mall) -> Tally {
    let mut colour: Vec<u8> = (0..m.creatures).map(initial).collect();
    let mut met = vec![0u64; m.creatures];
    let mut queue: std::collections::VecDeque<usize> = (0..m.creatures).collect();
    for _ in 0..m.meetings {
        let a = queue.pop_front().expect("two creatures");
        let b = queue.pop_front().expect("two creatures");
        let c = complement(colour[a], black_box(colour[b]));
        colour[a] = c;
        colour[b] = c;
        met[a] += 1;
        met[b] += 1;
        queue.push_back(b);
        queue.push_back(a);
    }
    let mut n = [0u64; 3];
    for &c in &colour {
        n[c as usize] += 1;
    }
    Tally::of(met.iter().sum(), m.creatures as u64, 0, n)
}

/// The oracle: the invariants.
fn check(m: &Mall, got: Tally) -> Result<(), String> {
    let mut n = [0u64; 3];
    for i in 0..m.creatures {
        n[initial(i) as usize] += 1;
    }
    let want = Tally::of(2 * m.meetings, m.creatures as u64, 0, n);
    if got == want {
        Ok(())
    } else {
        Err(format!("{got:?}, expected {want:?}"))
    }
}

/// What the mall tells a creature (`A` is a creature's address).
enum Told<A> {
    /// You meet a creature of this colour, at this address.
    Partner(u8, A),
    /// The creature you met gives you the new colour.
    Change(u8),
    /// The meetings are over: report and stop.
    Stop,
}

/// The mall's state: the visitor waiting for a partner, the meetings left, and how many
/// creatures were sent away.
struct Matcher<A> {
    waiting: Option<(u8, A)>,
    left: u64,
    gone: usize,
    creatures: usize,
}

impl<A> Matcher<A> {
    fn new(m: Mall) -> Matcher<A> {
        Matcher {
            waiting: None,
            left: m.meetings,
            gone: 0,
            creatures: m.creatures,
        }
    }

    /// A visit of the creature at `who`, of colour `colour`; `tell` sends a creature its
    /// news. Whether every creature is gone (the mall can close).
    fn visit(&mut self, colour: u8, who: A, tell: impl Fn(&A, Told<A>)) -> bool {
        if self.left == 0 {
            tell(&who, Told::Stop);
            self.gone += 1;
        } else if let Some((c, first)) = self.waiting.take() {
            self.left -= 1;
            tell(&who, Told::Partner(c, first));
        } else {
            self.waiting = Some((colour, who));
        }
        self.gone == self.creatures
    }
}

/// A creature's colour and meetings.
struct Chameneo {
    colour: u8,
    meetings: u64,
}

/// What a creature does in answer to the mall's or its partner's news.
enum Deed<A> {
    /// Visit the mall with this colour, after telling the partner at this address (if
    /// any) this colour.
    Visit(u8, Option<A>),
    /// Stop (the report is made).
    Stop,
}

impl Chameneo {
    fn new(i: usize) -> Chameneo {
        Chameneo {
            colour: initial(i),
            meetings: 0,
        }
    }

    /// Takes `news`, reporting to `census` at the end.
    fn told<A>(&mut self, news: Told<A>, census: &Census) -> Deed<A> {
        match news {
            Told::Partner(c, first) => {
                self.colour = complement(self.colour, c);
                self.meetings += 1;
                Deed::Visit(self.colour, Some(first))
            }
            Told::Change(c) => {
                self.colour = c;
                self.meetings += 1;
                Deed::Visit(self.colour, None)
            }
            Told::Stop => {
                census.report(self.meetings, self.colour);
                Deed::Stop
            }
        }
    }
}

/// The offshoot mall.
struct MallActor {
    matcher: Matcher<ActorRef<Creature>>,
}

impl Actor for MallActor {
    type Message = (u8, ActorRef<Creature>);
    fn receive(&mut self, (colour, who): Self::Message, ctx: &mut Context<'_, Self>) {
        if self.matcher.visit(colour, who, |a, news| a.send(news)) {
            ctx.exit();
        }
    }
}

/// An offshoot creature.
struct Creature {
    me: Chameneo,
    mall: ActorRef<MallActor>,
    census: Arc<Census>,
}

impl Actor for Creature {
    type Message = Told<ActorRef<Creature>>;
    fn receive(&mut self, news: Self::Message, ctx: &mut Context<'_, Self>) {
        match self.me.told(news, &self.census) {
            Deed::Visit(colour, partner) => {
                if let Some(first) = partner {
                    first.send(Told::Change(colour));
                }
                self.mall.send((colour, ctx.myself()));
            }
            Deed::Stop => ctx.exit(),
        }
    }
}

/// offshoot actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(m: Mall) -> Tally {
    let census = Arc::new(Census::default());
    if m.creatures == 0 {
        return census.tally();
    }
    offshoot::finish(|| {
        let mall = actor::start(MallActor {
            matcher: Matcher::new(m),
        });
        for i in 0..m.creatures {
            let creature = actor::start(Creature {
                me: Chameneo::new(i),
                mall: mall.clone(),
                census: census.clone(),
            });
            mall.send((initial(i), creature)); // its first visit
        }
    });
    census.tally()
}

/// A ractor creature's address (a newtype: the message names it).
struct RAddr(ractor::ActorRef<Told<RAddr>>);

/// ractor's mall: stops when every creature is gone.
struct RMall {
    m: Mall,
}

impl ractor::Actor for RMall {
    type Msg = (u8, RAddr);
    type State = Matcher<RAddr>;
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        _: (),
    ) -> Result<Matcher<RAddr>, ractor::ActorProcessingErr> {
        Ok(Matcher::new(self.m))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<Self::Msg>,
        (colour, who): Self::Msg,
        matcher: &mut Matcher<RAddr>,
    ) -> Result<(), ractor::ActorProcessingErr> {
        if matcher.visit(colour, who, |a, news| cast(&a.0, news)) {
            myself.stop(None);
        }
        Ok(())
    }
}

/// ractor's creature; it stops when sent away.
struct RCreature {
    mall: ractor::ActorRef<(u8, RAddr)>,
    census: Arc<Census>,
}

impl ractor::Actor for RCreature {
    type Msg = Told<RAddr>;
    type State = Chameneo;
    type Arguments = usize;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        i: usize,
    ) -> Result<Chameneo, ractor::ActorProcessingErr> {
        Ok(Chameneo::new(i))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<Self::Msg>,
        news: Self::Msg,
        me: &mut Chameneo,
    ) -> Result<(), ractor::ActorProcessingErr> {
        match me.told(news, &self.census) {
            Deed::Visit(colour, partner) => {
                if let Some(first) = partner {
                    cast(&first.0, Told::Change(colour));
                }
                cast(&self.mall, (colour, RAddr(myself)));
            }
            Deed::Stop => myself.stop(None),
        }
        Ok(())
    }
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, m: Mall) -> Tally {
    let census = Arc::new(Census::default());
    if m.creatures == 0 {
        return census.tally();
    }
    rt.block_on(async {
        let (mall, mall_done) = spawn_ractor(RMall { m }, ()).await;
        let mut creatures = Vec::new();
        for i in 0..m.creatures {
            let creature = RCreature {
                mall: mall.clone(),
                census: census.clone(),
            };
            let (c, done) = spawn_ractor(creature, i).await;
            cast(&mall, (initial(i), RAddr(c)));
            creatures.push(done);
        }
        joined(mall_done).await;
        for done in creatures {
            joined(done).await;
        }
    });
    census.tally()
}

/// kameo's mall: stops when every creature is gone.
#[derive(kameo::Actor)]
struct KMall {
    matcher: Matcher<KRef<KCreature>>,
}

impl kameo::message::Message<(u8, KRef<KCreature>)> for KMall {
    type Reply = ();
    async fn handle(
        &mut self,
        (colour, who): (u8, KRef<KCreature>),
        ctx: &mut kameo::message::Context<Self, ()>,
    ) {
        if self.matcher.visit(colour, who, tell) {
            ctx.stop();
        }
    }
}

/// kameo's creature; it stops when sent away.
#[derive(kameo::Actor)]
struct KCreature {
    me: Chameneo,
    mall: KRef<KMall>,
    census: Arc<Census>,
}

impl kameo::message::Message<Told<KRef<KCreature>>> for KCreature {
    type Reply = ();
    async fn handle(
        &mut self,
        news: Told<KRef<KCreature>>,
        ctx: &mut kameo::message::Context<Self, ()>,
    ) {
        match self.me.told(news, &self.census) {
            Deed::Visit(colour, partner) => {
                if let Some(first) = partner {
                    tell(&first, Told::Change(colour));
                }
                tell(&self.mall, (colour, ctx.actor_ref().clone()));
            }
            Deed::Stop => ctx.stop(),
        }
    }
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, m: Mall) -> Tally {
    let census = Arc::new(Census::default());
    if m.creatures == 0 {
        return census.tally();
    }
    rt.block_on(async {
        let mall = spawn_kameo(KMall {
            matcher: Matcher::new(m),
        });
        let creatures: Vec<_> = (0..m.creatures)
            .map(|i| {
                let c = spawn_kameo(KCreature {
                    me: Chameneo::new(i),
                    mall: mall.clone(),
                    census: census.clone(),
                });
                tell(&mall, (initial(i), c.clone()));
                c
            })
            .collect();
        stopped(&mall).await;
        for c in &creatures {
            stopped(c).await;
        }
    });
    census.tally()
}

/// A creature's life without actors (threads and offshoot-tasks): creature `i` visits the
/// mall with `visit(colour)`, which waits for and returns its news (every visit brings
/// exactly one: a partner, a partner's colour or the order to leave), and tells a
/// partner its new colour with `tell`, until it is sent away (it reports to `census`
/// then).
fn live<A>(
    i: usize,
    census: &Census,
    mut visit: impl FnMut(u8) -> Told<A>,
    tell: impl Fn(&A, Told<A>),
) {
    let mut me = Chameneo::new(i);
    let mut colour = me.colour;
    loop {
        match me.told(visit(colour), census) {
            Deed::Visit(next, partner) => {
                if let Some(first) = partner {
                    tell(&first, Told::Change(next));
                }
                colour = next;
            }
            Deed::Stop => return,
        }
    }
}

/// The mall without actors (threads and offshoot-tasks): pairs the visits `visit()`
/// gives until every creature is gone, telling them their news with `tell`.
fn serve<A>(m: Mall, mut visit: impl FnMut() -> (u8, A), tell: impl Fn(&A, Told<A>)) {
    let mut matcher = Matcher::new(m);
    let mut closed = m.creatures == 0;
    while !closed {
        let (colour, who) = visit();
        closed = matcher.visit(colour, who, &tell);
    }
}

/// A creature thread's address (a newtype: the message names it).
struct TAddr(mpsc::Sender<Told<TAddr>>);

/// One thread per creature; the calling thread is the mall.
pub fn threads(m: Mall) -> Tally {
    let census = Census::default();
    let (to_mall, visits) = mpsc::channel::<(u8, TAddr)>();
    let tell = |a: &TAddr, news| a.0.send(news).expect(GONE);
    std::thread::scope(|s| {
        for i in 0..m.creatures {
            let (to_me, inbox) = mpsc::channel();
            let (to_mall, census) = (to_mall.clone(), &census);
            s.spawn(move || {
                let visit = |colour| {
                    to_mall.send((colour, TAddr(to_me.clone()))).expect(GONE);
                    inbox.recv().expect(GONE)
                };
                live(i, census, visit, tell);
            });
        }
        serve(m, || visits.recv().expect(GONE), tell);
    });
    census.tally()
}

/// Where a creature task waits for the news of one visit: a one-shot reply that the mall
/// or the partner puts (a newtype: the news names it).
#[derive(Clone, Default)]
struct Reply(Promise<Told<Reply>>);

impl Reply {
    /// Puts the news (each visit's reply is put once).
    fn put(&self, news: Told<Reply>) {
        let once = self.0.put(news).is_ok();
        assert!(once, "chameneos: one news per visit");
    }

    /// Waits for the news.
    fn take(&self) -> Told<Reply> {
        match self.0.get() {
            Told::Partner(c, first) => Told::Partner(*c, first.clone()),
            Told::Change(c) => Told::Change(*c),
            Told::Stop => Told::Stop,
        }
    }
}

/// One task per creature (`offshoot::scope`); a visit sends the mall the creature's
/// colour and a fresh `Reply` promise, and waits on the promise; the calling task is
/// the mall. Call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(m: Mall) -> Tally {
    let census = Census::default();
    let (to_mall, visits) = offshoot::sync::unbounded::<(u8, Reply)>();
    offshoot::scope(|s| {
        for i in 0..m.creatures {
            let (to_mall, census) = (to_mall.clone(), &census);
            s.spawn(move |_| {
                let visit = |colour| {
                    let reply = Reply::default();
                    to_mall.send((colour, reply.clone())).expect(GONE);
                    reply.take()
                };
                live(i, census, visit, Reply::put);
            });
        }
        serve(m, || visits.recv().expect(GONE), Reply::put);
    });
    census.tally()
}

fn prepare(size: Size) -> Plain<Mall, Tally> {
    let (creatures, meetings) = match size {
        Size::Test => (5, 100),
        Size::Quick => (10, 4_000),
        Size::Full => (100, 100_000),
    };
    let m = Mall {
        creatures,
        meetings,
    };
    Plain::checked(
        m,
        format!("{creatures} creatures, {meetings} meetings"),
        check,
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
    fn complement_keeps_the_residues() {
        for a in 0..3 {
            for b in 0..3 {
                let c = complement(a, b);
                assert!(c < 3);
                assert_eq!(c == a, a == b);
            }
        }
        let m = Mall {
            creatures: 7,
            meetings: 300,
        };
        let right = serial(m);
        check(&m, right).unwrap();
        // One colour changed by hand breaks the residues.
        let wrong = Tally::of(600, 7, 0, [4, 1, 2]);
        assert_ne!(wrong.residues, right.residues);
        assert!(check(&m, wrong).is_err());
        assert_eq!(threads(m), right);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(m)), right);
        assert_eq!(pool.run(|| offshoot_tasks(m)), right);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        assert_eq!(tokio(&rt, m), right);
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
