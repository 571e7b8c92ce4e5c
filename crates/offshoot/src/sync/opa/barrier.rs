//! [`Barrier`]: a cyclic barrier, OPA's barrier class on [`Object`].
//!
//! Invariants:
//! * `arrive` (a write) counts the caller into round `round`; the `n`-th arrival of a round
//!   ends it: it resets the count, starts the next round, restores the round's `pass` and
//!   suspends the other `pass`, in one commit. Every other caller then calls the `pass` of
//!   its round (a read that does nothing), which is suspended until its round ends.
//! * Rounds alternate between two `pass` operations, so a party that arrives for the next
//!   round never passes through the round still being released: when round `r + 1` ends
//!   and suspends round `r`'s `pass` again, all `n` parties have arrived for `r + 1`, so all
//!   have passed round `r`.
//! * A party whose wait a stop or a deadlock ends has arrived all the same: its round can
//!   end without it.

use crate::sync::{Object, ObjectBuilder, Op};

/// The count of a round.
#[derive(Clone, Copy)]
struct Round {
    arrived: usize,
    round: u64,
}

/// A cyclic barrier for `n` parties: each [`wait`](Barrier::wait) parks until all `n` have
/// arrived, then all go on, and the barrier serves the next round.
///
/// Written on [`Object`] as OPA writes it, with a `pass` operation per round parity,
/// suspended until the round's last party arrives.
///
/// ```
/// use offshoot::sync::opa::Barrier;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let b = Barrier::new(3);
/// let arrived = AtomicUsize::new(0);
/// let leaders = AtomicUsize::new(0);
/// offshoot::scope(|s| {
///     for _ in 0..3 {
///         s.spawn(|_| {
///             arrived.fetch_add(1, Ordering::SeqCst);
///             if b.wait() {
///                 leaders.fetch_add(1, Ordering::SeqCst);
///             }
///             assert_eq!(arrived.load(Ordering::SeqCst), 3);
///         });
///     }
/// });
/// assert_eq!(leaders.into_inner(), 1);
/// ```
pub struct Barrier {
    object: Object<Round>,
    arrive: Op<(), (u64, bool)>,
    pass: [Op<(), ()>; 2],
    parties: usize,
}

impl Barrier {
    /// A barrier for `parties` parties.
    ///
    /// # Panics
    /// If `parties` is 0.
    ///
    /// ```
    /// let b = offshoot::sync::opa::Barrier::new(1);
    /// assert!(b.wait()); // one party: it is always the last to arrive
    /// ```
    pub fn new(parties: usize) -> Barrier {
        Barrier::build(parties, None)
    }

    /// A barrier that deadlock reports name `name`.
    ///
    /// ```
    /// let b = offshoot::sync::opa::Barrier::named("step", 1);
    /// assert!(b.wait());
    /// ```
    pub fn named(name: &'static str, parties: usize) -> Barrier {
        Barrier::build(parties, Some(name))
    }

    fn build(parties: usize, name: Option<&'static str>) -> Barrier {
        assert!(parties > 0, "offshoot::sync::opa::Barrier: 0 parties");
        let mut b: ObjectBuilder<Round> = Object::builder(Round {
            arrived: 0,
            round: 0,
        });
        if let Some(n) = name {
            b = b.named(n);
        }
        let arrive = b.op("arrive");
        let pass = [b.op("pass (even rounds)"), b.op("pass (odd rounds)")];
        b.write(arrive, move |r, ()| {
            let round = r.round;
            r.arrived += 1;
            if r.arrived < parties {
                return (round, false);
            }
            r.arrived = 0;
            r.round += 1;
            r.restore(pass[(round % 2) as usize]);
            r.suspend(pass[((round + 1) % 2) as usize]);
            (round, true)
        });
        for p in pass {
            b.read(p, |_, ()| ());
            b.suspended(p);
        }
        Barrier {
            object: b.build(),
            arrive,
            pass,
            parties,
        }
    }

    /// Arrives and parks until all parties of this round have arrived. Returns whether the
    /// caller was the last to arrive (one party per round).
    ///
    /// ```
    /// let b = offshoot::sync::opa::Barrier::new(2);
    /// let other = offshoot::sync::Promise::new();
    /// let (x, y) = offshoot::scope(|s| {
    ///     s.spawn(|_| other.put(b.wait()).unwrap());
    ///     let mine = b.wait();
    ///     (mine, *other.get())
    /// });
    /// assert!(x ^ y);
    /// ```
    #[track_caller]
    pub fn wait(&self) -> bool {
        let (round, last) = self.object.call(self.arrive, ());
        if !last {
            self.object.call(self.pass[(round % 2) as usize], ());
        }
        last
    }

    /// The number of parties.
    ///
    /// ```
    /// assert_eq!(offshoot::sync::opa::Barrier::new(4).parties(), 4);
    /// ```
    pub fn parties(&self) -> usize {
        self.parties
    }
}

impl std::fmt::Debug for Barrier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Barrier")
            .field("parties", &self.parties)
            .finish_non_exhaustive()
    }
}
