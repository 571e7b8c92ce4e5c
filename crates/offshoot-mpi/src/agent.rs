//! The agent: the one thread of a rank that talks to the other ranks. It answers their
//! steals from its pool (lazily: a package request reaches the oldest exporting block of
//! a busy worker at its next poll), steals for its pool when the pool's own workers found
//! nothing, goes quiet on lifelines when nobody has work, runs the packages it receives,
//! sends their results back, and notices thieves that stop answering.
//!
//! The protocol (after GLB's lifeline-based global load balancing, Saraswat et al. 2011):
//! * **Steal.** A rank whose pool has an idle worker (and no package waiting to start)
//!   sends `Steal` to a random rank, up to `Config::steal_attempts` in a row, one at a time.
//!   A victim whose pool runs work asks it for a package and answers `Loot` or `NoLoot`.
//! * **Lifelines.** After those attempts fail, the rank sends a lifeline `Steal` to each of
//!   its lifeline ranks (rank + 1, + 2, + 4, … modulo the size: a low-degree graph that
//!   reaches every rank in log₂ P hops) and goes quiet: it sends nothing more until work
//!   arrives. A victim with nothing answers "registered" and remembers the asker; once it
//!   runs work again it pushes a package to each waiter, which wakes it.
//! * **Termination** is the root's: every package's result goes back to the frame that gave
//!   it away, which waits for it, so when the root returns on rank 0 no work is left
//!   anywhere. Rank 0 then sends `Done`; every rank answers `Bye` with its statistics.
//! * **Faults** (crash-stop at the protocol level): a thief sends `Alive` to the ranks whose
//!   packages it runs, every `Config::heartbeat`. A victim that hears nothing from a
//!   thief holding its packages for `Config::fault_timeout` declares it lost and runs
//!   those packages itself (Yasugi et al.'s packages kept at the victim); a result that
//!   comes later finds no pending entry and is dropped.
//!
//! Invariants:
//! * At most one steal of this rank is outstanding, and at most one package request to
//!   its pool; every steal received is answered exactly once (`Loot` or `NoLoot`), unless
//!   the asker was declared lost.
//! * The agent never blocks on a worker: it polls its package request and naps (parked,
//!   so a worker's `Node::send` wakes it) with a bounded backoff when nothing happens.
//! * **Patience.** Where its wakes take CPU from workers (`shares_cores`), while all it
//!   waits for is slow — its steal unanswered at a victim, or its package request
//!   unanswered by its own pool (a worker that does not poll), for longer than `PATIENCE`
//!   naps of `busy_nap` — an agent's nap may grow past `busy_nap`, to a `PATIENCE`th of the
//!   youngest such wait (at most `max_nap`): the answer is then seen at most that fraction
//!   of the wait late, and a rank that waits on a blocked one stops waking every
//!   `busy_nap`. With a core of its own an agent's wakes cost nobody anything, and a
//!   patient agent would see other ranks' steals late (the model: T3L-like on 1024 ranks
//!   0.040 → 0.036, patient agents slowing the ones that wait on them), so it stays at
//!   `busy_nap`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use offshoot::eureka::Eureka;
use offshoot::export::{Answer, PackageRequest};
use offshoot::ThreadPool;

use crate::node::{Node, Out};
use crate::run::Config;
use crate::session::Session;
use crate::transport::Transport;
use crate::wire::{decode_package, Msg, Package, RankStats};

/// How much later than it came an answer that was slow may be seen (module invariants,
/// *Patience*): an agent waiting on one naps at most an eighth of the wait so far.
const PATIENCE: u32 = 8;

/// The nap of a patient agent (module invariants, *Patience*) whose outstanding steal and
/// package request have waited `steal` and `request` (`None`: not outstanding): a
/// `PATIENCE`th of the younger, at most `max_nap`; `None` if neither is outstanding.
fn patient_nap(
    steal: Option<Duration>,
    request: Option<Duration>,
    max_nap: Duration,
) -> Option<Duration> {
    let youngest = steal.into_iter().chain(request).min()?;
    Some((youngest / PATIENCE).min(max_nap))
}

/// Whether `local` ranks of `workers` workers and one agent each run more threads than the
/// `cores` they may use (then an agent's wake is taken from a worker).
fn shares_cores(local: usize, workers: usize, cores: usize) -> bool {
    local.saturating_mul(workers.saturating_add(1)) > cores
}

/// Where this rank's own search for work stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Steal {
    /// Not looking (the pool is busy), or ready to look.
    Idle,
    /// A random steal is outstanding at `victim` since `since`; `left` more random tries
    /// after it.
    Waiting {
        victim: usize,
        left: usize,
        since: Instant,
    },
    /// Registered on lifelines: waiting for work to arrive.
    Quiet,
}

/// Why a package request to the pool was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// To answer `thief`'s steal (`lifeline`: it registers here if there is nothing).
    Answer { thief: usize, lifeline: bool },
    /// To push work to the lifeline waiter `thief`.
    Push { thief: usize },
}

pub(crate) struct Agent<'p, 's, X: Transport> {
    s: &'s mut Session<X>,
    node: Arc<Node>,
    pool: &'p ThreadPool,
    cfg: Config,
    rank: usize,
    size: usize,
    rng: u64,
    steal: Steal,
    lifelines: Vec<usize>,
    registered: Vec<bool>,
    asks: VecDeque<(usize, bool)>,
    /// The package request to this rank's pool in progress, why, and since when.
    inflight: Option<(PackageRequest, Why, Instant)>,
    waiters: Vec<usize>,
    last_push: Instant,
    /// When another rank last asked this one for work (a steal, random or lifeline).
    last_asked: Instant,
    /// Whether this machine's ranks run more threads (workers and agents) than the cores
    /// they may use: then every wake of this agent is taken from a worker.
    shares_cores: bool,
    last_heard: Vec<Instant>,
    lost: Vec<bool>,
    /// Packages of each victim running here (for heartbeats).
    running_for: HashMap<usize, usize>,
    last_alive: Instant,
    last_fault_scan: Instant,
    pub(crate) stats: RankStats,
    idle_since: Option<Instant>,
    pub(crate) done: bool,
    done_at: Option<Instant>,
    byes: Vec<RankStats>,
    pub(crate) found: Option<Vec<u8>>,
}

impl<'p, 's, X: Transport> Agent<'p, 's, X> {
    pub(crate) fn new(
        s: &'s mut Session<X>,
        node: Arc<Node>,
        pool: &'p ThreadPool,
        cfg: Config,
    ) -> Self {
        let (rank, size) = (s.rank(), s.size());
        let lifelines = cfg.lifelines(rank, size);
        let now = Instant::now();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let shares_cores = shares_cores(s.local_size(), pool.workers(), cores);
        Agent {
            s,
            node,
            pool,
            rank,
            size,
            rng: 0x9E37_79B9_7F4A_7C15 ^ (rank as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9),
            steal: Steal::Idle,
            registered: vec![false; size],
            lifelines,
            asks: VecDeque::new(),
            inflight: None,
            waiters: Vec::new(),
            last_push: now,
            last_asked: now,
            shares_cores,
            last_heard: vec![now; size],
            lost: vec![false; size],
            running_for: HashMap::new(),
            last_alive: now,
            last_fault_scan: now,
            stats: RankStats {
                rank,
                ..RankStats::default()
            },
            idle_since: None,
            done: false,
            done_at: None,
            byes: Vec::new(),
            found: None,
            cfg,
        }
    }

    /// Runs the protocol until the run is over: on rank 0 once `root_done` holds and every
    /// other rank said goodbye; elsewhere once rank 0 said `Done`. Returns every rank's
    /// statistics on rank 0 (this rank's only elsewhere).
    pub(crate) fn run(mut self, root_done: &dyn Fn() -> bool) -> (Vec<RankStats>, Option<Vec<u8>>) {
        let first_nap = Duration::from_micros(20).min(self.cfg.busy_nap);
        let mut nap = first_nap;
        loop {
            let mut busy = self.receive();
            busy |= self.drain_outbox();
            busy |= self.serve();
            busy |= self.look_for_work();
            self.heartbeat();
            self.scan_faults();
            self.account_idle();
            if self.rank == 0 && !self.done && root_done() {
                self.done = true;
                for r in 1..self.size {
                    self.send(r, &Msg::Done);
                }
            }
            if self.done {
                if self.rank != 0 {
                    self.account_idle_end();
                    let stats = self.stats.clone();
                    self.send(0, &Msg::Bye(stats));
                    break;
                }
                let expected = (1..self.size).filter(|&r| !self.lost[r]).count();
                let done_at = *self.done_at.get_or_insert_with(Instant::now);
                // A rank that stopped answering never says goodbye: after the fault
                // timeout it is left behind (counted as lost).
                let given_up = self
                    .cfg
                    .fault_timeout
                    .is_some_and(|t| done_at.elapsed() > t);
                if self.byes.len() >= expected || given_up {
                    break;
                }
            }
            if busy {
                nap = first_nap;
            } else {
                std::thread::park_timeout(nap);
                // Alone, or quiet with nothing running here, or calm: nothing can need an
                // answer soon (a worker's news wakes the agent anyway).
                let cap = if self.size == 1
                    || (self.steal == Steal::Quiet && self.node.active.load(Ordering::Acquire) == 0)
                    || self.calm()
                {
                    self.cfg.max_nap
                } else {
                    let busy = self.cfg.max_nap.min(self.cfg.busy_nap);
                    self.patient_cap().map_or(busy, |p| p.max(busy))
                };
                nap = (nap * 2).min(cap);
            }
        }
        self.s.flush();
        self.account_idle_end();
        let mut all = std::mem::take(&mut self.byes);
        all.push(self.stats.clone());
        all.sort_by_key(|s| s.rank);
        (all, self.found.take())
    }

    /// Whether this agent is **calm** and may nap up to `max_nap` although its pool runs
    /// work: its wakes take CPU from workers (`shares_cores`), its pool is busy (it does
    /// not steal), nobody waits on its lifelines, nothing is being answered, and no rank
    /// asked it for work within `Config::calm_after`. A calm rank sees its first steal
    /// request up to `max_nap` late; the next ones within `busy_nap`, as the ask ends the
    /// calm.
    fn calm(&self) -> bool {
        self.shares_cores
            && self.steal == Steal::Idle
            && self.waiters.is_empty()
            && self.asks.is_empty()
            && self.inflight.is_none()
            && self
                .cfg
                .calm_after
                .is_some_and(|c| self.last_asked.elapsed() >= c)
    }

    /// The nap this agent may take while all it waits for is slow (module invariants,
    /// *Patience*): the youngest of its outstanding steal's and its package request's ages,
    /// divided by `PATIENCE`, at most `max_nap`; `None` where its wakes are free (a core of
    /// its own), when it waits for neither, or when it could do something else soon: with
    /// no package request in progress, a queued ask to serve or, while its pool runs work, a
    /// lifeline waiter to push to. (Asks queued behind a request in progress wait for it
    /// whatever the agent does.)
    fn patient_cap(&self) -> Option<Duration> {
        if !self.shares_cores {
            return None;
        }
        let working = self.node.active.load(Ordering::Acquire) > 0 && !self.done;
        if self.inflight.is_none()
            && (!self.asks.is_empty() || (working && !self.waiters.is_empty()))
        {
            return None;
        }
        let steal = match self.steal {
            Steal::Waiting { since, .. } => Some(since.elapsed()),
            _ => None,
        };
        let request = self.inflight.as_ref().map(|(_, _, at)| at.elapsed());
        patient_nap(steal, request, self.cfg.max_nap)
    }

    fn send(&mut self, to: usize, m: &Msg) {
        self.stats.bytes_sent += self.s.send(to, m) as u64;
    }

    fn receive(&mut self) -> bool {
        let mut any = false;
        if self.size == 1 {
            return false;
        }
        while let Some((from, m)) = self.s.recv() {
            any = true;
            self.last_heard[from] = Instant::now();
            self.on_msg(from, m);
        }
        any
    }

    fn on_msg(&mut self, from: usize, m: Msg) {
        match m {
            Msg::Steal { lifeline } => {
                self.last_asked = Instant::now();
                if !self.lost[from] {
                    self.asks.push_back((from, lifeline));
                }
            }
            Msg::Loot { package, lifeline } => {
                if lifeline {
                    self.registered[from] = false;
                }
                self.stats.steals_won += u64::from(
                    matches!(self.steal, Steal::Waiting { victim, .. } if victim == from),
                );
                self.steal = Steal::Idle;
                self.start(from, package);
            }
            Msg::NoLoot { lifeline } => {
                if lifeline {
                    self.registered[from] = true;
                }
                if let Steal::Waiting { victim, left, .. } = self.steal {
                    if victim == from {
                        self.next_attempt(left);
                    }
                }
            }
            Msg::Result { id, outcome } => {
                self.node.complete(id, outcome);
            }
            Msg::Alive => {}
            Msg::Bound { value } => {
                self.node.bound.fetch_min(value, Ordering::AcqRel);
            }
            Msg::Resolve => {
                self.node.stop.core().resolve();
            }
            Msg::Found(v) => self.record_found(v),
            Msg::Done => self.done = true,
            Msg::Bye(s) => self.byes.push(s),
        }
    }

    /// Stops the run on every rank (this one included).
    fn resolve_everywhere(&mut self) {
        if self.node.stop.core().resolve() || self.rank == 0 {
            self.broadcast(&Msg::Resolve);
        }
    }

    /// Sends `m` to every other rank not declared lost.
    fn broadcast(&mut self, m: &Msg) {
        for r in 0..self.size {
            if r != self.rank && !self.lost[r] {
                self.send(r, m);
            }
        }
    }

    /// On rank 0: keeps the first solution reported, and stops the run everywhere.
    fn record_found(&mut self, solution: Vec<u8>) {
        if self.found.is_none() {
            self.found = Some(solution);
        }
        self.resolve_everywhere();
    }

    /// Whether this rank's pool wants work from elsewhere: a worker found nothing locally,
    /// and no package waits to start.
    fn wants_work(&self) -> bool {
        self.pool.idle_workers() > 0 && self.node.queued.load(Ordering::Acquire) == 0
    }

    /// Runs `package` (from `victim`) on this rank's pool.
    fn start(&mut self, victim: usize, package: Package) {
        self.stats.packages_run += 1;
        *self.running_for.entry(victim).or_default() += 1;
        let node = self.node.clone();
        node.active.fetch_add(1, Ordering::AcqRel);
        node.queued.fetch_add(1, Ordering::AcqRel);
        self.pool.spawn(move || {
            node.queued.fetch_sub(1, Ordering::AcqRel);
            let outcome = node.run_package(&package);
            node.active.fetch_sub(1, Ordering::AcqRel);
            node.send(Out::Result {
                to: victim,
                id: package.id,
                outcome,
            });
        });
    }

    fn drain_outbox(&mut self) -> bool {
        let outs = std::mem::take(&mut *self.node.outbox.lock().unwrap_or_else(|e| e.into_inner()));
        let any = !outs.is_empty();
        for o in outs {
            match o {
                Out::Result { to, id, outcome } => {
                    if let Some(n) = self.running_for.get_mut(&to) {
                        *n -= 1;
                        if *n == 0 {
                            self.running_for.remove(&to);
                        }
                    }
                    if to == self.rank {
                        self.node.complete(id, outcome);
                    } else {
                        self.send(to, &Msg::Result { id, outcome });
                    }
                }
                Out::Bound(value) => self.broadcast(&Msg::Bound { value }),
                Out::Resolve => self.resolve_everywhere(),
                Out::Found(v) => {
                    if self.rank == 0 {
                        self.record_found(v);
                    } else {
                        self.send(0, &Msg::Found(v));
                        self.resolve_everywhere();
                    }
                }
            }
        }
        any
    }

    /// Answers steals and pushes lifeline loot, one package request at a time.
    fn serve(&mut self) -> bool {
        let mut any = false;
        if let Some((req, why, _)) = &mut self.inflight {
            let why = *why;
            match req.try_answer() {
                Answer::Pending => return false,
                Answer::Package(bytes) => {
                    any = true;
                    self.inflight = None;
                    let package = decode_package(&bytes);
                    let (thief, lifeline) = match why {
                        Why::Answer { thief, .. } => (thief, false),
                        Why::Push { thief } => {
                            self.waiters.retain(|&w| w != thief);
                            (thief, true)
                        }
                    };
                    if let Some(p) = self
                        .node
                        .pending
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_mut(&package.id)
                    {
                        p.thief = Some(thief);
                    }
                    self.stats.packages_sent += 1;
                    self.send(thief, &Msg::Loot { package, lifeline });
                }
                Answer::Nothing => {
                    self.inflight = None;
                    match why {
                        Why::Answer { thief, lifeline } => {
                            any = true;
                            self.refuse(thief, lifeline);
                        }
                        // A push that found nothing to give changes nothing for anyone:
                        // where the agent's wakes take CPU from workers it is not news (the
                        // nap keeps growing); with a core of its own, a short nap still
                        // finds the next package sooner, which the model measured as worth it.
                        Why::Push { .. } => any = !self.shares_cores,
                    }
                }
            }
        }
        if self.inflight.is_none() {
            let working = self.node.active.load(Ordering::Acquire) > 0 && !self.done;
            if let Some((thief, lifeline)) = self.asks.pop_front() {
                any = true;
                if working && !self.lost[thief] {
                    self.inflight = Some((
                        self.pool.request_package(),
                        Why::Answer { thief, lifeline },
                        Instant::now(),
                    ));
                } else {
                    self.refuse(thief, lifeline);
                }
            } else if working
                && !self.waiters.is_empty()
                && self.last_push.elapsed() >= self.cfg.push_interval
            {
                self.last_push = Instant::now();
                let thief = self.waiters[0];
                self.inflight = Some((
                    self.pool.request_package(),
                    Why::Push { thief },
                    Instant::now(),
                ));
            }
        }
        any
    }

    fn refuse(&mut self, thief: usize, lifeline: bool) {
        if self.lost[thief] {
            return;
        }
        if lifeline && !self.waiters.contains(&thief) {
            self.waiters.push(thief);
        }
        self.send(thief, &Msg::NoLoot { lifeline });
    }

    /// Steals for the pool when its workers found nothing locally.
    fn look_for_work(&mut self) -> bool {
        if self.done || self.size == 1 {
            return false;
        }
        let wants = self.wants_work();
        match self.steal {
            Steal::Idle if wants => {
                self.next_attempt(self.cfg.steal_attempts.max(1));
                true
            }
            // A victim that does not answer a steal within the fault timeout has stopped
            // answering: try the next one (a late answer is still taken).
            Steal::Waiting { left, since, .. }
                if self.cfg.fault_timeout.is_some_and(|t| since.elapsed() > t) =>
            {
                self.next_attempt(left);
                true
            }
            _ => false,
        }
    }

    /// Makes the next random steal attempt (`left` of them remain), or registers on the
    /// lifelines and goes quiet when none remains.
    fn next_attempt(&mut self, left: usize) {
        let wants = self.wants_work();
        if !wants || self.done {
            self.steal = Steal::Idle;
            return;
        }
        if left > 0 {
            if let Some(victim) = self.random_victim() {
                self.stats.steals_sent += 1;
                self.send(victim, &Msg::Steal { lifeline: false });
                self.steal = Steal::Waiting {
                    victim,
                    left: left - 1,
                    since: Instant::now(),
                };
                return;
            }
        }
        for i in 0..self.lifelines.len() {
            let l = self.lifelines[i];
            if !self.registered[l] && !self.lost[l] {
                self.stats.steals_sent += 1;
                self.send(l, &Msg::Steal { lifeline: true });
            }
        }
        self.steal = Steal::Quiet;
    }

    fn random_victim(&mut self) -> Option<usize> {
        let live: Vec<usize> = (0..self.size)
            .filter(|&r| r != self.rank && !self.lost[r])
            .collect();
        if live.is_empty() {
            return None;
        }
        // xorshift64*: a victim choice needs no more.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let x = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        Some(live[(x % live.len() as u64) as usize])
    }

    fn heartbeat(&mut self) {
        if self.running_for.is_empty() || self.last_alive.elapsed() < self.cfg.heartbeat {
            return;
        }
        self.last_alive = Instant::now();
        let victims: Vec<usize> = self
            .running_for
            .keys()
            .copied()
            .filter(|&v| v != self.rank)
            .collect();
        for v in victims {
            self.send(v, &Msg::Alive);
        }
    }

    /// Declares lost the thieves that hold packages of this rank and were silent for the
    /// fault timeout, and runs their packages here.
    fn scan_faults(&mut self) {
        let Some(timeout) = self.cfg.fault_timeout else {
            return;
        };
        if self.last_fault_scan.elapsed() < self.cfg.heartbeat {
            return;
        }
        self.last_fault_scan = Instant::now();
        let mut recover = Vec::new();
        {
            let mut pending = self.node.pending.lock().unwrap_or_else(|e| e.into_inner());
            for (id, p) in pending.iter_mut() {
                if let Some(t) = p.thief {
                    if t != self.rank && (self.lost[t] || self.last_heard[t].elapsed() > timeout) {
                        self.lost[t] = true;
                        p.thief = Some(self.rank);
                        recover.push((*id, p.package.clone()));
                    }
                }
            }
        }
        if recover.is_empty() {
            return;
        }
        for r in 0..self.size {
            if self.lost[r] {
                self.waiters.retain(|&w| w != r);
                self.asks.retain(|&(a, _)| a != r);
                if let Steal::Waiting { victim, .. } = self.steal {
                    if victim == r {
                        self.steal = Steal::Idle;
                    }
                }
            }
        }
        for (id, bytes) in recover {
            self.stats.packages_recovered += 1;
            let node = self.node.clone();
            node.active.fetch_add(1, Ordering::AcqRel);
            self.pool.spawn(move || {
                let package = decode_package(&bytes);
                let outcome = node.run_package(&package);
                node.active.fetch_sub(1, Ordering::AcqRel);
                node.complete(id, outcome);
            });
        }
    }

    fn account_idle(&mut self) {
        let idle = self.pool.idle_workers() >= self.pool.workers();
        match (idle, self.idle_since) {
            (true, None) => self.idle_since = Some(Instant::now()),
            (false, Some(t)) => {
                self.stats.idle_us += t.elapsed().as_micros() as u64;
                self.idle_since = None;
            }
            _ => {}
        }
    }

    fn account_idle_end(&mut self) {
        if let Some(t) = self.idle_since.take() {
            self.stats.idle_us += t.elapsed().as_micros() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{patient_nap, shares_cores};
    use std::time::Duration;

    #[test]
    fn a_patient_nap_is_an_eighth_of_the_younger_wait_at_most_max_nap() {
        let ms = Duration::from_millis;
        let max = ms(2);
        assert_eq!(patient_nap(None, None, max), None);
        assert_eq!(patient_nap(Some(ms(8)), None, max), Some(ms(1)));
        assert_eq!(
            patient_nap(None, Some(ms(4)), max),
            Some(Duration::from_micros(500))
        );
        // The younger wait decides: what it waits for may come soon.
        assert_eq!(patient_nap(Some(ms(800)), Some(ms(8)), max), Some(ms(1)));
        assert_eq!(patient_nap(Some(ms(8)), Some(ms(800)), max), Some(ms(1)));
        // Never past `max_nap`, however long the wait.
        assert_eq!(patient_nap(Some(ms(10_000)), None, max), Some(max));
        // A fresh wait: a nap shorter than any `busy_nap` (the caller keeps the larger).
        assert_eq!(
            patient_nap(Some(Duration::ZERO), None, max),
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn an_agent_shares_cores_when_the_machines_ranks_run_more_threads_than_it_has_cores() {
        // 2 ranks x 1 worker on 2 cores (this project's CI machine): 4 threads.
        assert!(shares_cores(2, 1, 2));
        // 1 rank with a worker per core: the agent is one thread too many.
        assert!(shares_cores(1, 16, 16));
        // Workers leave a core to the agent.
        assert!(!shares_cores(1, 15, 16));
        assert!(!shares_cores(1, 1, 2));
        assert!(!shares_cores(4, 3, 16));
        assert!(shares_cores(usize::MAX, usize::MAX, 16));
    }
}
