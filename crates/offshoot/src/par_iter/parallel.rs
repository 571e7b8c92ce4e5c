//! [`ParallelIterator`]: the pipeline trait every parallel iterator implements — the
//! protocol's required methods and rayon's adaptors and consumers as provided ones.

use super::*;

/// A pipeline of items produced in parallel.
///
/// Use it through [`IntoParallelIterator::into_par_iter`],
/// [`IntoParallelRefIterator::par_iter`] or [`IntoParallelRefMutIterator::par_iter_mut`];
/// the adaptors and consumers have rayon's names and semantics.
///
/// ```
/// use offshoot::prelude::*;
/// let v: Vec<u64> = (0..1000).collect();
/// let s: u64 = v.par_iter().map(|x| x * 2).filter(|x| x % 3 == 0).sum();
/// assert_eq!(s, v.iter().map(|x| x * 2).filter(|x| x % 3 == 0).sum());
/// ```
pub trait ParallelIterator: Sized + Sync + Send {
    /// The items.
    type Item: Send;

    /// Per-piece state (see the module docs); `()` for most pipelines.
    #[doc(hidden)]
    type State;

    /// The length of the underlying index range (for indexed iterators, the number of
    /// items).
    #[doc(hidden)]
    fn base_len(&self) -> usize;

    /// A fresh per-piece state.
    #[doc(hidden)]
    fn state(&self) -> Self::State;

    /// The items of indices `lo..hi`, in order.
    ///
    /// # Safety
    ///
    /// Over the pipeline's life each index may be handed out at most once (to `block`,
    /// `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[doc(hidden)]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = Self::Item>;

    /// What a piece's state still holds when the piece ends (a `fold`'s accumulator).
    #[doc(hidden)]
    fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = Self::Item> {
        let _ = st;
        std::iter::empty()
    }

    /// Disposes of indices `lo..hi` without running any closure (early exit): a source that
    /// owns its elements drops them.
    ///
    /// # Safety
    ///
    /// As for [`ParallelIterator::block`].
    #[doc(hidden)]
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        let _ = (lo, hi);
    }

    /// Whether the pipeline will yield no more items, whatever indices remain: its source
    /// ran dry (`par_bridge`) or an adaptor has all it takes (`take_any`, `while_some`,
    /// `take_any_while`). Checked once per block; once true, the loop disposes of each
    /// piece's rest with one `drop_block`, so an endless source ends.
    #[doc(hidden)]
    #[inline]
    fn exhausted(&self) -> bool {
        false
    }

    /// The shortest and longest piece the pipeline asks for, in its own indices
    /// (`with_min_len`, `with_max_len`; `len.rs`): an adaptor reports its base's.
    #[doc(hidden)]
    #[inline]
    fn lengths(&self) -> Lengths {
        Lengths::ANY
    }

    /// Runs the whole pipeline sequentially, on this thread (the inner iterators of
    /// `flat_map` and `flatten`), lazily: a few indices at a time ([`seq`](super::seq)),
    /// so an inner pipeline is never held whole and stops where its consumer stops.
    #[doc(hidden)]
    fn into_seq(self) -> impl Iterator<Item = Self::Item> {
        super::seq::Seq::new(self)
    }

    // ---- adaptors ----

    /// Applies `f` to every item.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let doubled: Vec<_> = (0..5).into_par_iter().map(|x| x * 2).collect();
    /// assert_eq!(doubled, [0, 2, 4, 6, 8]);
    /// ```
    fn map<R, F>(self, f: F) -> Map<Self, F>
    where
        R: Send,
        F: Fn(Self::Item) -> R + Sync + Send,
    {
        Map::new(self, f)
    }

    /// Applies `f` to every item with a per-piece value made by `init` (called once per
    /// split piece, not per item).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<u64> = (0..100u64).into_par_iter().map_init(|| 10, |ten, x| x * *ten).collect();
    /// assert_eq!(v[7], 70);
    /// ```
    fn map_init<T, INIT, R, F>(self, init: INIT, f: F) -> MapInit<Self, INIT, F>
    where
        INIT: Fn() -> T + Sync + Send,
        R: Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
    {
        MapInit::new(self, init, f)
    }

    /// Applies `f` to every item with a per-piece clone of `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..4).into_par_iter().map_with(5, |k, x| x + *k).collect();
    /// assert_eq!(v, [5, 6, 7, 8]);
    /// ```
    fn map_with<T, R, F>(self, init: T, f: F) -> MapWith<Self, T, F>
    where
        T: Send + Clone,
        R: Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
    {
        MapInit::with(self, init, f)
    }

    /// Clones every (borrowed) item.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![1, 2, 3];
    /// let w: Vec<i32> = v.par_iter().cloned().collect();
    /// assert_eq!(v, w);
    /// ```
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        T: 'a + Clone + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Cloned::new(Map::new(self, map::ClonedOp))
    }

    /// Copies every (borrowed) item.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![1, 2, 3];
    /// assert_eq!(v.par_iter().copied().sum::<i32>(), 6);
    /// ```
    fn copied<'a, T>(self) -> Copied<Self>
    where
        T: 'a + Copy + Send + Sync,
        Self: ParallelIterator<Item = &'a T>,
    {
        Copied::new(Map::new(self, map::CopiedOp))
    }

    /// Calls `f` on a reference to every item as it passes.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let s: i32 = (1..=4).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
    /// assert_eq!((s, seen.into_inner()), (10, 4));
    /// ```
    fn inspect<F>(self, f: F) -> Inspect<Self, F>
    where
        F: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(Map::new(self, map::InspectOp(f)))
    }

    /// Mutates every item in place as it passes.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..3).into_par_iter().update(|x| *x *= 10).collect();
    /// assert_eq!(v, [0, 10, 20]);
    /// ```
    fn update<F>(self, f: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(Map::new(self, map::UpdateOp(f)))
    }

    /// Keeps the items for which `p` holds.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let even: Vec<_> = (0..10).into_par_iter().filter(|x| x % 2 == 0).collect();
    /// assert_eq!(even, [0, 2, 4, 6, 8]);
    /// ```
    fn filter<P>(self, p: P) -> Filter<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, p)
    }

    /// Maps and keeps the `Some` results.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = ["1", "x", "3"];
    /// let n: Vec<i32> = v.par_iter().filter_map(|s| s.parse().ok()).collect();
    /// assert_eq!(n, [1, 3]);
    /// ```
    fn filter_map<R, F>(self, f: F) -> FilterMap<Self, F>
    where
        R: Send,
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
    {
        FilterMap::new(self, f)
    }

    /// Maps every item to a parallel iterator and yields their items, in order (each inner
    /// iterator runs on the worker that produced it).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map<PI, F>(self, f: F) -> FlatMap<Self, F>
    where
        PI: IntoParallelIterator,
        F: Fn(Self::Item) -> PI + Sync + Send,
    {
        FlatMap::new(self, f)
    }

    /// Maps every item to a sequential iterator and yields their items, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| (0..n).rev()).collect();
    /// assert_eq!(v, [0, 1, 0, 2, 1, 0]);
    /// ```
    fn flat_map_iter<SI, F>(self, f: F) -> FlatMapIter<Self, F>
    where
        SI: IntoIterator,
        SI::Item: Send,
        F: Fn(Self::Item) -> SI + Sync + Send,
    {
        FlatMapIter::new(self, f)
    }

    /// Yields the items of every item (itself a parallel iterator), in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = v.into_par_iter().flatten().collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Yields the items of every item (a sequential `IntoIterator`), in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![vec![1, 2], vec![3]];
    /// let flat: Vec<i32> = v.into_par_iter().flatten_iter().collect();
    /// assert_eq!(flat, [1, 2, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// The items of `self`, then those of `other`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..2).into_par_iter().chain(5..7).collect();
    /// assert_eq!(v, [0, 1, 5, 6]);
    /// ```
    fn chain<C>(self, other: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, other.into_par_iter())
    }

    /// Folds the items of every split piece into one accumulator, starting from
    /// `identity()`; yields one accumulator per piece that ran, in order (reduce them with
    /// `reduce` or `sum`). An empty input yields no accumulator (rayon yields one
    /// `identity()`), which `reduce`, `sum` and `collect` of the accumulators do not notice.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s: u64 = (1..=100u64).into_par_iter().fold(|| 0u64, |a, x| a + x).sum();
    /// assert_eq!(s, 5050);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// As [`fold`](ParallelIterator::fold), starting every piece from a clone of `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let words: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
    /// let s: String = words.par_iter().fold_with(String::new(), |mut a, w| { a.push_str(w); a }).collect();
    /// assert_eq!(s, "abc");
    /// ```
    fn fold_with<T, F>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        Fold::with(self, init, fold_op)
    }

    /// As [`fold`](ParallelIterator::fold), but `fold_op` may fail (`Option`/`Result`):
    /// a piece stops at its first failure and yields it.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let r: Result<u32, &str> = (1..10u32).into_par_iter()
    ///     .try_fold(|| 0u32, |a, x| a.checked_add(x).ok_or("overflow"))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b).ok_or("overflow"));
    /// assert_eq!(r, Ok(45));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, R, ID, F>
    where
        T: Send,
        R: Try<Output = T> + Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> R + Sync + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// As [`try_fold`](ParallelIterator::try_fold), starting from clones of `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let r: Option<u8> = (1..5u8).into_par_iter().try_fold_with(0u8, |a, x| a.checked_add(x)).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(r, Some(10));
    /// ```
    fn try_fold_with<T, R, F>(self, init: T, fold_op: F) -> TryFoldWith<Self, R, F>
    where
        T: Send + Clone,
        R: Try<Output = T> + Send,
        F: Fn(T, Self::Item) -> R + Sync + Send,
    {
        TryFold::with(self, init, fold_op)
    }

    /// Yields the `Some` items until a `None` is seen (workers stop soon after; items
    /// after the `None` may or may not be yielded, as in rayon).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = [Some(1), Some(2), None, Some(4)].into_par_iter().while_some().collect();
    /// assert!(v.starts_with(&[1, 2]) && !v.contains(&3));
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
    }

    /// Yields at most `n` items, any of them (not necessarily the first).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..100).into_par_iter().take_any(7).count(), 7);
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n, true)
    }

    /// Skips `n` items, any of them, and yields the rest.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..100).into_par_iter().skip_any(7).count(), 93);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(TakeAny::new(self, n, false))
    }

    /// Yields items while `p` holds for them; once it fails for some item, no more items
    /// are yielded (which items came before that, in parallel, is not fixed: as rayon).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..100).into_par_iter().take_any_while(|x| *x < 50).collect();
    /// assert!(v.iter().all(|x| *x < 50));
    /// ```
    fn take_any_while<P>(self, p: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(AnyWhile::new(self, p, true))
    }

    /// Skips items while `p` holds for them; once it fails for some item, every item seen
    /// after that is yielded (as rayon: which ones is not fixed).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..100).into_par_iter().skip_any_while(|x| *x < 50).collect();
    /// assert!(v.contains(&50) && v.len() >= 50);
    /// ```
    fn skip_any_while<P>(self, p: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(AnyWhile::new(self, p, false))
    }

    /// A no-op kept for rayon compatibility: offshoot already stops the other workers
    /// when a closure panics, and the panic resumes once in the caller.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..10).into_par_iter().panic_fuse().count(), 10);
    /// ```
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// The items with a clone of `separator` between every two of them, as rayon's
    /// `intersperse`. On an indexed iterator every separator's place is known, and the
    /// result is indexed (`len` is `2n - 1`). On an unindexed one (`filter`, `flat_map`,
    /// `par_split`) each split piece puts a separator before every item but its first, and
    /// before its first too unless it starts the iterator: as in rayon, when every item
    /// before a split point is filtered out, the result may start with a separator.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = vec![1, 2, 3].into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// let s: String = ["a", "b", "c"].par_iter().copied().intersperse(", ").collect();
    /// assert_eq!(s, "a, b, c");
    /// let t: String = "a,b,c".par_split(',').intersperse(";").collect();
    /// assert_eq!(t, "a;b;c");
    /// ```
    fn intersperse(self, separator: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone + Sync,
    {
        Intersperse::new(self, separator)
    }

    // ---- consumers ----

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
        reduce::for_each(self, f)
    }

    /// Calls `f` on every item with a per-piece clone of `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// (0..5).into_par_iter().for_each_with(tx, |tx, x| tx.send(x).unwrap());
    /// let mut got: Vec<_> = rx.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<T, F>(self, init: T, f: F)
    where
        T: Send + Clone,
        F: Fn(&mut T, Self::Item) + Sync + Send,
    {
        self.map_with(init, f).for_each(|()| ())
    }

    /// Calls `f` on every item with a per-piece value made by `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = vec![0u8; 64];
    /// v.par_iter_mut().for_each_init(|| 7u8, |seven, x| *x = *seven);
    /// assert!(v.iter().all(|&x| x == 7));
    /// ```
    fn for_each_init<T, INIT, F>(self, init: INIT, f: F)
    where
        INIT: Fn() -> T + Sync + Send,
        F: Fn(&mut T, Self::Item) + Sync + Send,
    {
        self.map_init(init, f).for_each(|()| ())
    }

    /// Calls `f` on every item until one fails (`Err` or `None`); the others stop early
    /// and one failure is returned.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let r = (0..100).into_par_iter().try_for_each(|x| if x < 50 { Ok(()) } else { Err(x) });
    /// assert!(matches!(r, Err(x) if x >= 50));
    /// ```
    fn try_for_each<R, F>(self, f: F) -> R
    where
        R: Try<Output = ()> + Send,
        F: Fn(Self::Item) -> R + Sync + Send,
    {
        try_ops::try_for_each(self, f)
    }

    /// As [`try_for_each`](ParallelIterator::try_for_each), with a per-piece clone of
    /// `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let r: Option<()> = (0..10).into_par_iter().try_for_each_with(3, |k, x| (x < 100 * *k).then_some(()));
    /// assert_eq!(r, Some(()));
    /// ```
    fn try_for_each_with<T, R, F>(self, init: T, f: F) -> R
    where
        T: Send + Clone,
        R: Try<Output = ()> + Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
    {
        self.map_with(init, f).try_for_each(|r| r)
    }

    /// As [`try_for_each`](ParallelIterator::try_for_each), with a per-piece value made
    /// by `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let r: Result<(), String> = (0..10).into_par_iter().try_for_each_init(|| 1, |one, x| if x + *one > 0 { Ok(()) } else { Err("no".into()) });
    /// assert!(r.is_ok());
    /// ```
    fn try_for_each_init<T, INIT, R, F>(self, init: INIT, f: F) -> R
    where
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
    {
        self.map_init(init, f).try_for_each(|r| r)
    }

    /// The number of items.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().filter(|x| x % 3 == 0).count(), 334);
    /// ```
    fn count(self) -> usize {
        reduce::count(self)
    }

    /// The sum of the items.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((1..=10).into_par_iter().sum::<i32>(), 55);
    /// ```
    fn sum<S>(self) -> S
    where
        S: Send + std::iter::Sum<Self::Item> + std::iter::Sum<S>,
    {
        reduce::sum(self)
    }

    /// The product of the items.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((1..=5u64).into_par_iter().product::<u64>(), 120);
    /// ```
    fn product<P>(self) -> P
    where
        P: Send + std::iter::Product<Self::Item> + std::iter::Product<P>,
    {
        reduce::product(self)
    }

    /// Folds the items with `op`, starting every part from `identity()`; `op` must be
    /// associative and `identity()` neutral for it.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let s = (0..100u64).into_par_iter().map(|x| x * x).reduce(|| 0, |a, b| a + b);
    /// assert_eq!(s, 328350);
    /// ```
    fn reduce<ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        reduce::reduce(self, identity, op)
    }

    /// Folds the items with the associative `op`; `None` if there are none.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((1..5).into_par_iter().reduce_with(|a, b| a * b), Some(24));
    /// assert_eq!((0..0).into_par_iter().reduce_with(|a, b| a + b), None);
    /// ```
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        reduce::reduce_with(self, op)
    }

    /// As [`reduce`](ParallelIterator::reduce) over fallible items (`Option`/`Result`):
    /// stops at a failure and returns one.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![Ok(1), Err("bad"), Ok(3)];
    /// assert_eq!(v.into_par_iter().try_reduce(|| 0, |a, b| Ok(a + b)), Err("bad"));
    /// ```
    fn try_reduce<T, ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        Self::Item: Try<Output = T>,
        ID: Fn() -> T + Sync + Send,
        OP: Fn(T, T) -> Self::Item + Sync + Send,
    {
        try_ops::try_reduce(self, identity, op)
    }

    /// As [`reduce_with`](ParallelIterator::reduce_with) over fallible items.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = vec![Some(1), Some(2)];
    /// assert_eq!(v.into_par_iter().try_reduce_with(|a, b| Some(a + b)), Some(Some(3)));
    /// ```
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        Self::Item: Try<Output = T>,
        OP: Fn(T, T) -> Self::Item + Sync + Send,
    {
        try_ops::try_reduce_with(self, op)
    }

    /// The smallest item (the first of equal ones, as `Iterator::min`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().min(), Some(&1));
    /// ```
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        reduce::min_by(self, Ord::cmp)
    }

    /// The largest item (the last of equal ones, as `Iterator::max`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!([3, 1, 2].par_iter().max(), Some(&3));
    /// ```
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        reduce::max_by(self, Ord::cmp)
    }

    /// The smallest item by `cmp` (the first of equal ones).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [-3_i32, 0, 1, 5, -10];
    /// assert_eq!(v.par_iter().min_by(|x, y| x.abs().cmp(&y.abs())), Some(&0));
    /// ```
    fn min_by<F>(self, cmp: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        reduce::min_by(self, cmp)
    }

    /// The largest item by `cmp` (the last of equal ones).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [-3_i32, 0, 1, 5, -10];
    /// assert_eq!(v.par_iter().max_by(|x, y| x.abs().cmp(&y.abs())), Some(&-10));
    /// ```
    fn max_by<F>(self, cmp: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> Ordering + Sync + Send,
    {
        reduce::max_by(self, cmp)
    }

    /// The item with the smallest key (the first of equal ones).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = ["ccc", "a", "bb"];
    /// assert_eq!(v.par_iter().min_by_key(|s| s.len()), Some(&"a"));
    /// ```
    fn min_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        reduce::min_by_key(self, f)
    }

    /// The item with the largest key (the last of equal ones).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = ["ccc", "a", "bb"];
    /// assert_eq!(v.par_iter().max_by_key(|s| s.len()), Some(&"ccc"));
    /// ```
    fn max_by_key<K, F>(self, f: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        reduce::max_by_key(self, f)
    }

    /// Whether `p` holds for some item; once one is found, the others stop early.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..1000).into_par_iter().any(|x| x == 999));
    /// ```
    fn any<P>(self, p: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        find::find_map_any(self, move |x| p(x).then_some(())).is_some()
    }

    /// Whether `p` holds for every item; once one fails, the others stop early.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..1000).into_par_iter().all(|x| x < 1000));
    /// ```
    fn all<P>(self, p: P) -> bool
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        find::find_map_any(self, move |x| (!p(x)).then_some(())).is_none()
    }

    /// Some item for which `p` holds (any of them); the others stop early.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!([1, 2, 3, 3].par_iter().find_any(|&&x| x == 3), Some(&3));
    /// ```
    fn find_any<P>(self, p: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_map_any(self, move |x| p(&x).then_some(x))
    }

    /// The first item (in order) for which `p` holds; workers past a hit stop early.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().find_first(|x| x % 7 == 6), Some(6));
    /// ```
    fn find_first<P>(self, p: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_map_first(self, move |x| p(&x).then_some(x))
    }

    /// The last item (in order) for which `p` holds.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..1000).into_par_iter().find_last(|x| x % 7 == 6), Some(993));
    /// ```
    fn find_last<P>(self, p: P) -> Option<Self::Item>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        find::find_map_last(self, move |x| p(&x).then_some(x))
    }

    /// Some `Some` result of `f` (any of them); the others stop early.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = ["a", "2", "b"];
    /// assert_eq!(v.par_iter().find_map_any(|s| s.parse::<i32>().ok()), Some(2));
    /// ```
    fn find_map_any<R, F>(self, f: F) -> Option<R>
    where
        R: Send,
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
    {
        find::find_map_any(self, f)
    }

    /// The first `Some` result of `f`, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = ["a", "2", "b", "3"];
    /// assert_eq!(v.par_iter().find_map_first(|s| s.parse::<i32>().ok()), Some(2));
    /// ```
    fn find_map_first<R, F>(self, f: F) -> Option<R>
    where
        R: Send,
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
    {
        find::find_map_first(self, f)
    }

    /// The last `Some` result of `f`, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = ["a", "2", "b", "3"];
    /// assert_eq!(v.par_iter().find_map_last(|s| s.parse::<i32>().ok()), Some(3));
    /// ```
    fn find_map_last<R, F>(self, f: F) -> Option<R>
    where
        R: Send,
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
    {
        find::find_map_last(self, f)
    }

    /// Collects the items into any [`FromParallelIterator`] collection, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::collections::HashMap;
    /// let squares: Vec<u32> = (0..10u32).into_par_iter().map(|x| x * x).collect();
    /// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]);
    /// let m: HashMap<u32, u32> = (0..5u32).into_par_iter().map(|x| (x, x * 2)).collect();
    /// assert_eq!(m[&4], 8);
    /// let r: Result<Vec<u32>, String> = (0..3u32).into_par_iter().map(Ok).collect();
    /// assert_eq!(r, Ok(vec![0, 1, 2]));
    /// ```
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }

    /// Splits pairs into two collections, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let (a, b): (Vec<i32>, Vec<char>) = vec![(1, 'a'), (2, 'b')].into_par_iter().unzip();
    /// assert_eq!((a, b), (vec![1, 2], vec!['a', 'b']));
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
    {
        collect::unzip(self)
    }

    /// Splits the items into those for which `p` holds and the others, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let (even, odd): (Vec<i32>, Vec<i32>) = (0..8).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4, 6], vec![1, 3, 5, 7]));
    /// ```
    fn partition<A, B, P>(self, p: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        collect::partition(self, p)
    }

    /// Splits the items into two collections by `op`'s `Left` and `Right`, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use offshoot::iter::Either;
    /// let (even, odd): (Vec<i32>, Vec<String>) = (0..5).into_par_iter()
    ///     .partition_map(|x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x.to_string()) });
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec!["1".to_string(), "3".to_string()]));
    /// ```
    fn partition_map<A, B, P, L, R>(self, op: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        collect::partition_map(self, op)
    }

    /// Collects the items into a list of `Vec`s (one per piece that ran), in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let list = (0..100).into_par_iter().collect_vec_list();
    /// assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), (0..100).collect::<Vec<_>>());
    /// ```
    fn collect_vec_list(self) -> std::collections::LinkedList<Vec<Self::Item>> {
        collect::collect_vec_list(self)
    }

    /// The number of items if it is known without running anything (indexed iterators).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..5).into_par_iter().opt_len(), Some(5));
    /// assert_eq!((0..5).into_par_iter().filter(|x| x % 2 == 0).opt_len(), None);
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }
}
