//! `bounded-buffer` (Savina's Producer-Consumer with Bounded Buffer, the thesis's
//! bounded buffer with guards): P producers each produce I items into a buffer of
//! capacity B that a manager actor keeps; C consumers each ask for an item, consume it
//! and ask again. A producer produces its next item only when the manager took the
//! last one (the manager answers each item with "produce more"); a full buffer takes
//! no item and an empty one serves no consumer, so both sides wait in turn. Producing
//! and consuming cost one `mix` each; the manager ends after P·I items handed out.
//!
//! - serial: the loop producing and consuming every item;
//! - offshoot: the manager is an `offshoot::actor` **selector** with two mailboxes,
//!   `Data` (items from producers) and `Ready` (consumers asking), and declarative
//!   guards: `Data` is readable while the buffer has room, `Ready` while it has an
//!   item, so the items and requests that cannot be served wait in their mailboxes (no
//!   stash); producers and consumers are actors whose address travels in their
//!   messages (`Context::myself`); consumers add their sums to a shared atomic as their
//!   states are dropped (their exits), which the enclosing `offshoot::finish` waits for;
//! - offshoot-tasks: P producer and C consumer tasks in one `offshoot::scope` around an
//!   `offshoot::sync::bounded(B)` channel, which is the buffer (no manager): a full
//!   channel parks a producer's `send`, an empty one a consumer's `recv`; the consumers
//!   share it by cloning its receiver (many receivers), and each writes its sum to its
//!   own slot once the producers are done and the channel is empty;
//! - tokio: ractor actors; the manager has one mailbox, so it keeps Savina's queues of
//!   waiting consumers and of items that found the buffer full;
//! - kameo: the same actors and queues in kameo (the consumers are `KSummer`s);
//! - threads: P producer and C consumer threads around a `std::sync::mpsc::
//!   sync_channel(B)` (the bounded buffer), the consumers sharing its receiver through
//!   a `Mutex` (the blocking baseline; no manager).
//!
//! Inputs (P producers, C consumers, I items each, capacity B): test 2, 3, 50, 4;
//! quick 4, 4, 2 500, 16; full 40, 40, 1 000, 50 (Savina's defaults).
//! Cutoff: none.
//! Check: the sum of `mix(mix(x))` over the P·I items x, computed over the items in
//! another order (producer-major); a lost or doubled item changes it.

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use offshoot::actor::{self, Actor, ActorRef, Context, Selector, SelectorContext, SelectorRef};

use super::{
    cast, drain, ended, joined, mix, spawn_kameo, spawn_kameo_ended, spawn_ractor, stopped, tell,
    After, KRef, KSummer, RSummer, GONE,
};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "bounded-buffer",
    about: "producers and consumers meet at a manager's bounded buffer with guards",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Producer-Consumer with Bounded Buffer; Imam's thesis bounded buffer with guards",
};

/// P producers, C consumers, I items each, capacity B.
#[derive(Clone, Copy, Debug)]
pub struct Shop {
    /// P.
    pub producers: u64,
    /// C.
    pub consumers: u64,
    /// I.
    pub items: u64,
    /// B.
    pub capacity: usize,
}

impl Shop {
    /// Item k of producer p.
    fn produce(self, p: u64, k: u64) -> u64 {
        mix(k * self.producers + p)
    }

    /// Every item, in the order of a round per k.
    fn total(self) -> u64 {
        self.producers * self.items
    }
}

/// What consuming an item adds to the sum (the ractor and kameo consumers, `RSummer`s
/// and `KSummer`s, add
/// `mix` of what they receive).
fn consume(item: u64) -> u64 {
    mix(item)
}

/// The plain loop.
pub fn serial(s: Shop) -> u64 {
    let mut sum = 0u64;
    for k in 0..s.items {
        for p in 0..s.producers {
            sum = sum.wrapping_add(consume(s.produce(black_box(p), k)));
        }
    }
    sum
}

/// The oracle: the same sum, producer by producer.
fn check(s: &Shop, got: u64) -> Result<(), String> {
    let want = (0..s.producers)
        .flat_map(|p| (0..s.items).map(move |k| (p, k)))
        .fold(0u64, |a, (p, k)| a.wrapping_add(consume(s.produce(p, k))));
    if got == want {
        Ok(())
    } else {
        Err(format!("sum {got}, expected {want}"))
    }
}

offshoot::mailboxes! {
    /// The offshoot manager's mailboxes.
    enum Slot {
        Data,
        Ready,
    }
}

/// What the offshoot manager receives.
enum Mail {
    Data(u64, ActorRef<Producer>),
    Ready(ActorRef<Consumer>),
}

/// The offshoot manager: the buffer, and how many items it has still to hand out.
struct Manager {
    buffer: VecDeque<u64>,
    capacity: usize,
    left: u64,
}

impl Selector for Manager {
    type Mailbox = Slot;
    type Message = Mail;
    fn receive(&mut self, _: Slot, mail: Mail, ctx: &mut SelectorContext<'_, Self>) {
        match mail {
            Mail::Data(item, producer) => {
                self.buffer.push_back(item);
                producer.send(());
            }
            Mail::Ready(consumer) => {
                let item = self.buffer.pop_front().expect("guarded: not empty");
                consumer.send(item);
                self.left -= 1;
                if self.left == 0 {
                    ctx.exit();
                }
            }
        }
    }
    fn guard(&self, slot: Slot) -> bool {
        match slot {
            Slot::Data => self.buffer.len() < self.capacity,
            Slot::Ready => !self.buffer.is_empty(),
        }
    }
}

/// An offshoot producer: produces its next item when told to.
struct Producer {
    shop: Shop,
    me: u64,
    next: u64,
    manager: SelectorRef<Manager>,
}

impl Actor for Producer {
    type Message = ();
    fn receive(&mut self, (): (), ctx: &mut Context<'_, Self>) {
        if self.next < self.shop.items {
            let item = self.shop.produce(self.me, self.next);
            self.next += 1;
            self.manager
                .send(Slot::Data, Mail::Data(item, ctx.myself()));
        }
    }
}

/// An offshoot consumer: consumes an item and asks for the next; adds its sum to `out`
/// as it is dropped (its exit).
struct Consumer {
    sum: u64,
    manager: SelectorRef<Manager>,
    out: Arc<AtomicU64>,
}

impl Actor for Consumer {
    type Message = u64;
    fn receive(&mut self, item: u64, ctx: &mut Context<'_, Self>) {
        self.sum = self.sum.wrapping_add(consume(item));
        self.manager.send(Slot::Ready, Mail::Ready(ctx.myself()));
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.out.fetch_add(self.sum, Ordering::Relaxed);
    }
}

/// offshoot actors and a selector; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(s: Shop) -> u64 {
    let out = Arc::new(AtomicU64::new(0));
    offshoot::finish(|| {
        if s.total() == 0 {
            return;
        }
        let manager = actor::start_selector(Manager {
            buffer: VecDeque::with_capacity(s.capacity),
            capacity: s.capacity,
            left: s.total(),
        });
        for _ in 0..s.consumers {
            let consumer = actor::start(Consumer {
                sum: 0,
                manager: manager.clone(),
                out: out.clone(),
            });
            manager.send(Slot::Ready, Mail::Ready(consumer));
        }
        for me in 0..s.producers {
            let producer = actor::start(Producer {
                shop: s,
                me,
                next: 0,
                manager: manager.clone(),
            });
            producer.send(());
        }
        // The handles go: the manager exits after the last item, which drops the
        // handles in its mailboxes; producers and consumers exit once idle and
        // unreferenced.
    });
    out.load(Ordering::Relaxed)
}

/// The ractor manager's messages.
enum RMail {
    Data(u64, ractor::ActorRef<()>),
    Ready(ractor::ActorRef<u64>),
}

/// The ractor manager's state: the buffer, the consumers waiting for an item, the
/// items waiting for room (with their producers), and the items still to hand out.
struct RShelf {
    buffer: VecDeque<u64>,
    consumers: VecDeque<ractor::ActorRef<u64>>,
    full: VecDeque<(u64, ractor::ActorRef<()>)>,
    left: u64,
}

/// ractor's manager.
struct RManager {
    capacity: usize,
}

impl RManager {
    /// Takes `item` into the buffer and tells its producer to produce more.
    fn take(shelf: &mut RShelf, item: u64, producer: ractor::ActorRef<()>) {
        shelf.buffer.push_back(item);
        cast(&producer, ());
    }
}

impl ractor::Actor for RManager {
    type Msg = RMail;
    type State = RShelf;
    type Arguments = u64;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<RMail>,
        left: u64,
    ) -> Result<RShelf, ractor::ActorProcessingErr> {
        Ok(RShelf {
            buffer: VecDeque::with_capacity(self.capacity),
            consumers: VecDeque::new(),
            full: VecDeque::new(),
            left,
        })
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<RMail>,
        mail: RMail,
        shelf: &mut RShelf,
    ) -> Result<(), ractor::ActorProcessingErr> {
        match mail {
            RMail::Data(item, producer) if shelf.buffer.len() < self.capacity => {
                Self::take(shelf, item, producer)
            }
            RMail::Data(item, producer) => shelf.full.push_back((item, producer)),
            RMail::Ready(consumer) => shelf.consumers.push_back(consumer),
        }
        // Serve the waiting consumers, refilling from the items that found no room.
        while !shelf.buffer.is_empty() && !shelf.consumers.is_empty() {
            let (item, consumer) = (shelf.buffer.pop_front(), shelf.consumers.pop_front());
            cast(&consumer.expect("a consumer"), item.expect("an item"));
            shelf.left -= 1;
            if let Some((item, producer)) = shelf.full.pop_front() {
                Self::take(shelf, item, producer);
            }
        }
        if shelf.left == 0 {
            myself.stop(None);
        }
        Ok(())
    }
}

/// ractor's producer: its state is its next item's index.
struct RProducer {
    shop: Shop,
    me: u64,
    manager: ractor::ActorRef<RMail>,
}

impl ractor::Actor for RProducer {
    type Msg = ();
    type State = u64;
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<()>,
        _: (),
    ) -> Result<u64, ractor::ActorProcessingErr> {
        Ok(0)
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<()>,
        (): (),
        next: &mut u64,
    ) -> Result<(), ractor::ActorProcessingErr> {
        if *next < self.shop.items {
            let item = self.shop.produce(self.me, *next);
            *next += 1;
            cast(&self.manager, RMail::Data(item, myself));
        } else {
            myself.stop(None);
        }
        Ok(())
    }
}

/// Producer and consumer tasks around a `bounded(B)` channel; call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(s: Shop) -> u64 {
    let (tx, rx) = offshoot::sync::bounded::<u64>(s.capacity);
    let mut sums = vec![0u64; s.consumers as usize];
    offshoot::scope(|scope| {
        for me in 0..s.producers {
            let tx = tx.clone();
            scope.spawn(move |_| {
                for k in 0..s.items {
                    tx.send(s.produce(me, k)).expect(GONE);
                }
            });
        }
        drop(tx); // the channel closes when the producers are done
        for sum in &mut sums {
            let rx = rx.clone();
            scope.spawn(move |_| {
                *sum = rx
                    .iter()
                    .fold(0u64, |a, item| a.wrapping_add(consume(item)));
            });
        }
        drop(rx);
    });
    sums.into_iter().fold(0u64, u64::wrapping_add)
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, s: Shop) -> u64 {
    let out = Arc::new(AtomicU64::new(0));
    if s.total() == 0 {
        return 0;
    }
    rt.block_on(async {
        let manager = RManager {
            capacity: s.capacity,
        };
        let (manager, manager_done) = spawn_ractor(manager, s.total()).await;
        let mut consumers = Vec::new();
        for _ in 0..s.consumers {
            // A consumer (consuming is `mix`); the manager may have stopped after
            // handing out its last item.
            let to = manager.clone();
            let consumer = RSummer {
                out: out.clone(),
                after: move |me| {
                    let _ = to.cast(RMail::Ready(me));
                },
            };
            let (c, done) = spawn_ractor(consumer, ()).await;
            cast(&manager, RMail::Ready(c.clone()));
            consumers.push((c, done));
        }
        let mut producers = Vec::new();
        for me in 0..s.producers {
            let producer = RProducer {
                shop: s,
                me,
                manager: manager.clone(),
            };
            let (p, done) = spawn_ractor(producer, ()).await;
            cast(&p, ());
            producers.push(done);
        }
        joined(manager_done).await;
        for done in producers {
            joined(done).await;
        }
        for (c, done) in consumers {
            c.drain().expect(GONE);
            joined(done).await;
        }
    });
    out.load(Ordering::Relaxed)
}

/// What a kameo consumer does after each item: asks the manager for the next (which
/// may have stopped after handing out its last item).
struct AskMore {
    manager: KRef<KManager>,
}

/// A kameo consumer (consuming is `mix`).
type KConsumer = KSummer<AskMore>;

impl After for AskMore {
    fn after(&self, me: &KRef<KConsumer>) {
        let _ = self.manager.tell(KMail::Ready(me.clone())).try_send();
    }
}

/// The kameo manager's messages.
enum KMail {
    Data(u64, KRef<KProducer>),
    Ready(KRef<KConsumer>),
}

/// kameo's manager: the buffer, the consumers waiting for an item, the items waiting
/// for room (with their producers), and the items still to hand out.
#[derive(kameo::Actor)]
struct KManager {
    capacity: usize,
    buffer: VecDeque<u64>,
    consumers: VecDeque<KRef<KConsumer>>,
    full: VecDeque<(u64, KRef<KProducer>)>,
    left: u64,
}

impl KManager {
    /// Takes `item` into the buffer and tells its producer to produce more.
    fn take(&mut self, item: u64, producer: KRef<KProducer>) {
        self.buffer.push_back(item);
        tell(&producer, ());
    }
}

impl kameo::message::Message<KMail> for KManager {
    type Reply = ();
    async fn handle(&mut self, mail: KMail, ctx: &mut kameo::message::Context<Self, ()>) {
        match mail {
            KMail::Data(item, producer) if self.buffer.len() < self.capacity => {
                self.take(item, producer)
            }
            KMail::Data(item, producer) => self.full.push_back((item, producer)),
            KMail::Ready(consumer) => self.consumers.push_back(consumer),
        }
        // Serve the waiting consumers, refilling from the items that found no room.
        while !self.buffer.is_empty() && !self.consumers.is_empty() {
            let (item, consumer) = (self.buffer.pop_front(), self.consumers.pop_front());
            tell(&consumer.expect("a consumer"), item.expect("an item"));
            self.left -= 1;
            if let Some((item, producer)) = self.full.pop_front() {
                self.take(item, producer);
            }
        }
        if self.left == 0 {
            ctx.stop();
        }
    }
}

/// kameo's producer: `next` is its next item's index.
#[derive(kameo::Actor)]
struct KProducer {
    shop: Shop,
    me: u64,
    next: u64,
    manager: KRef<KManager>,
}

impl kameo::message::Message<()> for KProducer {
    type Reply = ();
    async fn handle(&mut self, (): (), ctx: &mut kameo::message::Context<Self, ()>) {
        if self.next < self.shop.items {
            let item = self.shop.produce(self.me, self.next);
            self.next += 1;
            tell(&self.manager, KMail::Data(item, ctx.actor_ref().clone()));
        } else {
            ctx.stop();
        }
    }
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, s: Shop) -> u64 {
    if s.total() == 0 {
        return 0;
    }
    rt.block_on(async {
        let manager = spawn_kameo(KManager {
            capacity: s.capacity,
            buffer: VecDeque::with_capacity(s.capacity),
            consumers: VecDeque::new(),
            full: VecDeque::new(),
            left: s.total(),
        });
        let consumers: Vec<_> = (0..s.consumers)
            .map(|_| {
                let (c, end) = spawn_kameo_ended(KSummer {
                    after: AskMore {
                        manager: manager.clone(),
                    },
                    sum: 0,
                });
                tell(&manager, KMail::Ready(c.clone()));
                (c, end)
            })
            .collect();
        let producers: Vec<_> = (0..s.producers)
            .map(|me| {
                let p = spawn_kameo(KProducer {
                    shop: s,
                    me,
                    next: 0,
                    manager: manager.clone(),
                });
                tell(&p, ());
                p
            })
            .collect();
        stopped(&manager).await;
        for p in &producers {
            stopped(p).await;
        }
        let mut sum = 0u64;
        for (c, end) in consumers {
            drain(&c).await;
            sum = sum.wrapping_add(ended(end).await.sum);
        }
        sum
    })
}

/// Producer and consumer threads around a `sync_channel(B)`.
pub fn threads(s: Shop) -> u64 {
    let (tx, rx) = mpsc::sync_channel::<u64>(s.capacity);
    let rx = Mutex::new(rx);
    std::thread::scope(|scope| {
        for me in 0..s.producers {
            let tx = tx.clone();
            scope.spawn(move || {
                for k in 0..s.items {
                    tx.send(s.produce(me, k)).expect(GONE);
                }
            });
        }
        drop(tx); // the channel closes when the producers are done
        let consumers: Vec<_> = (0..s.consumers)
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = 0u64;
                    loop {
                        let item = rx
                            .lock()
                            .expect("bounded-buffer: a consumer panicked")
                            .recv();
                        match item {
                            Ok(item) => sum = sum.wrapping_add(consume(item)),
                            Err(_) => return sum,
                        }
                    }
                })
            })
            .collect();
        consumers
            .into_iter()
            .map(|c| c.join().expect(GONE))
            .fold(0u64, u64::wrapping_add)
    })
}

fn prepare(size: Size) -> Plain<Shop, u64> {
    let (producers, consumers, items, capacity) = match size {
        Size::Test => (2, 3, 50, 4),
        Size::Quick => (4, 4, 2_500, 16),
        Size::Full => (40, 40, 1_000, 50),
    };
    let s = Shop {
        producers,
        consumers,
        items,
        capacity,
    };
    Plain::checked(
        s,
        format!(
            "{producers} producers × {items} items, {consumers} consumers, capacity {capacity}"
        ),
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
    fn every_item_is_consumed_once() {
        // A buffer of one between 3 producers and 2 consumers: both guards bite.
        let s = Shop {
            producers: 3,
            consumers: 2,
            items: 20,
            capacity: 1,
        };
        let right = serial(s);
        check(&s, right).unwrap();
        let doubled = right.wrapping_add(consume(s.produce(1, 7)));
        assert!(check(&s, doubled).is_err());
        assert_eq!(threads(s), right);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(s)), right);
        assert_eq!(pool.run(|| offshoot_tasks(s)), right);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        assert_eq!(tokio(&rt, s), right);
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
