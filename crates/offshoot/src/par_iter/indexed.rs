//! [`IndexedParallelIterator`]: pipelines whose items correspond one to one, in order, to
//! their indices, and the adaptors and consumers that need that.

use super::*;

/// A parallel iterator whose items correspond one to one, in order, to its indices: its
/// length is known, and it can be zipped, enumerated, reversed, skipped, taken, stepped
/// and chunked.
pub trait IndexedParallelIterator: ParallelIterator {
    /// The items of indices `lo..hi`, exactly `hi - lo` of them, in order.
    ///
    /// # Safety
    ///
    /// As for [`ParallelIterator::block`].
    #[doc(hidden)]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = Self::Item> + ExactSizeIterator;

    /// Keeps only the first `len` indices (dropping owned elements past them).
    #[doc(hidden)]
    fn truncate(&mut self, len: usize);

    /// Drops the first `n` indices (dropping owned elements); later indices move down.
    #[doc(hidden)]
    fn advance(&mut self, n: usize);

    /// The number of items (known without running anything).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..10).into_par_iter().map(|x| x + 1).len(), 10);
    /// ```
    fn len(&self) -> usize {
        self.base_len()
    }

    /// Whether there are no items.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..0).into_par_iter().is_empty());
    /// assert!(!vec![1].par_iter().is_empty());
    /// ```
    fn is_empty(&self) -> bool {
        self.base_len() == 0
    }

    /// Pairs every item with its index.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<(usize, char)> = ['a', 'b'].par_iter().copied().enumerate().collect();
    /// assert_eq!(v, [(0, 'a'), (1, 'b')]);
    /// ```
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Pairs the items of `self` and `other` by index, as long as the shorter.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let a = [1.0, 2.0, 3.0];
    /// let b = [4.0, 5.0, 6.0];
    /// let dot: f64 = a.par_iter().zip(&b).map(|(x, y)| x * y).sum();
    /// assert_eq!(dot, 32.0);
    /// ```
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// As [`zip`](IndexedParallelIterator::zip), but both sides must have the same length.
    ///
    /// # Panics
    ///
    /// If the lengths differ.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..3).into_par_iter().zip_eq(3..6).count(), 3);
    /// ```
    fn zip_eq<Z>(self, other: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        assert_eq!(
            self.len(),
            other.len(),
            "offshoot: zip_eq of iterators of different lengths"
        );
        ZipEq::new(Zip::new(self, other))
    }

    /// The items of `self` and `other` in turn, then the rest of the longer one.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..3).into_par_iter().interleave(10..15).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12, 13, 14]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// The items of `self` and `other` in turn, until the side whose turn it is has none.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (0..3).into_par_iter().interleave_shortest(10..15).collect();
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12]);
    /// let w: Vec<i32> = (0..5).into_par_iter().interleave_shortest(10..12).collect();
    /// assert_eq!(w, [0, 10, 1, 11, 2]);
    /// ```
    fn interleave_shortest<I>(mut self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
    {
        let mut other = other.into_par_iter();
        let (na, nb) = (self.len(), other.len());
        self.truncate(na.min(nb + 1));
        other.truncate(nb.min(na));
        InterleaveShortest::new(Interleave::new(self, other))
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<_> = (0..4).into_par_iter().rev().collect();
    /// assert_eq!(v, [3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// Skips the first `n` items (the base, shortened).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<_> = (0..6).into_par_iter().skip(4).collect();
    /// assert_eq!(v, [4, 5]);
    /// ```
    fn skip(mut self, n: usize) -> Skip<Self> {
        self.advance(n.min(self.base_len()));
        Skip::new(self)
    }

    /// Keeps the first `n` items (the base, shortened).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<_> = (0..6).into_par_iter().take(2).collect();
    /// assert_eq!(v, [0, 1]);
    /// ```
    fn take(mut self, n: usize) -> Take<Self> {
        self.truncate(n);
        Take::new(self)
    }

    /// Every `step`-th item, starting with the first.
    ///
    /// # Panics
    ///
    /// If `step` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<_> = (0..10).into_par_iter().step_by(3).collect();
    /// assert_eq!(v, [0, 3, 6, 9]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// The items in `Vec`s of `size` (the last one may be shorter).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<Vec<i32>> = (1..=5).into_par_iter().chunks(2).collect();
    /// assert_eq!(v, [vec![1, 2], vec![3, 4], vec![5]]);
    /// ```
    fn chunks(self, size: usize) -> Chunks<Self> {
        Chunks::new(self, size)
    }

    /// Folds every chunk of `size` items from `identity()`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (1..=5).into_par_iter().fold_chunks(2, || 0, |a, x| a + x).collect();
    /// assert_eq!(v, [3, 7, 5]);
    /// ```
    fn fold_chunks<T, ID, F>(self, size: usize, identity: ID, fold_op: F) -> FoldChunks<Self, ID, F>
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        FoldChunks::new(Map::new(
            self.chunks(size),
            renamed::FoldChunksOp::new(identity, fold_op),
        ))
    }

    /// Cuts no piece shorter than `min` items: each split part of the iterator a worker runs
    /// (one `fold` accumulator, one `map_init` value) has at least `min` items, unless the
    /// whole iterator has fewer. offshoot splits only when a worker asks, so this is needed
    /// only where a piece has a fixed cost worth amortising.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let min = (0..1_000_000)
    ///     .into_par_iter()
    ///     .with_min_len(1234)
    ///     .fold(|| 0, |acc, _| acc + 1) // the items of one piece
    ///     .min()
    ///     .unwrap();
    /// assert!(min >= 1234);
    /// ```
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Folds no piece longer than `max` items: a part of the iterator a worker runs is
    /// folded in segments (one `fold` accumulator, one `map_init` value each) of at most
    /// `max` items, unless that would make one shorter than a
    /// [`with_min_len`](IndexedParallelIterator::with_min_len) minimum.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let max = (0..1_000_000)
    ///     .into_par_iter()
    ///     .with_max_len(1234)
    ///     .fold(|| 0, |acc, _| acc + 1) // the items of one piece
    ///     .max()
    ///     .unwrap();
    /// assert!(max <= 1234);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Folds every chunk of `size` items from a clone of `init`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<i32> = (1..=5).into_par_iter().fold_chunks_with(2, 10, |a, x| a + x).collect();
    /// assert_eq!(v, [13, 17, 15]);
    /// ```
    fn fold_chunks_with<T, F>(self, size: usize, init: T, fold_op: F) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        // As `map_with`: each piece gets its own copy of `init` (cloned under its lock once
        // per piece); each chunk folds from a clone of the piece's copy.
        FoldChunksWith::new(MapInit::with(
            self.chunks(size),
            init,
            renamed::FoldChunksWithOp::new(fold_op),
        ))
    }

    /// Consumes the iterator as a **sequence** of parallel blocks of `size` items: each
    /// block is split among the workers on request, and the next block starts only when
    /// every item of this one is done (rayon's `by_uniform_blocks`). Useful for memory
    /// locality, or to keep an early exit from running far past its answer. The result is
    /// not indexed, as rayon's is not.
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let done = AtomicUsize::new(0);
    /// (0..1000).into_par_iter().by_uniform_blocks(100).for_each(|i| {
    ///     // every item of the blocks before `i`'s is done
    ///     assert!(done.load(Ordering::SeqCst) >= i / 100 * 100);
    ///     done.fetch_add(1, Ordering::SeqCst);
    /// });
    /// let v: Vec<u32> = (0..10_000u32)
    ///     .into_par_iter()
    ///     .by_uniform_blocks(1000)
    ///     .fold(Vec::new, |mut v, e| { v.push(e); v })
    ///     .reduce(Vec::new, |mut a, mut b| { a.append(&mut b); a });
    /// assert_eq!(v, (0..10_000).collect::<Vec<_>>());
    /// ```
    #[track_caller]
    fn by_uniform_blocks(self, size: usize) -> UniformBlocks<Self> {
        assert!(size != 0, "block_size must not be zero");
        UniformBlocks::new(self, size)
    }

    /// Consumes the iterator as a **sequence** of parallel blocks that double in size: the
    /// first is as long as the pool has workers (`p`), then `p..3p`, `3p..7p`, ... (rayon's
    /// `by_exponential_blocks`). Each block is split among the workers on request; the
    /// next starts only when this one is done, and none starts once an early exit has its
    /// answer, so `find_first` does no work far to the right of its hit. The result is not
    /// indexed, as rayon's is not.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!((0..10_000).into_par_iter().by_exponential_blocks().find_first(|&e| e == 4_999), Some(4_999));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// The index of some item for which `p` holds; the others stop early.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!([1, 2, 3].par_iter().position_any(|&x| x == 2), Some(1));
    /// ```
    fn position_any<P>(self, p: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.enumerate()
            .find_map_any(move |(i, x)| p(x).then_some(i))
    }

    /// The index of the first item for which `p` holds.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!([1, 2, 3, 2].par_iter().position_first(|&x| x == 2), Some(1));
    /// ```
    fn position_first<P>(self, p: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.enumerate()
            .find_map_first(move |(i, x)| p(x).then_some(i))
    }

    /// The index of the last item for which `p` holds.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert_eq!([1, 2, 3, 2].par_iter().position_last(|&x| x == 2), Some(3));
    /// ```
    fn position_last<P>(self, p: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.enumerate()
            .find_map_last(move |(i, x)| p(x).then_some(i))
    }

    /// The indices of the items for which `p` holds, in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v: Vec<usize> = [1, 2, 3, 4].par_iter().positions(|&x| x % 2 == 0).collect();
    /// assert_eq!(v, [1, 3]);
    /// ```
    fn positions<P>(self, p: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(FilterMap::new(
            self.enumerate(),
            renamed::PositionsOp::new(p),
        ))
    }

    /// Collects into `target` (cleared first), in order, without intermediate buffers.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = vec![9; 2];
    /// (0..5).into_par_iter().map(|x| x * 3).collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 3, 6, 9, 12]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        collect::collect_into_vec(self, target)
    }

    /// Splits pairs into two `Vec`s (cleared first), in order.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let (mut a, mut b) = (vec![], vec![]);
    /// (0..3).into_par_iter().map(|x| (x, x * 2)).unzip_into_vecs(&mut a, &mut b);
    /// assert_eq!((a, b), (vec![0, 1, 2], vec![0, 2, 4]));
    /// ```
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        left.clear();
        right.clear();
        let (l, r): (Vec<A>, Vec<B>) = self.unzip();
        *left = l;
        *right = r;
    }

    /// Compares the items with `other`'s, lexicographically (as `Iterator::cmp`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!([1, 2, 3].par_iter().cmp(&[1, 2, 4]), Ordering::Less);
    /// assert_eq!([1, 2].par_iter().cmp(&[1, 2]), Ordering::Equal);
    /// ```
    fn cmp<I>(self, other: I) -> Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let (a, b) = (self.len(), other.len());
        self.zip(other)
            .map(|(x, y)| Ord::cmp(&x, &y))
            .find_first(|o| o.is_ne())
            .unwrap_or_else(|| a.cmp(&b))
    }

    /// Compares the items with `other`'s, lexicographically (as `Iterator::partial_cmp`).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!([1.0, 2.0].par_iter().partial_cmp(&[1.0, 3.0]), Some(Ordering::Less));
    /// ```
    fn partial_cmp<I>(self, other: I) -> Option<Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let (a, b) = (self.len(), other.len());
        self.zip(other)
            .map(|(x, y)| PartialOrd::partial_cmp(&x, &y))
            .find_first(|o| *o != Some(Ordering::Equal))
            .unwrap_or_else(|| Some(a.cmp(&b)))
    }

    /// Whether the items equal `other`'s (same length, equal pairwise).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..3).into_par_iter().eq(vec![0, 1, 2]));
    /// ```
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(x, y)| x == y)
    }

    /// Whether the items differ from `other`'s.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..3).into_par_iter().ne(vec![0, 1, 5]));
    /// ```
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Lexicographically less than `other`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..3).into_par_iter().lt(vec![0, 2]));
    /// ```
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Less)
    }

    /// Lexicographically less than or equal to `other`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..3).into_par_iter().le(vec![0, 1, 2]));
    /// ```
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Less | Ordering::Equal)
        )
    }

    /// Lexicographically greater than `other`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..3).into_par_iter().gt(vec![0, 1]));
    /// ```
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(Ordering::Greater)
    }

    /// Lexicographically greater than or equal to `other`.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// assert!((0..3).into_par_iter().ge(vec![0, 1, 2]));
    /// ```
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(Ordering::Greater | Ordering::Equal)
        )
    }
}
