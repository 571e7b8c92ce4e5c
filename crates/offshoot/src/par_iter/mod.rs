//! Parallel iterators in the style of rayon's `par_iter`, on offshoot's lazily split loops
//! (`loops.rs`): a pipeline is an index range of its source, and every consumer is a loop
//! over that range whose blocks run the pipeline as an ordinary sequential `Iterator` (so the
//! compiler optimises each block like plain iterator code). Ranges split only when a worker
//! asks; partial results combine in index order, so `collect` keeps the order and `min` /
//! `max` break ties like `std`.
//!
//! Invariants:
//! * [`ParallelIterator::block`] is called at most once for each index of `0..base_len()`
//!   over a pipeline's life (the loop hands every index to exactly one block); sources that
//!   give out `&mut T` or move `T` rely on it.
//! * Early-exit consumers (`any`, `all`) stop running user closures on every worker once the
//!   answer is known, but still walk the remaining blocks, so moved-out items are dropped.

mod adaptors;
mod consumers;
mod sources;

pub use adaptors::{Enumerate, Filter, Map, Zip};
pub use sources::{IntoIter, Iter, IterMut, RangeIter};

/// A pipeline of items produced in parallel from an indexed source.
///
/// Use it through [`IntoParallelIterator::into_par_iter`],
/// [`IntoParallelRefIterator::par_iter`] or [`IntoParallelRefMutIterator::par_iter_mut`];
/// the adaptors and consumers mirror `std::iter::Iterator`'s.
///
/// ```
/// use offshoot::prelude::*;
/// let v: Vec<u64> = (0..1000).collect();
/// let s: u64 = v.par_iter().map(|x| x * 2).filter(|x| x % 3 == 0).sum();
/// assert_eq!(s, v.iter().map(|x| x * 2).filter(|x| x % 3 == 0).sum());
/// ```
pub trait ParallelIterator: Sized + Sync + Send {
    /// The items.
    type Item;

    /// The length of the underlying indexed source (an upper bound of the items).
    fn base_len(&self) -> usize;

    /// The items of source indices `lo..hi`, in order.
    ///
    /// # Safety
    ///
    /// Over the pipeline's life each index may be asked for at most once.
    #[doc(hidden)]
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = Self::Item> + '_;

    /// Disposes of source indices `lo..hi` without running any closure (early exit): a
    /// source that owns its elements drops them.
    ///
    /// # Safety
    ///
    /// As for [`ParallelIterator::block`]: each index at most once, by either method.
    #[doc(hidden)]
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        let _ = (lo, hi);
    }

    /// Shortens the source to `len` indices (dropping owned elements past it).
    #[doc(hidden)]
    fn truncate(&mut self, len: usize);

    /// Applies `f` to every item.
    fn map<R, F>(self, f: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
    {
        Map::new(self, f)
    }

    /// Keeps the items for which `p` holds.
    fn filter<P>(self, p: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, p)
    }

    /// Calls `f` on every item, in parallel.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let n = std::sync::atomic::AtomicUsize::new(0);
    /// (0..100usize).into_par_iter().for_each(|_| {
    ///     n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    /// });
    /// assert_eq!(n.into_inner(), 100);
    /// ```
    fn for_each<F>(self, f: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        consumers::for_each(self, f)
    }

    /// The sum of the items.
    fn sum<S>(self) -> S
    where
        S: Send + std::iter::Sum<Self::Item> + std::iter::Sum<S>,
    {
        consumers::sum(self)
    }

    /// Folds the items with `op`, starting every part from `identity()`; `op` must be
    /// associative and `identity()` neutral for it.
    fn reduce<ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        Self::Item: Send,
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        consumers::reduce(self, identity, op)
    }

    /// The number of items.
    fn count(self) -> usize {
        consumers::count(self)
    }

    /// The smallest item (the first of equal ones, as `Iterator::min`).
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord + Send,
    {
        consumers::min_by(self, Ord::cmp)
    }

    /// The largest item (the last of equal ones, as `Iterator::max`).
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord + Send,
    {
        consumers::max_by(self, Ord::cmp)
    }

    /// The item with the smallest key (the first of equal ones).
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        Self::Item: Send,
        K: Ord,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        consumers::min_by(self, move |a, b| f(a).cmp(&f(b)))
    }

    /// The item with the largest key (the last of equal ones).
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        Self::Item: Send,
        K: Ord,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        consumers::max_by(self, move |a, b| f(a).cmp(&f(b)))
    }

    /// Whether `p` holds for some item; once one is found, the others stop early.
    fn any<P>(self, p: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        consumers::any(self, p)
    }

    /// Whether `p` holds for every item; once one fails, the others stop early.
    fn all<P>(self, p: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        !consumers::any(self, move |x| !p(x))
    }

    /// Collects the items, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let squares: Vec<u32> = (0..10u32).into_par_iter().map(|x| x * x).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]);
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }
}

/// A parallel iterator whose items correspond one to one, in order, to its source's
/// indices: it can be enumerated and zipped.
pub trait IndexedParallelIterator: ParallelIterator {
    /// Pairs every item with its index.
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Pairs the items of `self` and `other` by index, as long as the shorter.
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// The number of items (known without running anything).
    fn len(&self) -> usize {
        self.base_len()
    }

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.base_len() == 0
    }
}

/// Builds a collection from a parallel iterator, keeping the items' order.
pub trait FromParallelIterator<T>: Sized {
    /// Collects `iter`.
    fn from_par_iter<I: ParallelIterator<Item = T>>(iter: I) -> Self;
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: ParallelIterator<Item = T>>(iter: I) -> Vec<T> {
        consumers::collect_vec(iter)
    }
}

/// Values that turn into a parallel iterator (ranges, `Vec`, slices by reference).
pub trait IntoParallelIterator {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item;
    /// Turns `self` into a parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;
    fn into_par_iter(self) -> I {
        self
    }
}

/// `par_iter()` on collections: a parallel iterator over `&T`.
pub trait IntoParallelRefIterator<'a> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: 'a;
    /// A parallel iterator over references to the elements.
    fn par_iter(&'a self) -> Self::Iter;
}

/// `par_iter_mut()` on collections: a parallel iterator over `&mut T`.
pub trait IntoParallelRefMutIterator<'a> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: 'a;
    /// A parallel iterator over mutable references to the elements.
    fn par_iter_mut(&'a mut self) -> Self::Iter;
}
