//! `logistic-map` (Savina's LogisticMap, request-reply): T series actors each compute N
//! terms of the logistic map x_{k+1} = r·x_k·(1−x_k), series i from its own start x_0
//! and rate r. A series does not know its rate: for every term it asks its rate actor
//! for r and computes the term when the reply comes (one request-reply round trip per
//! term). The manager asks every series for its next term N times, round by round, then
//! for its final term; it sums the T final terms in series order. The manager's requests
//! arrive while a series waits for its rate, so each series must hold them back until
//! the reply: this is what the contenders do differently.
//!
//! - serial: the loop over the series and their terms;
//! - offshoot: each series is an `offshoot::actor` **selector** with two mailboxes in
//!   priority order, `Reply` (the rate) and `Regular` (the manager's requests); it
//!   disables `Regular` while it waits for its rate, so the requests wait in their
//!   mailbox (the thesis's request-reply without a blocking ask or a stash); the rate
//!   actors and the manager (which collects the final terms) are actors; the calling
//!   task sends the manager's requests and waits in an `offshoot::finish`;
//! - offshoot-actors: the same with a plain actor per series, which stashes the
//!   requests that arrive while it waits in a `VecDeque` in its state and takes them up
//!   after the reply;
//! - offshoot-tasks: one task per series and per rate actor in an `offshoot::scope`, a
//!   series reading the manager's requests from its `offshoot::sync` channel; for each
//!   term it sends its rate task an `offshoot::sync::Promise` and waits on it (the
//!   blocking ask: the series task parks, so the requests wait in its channel, and its
//!   worker runs other tasks meanwhile); the calling task is the manager;
//! - tokio: ractor actors with the same stash; the series stop after their final term,
//!   the manager after the last, and the rate actors are drained;
//! - kameo: the same actors and stash in kameo; the rate actors are stopped gracefully;
//! - threads: one thread per series and per rate actor; a series sends its request and
//!   blocks on its reply channel (the blocking ask); the calling thread is the manager.
//!
//! Inputs (T series, N terms): test 3, 20; quick 8, 1 000; full 16, 25 000.
//! Cutoff: none.
//! Check: the sum, bit for bit, of the final terms recomputed round by round (all
//! series' term k before any term k+1, as the manager asks), each in (0, 1); every
//! contender does the same float operations in the same order per series and sums in
//! series order, so it must return the same bits.

use std::collections::VecDeque;
use std::hint::black_box;
use std::marker::PhantomData;
use std::sync::mpsc;

use offshoot::actor::{self, Actor, ActorRef, Context, Selector, SelectorContext, SelectorRef};
use offshoot::sync::Promise;

use super::{
    cast, drained, joined, spawn_kameo, spawn_ractor, stopped, tell, Bits, FloatOut, KRef, GONE,
};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "logistic-map",
    about: "series actors compute logistic-map terms, asking a rate actor for r before each",
    cutoff: "none",
    source:
        "Savina (shamsimam/savina) LogisticMap; Imam's thesis ch. 5 request-reply with selectors",
};

/// T series of N terms.
#[derive(Clone, Copy, Debug)]
pub struct Map {
    /// T.
    pub series: usize,
    /// N.
    pub terms: u64,
}

impl Map {
    /// x_0 of series i.
    fn start(self, i: usize) -> f64 {
        (i + 1) as f64 / (self.series + 2) as f64
    }

    /// r of series i (in the chaotic range, below 4).
    fn rate(self, i: usize) -> f64 {
        3.6 + 0.35 * i as f64 / self.series as f64
    }
}

/// The next term.
fn step(r: f64, x: f64) -> f64 {
    r * x * (1.0 - x)
}

/// The final terms, by series, as the manager collects them.
struct Finals {
    got: Vec<f64>,
    left: usize,
}

impl Finals {
    fn new(series: usize) -> Finals {
        Finals {
            got: vec![0.0; series],
            left: series,
        }
    }

    /// Records series i's final term; the sum in series order once every series has
    /// reported.
    fn put(&mut self, i: usize, x: f64) -> Option<f64> {
        self.got[i] = x;
        self.left -= 1;
        (self.left == 0).then(|| self.got.iter().fold(0.0, |sum, &x| sum + x))
    }
}

/// The plain loop.
pub fn serial(m: Map) -> Bits {
    let mut finals = Finals::new(m.series);
    let mut sum = None;
    for i in 0..m.series {
        let r = m.rate(i);
        let mut x = m.start(i);
        for _ in 0..m.terms {
            x = step(black_box(r), x);
        }
        sum = finals.put(i, x);
    }
    Bits(sum.unwrap_or(0.0))
}

/// The oracle: the terms round by round, each final in (0, 1), summed in series order.
fn check(m: &Map, got: Bits) -> Result<(), String> {
    let mut xs: Vec<f64> = (0..m.series).map(|i| m.start(i)).collect();
    for _ in 0..m.terms {
        for (i, x) in xs.iter_mut().enumerate() {
            *x = step(m.rate(i), *x);
        }
    }
    if let Some(x) = xs.iter().find(|x| !(**x > 0.0 && **x < 1.0)) {
        return Err(format!("a final term {x} outside (0, 1)"));
    }
    let want = Bits(xs.iter().fold(0.0, |sum, &x| sum + x));
    if got == want {
        Ok(())
    } else {
        Err(format!("sum {got:?}, expected {want:?}"))
    }
}

/// What a series receives: the manager's requests, and its rate actor's replies.
enum Mail {
    /// Compute the next term.
    Next,
    /// Report the current term (the last request).
    Get,
    /// The rate, the reply to a request.
    Rate(f64),
}

/// A reply address for a rate actor.
trait RateReply: Send + 'static {
    /// Sends `r`.
    fn reply(&self, r: f64);
}

/// A rate actor: answers each request (the requester's address) with its rate.
struct Rate<A> {
    r: f64,
    reply: PhantomData<fn(A)>,
}

impl<A> Rate<A> {
    fn new(r: f64) -> Rate<A> {
        Rate {
            r,
            reply: PhantomData,
        }
    }
}

impl<A: RateReply> Actor for Rate<A> {
    type Message = A;
    fn receive(&mut self, to: A, _: &mut Context<'_, Self>) {
        to.reply(self.r);
    }
}

/// The offshoot manager: collects the final terms and stores their sum.
struct Manager {
    finals: Finals,
    out: FloatOut,
}

impl Actor for Manager {
    type Message = (usize, f64);
    fn receive(&mut self, (i, x): (usize, f64), ctx: &mut Context<'_, Self>) {
        if let Some(sum) = self.finals.put(i, x) {
            self.out.put(sum);
            ctx.exit();
        }
    }
}

offshoot::mailboxes! {
    /// A selector series' mailboxes: replies first.
    enum Port {
        Reply,
        Regular,
    }
}

/// The offshoot series, a selector.
struct Series {
    i: usize,
    x: f64,
    rate: ActorRef<Rate<SelectorRef<Series>>>,
    manager: ActorRef<Manager>,
}

impl RateReply for SelectorRef<Series> {
    fn reply(&self, r: f64) {
        self.send(Port::Reply, Mail::Rate(r));
    }
}

impl Selector for Series {
    type Mailbox = Port;
    type Message = Mail;
    fn receive(&mut self, _: Port, mail: Mail, ctx: &mut SelectorContext<'_, Self>) {
        match mail {
            Mail::Next => {
                self.rate.send(ctx.myself());
                ctx.disable(Port::Regular); // until the rate comes
            }
            Mail::Rate(r) => {
                self.x = step(r, self.x);
                ctx.enable(Port::Regular);
            }
            Mail::Get => {
                self.manager.send((self.i, self.x));
                ctx.exit();
            }
        }
    }
}

/// What a stashing series does in answer to a message.
enum Act {
    /// Ask the rate actor.
    Ask,
    /// Report this final term to the manager (and stop).
    Report(f64),
}

/// A series with one mailbox: its term, whether it waits for a rate, and the requests
/// that arrived meanwhile (offshoot-actors, tokio and kameo).
struct Stashing {
    x: f64,
    waiting: bool,
    stash: VecDeque<Mail>,
}

impl Stashing {
    fn new(x: f64) -> Stashing {
        Stashing {
            x,
            waiting: false,
            stash: VecDeque::new(),
        }
    }

    /// Handles `mail`; `act` sends what it calls for.
    fn receive(&mut self, mail: Mail, mut act: impl FnMut(Act)) {
        match mail {
            Mail::Rate(r) => {
                self.x = step(r, self.x);
                self.waiting = false;
                while !self.waiting {
                    match self.stash.pop_front() {
                        Some(mail) => self.request(mail, &mut act),
                        None => break,
                    }
                }
            }
            mail if self.waiting => self.stash.push_back(mail),
            mail => self.request(mail, &mut act),
        }
    }

    /// Takes up a request of the manager.
    fn request(&mut self, mail: Mail, act: &mut impl FnMut(Act)) {
        match mail {
            Mail::Next => {
                self.waiting = true;
                act(Act::Ask);
            }
            Mail::Get => act(Act::Report(self.x)),
            Mail::Rate(_) => unreachable!("logistic-map: a reply is never stashed"),
        }
    }
}

/// The offshoot-actors series, a plain actor.
struct StashSeries {
    i: usize,
    state: Stashing,
    rate: ActorRef<Rate<ActorRef<StashSeries>>>,
    manager: ActorRef<Manager>,
}

impl RateReply for ActorRef<StashSeries> {
    fn reply(&self, r: f64) {
        self.send(Mail::Rate(r));
    }
}

impl Actor for StashSeries {
    type Message = Mail;
    fn receive(&mut self, mail: Mail, ctx: &mut Context<'_, Self>) {
        let StashSeries {
            i,
            state,
            rate,
            manager,
        } = self;
        state.receive(mail, |act| match act {
            Act::Ask => rate.send(ctx.myself()),
            Act::Report(x) => {
                manager.send((*i, x));
                ctx.exit();
            }
        });
    }
}

/// Sends the manager's requests to the series `send` addresses, round by round, then
/// asks each for its final term.
fn ask_all<S>(m: Map, series: &[S], send: impl Fn(&S, Mail)) {
    for _ in 0..m.terms {
        for s in series {
            send(s, Mail::Next);
        }
    }
    for s in series {
        send(s, Mail::Get);
    }
}

/// Starts the manager and the series (`start` makes series i, given the manager's
/// address), sends them the requests with `send` and waits for them in a finish.
fn on_offshoot<S>(
    m: Map,
    start: impl Fn(usize, ActorRef<Manager>) -> S + Send + Sync,
    send: impl Fn(&S, Mail) + Send,
) -> Bits {
    if m.series == 0 {
        return Bits(0.0);
    }
    let out = FloatOut::default();
    offshoot::finish(|| {
        let manager = actor::start(Manager {
            finals: Finals::new(m.series),
            out: out.clone(),
        });
        let series: Vec<S> = (0..m.series).map(|i| start(i, manager.clone())).collect();
        ask_all(m, &series, send);
    });
    out.get()
}

/// offshoot actors and selectors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(m: Map) -> Bits {
    let start = |i, manager| {
        actor::start_selector(Series {
            i,
            x: m.start(i),
            rate: actor::start(Rate::new(m.rate(i))),
            manager,
        })
    };
    on_offshoot(m, start, |s, mail| s.send(Port::Regular, mail))
}

/// offshoot's plain actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_actors(m: Map) -> Bits {
    let start = |i, manager| {
        actor::start(StashSeries {
            i,
            state: Stashing::new(m.start(i)),
            rate: actor::start(Rate::new(m.rate(i))),
            manager,
        })
    };
    on_offshoot(m, start, ActorRef::send)
}

/// ractor's rate actor: answers each request (the requester's address) with r.
struct RRate {
    r: f64,
}

impl ractor::Actor for RRate {
    type Msg = ractor::ActorRef<Mail>;
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
        to: Self::Msg,
        _: &mut (),
    ) -> Result<(), ractor::ActorProcessingErr> {
        cast(&to, Mail::Rate(self.r));
        Ok(())
    }
}

/// ractor's series, stashing.
struct RSeries {
    i: usize,
    rate: ractor::ActorRef<ractor::ActorRef<Mail>>,
    manager: ractor::ActorRef<(usize, f64)>,
}

impl ractor::Actor for RSeries {
    type Msg = Mail;
    type State = Stashing;
    type Arguments = f64;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Mail>,
        x: f64,
    ) -> Result<Stashing, ractor::ActorProcessingErr> {
        Ok(Stashing::new(x))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<Mail>,
        mail: Mail,
        state: &mut Stashing,
    ) -> Result<(), ractor::ActorProcessingErr> {
        state.receive(mail, |act| match act {
            Act::Ask => cast(&self.rate, myself.clone()),
            Act::Report(x) => {
                cast(&self.manager, (self.i, x));
                myself.stop(None);
            }
        });
        Ok(())
    }
}

/// ractor's manager: collects the final terms, stores their sum and stops.
struct RManager {
    out: FloatOut,
}

impl ractor::Actor for RManager {
    type Msg = (usize, f64);
    type State = Finals;
    type Arguments = usize;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        series: usize,
    ) -> Result<Finals, ractor::ActorProcessingErr> {
        Ok(Finals::new(series))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<Self::Msg>,
        (i, x): Self::Msg,
        finals: &mut Finals,
    ) -> Result<(), ractor::ActorProcessingErr> {
        if let Some(sum) = finals.put(i, x) {
            self.out.put(sum);
            myself.stop(None);
        }
        Ok(())
    }
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, m: Map) -> Bits {
    let out = FloatOut::default();
    if m.series == 0 {
        return Bits(0.0);
    }
    rt.block_on(async {
        let (manager, manager_done) = spawn_ractor(RManager { out: out.clone() }, m.series).await;
        let mut series = Vec::new();
        let mut ends = Vec::new();
        for i in 0..m.series {
            let (rate, rate_done) = spawn_ractor(RRate { r: m.rate(i) }, ()).await;
            let s = RSeries {
                i,
                rate: rate.clone(),
                manager: manager.clone(),
            };
            let (s, s_done) = spawn_ractor(s, m.start(i)).await;
            series.push(s);
            ends.push((rate, rate_done, s_done));
        }
        ask_all(m, &series, cast);
        joined(manager_done).await;
        for (rate, rate_done, s_done) in ends {
            joined(s_done).await;
            rate.drain().expect(GONE);
            joined(rate_done).await;
        }
    });
    out.get()
}

/// kameo's rate actor: answers each request (the requester's address) with r.
#[derive(kameo::Actor)]
struct KRate {
    r: f64,
}

impl kameo::message::Message<KRef<KSeries>> for KRate {
    type Reply = ();
    async fn handle(&mut self, to: KRef<KSeries>, _: &mut kameo::message::Context<Self, ()>) {
        tell(&to, Mail::Rate(self.r));
    }
}

/// kameo's series, stashing.
#[derive(kameo::Actor)]
struct KSeries {
    i: usize,
    state: Stashing,
    rate: KRef<KRate>,
    manager: KRef<KManager>,
}

impl kameo::message::Message<Mail> for KSeries {
    type Reply = ();
    async fn handle(&mut self, mail: Mail, ctx: &mut kameo::message::Context<Self, ()>) {
        let KSeries {
            i,
            state,
            rate,
            manager,
        } = self;
        let mut stop = false;
        state.receive(mail, |act| match act {
            Act::Ask => tell(rate, ctx.actor_ref().clone()),
            Act::Report(x) => {
                tell(manager, (*i, x));
                stop = true;
            }
        });
        if stop {
            ctx.stop();
        }
    }
}

/// kameo's manager: collects the final terms, stores their sum and stops.
#[derive(kameo::Actor)]
struct KManager {
    finals: Finals,
    out: FloatOut,
}

impl kameo::message::Message<(usize, f64)> for KManager {
    type Reply = ();
    async fn handle(&mut self, (i, x): (usize, f64), ctx: &mut kameo::message::Context<Self, ()>) {
        if let Some(sum) = self.finals.put(i, x) {
            self.out.put(sum);
            ctx.stop();
        }
    }
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, m: Map) -> Bits {
    let out = FloatOut::default();
    if m.series == 0 {
        return Bits(0.0);
    }
    rt.block_on(async {
        let manager = spawn_kameo(KManager {
            finals: Finals::new(m.series),
            out: out.clone(),
        });
        let (series, rates): (Vec<_>, Vec<_>) = (0..m.series)
            .map(|i| {
                let rate = spawn_kameo(KRate { r: m.rate(i) });
                let s = spawn_kameo(KSeries {
                    i,
                    state: Stashing::new(m.start(i)),
                    rate: rate.clone(),
                    manager: manager.clone(),
                });
                (s, rate)
            })
            .unzip();
        ask_all(m, &series, tell);
        stopped(&manager).await;
        for (s, rate) in series.iter().zip(&rates) {
            stopped(s).await;
            drained(rate).await;
        }
    });
    out.get()
}

/// A series that waits for its rate where it asks (threads and offshoot-tasks): takes
/// the manager's requests from `mails` in order, `ask()` giving the rate before each
/// term; returns the final term, which the last request (`Get`) asks for.
fn asking(x: f64, mails: impl IntoIterator<Item = Mail>, mut ask: impl FnMut() -> f64) -> f64 {
    let mut x = x;
    for mail in mails {
        match mail {
            Mail::Next => x = step(ask(), x),
            Mail::Get => return x,
            Mail::Rate(_) => unreachable!("logistic-map: replies come apart"),
        }
    }
    panic!("{GONE}")
}

/// The manager's end (threads and offshoot-tasks): the sum of the T final terms that
/// `report()` gives, in series order.
fn collect(m: Map, mut report: impl FnMut() -> (usize, f64)) -> Bits {
    let mut finals = Finals::new(m.series);
    let mut sum = None;
    for _ in 0..m.series {
        let (i, x) = report();
        sum = finals.put(i, x);
    }
    Bits(sum.unwrap_or(0.0))
}

/// One thread per series and per rate actor; the calling thread is the manager.
pub fn threads(m: Map) -> Bits {
    let (to_manager, reports) = mpsc::channel::<(usize, f64)>();
    std::thread::scope(|s| {
        let series: Vec<_> = (0..m.series)
            .map(|i| {
                let (to_rate, requests) = mpsc::channel::<()>();
                let (to_series, replies) = mpsc::channel::<f64>();
                let r = m.rate(i);
                s.spawn(move || {
                    for () in requests {
                        to_series.send(r).expect(GONE);
                    }
                });
                let (to_me, mails) = mpsc::channel::<Mail>();
                let to_manager = to_manager.clone();
                s.spawn(move || {
                    let x = asking(m.start(i), mails, || {
                        to_rate.send(()).expect(GONE);
                        replies.recv().expect(GONE)
                    });
                    to_manager.send((i, x)).expect(GONE);
                });
                to_me
            })
            .collect();
        ask_all(m, &series, |s, mail| s.send(mail).expect(GONE));
        collect(m, || reports.recv().expect(GONE))
    })
}

/// One task per series and per rate actor in an `offshoot::scope`; a series asks its
/// rate task by sending it an `offshoot::sync::Promise` and waits on the promise; the
/// calling task is the manager. Call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(m: Map) -> Bits {
    let (to_manager, reports) = offshoot::sync::unbounded::<(usize, f64)>();
    offshoot::scope(|s| {
        let series: Vec<_> = (0..m.series)
            .map(|i| {
                let (to_rate, requests) = offshoot::sync::unbounded::<Promise<f64>>();
                let r = m.rate(i);
                s.spawn(move |_| {
                    for reply in requests.iter() {
                        reply.put(r).expect("logistic-map: one reply per request");
                    }
                });
                let (to_me, mails) = offshoot::sync::unbounded::<Mail>();
                let to_manager = to_manager.clone();
                s.spawn(move |_| {
                    let x = asking(m.start(i), mails.iter(), || {
                        let reply = Promise::new();
                        to_rate.send(reply.clone()).expect(GONE);
                        *reply.get()
                    });
                    to_manager.send((i, x)).expect(GONE);
                    // Dropping `to_rate` ends the rate task's loop.
                });
                to_me
            })
            .collect();
        ask_all(m, &series, |s, mail| s.send(mail).expect(GONE));
        collect(m, || reports.recv().expect(GONE))
    })
}

fn prepare(size: Size) -> Plain<Map, Bits> {
    let (series, terms) = match size {
        Size::Test => (3, 20),
        Size::Quick => (8, 1_000),
        Size::Full => (16, 25_000),
    };
    let m = Map { series, terms };
    Plain::checked(m, format!("{series} series × {terms} terms"), check)
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(ABOUT, prepare, selectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_sums_the_same_bits() {
        let m = Map {
            series: 4,
            terms: 50,
        };
        let right = serial(m);
        check(&m, right).unwrap();
        assert!(check(&m, Bits(right.0 + f64::EPSILON)).is_err());
        assert_eq!(threads(m), right);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(m)), right);
        assert_eq!(pool.run(|| offshoot_actors(m)), right);
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
