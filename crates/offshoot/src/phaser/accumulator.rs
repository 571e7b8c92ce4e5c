//! Phaser accumulators: a reduction per phase (Imam's thesis ch. 3; HJlib's phaser
//! accumulators). Members put values during a phase; the phase's result is ready once the
//! phase has ended, for every member that waited for that end.
//!
//! A put folds into a partial kept in the putting member's own [`Registration`] (a plain
//! field: no lock, no atomic); the member hands its partials to the accumulator when it
//! signals (and when it leaves), before its signal is counted. So every put of phase `k`
//! is in the accumulator's result for `k` before phase `k` can end.
//!
//! Invariants:
//! * `results[k]` only grows by the partials of members that signal `k` (or leave while
//!   at `k`), under `results`' lock; phase `k` ends after all of them.
//! * `get(k)` answers only once phase `k` has ended (the phaser's `ended` count is past
//!   `k`): before, `results[k]` may lack the partials of members that have not signalled.
//! * Nothing unread is dropped: the result of a phase that has not ended is always kept,
//!   and so are those of the `KEEP` most recently ended phases; only results of phases
//!   that ended before those are removed. So the memory held is `KEEP` results plus one per
//!   phase that a signal-only member ([`Mode::Sig`](super::Mode::Sig)) has run ahead of the
//!   phaser's end.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::{Inner, Registration};

/// How many of the most recently ended phases' results an accumulator keeps.
const KEEP: u64 = 8;

/// A reduction per phase of a [`Phaser`](super::Phaser): members [`put`](Self::put) values
/// during a phase; after the phase's end, [`get`](Self::get) is their reduction with the
/// operator (associative and commutative: members hand in their partials in signal order).
///
/// ```
/// use offshoot::phaser::{Mode, PhaseAccumulator, Phaser};
///
/// let ph = Phaser::new();
/// let sum = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a += x);
/// let me = ph.register(Mode::SigWait);
/// offshoot::scope(|s| {
///     for t in 1..=4u64 {
///         let mut r = me.child(Mode::SigWait);
///         let sum = &sum;
///         s.spawn(move |_| {
///             for phase in 0..3u64 {
///                 sum.put(&mut r, t * (phase + 1));
///                 r.next();
///                 // Every member sees the whole phase's sum after `next`.
///                 assert_eq!(sum.get(phase), Some(10 * (phase + 1)));
///             }
///         });
///     }
///     drop(me);
/// });
/// ```
pub struct PhaseAccumulator<T, Op = fn(&mut T, T)> {
    inner: Arc<AccInner<T, Op>>,
}

impl<T, Op> Clone for PhaseAccumulator<T, Op> {
    fn clone(&self) -> Self {
        PhaseAccumulator {
            inner: self.inner.clone(),
        }
    }
}

impl<T: std::fmt::Debug, Op> std::fmt::Debug for PhaseAccumulator<T, Op> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhaseAccumulator")
            .field(
                "results",
                &*self.inner.results.lock().unwrap_or_else(|e| e.into_inner()),
            )
            .finish_non_exhaustive()
    }
}

struct AccInner<T, Op> {
    phaser: Arc<Inner>,
    identity: T,
    op: Op,
    results: Mutex<BTreeMap<u64, T>>,
}

impl<T, Op> PhaseAccumulator<T, Op>
where
    T: Clone + Send + Sync + 'static,
    Op: Fn(&mut T, T) + Send + Sync + 'static,
{
    /// An accumulator on `phaser`: each phase's result starts at `identity` and folds every
    /// put of that phase with `op`.
    pub fn new(phaser: &super::Phaser, identity: T, op: Op) -> Self {
        PhaseAccumulator {
            inner: Arc::new(AccInner {
                phaser: phaser.inner.clone(),
                identity,
                op,
                results: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// Adds `x` to the result of `member`'s current phase (the phase it signals next). A
    /// plain fold into a partial `member` keeps; no lock, no atomic.
    ///
    /// # Panics
    ///
    /// If `member` is not a member of this accumulator's phaser, or cannot signal (a
    /// [`Mode::Wait`](super::Mode::Wait) member holds no phase back, so its puts would have
    /// no phase to end in).
    pub fn put(&self, member: &mut Registration, x: T) {
        assert!(
            Arc::ptr_eq(&member.inner, &self.inner.phaser),
            "offshoot: a PhaseAccumulator takes puts only from members of its own phaser"
        );
        assert!(
            member.mode.signals(),
            "offshoot: a Mode::Wait member cannot put into a phase accumulator (its puts \
             would belong to no phase); register with Mode::SigWait"
        );
        let id = Arc::as_ptr(&self.inner) as *const () as usize;
        if let Some((_, p)) = member.partials.iter_mut().find(|(i, _)| *i == id) {
            // SAFETY: partials are keyed by the address of their accumulator's `AccInner`,
            // which this `Partial` keeps alive (so no other accumulator has it), and only
            // this type's `put` makes the partial of an `AccInner<T, Op>`: the boxed value
            // is a `Partial<T, Op>`.
            let p = unsafe { &mut *(p.as_mut() as *mut dyn PartialDyn as *mut Partial<T, Op>) };
            (self.inner.op)(&mut p.value, x);
        } else {
            member.partials.push((
                id,
                Box::new(Partial {
                    acc: self.inner.clone(),
                    value: x,
                }),
            ));
        }
    }

    /// The result of `phase`, once it has ended, while it is among the eight most recently
    /// ended phases; `None` before it has ended (its result may still lack the puts of
    /// members that have not signalled), for a phase nobody put into, and for one that
    /// ended before those eight. Results of phases that have not ended are never dropped,
    /// however far ahead a [`Mode::Sig`](super::Mode::Sig) member runs: each waits until
    /// its phase has ended and seven more after it.
    ///
    /// ```
    /// use offshoot::phaser::{Mode, PhaseAccumulator, Phaser};
    ///
    /// let ph = Phaser::new();
    /// let sum = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a += x);
    /// let mut a = ph.register(Mode::SigWait);
    /// let mut b = a.child(Mode::SigWait); // the same phase as `a`
    /// sum.put(&mut a, 5);
    /// a.signal();
    /// assert_eq!(sum.get(0), None); // b has not signalled: phase 0 has not ended
    /// sum.put(&mut b, 1);
    /// b.signal();
    /// assert_eq!(ph.ended_phases(), 1);
    /// assert_eq!(sum.get(0), Some(6));
    /// ```
    pub fn get(&self, phase: u64) -> Option<T> {
        // The phaser's lock and the results' are never held together. Every partial of a
        // phase is handed in before its member's signal counts, so once the phase is seen
        // ended its result is whole.
        let ended = self.inner.phaser.lock().ended;
        if phase >= ended || phase < ended.saturating_sub(KEEP) {
            return None;
        }
        self.inner
            .results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&phase)
            .cloned()
    }
}

/// A member's partial for one accumulator, handed in when it signals or leaves.
pub(super) trait PartialDyn: Send + Sync {
    /// Folds the partial into the accumulator's result for `phase`.
    fn hand_in(self: Box<Self>, phase: u64);
}

struct Partial<T, Op> {
    acc: Arc<AccInner<T, Op>>,
    value: T,
}

impl<T, Op> PartialDyn for Partial<T, Op>
where
    T: Clone + Send + Sync + 'static,
    Op: Fn(&mut T, T) + Send + Sync + 'static,
{
    fn hand_in(self: Box<Self>, phase: u64) {
        let Partial { acc, value } = *self;
        // Read before the results' lock (the two are never held together); `ended` only
        // grows, so an older count removes less, never a phase that has not ended.
        let ended = acc.phaser.lock().ended;
        let mut r = acc.results.lock().unwrap_or_else(|e| e.into_inner());
        let slot = r.entry(phase).or_insert_with(|| acc.identity.clone());
        (acc.op)(slot, value);
        // Drop only the results of phases that ended before the `KEEP` latest ended ones.
        let keep = ended.saturating_sub(KEEP);
        if r.first_key_value().is_some_and(|(&k, _)| k < keep) {
            *r = r.split_off(&keep);
        }
    }
}

/// The partials a member holds, by accumulator.
pub(super) type Partials = Vec<(usize, Box<dyn PartialDyn>)>;

impl Registration {
    /// Hands every partial in to its accumulator, as the result of phase `self.sig`.
    pub(super) fn hand_in_partials(&mut self) {
        for (_, p) in self.partials.drain(..) {
            p.hand_in(self.sig);
        }
    }
}
