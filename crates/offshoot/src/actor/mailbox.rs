//! The mailboxes of an actor or selector: one queue per mailbox, and the choice of the
//! next message among the readable ones (priority order or round robin).
//!
//! The queue is `crossbeam_queue::SegQueue`: unbounded, lock-free, many producers (any
//! thread may send) and, formally, many consumers — which the exit protocol needs (a sender
//! that finds the actor exited sweeps its own message while the exiting drain may be
//! sweeping too; see `handshake.rs`). It is maintained with `crossbeam-utils`, already a
//! dependency, and writing a lock-free queue here would add unsafe code for no gain. Its
//! costs, measured in `tests/actors.rs` and reported in the CHANGELOG: the queue itself is
//! two cache-padded positions (256 bytes on x86-64), it allocates nothing until the first
//! push, and then keeps one block of 31 slots (31 × (message + 8) + 8 bytes) while any
//! message of that block's lap was not yet taken or the block is not yet full — an idle
//! actor that has received messages usually holds one block.
//!
//! Invariants:
//! * Only the token holder (the drain, `handshake.rs`) pops for processing; senders push,
//!   and pop only to sweep after the actor exited.
//! * Mailbox `i` is bit `i` of every mask; at most 64 mailboxes (checked at start).

use crossbeam_queue::SegQueue;

/// Most mailboxes a selector may have: one bit each in a mask word.
pub(crate) const MAX_MAILBOXES: usize = 64;

/// The mask with a bit for each of `n` mailboxes.
pub(crate) fn all(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The queues of `n` mailboxes, in one boxed slice: a queue is 128-byte aligned (its
/// cache-padded positions), and kept inline it would make the whole engine, and its `Arc`
/// allocation, 128-byte aligned and padded (640 bytes per actor instead of about 400).
pub(crate) struct Mailboxes<M> {
    queues: Box<[SegQueue<M>]>,
}

impl<M> Mailboxes<M> {
    pub(crate) fn new(n: usize) -> Mailboxes<M> {
        debug_assert!((1..=MAX_MAILBOXES).contains(&n));
        Mailboxes {
            queues: (0..n).map(|_| SegQueue::new()).collect(),
        }
    }

    #[inline]
    fn queue(&self, i: usize) -> &SegQueue<M> {
        &self.queues[i]
    }

    #[inline]
    pub(crate) fn push(&self, i: usize, msg: M) {
        self.queue(i).push(msg);
    }

    /// Takes the next message from the mailboxes in `mask`: the lowest-numbered non-empty
    /// one (`round_robin` false), or the first non-empty one at or after `*next`, wrapping,
    /// which then moves `*next` past it (`round_robin` true).
    #[inline]
    pub(crate) fn pop(&self, mask: u64, round_robin: bool, next: &mut usize) -> Option<(usize, M)> {
        if !round_robin {
            return self.pop_lowest(mask);
        }
        let start = *next;
        let below = all(start);
        let got = self
            .pop_lowest(mask & !below)
            .or_else(|| self.pop_lowest(mask & below));
        if let Some((i, _)) = &got {
            *next = (*i + 1) % MAX_MAILBOXES;
        }
        got
    }

    #[inline]
    fn pop_lowest(&self, mut mask: u64) -> Option<(usize, M)> {
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            if let Some(m) = self.queue(i).pop() {
                return Some((i, m));
            }
            mask &= mask - 1;
        }
        None
    }

    /// Whether a mailbox in `mask` holds a message.
    pub(crate) fn any(&self, mut mask: u64) -> bool {
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            if !self.queue(i).is_empty() {
                return true;
            }
            mask &= mask - 1;
        }
        false
    }

    /// Pops and drops every message of mailbox `i`; returns how many.
    pub(crate) fn sweep(&self, i: usize) -> u64 {
        let mut n = 0;
        while self.queue(i).pop().is_some() {
            n += 1;
        }
        n
    }

    /// Pops and drops every message of every mailbox; returns how many.
    pub(crate) fn sweep_all(&self) -> u64 {
        (0..self.queues.len()).map(|i| self.sweep(i)).sum()
    }
}
