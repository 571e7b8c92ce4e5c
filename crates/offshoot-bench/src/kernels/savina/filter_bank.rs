//! `filter-bank` (Savina's FilterBank, a join of sources): a producer sends N samples
//! through B = 8 parallel branches, each a chain of S FIR-filter stages (K taps, its own
//! coefficients and delay line), one actor per stage; a combiner must join one output
//! from every branch for each sample (a join of B sources), adds the B outputs in branch
//! order and adds that to its running total. The branches run ahead of each other, so
//! the combiner receives a sample's outputs interleaved with later samples' outputs of
//! faster branches and must hold those back: this is what the contenders do
//! differently.
//!
//! - serial: the loop running every branch's chain on each sample;
//! - offshoot: the stages are `offshoot::actor` actors; the combiner is a **selector**
//!   with one mailbox per branch (`Numbered<8>`): it disables a branch's mailbox once
//!   that branch's output for the current sample arrived and enables them all when the
//!   sample is complete, so later outputs wait in their mailboxes (no stash); the
//!   calling task is the producer and waits in an `offshoot::finish`;
//! - offshoot-actors: the same with a plain actor combiner, which keeps a stash (a
//!   `VecDeque`) per branch in its state and combines when every stash has a value;
//! - offshoot-tasks: one task per stage in an `offshoot::scope`, each looping over its
//!   `offshoot::sync` channel; the combiner is an `offshoot::sync::spawn_future` that
//!   receives from each branch's channel in turn (the blocking join: it parks on a slow
//!   branch while the faster ones' outputs wait in their channels) and whose value is
//!   the total; the calling task is the producer, then gets the future;
//! - tokio: ractor actors, the combiner with the same stashes; it stops after the last
//!   sample and the stages are drained;
//! - kameo: the same actors and stashes in kameo; the stages are stopped gracefully;
//! - threads: one thread per stage and one combiner thread that receives from each
//!   branch's channel in turn (the blocking join); the calling thread is the producer.
//!
//! Inputs (N samples, S stages per branch, K taps; B = 8): test 40, 2, 8; quick 2 000,
//! 2, 32; full 50 000, 2, 32.
//! Cutoff: none.
//! Check: the total, bit for bit, of the outputs recomputed branch by branch (each
//! branch's chain over all samples first, then the per-sample sums in branch order);
//! every contender does the same float operations in the same order, so it must return
//! the same bits.

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::mpsc;

use offshoot::actor::{self, Actor, ActorRef, Context, Numbered, Selector, SelectorContext};
use offshoot::actor::{Mailbox, SelectorRef};

use super::{
    cast, drained, joined, mix, spawn_kameo, spawn_ractor, stopped, tell, Bits, FloatOut, KRef,
    GONE,
};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "filter-bank",
    about:
        "samples flow through 8 branches of FIR-filter actors; a combiner joins one output of each",
    cutoff: "none",
    source:
        "Savina (shamsimam/savina) FilterBank; Imam's thesis ch. 5 join of sources with selectors",
};

/// B, the number of branches (one combiner mailbox each, at most 64).
pub const BRANCHES: usize = 8;

/// N samples through branches of S stages of K taps.
#[derive(Clone, Copy, Debug)]
pub struct Bank {
    /// N.
    pub samples: u64,
    /// S.
    pub stages: usize,
    /// K.
    pub taps: usize,
}

/// A number in [-1, 1) from `z`'s top 53 bits.
fn unit(z: u64) -> f64 {
    (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

impl Bank {
    /// Sample k.
    fn sample(self, k: u64) -> f64 {
        unit(mix(k))
    }

    /// Stage s of branch b, its delay line zero.
    fn fir(self, b: usize, s: usize) -> Fir {
        let base = ((b * 16 + s) as u64) << 32;
        Fir {
            coef: (0..self.taps as u64)
                .map(|j| unit(mix(base + j)) / self.taps as f64)
                .collect(),
            line: vec![0.0; self.taps],
        }
    }

    /// Every branch's chain of stages.
    fn chains(self) -> Vec<Vec<Fir>> {
        (0..BRANCHES)
            .map(|b| (0..self.stages).map(|s| self.fir(b, s)).collect())
            .collect()
    }
}

/// A FIR filter: its coefficients and its delay line (the newest input first).
pub struct Fir {
    coef: Vec<f64>,
    line: Vec<f64>,
}

impl Fir {
    /// Takes input `x` and returns the output, Σ_j coef_j · x_{−j} in order of j.
    fn step(&mut self, x: f64) -> f64 {
        let k = self.line.len();
        self.line.copy_within(0..k - 1, 1);
        self.line[0] = x;
        self.coef
            .iter()
            .zip(&self.line)
            .fold(0.0, |y, (c, x)| y + c * x)
    }
}

/// Runs `x` through a chain of stages.
fn through(chain: &mut [Fir], x: f64) -> f64 {
    chain.iter_mut().fold(x, |x, fir| fir.step(x))
}

/// Adds a sample's branch outputs (in branch order) to the total.
fn combine(total: f64, row: impl Iterator<Item = f64>) -> f64 {
    total + row.fold(0.0, |sum, v| sum + v)
}

/// The plain loop.
pub fn serial(bank: Bank) -> Bits {
    let mut chains = bank.chains();
    let mut total = 0.0;
    for k in 0..bank.samples {
        let x = bank.sample(black_box(k));
        total = combine(total, chains.iter_mut().map(|chain| through(chain, x)));
    }
    Bits(total)
}

/// The oracle: each branch over all samples first, then the sums.
fn check(bank: &Bank, got: Bits) -> Result<(), String> {
    let outputs: Vec<Vec<f64>> = bank
        .chains()
        .into_iter()
        .map(|mut chain| {
            (0..bank.samples)
                .map(|k| through(&mut chain, bank.sample(k)))
                .collect()
        })
        .collect();
    let want = Bits((0..bank.samples as usize).fold(0.0, |total, k| {
        combine(total, outputs.iter().map(|branch| branch[k]))
    }));
    if got == want {
        Ok(())
    } else {
        Err(format!("total {got:?}, expected {want:?}"))
    }
}

/// The combiner of the stashing versions (offshoot-actors and tokio): a queue of
/// outputs per branch, the total, and the samples still to combine.
struct Stashes {
    queues: Vec<VecDeque<f64>>,
    total: f64,
    left: u64,
}

impl Stashes {
    fn new(samples: u64) -> Stashes {
        Stashes {
            queues: vec![VecDeque::new(); BRANCHES],
            total: 0.0,
            left: samples,
        }
    }

    /// Takes branch b's next output; the total once the last sample is combined.
    fn put(&mut self, b: usize, v: f64) -> Option<f64> {
        self.queues[b].push_back(v);
        if self.queues.iter().all(|q| !q.is_empty()) {
            let row = self
                .queues
                .iter_mut()
                .map(|q| q.pop_front().expect("not empty"));
            self.total = combine(self.total, row);
            self.left -= 1;
        }
        (self.left == 0).then_some(self.total)
    }
}

/// The address of an offshoot combiner.
trait Join: Send + 'static {
    /// Sends branch b's next output `v`.
    fn put(&self, b: usize, v: f64);
}

/// Where a stage sends its output.
enum Next<J: Join> {
    /// The next stage of its branch.
    Stage(ActorRef<Stage<J>>),
    /// The combiner, as branch b.
    Join(J, usize),
}

/// An offshoot stage: filters each input and passes the output on.
struct Stage<J: Join> {
    fir: Fir,
    next: Next<J>,
}

impl<J: Join> Actor for Stage<J> {
    type Message = f64;
    fn receive(&mut self, x: f64, _: &mut Context<'_, Self>) {
        let y = self.fir.step(x);
        match &self.next {
            Next::Stage(stage) => stage.send(y),
            Next::Join(join, b) => join.put(*b, y),
        }
    }
}

/// Starts the stages, each branch's ending at `join`, and sends them the samples (the
/// producer).
fn produce<J: Join + Clone>(bank: Bank, join: J) {
    let firsts: Vec<ActorRef<Stage<J>>> = bank
        .chains()
        .into_iter()
        .enumerate()
        .map(|(b, chain)| {
            let mut next = Next::Join(join.clone(), b);
            for fir in chain.into_iter().rev() {
                next = Next::Stage(actor::start(Stage { fir, next }));
            }
            match next {
                Next::Stage(first) => first,
                Next::Join(..) => panic!("filter-bank: a branch without stages"),
            }
        })
        .collect();
    feed(bank, &firsts, |first, x| first.send(x));
}

/// The producer: sends every sample, in order, to the first stage of each branch with
/// `send`.
fn feed<S>(bank: Bank, firsts: &[S], send: impl Fn(&S, f64)) {
    for k in 0..bank.samples {
        let x = bank.sample(k);
        for first in firsts {
            send(first, x);
        }
    }
}

/// The offshoot combiner, a selector: the current sample's outputs so far.
struct Combiner {
    row: [f64; BRANCHES],
    have: usize,
    total: f64,
    left: u64,
    out: FloatOut,
}

/// A combiner mailbox per branch.
type Branch = Numbered<BRANCHES>;

impl Join for SelectorRef<Combiner> {
    fn put(&self, b: usize, v: f64) {
        self.send(Branch::new(b), v);
    }
}

impl Selector for Combiner {
    type Mailbox = Branch;
    type Message = f64;
    fn receive(&mut self, b: Branch, v: f64, ctx: &mut SelectorContext<'_, Self>) {
        self.row[b.index()] = v;
        self.have += 1;
        if self.have < BRANCHES {
            ctx.disable(b); // until the sample is complete
            return;
        }
        self.total = combine(self.total, self.row.iter().copied());
        self.have = 0;
        self.left -= 1;
        if self.left == 0 {
            self.out.put(self.total);
            ctx.exit();
        } else {
            ctx.enable_all();
        }
    }
}

/// The offshoot-actors combiner, a plain actor with stashes.
struct StashCombiner {
    stashes: Stashes,
    out: FloatOut,
}

impl Join for ActorRef<StashCombiner> {
    fn put(&self, b: usize, v: f64) {
        self.send((b, v));
    }
}

impl Actor for StashCombiner {
    type Message = (usize, f64);
    fn receive(&mut self, (b, v): (usize, f64), ctx: &mut Context<'_, Self>) {
        if let Some(total) = self.stashes.put(b, v) {
            self.out.put(total);
            ctx.exit();
        }
    }
}

/// Starts the combiner (`start` makes it, given where it stores the total) and the
/// stages, sends the samples and waits for them in a finish.
fn on_offshoot<J: Join + Clone>(bank: Bank, start: impl FnOnce(FloatOut) -> J + Send) -> Bits {
    let out = FloatOut::default();
    if bank.samples == 0 {
        return Bits(0.0);
    }
    offshoot::finish(|| produce(bank, start(out.clone())));
    out.get()
}

/// offshoot actors and a selector; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(bank: Bank) -> Bits {
    on_offshoot(bank, |out| {
        actor::start_selector(Combiner {
            row: [0.0; BRANCHES],
            have: 0,
            total: 0.0,
            left: bank.samples,
            out,
        })
    })
}

/// offshoot's plain actors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_actors(bank: Bank) -> Bits {
    on_offshoot(bank, |out| {
        actor::start(StashCombiner {
            stashes: Stashes::new(bank.samples),
            out,
        })
    })
}

/// Where a ractor stage sends its output.
enum RNext {
    /// The next stage of its branch.
    Stage(ractor::ActorRef<f64>),
    /// The combiner, as branch b.
    Join(ractor::ActorRef<(usize, f64)>, usize),
}

/// ractor's stage: its filter is its state.
struct RStage {
    next: RNext,
}

impl ractor::Actor for RStage {
    type Msg = f64;
    type State = Fir;
    type Arguments = Fir;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<f64>,
        fir: Fir,
    ) -> Result<Fir, ractor::ActorProcessingErr> {
        Ok(fir)
    }
    async fn handle(
        &self,
        _: ractor::ActorRef<f64>,
        x: f64,
        fir: &mut Fir,
    ) -> Result<(), ractor::ActorProcessingErr> {
        let y = fir.step(x);
        match &self.next {
            RNext::Stage(stage) => cast(stage, y),
            RNext::Join(join, b) => cast(join, (*b, y)),
        }
        Ok(())
    }
}

/// ractor's combiner, with stashes; it stores the total and stops after the last
/// sample.
struct RCombiner {
    out: FloatOut,
}

impl ractor::Actor for RCombiner {
    type Msg = (usize, f64);
    type State = Stashes;
    type Arguments = u64;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        samples: u64,
    ) -> Result<Stashes, ractor::ActorProcessingErr> {
        Ok(Stashes::new(samples))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<Self::Msg>,
        (b, v): Self::Msg,
        stashes: &mut Stashes,
    ) -> Result<(), ractor::ActorProcessingErr> {
        if let Some(total) = stashes.put(b, v) {
            self.out.put(total);
            myself.stop(None);
        }
        Ok(())
    }
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, bank: Bank) -> Bits {
    let out = FloatOut::default();
    if bank.samples == 0 {
        return Bits(0.0);
    }
    rt.block_on(async {
        let combiner = RCombiner { out: out.clone() };
        let (combiner, combiner_done) = spawn_ractor(combiner, bank.samples).await;
        let mut stages = Vec::new();
        let mut firsts = Vec::new();
        for (b, chain) in bank.chains().into_iter().enumerate() {
            let mut next = RNext::Join(combiner.clone(), b);
            for fir in chain.into_iter().rev() {
                let (stage, done) = spawn_ractor(RStage { next }, fir).await;
                stages.push((stage.clone(), done));
                next = RNext::Stage(stage);
            }
            match next {
                RNext::Stage(first) => firsts.push(first),
                RNext::Join(..) => panic!("filter-bank: a branch without stages"),
            }
        }
        for k in 0..bank.samples {
            let x = bank.sample(k);
            for first in &firsts {
                cast(first, x);
            }
        }
        joined(combiner_done).await;
        for (stage, done) in stages {
            stage.drain().expect(GONE);
            joined(done).await;
        }
    });
    out.get()
}

/// Where a kameo stage sends its output.
enum KNext {
    /// The next stage of its branch.
    Stage(KRef<KStage>),
    /// The combiner, as branch b.
    Join(KRef<KCombiner>, usize),
}

/// kameo's stage: its filter and where its output goes.
#[derive(kameo::Actor)]
struct KStage {
    fir: Fir,
    next: KNext,
}

impl kameo::message::Message<f64> for KStage {
    type Reply = ();
    async fn handle(&mut self, x: f64, _: &mut kameo::message::Context<Self, ()>) {
        let y = self.fir.step(x);
        match &self.next {
            KNext::Stage(stage) => tell(stage, y),
            KNext::Join(join, b) => tell(join, (*b, y)),
        }
    }
}

/// kameo's combiner, with stashes; it stores the total and stops after the last sample.
#[derive(kameo::Actor)]
struct KCombiner {
    stashes: Stashes,
    out: FloatOut,
}

impl kameo::message::Message<(usize, f64)> for KCombiner {
    type Reply = ();
    async fn handle(&mut self, (b, v): (usize, f64), ctx: &mut kameo::message::Context<Self, ()>) {
        if let Some(total) = self.stashes.put(b, v) {
            self.out.put(total);
            ctx.stop();
        }
    }
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, bank: Bank) -> Bits {
    let out = FloatOut::default();
    if bank.samples == 0 {
        return Bits(0.0);
    }
    rt.block_on(async {
        let combiner = spawn_kameo(KCombiner {
            stashes: Stashes::new(bank.samples),
            out: out.clone(),
        });
        let mut stages = Vec::new();
        let mut firsts = Vec::new();
        for (b, chain) in bank.chains().into_iter().enumerate() {
            let mut next = KNext::Join(combiner.clone(), b);
            for fir in chain.into_iter().rev() {
                let stage = spawn_kameo(KStage { fir, next });
                stages.push(stage.clone());
                next = KNext::Stage(stage);
            }
            match next {
                KNext::Stage(first) => firsts.push(first),
                KNext::Join(..) => panic!("filter-bank: a branch without stages"),
            }
        }
        for k in 0..bank.samples {
            let x = bank.sample(k);
            for first in &firsts {
                tell(first, x);
            }
        }
        stopped(&combiner).await;
        for stage in &stages {
            drained(stage).await;
        }
    });
    out.get()
}

/// Wires the branches on channels (threads and offshoot-tasks): `channel()` makes one,
/// `start(fir, inputs, next)` starts a stage that filters what comes on `inputs` and
/// sends it on to `next`. Returns each branch's first input and its output.
fn wire<S, R>(
    bank: Bank,
    channel: impl Fn() -> (S, R),
    mut start: impl FnMut(Fir, R, S),
) -> (Vec<S>, Vec<R>) {
    let mut firsts = Vec::new();
    let mut outputs = Vec::new();
    for chain in bank.chains() {
        let (mut to, output) = channel();
        outputs.push(output);
        for fir in chain.into_iter().rev() {
            let (to_stage, inputs) = channel();
            start(fir, inputs, to);
            to = to_stage;
        }
        firsts.push(to);
    }
    (firsts, outputs)
}

/// The blocking join (threads and offshoot-tasks): the total over the N samples, each
/// sample's output taken from every branch's `outputs` in turn with `recv`.
fn join_in_turn<R>(bank: Bank, outputs: &[R], recv: impl Fn(&R) -> f64) -> f64 {
    let mut total = 0.0;
    for _ in 0..bank.samples {
        total = combine(total, outputs.iter().map(&recv));
    }
    total
}

/// One thread per stage and a combiner thread; the calling thread is the producer.
pub fn threads(bank: Bank) -> Bits {
    std::thread::scope(|s| {
        let (firsts, outputs) = wire(bank, mpsc::channel::<f64>, |mut fir, inputs, next| {
            s.spawn(move || {
                for x in inputs {
                    next.send(fir.step(x)).expect(GONE);
                }
            });
        });
        let combiner = s.spawn(move || join_in_turn(bank, &outputs, |b| b.recv().expect(GONE)));
        feed(bank, &firsts, |first, x| first.send(x).expect(GONE));
        drop(firsts); // the stages' loops end
        Bits(combiner.join().expect(GONE))
    })
}

/// One task per stage in an `offshoot::scope`, each looping over its `offshoot::sync`
/// channel, and the combiner a `spawn_future` whose value is the total; the calling task
/// is the producer. Call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(bank: Bank) -> Bits {
    offshoot::scope(|s| {
        let channel = offshoot::sync::unbounded::<f64>;
        let (firsts, outputs) = wire(bank, channel, |mut fir, inputs, next| {
            s.spawn(move |_| {
                for x in inputs.iter() {
                    next.send(fir.step(x)).expect(GONE);
                }
            });
        });
        let total = offshoot::sync::spawn_future(move || {
            join_in_turn(bank, &outputs, |b| b.recv().expect(GONE))
        });
        feed(bank, &firsts, |first, x| first.send(x).expect(GONE));
        drop(firsts); // the stages' loops end
        Bits(*total.get())
    })
}

fn prepare(size: Size) -> Plain<Bank, Bits> {
    let (samples, stages, taps) = match size {
        Size::Test => (40, 2, 8),
        Size::Quick => (2_000, 2, 32),
        Size::Full => (50_000, 2, 32),
    };
    let bank = Bank {
        samples,
        stages,
        taps,
    };
    Plain::checked(
        bank,
        format!("{samples} samples, {BRANCHES} branches × {stages} stages of {taps} taps"),
        check,
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(ABOUT, prepare, selectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_joins_the_branches_in_order() {
        let bank = Bank {
            samples: 60,
            stages: 3,
            taps: 4,
        };
        let right = serial(bank);
        check(&bank, right).unwrap();
        assert!(check(&bank, Bits(right.0 + 1e-9)).is_err());
        assert_eq!(threads(bank), right);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(bank)), right);
        assert_eq!(pool.run(|| offshoot_actors(bank)), right);
        assert_eq!(pool.run(|| offshoot_tasks(bank)), right);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        assert_eq!(tokio(&rt, bank), right);
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
