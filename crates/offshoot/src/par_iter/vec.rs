//! Owning sources: `Vec<T>` by value ([`IntoIter`]), and through it arrays, `Option`,
//! and the standard collections (whose elements, or references to them, are gathered into
//! a `Vec` first, as their iteration order is sequential).
//!
//! Invariants: every element is moved out or dropped exactly once — by a block (its
//! iterator drops what it did not yield), by `drop_block`, by `truncate`/`advance`, or by
//! `Drop` when no consumer ever started. Elements are owned in `start..end` of the buffer.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{block_via_iblock, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator that moves the elements out of a `Vec`.
///
/// Every element is moved out or dropped exactly once, also by early-exit consumers, when
/// the iterator is dropped unused, and when a closure panics (the elements that no block
/// reached are dropped with the stopped pieces).
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct IntoIter<T> {
    /// The buffer, with length 0: the elements `start..end` are owned by the iterator.
    buf: ManuallyDrop<Vec<T>>,
    start: usize,
    end: usize,
    /// Set once a consumer started: from then on the consumer disposes of every element.
    started: AtomicBool,
}

// SAFETY: the elements move to whichever thread runs their block; `T: Send` allows it.
unsafe impl<T: Send> Send for IntoIter<T> {}
// SAFETY: shared access only moves disjoint elements out, each once (module invariant).
unsafe impl<T: Send> Sync for IntoIter<T> {}

/// A copy of the elements the iterator still owns, as a new iterator. Only an iterator no
/// consumer has started can be reached to clone (a consumer owns it while it runs).
impl<T: Clone + Send> Clone for IntoIter<T> {
    fn clone(&self) -> Self {
        assert!(
            !self.started.load(Ordering::Relaxed),
            "offshoot: vec::IntoIter cloned while consumed"
        );
        // SAFETY: not started, so the elements `start..end` are initialised and owned by
        // this iterator, and nothing moves them out while `&self` is held here.
        let owned = unsafe {
            std::slice::from_raw_parts(self.base().add(self.start), self.end - self.start)
        };
        owned.to_vec().into_par_iter()
    }
}

impl<T> IntoIter<T> {
    fn base(&self) -> *mut T {
        self.buf.as_ptr().cast_mut()
    }

    /// Drops the owned elements `a..b` (absolute buffer positions).
    ///
    /// # Safety
    /// They are initialised and owned, and not touched again.
    unsafe fn drop_range(&self, a: usize, b: usize) {
        // SAFETY: per the contract.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.base().add(a),
                b - a,
            ))
        };
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;
    type State = ();
    #[inline]
    fn base_len(&self) -> usize {
        self.end - self.start
    }
    #[inline]
    fn state(&self) {}
    block_via_iblock!();
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        assert!(lo <= hi && hi <= self.base_len());
        // Relaxed: the flag is read only by `Drop`, after the consumer's join.
        self.started.store(true, Ordering::Relaxed);
        // SAFETY: in range and disposed of once (contract).
        unsafe { self.drop_range(self.start + lo, self.start + hi) }
    }
    fn into_seq(mut self) -> impl Iterator<Item = T> {
        let (a, b) = (self.start, self.end);
        // The elements now belong to the vector.
        *self.started.get_mut() = true;
        // SAFETY: `a..b` are initialised and owned; nothing else will drop them.
        let v = unsafe {
            let mut v = ManuallyDrop::take(&mut self.buf);
            std::ptr::copy(v.as_ptr().add(a), v.as_mut_ptr(), b - a);
            v.set_len(b - a);
            v
        };
        // `self.buf` was taken: `Drop` must not free it again.
        std::mem::forget(self);
        v.into_iter()
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = T> + ExactSizeIterator {
        assert!(lo <= hi && hi <= self.base_len());
        self.started.store(true, Ordering::Relaxed);
        Owned {
            p: self.base(),
            lo: self.start + lo,
            hi: self.start + hi,
            marker: PhantomData,
        }
    }
    fn truncate(&mut self, len: usize) {
        if len < self.base_len() {
            // SAFETY: `&mut self`: no consumer runs; the tail is initialised and owned.
            unsafe { self.drop_range(self.start + len, self.end) };
            self.end = self.start + len;
        }
    }
    fn advance(&mut self, n: usize) {
        let n = n.min(self.base_len());
        // SAFETY: as in `truncate`, for the head.
        unsafe { self.drop_range(self.start, self.start + n) };
        self.start += n;
    }
}

impl<T> Drop for IntoIter<T> {
    fn drop(&mut self) {
        if !*self.started.get_mut() {
            // Never consumed: the elements are still ours.
            // SAFETY: no block ever ran, so `start..end` are initialised and owned.
            unsafe { self.drop_range(self.start, self.end) };
        }
        // The buffer only (its length is 0).
        // SAFETY: `buf` is not used after this.
        drop(unsafe { ManuallyDrop::take(&mut self.buf) });
    }
}

/// The elements `lo..hi` of a block, moved out one by one; those not yielded are dropped
/// with the iterator (early exit, or a panic in the consumer).
struct Owned<'s, T> {
    p: *mut T,
    lo: usize,
    hi: usize,
    marker: PhantomData<&'s T>,
}

impl<T> Iterator for Owned<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.lo < self.hi {
            // SAFETY: `lo` is initialised and owned by this block; it is read once.
            let x = unsafe { self.p.add(self.lo).read() };
            self.lo += 1;
            Some(x)
        } else {
            None
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.hi - self.lo, Some(self.hi - self.lo))
    }
}

impl<T> DoubleEndedIterator for Owned<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        if self.lo < self.hi {
            self.hi -= 1;
            // SAFETY: as in `next`.
            Some(unsafe { self.p.add(self.hi).read() })
        } else {
            None
        }
    }
}

impl<T> ExactSizeIterator for Owned<'_, T> {}

impl<T> Drop for Owned<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the elements not yielded are initialised and owned by this block.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.p.add(self.lo),
                self.hi - self.lo,
            ))
        };
    }
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(mut self) -> IntoIter<T> {
        let len = self.len();
        // SAFETY: the iterator now owns the `len` elements; the Vec keeps only the buffer.
        unsafe { self.set_len(0) };
        IntoIter {
            buf: ManuallyDrop::new(self),
            start: 0,
            end: len,
            started: AtomicBool::new(false),
        }
    }
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        Vec::from(self).into_par_iter()
    }
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        Vec::from_iter(self).into_par_iter()
    }
}

impl<T: Send, E> IntoParallelIterator for Result<T, E> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        self.ok().into_par_iter()
    }
}

/// Collections iterated by gathering their elements (or references) into a `Vec`.
macro_rules! gathered {
    ($([$($g:tt)*] $ty:ty => $item:ty, $how:ident;)*) => {$(
        impl<$($g)*> IntoParallelIterator for $ty {
            type Iter = IntoIter<$item>;
            type Item = $item;
            fn into_par_iter(self) -> IntoIter<$item> {
                self.$how().collect::<Vec<_>>().into_par_iter()
            }
        }
    )*};
}

gathered! {
    ['a, K: Sync, V: Sync, S] &'a HashMap<K, V, S> => (&'a K, &'a V), iter;
    ['a, K: Sync, V: Send, S] &'a mut HashMap<K, V, S> => (&'a K, &'a mut V), iter_mut;
    [K: Send, V: Send, S] HashMap<K, V, S> => (K, V), into_iter;
    ['a, T: Sync, S] &'a HashSet<T, S> => &'a T, iter;
    [T: Send, S] HashSet<T, S> => T, into_iter;
    ['a, K: Sync, V: Sync] &'a BTreeMap<K, V> => (&'a K, &'a V), iter;
    ['a, K: Sync, V: Send] &'a mut BTreeMap<K, V> => (&'a K, &'a mut V), iter_mut;
    [K: Send, V: Send] BTreeMap<K, V> => (K, V), into_iter;
    ['a, T: Sync] &'a BTreeSet<T> => &'a T, iter;
    [T: Send] BTreeSet<T> => T, into_iter;
    ['a, T: Sync] &'a VecDeque<T> => &'a T, iter;
    ['a, T: Send] &'a mut VecDeque<T> => &'a mut T, iter_mut;
    [T: Send] VecDeque<T> => T, into_iter;
    ['a, T: Sync] &'a LinkedList<T> => &'a T, iter;
    ['a, T: Send] &'a mut LinkedList<T> => &'a mut T, iter_mut;
    [T: Send] LinkedList<T> => T, into_iter;
    ['a, T: Sync] &'a BinaryHeap<T> => &'a T, iter;
    [T: Send] BinaryHeap<T> => T, into_iter;
}

/// `par_drain` on `Vec` (rayon's `ParallelDrainRange`): removes a range of elements and
/// yields them, in order, as an owning parallel iterator.
///
/// The range is moved out of the vector when `par_drain` is called (the elements after it
/// move down, as `Vec::drain` moves them), so the vector is shortened even if the iterator
/// is dropped unused; the drained elements are then owned by the iterator, which moves or
/// drops each exactly once.
///
/// ```
/// use offshoot::prelude::*;
/// let mut v: Vec<i32> = (0..10).collect();
/// let evens: Vec<i32> = v.par_drain(2..6).filter(|x| x % 2 == 0).collect();
/// assert_eq!(evens, [2, 4]);
/// assert_eq!(v, [0, 1, 6, 7, 8, 9]);
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Removes `range` and returns its elements as a parallel iterator.
    ///
    /// # Panics
    ///
    /// If the range is out of bounds or decreasing (as `Vec::drain`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = vec![1, 2, 3, 4];
    /// let drained: Vec<i32> = v.par_drain(1..3).collect();
    /// assert_eq!((drained, v), (vec![2, 3], vec![1, 4]));
    /// ```
    fn par_drain<R: std::ops::RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<T: Send> ParallelDrainRange<usize> for &mut Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn par_drain<R: std::ops::RangeBounds<usize>>(self, range: R) -> IntoIter<T> {
        // `Vec::drain` checks the range and moves the tail down; the drained elements are
        // moved once more, into a buffer the iterator owns.
        let drained: Vec<T> = self.drain(range).collect();
        drained.into_par_iter()
    }
}

impl<T: Send> ParallelDrainRange<usize> for &mut VecDeque<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    /// ```
    /// use offshoot::prelude::*;
    /// use std::collections::VecDeque;
    /// let mut d: VecDeque<i32> = (0..6).collect();
    /// let sum: i32 = d.par_drain(1..4).sum();
    /// assert_eq!(sum, 1 + 2 + 3);
    /// assert_eq!(d, [0, 4, 5]);
    /// ```
    fn par_drain<R: std::ops::RangeBounds<usize>>(self, range: R) -> IntoIter<T> {
        // As for `Vec`: `VecDeque::drain` checks the range; the elements move into a
        // buffer the iterator owns.
        let drained: Vec<T> = self.drain(range).collect();
        drained.into_par_iter()
    }
}

impl ParallelDrainRange<usize> for &mut String {
    type Iter = IntoIter<char>;
    type Item = char;
    /// Removes the byte range `range` and yields its `char`s, in order.
    ///
    /// # Panics
    ///
    /// As `String::drain`: if the range is out of bounds, decreasing, or does not start
    /// and end on `char` boundaries.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut s = String::from("héllo wörld");
    /// let upper: String = s.par_drain(..6).map(|c| c.to_ascii_uppercase()).collect();
    /// assert_eq!(upper, "HéLLO");
    /// assert_eq!(s, " wörld");
    /// ```
    fn par_drain<R: std::ops::RangeBounds<usize>>(self, range: R) -> IntoIter<char> {
        let drained: Vec<char> = self.drain(range).collect();
        drained.into_par_iter()
    }
}

/// `par_drain` of a whole collection (rayon's `ParallelDrainFull`): removes every element
/// and yields them as an owning parallel iterator, in the collection's own iteration order
/// (unspecified for hash sets and maps and for a binary heap, as their `drain`'s).
///
/// The elements are moved out when `par_drain` is called, so the collection is empty
/// afterwards (keeping its capacity) even if the iterator is dropped unused; the iterator
/// then moves or drops each element exactly once.
///
/// ```
/// use offshoot::prelude::*;
/// use std::collections::HashMap;
/// let mut m: HashMap<&str, i32> = [("a", 1), ("b", 2), ("c", 3)].into_iter().collect();
/// let total: i32 = m.par_drain().map(|(_, v)| v).sum();
/// assert_eq!(total, 6);
/// assert!(m.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;
    /// Removes every element and returns them as a parallel iterator.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut set: std::collections::HashSet<u8> = (0..10).collect();
    /// assert_eq!(set.par_drain().count(), 10);
    /// assert!(set.is_empty());
    /// ```
    fn par_drain(self) -> Self::Iter;
}

macro_rules! drain_full {
    ($([$($g:tt)*] $c:ty => $item:ty;)*) => {$(
        impl<$($g)*> ParallelDrainFull for &mut $c {
            type Iter = IntoIter<$item>;
            type Item = $item;
            fn par_drain(self) -> IntoIter<$item> {
                let drained: Vec<$item> = self.drain().collect();
                drained.into_par_iter()
            }
        }
    )*};
}

drain_full! {
    [K: Send, V: Send, S] HashMap<K, V, S> => (K, V);
    [T: Send, S] HashSet<T, S> => T;
    [T: Send] BinaryHeap<T> => T;
}
