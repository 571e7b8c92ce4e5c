//! [`ParallelBridge::par_bridge`]: a sequential iterator as a source of a parallel pipeline,
//! the counterpart of rayon's `par_bridge`.
//!
//! The iterator sits behind a lock, shared by every piece of the loop that runs the
//! pipeline. Its index range is a stand-in ([`SPAN`] indices): a block of `lo..hi` pulls up
//! to `hi - lo` items, whichever come next, so the loop's usual machinery applies — the
//! owner walks its range in blocks that double while they are fast, an idle worker that
//! asks takes the upper half of what remains, and each piece pulls for itself. A block pulls
//! its items in batches of at most [`BATCH`] under one lock, and a piece's batch waits in
//! its state (a small stock of its own) until its block has yielded it. Once the iterator
//! has returned `None`, a flag tells every piece ([`ParallelIterator::exhausted`]), and each
//! ends at its next block.
//!
//! Order: the items reach the pipeline in no particular order: `collect` gives them in an
//! order fixed by the splits, not by the iterator, and `reduce` needs an associative and
//! commutative operation (as with rayon's `par_bridge`).
//!
//! Invariants:
//! * The iterator's `next` is called only under the lock, and never again once it returned
//!   `None` (the source is fused) or panicked (the lock is poisoned: every piece then sees
//!   the source as ended, and the panic surfaces from the piece that pulled).
//! * Every item pulled is yielded once or dropped once (with the state of its piece).
//! * A block yields at most `hi - lo` items, so the pipeline never yields more items than
//!   indices; a source with more than [`SPAN`] items panics rather than lose the rest.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::ParallelIterator;

/// The stand-in length of a bridge: more items than any iterator yields in practice
/// (2^60 on 64-bit targets), with room left for `chain`s of bridges.
const SPAN: usize = usize::MAX >> 4;
/// The most items a block pulls under one lock.
const BATCH: usize = 1024;

/// Turns a sequential iterator into a [`ParallelIterator`] (rayon's `par_bridge`).
///
/// Workers pull items from the iterator, under a lock, as they need them; no task is made
/// per item, and the iterator need not be `Sync`. The items arrive in no particular order.
///
/// Use it for iterators that cannot be split (lines of a reader, a channel, a linked
/// structure). For ranges, slices and `Vec`, `par_iter()` splits better and keeps order.
///
/// ```
/// use offshoot::prelude::*;
/// let words = "the quick brown fox jumps over the lazy dog";
/// let letters: usize = words.split(' ').par_bridge().map(str::len).sum();
/// assert_eq!(letters, 35);
/// let long = words.split(' ').par_bridge().filter(|w| w.len() > 4).count();
/// assert_eq!(long, 3);
/// ```
pub trait ParallelBridge: Sized {
    /// Turns `self` into a parallel iterator; see [`ParallelBridge`].
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let n = (0..1000u32).filter(|x| x % 7 == 0).par_bridge().count();
    /// assert_eq!(n, 143);
    /// ```
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<I: Iterator + Send> ParallelBridge for I
where
    I::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge {
            source: Mutex::new(Source {
                iter: self,
                pulled: 0,
            }),
            ended: AtomicBool::new(false),
        }
    }
}

/// A sequential iterator as a parallel one; made by [`ParallelBridge::par_bridge`].
///
/// Its items arrive in no particular order, on any worker: `collect` gathers them in an
/// order fixed by how the work was split, and `reduce` needs an associative **and
/// commutative** operation. To keep the iterator's order, number the items first
/// (`.enumerate().par_bridge()`) and sort by number, or collect them into a `Vec` and use
/// `into_par_iter()`.
///
/// ```
/// use offshoot::prelude::*;
/// let mut odd: Vec<u32> = (0..10u32).par_bridge().filter(|x| x % 2 == 1).collect();
/// odd.sort();
/// assert_eq!(odd, [1, 3, 5, 7, 9]);
/// ```
#[derive(Debug)]
#[must_use = "a bridge does nothing until it is consumed (for_each, sum, collect, ...)"]
pub struct IterBridge<I> {
    source: Mutex<Source<I>>,
    /// Set once the iterator returned `None` or panicked. Release/Acquire: set after the
    /// last `next`, so a piece that sees it knows no item is left to pull.
    ended: AtomicBool,
}

#[derive(Debug)]
struct Source<I> {
    iter: I,
    /// Items pulled so far (at most [`SPAN`]).
    pulled: usize,
}

impl<I: Iterator> IterBridge<I> {
    /// Pulls up to `k` items into `buf` (empty on entry); returns whether it got any.
    fn refill(&self, buf: &mut VecDeque<I::Item>, k: usize) -> bool {
        if self.ended.load(Ordering::Acquire) {
            return false;
        }
        let Ok(mut src) = self.source.lock() else {
            // The iterator panicked under the lock; that piece reports the panic.
            self.ended.store(true, Ordering::Release);
            return false;
        };
        if self.ended.load(Ordering::Relaxed) {
            // Ended while this piece waited for the lock (the store was made under it).
            return false;
        }
        let k = k.min(SPAN - src.pulled);
        for _ in 0..k {
            match src.iter.next() {
                Some(x) => buf.push_back(x),
                None => {
                    self.ended.store(true, Ordering::Release);
                    break;
                }
            }
        }
        src.pulled += buf.len();
        if src.pulled == SPAN && !self.ended.load(Ordering::Relaxed) {
            // Every index is spoken for: an item beyond them would be lost.
            assert!(
                src.iter.next().is_none(),
                "offshoot: par_bridge takes at most {SPAN} items"
            );
            self.ended.store(true, Ordering::Release);
        }
        !buf.is_empty()
    }
}

/// The items of one block: the piece's pulled items first, then fresh batches.
struct Block<'s, I: Iterator> {
    bridge: &'s IterBridge<I>,
    buf: &'s mut VecDeque<I::Item>,
    /// Items this block may still yield.
    left: usize,
}

impl<I: Iterator> Iterator for Block<'_, I> {
    type Item = I::Item;
    #[inline]
    fn next(&mut self) -> Option<I::Item> {
        if self.left == 0 {
            return None;
        }
        if self.buf.is_empty() && !self.bridge.refill(self.buf, self.left.min(BATCH)) {
            self.left = 0;
            return None;
        }
        self.left -= 1;
        self.buf.pop_front()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.buf.len().min(self.left), Some(self.left))
    }
}

impl<I> ParallelIterator for IterBridge<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;
    /// Items this piece pulled and has not yielded yet.
    type State = VecDeque<I::Item>;

    fn base_len(&self) -> usize {
        SPAN
    }

    fn state(&self) -> VecDeque<I::Item> {
        VecDeque::new()
    }

    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut VecDeque<I::Item>,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = I::Item> {
        Block {
            bridge: self,
            buf: st,
            left: hi - lo,
        }
    }

    fn exhausted(&self) -> bool {
        // Acquire: pairs with the store after the last `next` (see the field).
        self.ended.load(Ordering::Acquire)
    }

    fn into_seq(self) -> impl Iterator<Item = I::Item> {
        let src = self.source.into_inner().unwrap_or_else(|e| e.into_inner());
        let ended = self.ended.into_inner();
        // A fresh bridge hands its iterator over; one that ended yields nothing more.
        (!ended).then_some(src.iter).into_iter().flatten()
    }
}
