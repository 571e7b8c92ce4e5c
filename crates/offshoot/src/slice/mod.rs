//! Parallel operations on slices, under rayon's names: `use offshoot::slice::ParallelSlice`
//! and `ParallelSliceMut` (or `offshoot::prelude::*`) give every slice, `Vec<T>` and array
//! the chunking sources (`par_chunks`, `par_chunks_mut`, `par_chunks_exact`, `par_rchunks`,
//! ..., `par_windows`, `par_array_windows`, `par_split`, `par_split_inclusive`,
//! `par_chunk_by` and their `_mut` forms) and the parallel sorts.
//!
//! * [`par_sort`](ParallelSliceMut::par_sort) and its `_by`, `_by_key`, `_by_cached_key`
//!   forms are **stable**: a parallel merge sort with one scratch buffer of the slice's
//!   length.
//! * [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable) and its forms sort in place
//!   without allocating: a parallel pdqsort-style quicksort.
//!
//! Both split with [`join`](crate::join), so on one worker they cost about what a
//! sequential sort does, and they use std's sorts on the pieces they no longer split.
//! Outside every pool they run in the global pool.
//!
//! A comparator that panics leaves the slice a permutation of its input (every element
//! still there once), like std's sorts; the panic resumes in the caller. A comparator that
//! is not a total order leaves the slice in an unspecified order, also a permutation.

use std::cmp::Ordering;

mod chunks;
mod mergesort;
mod quicksort;
mod raw;
mod split;
mod windows;

/// rayon's `rayon::slice::Iter` and `IterMut`: what `par_iter()` and `par_iter_mut()` of a
/// slice return.
pub use crate::par_iter::{Iter, IterMut};
pub use chunks::{
    Chunks, ChunksExact, ChunksExactMut, ChunksMut, RChunks, RChunksExact, RChunksExactMut,
    RChunksMut,
};
pub use split::{Split, SplitMut};
pub use windows::Windows;

/// The iterator of [`ParallelSlice::par_array_windows`]: windows as `&[T; N]`.
pub type ArrayWindows<'a, T, const N: usize> =
    crate::par_iter::Map<Windows<'a, T>, fn(&'a [T]) -> &'a [T; N]>;

/// Parallel methods on shared slices (rayon's `ParallelSlice`): implemented for `[T]`, so
/// every `&[T]`, `Vec<T>` and array gets them through auto-deref. Every chunk is a plain
/// sub-slice (nothing is allocated per chunk), and the chunking sources are indexed
/// ([`IndexedParallelIterator`](crate::IndexedParallelIterator): `zip`, `enumerate`, `rev`).
///
/// ```
/// use offshoot::slice::ParallelSlice;
/// use offshoot::ParallelIterator;
///
/// let v = [1, 2, 3, 4, 5];
/// let sums: Vec<i32> = v.par_chunks(2).map(|c| c.iter().sum()).collect();
/// assert_eq!(sums, [3, 7, 5]);
/// ```
pub trait ParallelSlice<T: Sync> {
    /// The slice these methods work on.
    ///
    /// ```
    /// use offshoot::slice::ParallelSlice;
    /// assert_eq!([1, 2].as_parallel_slice(), &[1, 2]);
    /// ```
    fn as_parallel_slice(&self) -> &[T];

    /// The sub-slices between the elements for which `separator` is true (std's
    /// [`split`](slice::split)): `k` separators give `k + 1` pieces, in order. The
    /// separators are found first, by a parallel pass, into a `Vec` of their positions.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 0, 3, 0, 0, 4];
    /// let pieces: Vec<&[i32]> = v.par_split(|x| *x == 0).collect();
    /// assert_eq!(pieces, [&[1, 2][..], &[3], &[], &[4]]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// The sub-slices ended by the elements for which `separator` is true, each with its
    /// separator (std's [`split_inclusive`](slice::split_inclusive)): no empty piece after
    /// a separator that ends the slice, and none for an empty slice. The separators are
    /// found first, by a parallel pass.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 0, 2, 3, 0, 0];
    /// let pieces: Vec<&[i32]> = v.par_split_inclusive(|x| *x == 0).collect();
    /// assert_eq!(pieces, [&[1, 0][..], &[2, 3, 0], &[0]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> Split<'_, T>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::inclusive(self.as_parallel_slice(), separator)
    }

    /// The runs of consecutive elements in which `pred` holds for every two neighbours
    /// (std's [`chunk_by`](slice::chunk_by)), in order; none for an empty slice. The
    /// runs' starts are found first, by a parallel pass over the pairs of neighbours.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 1, 2, 3, 3, 3, 1];
    /// let runs: Vec<&[i32]> = v.par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1, 1][..], &[2], &[3, 3, 3], &[1]]);
    /// let rising: Vec<usize> = v.par_chunk_by(|a, b| a <= b).map(|r| r.len()).collect();
    /// assert_eq!(rising, [6, 1]);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> Split<'_, T>
    where
        F: Fn(&T, &T) -> bool + Sync + Send,
    {
        Split::chunk_by(self.as_parallel_slice(), pred)
    }

    /// Every window of `N` consecutive elements as an array reference, overlapping (std's
    /// `array_windows`): [`par_windows`](ParallelSlice::par_windows)`(N)` with each window
    /// of the array type.
    ///
    /// # Panics
    ///
    /// If `N` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4];
    /// let sums: Vec<i32> = v.par_array_windows().map(|[a, b]| a + b).collect();
    /// assert_eq!(sums, [3, 5, 7]);
    /// ```
    #[track_caller]
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        use crate::par_iter::ParallelIterator;
        let as_array: fn(&[T]) -> &[T; N] =
            |w| w.try_into().expect("a window has exactly N elements");
        self.par_windows(N).map(as_array)
    }

    /// Every window of `size` consecutive elements, overlapping (std's
    /// [`windows`](slice::windows)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4];
    /// let sums: Vec<i32> = v.par_windows(2).map(|w| w[0] + w[1]).collect();
    /// assert_eq!(sums, [3, 5, 7]);
    /// ```
    #[track_caller]
    fn par_windows(&self, size: usize) -> Windows<'_, T> {
        Windows::new(self.as_parallel_slice(), size)
    }

    /// Chunks of `size` elements from the front, the last possibly shorter (std's
    /// [`chunks`](slice::chunks)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let c: Vec<&[i32]> = v.par_chunks(2).collect();
    /// assert_eq!(c, [&[1, 2][..], &[3, 4], &[5]]);
    /// ```
    #[track_caller]
    fn par_chunks(&self, size: usize) -> Chunks<'_, T> {
        Chunks::new(self.as_parallel_slice(), size)
    }

    /// Chunks of exactly `size` elements from the front; the last `len % size` are left
    /// out, in [`ChunksExact::remainder`] (std's [`chunks_exact`](slice::chunks_exact)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let c: Vec<&[i32]> = v.par_chunks_exact(2).collect();
    /// assert_eq!(c, [&[1, 2][..], &[3, 4]]);
    /// ```
    #[track_caller]
    fn par_chunks_exact(&self, size: usize) -> ChunksExact<'_, T> {
        ChunksExact::new(self.as_parallel_slice(), size)
    }

    /// Chunks of `size` elements from the back, the last (the slice's front) possibly
    /// shorter (std's [`rchunks`](slice::rchunks)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let c: Vec<&[i32]> = v.par_rchunks(2).collect();
    /// assert_eq!(c, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    #[track_caller]
    fn par_rchunks(&self, size: usize) -> RChunks<'_, T> {
        RChunks::new(self.as_parallel_slice(), size)
    }

    /// Chunks of exactly `size` elements from the back; the first `len % size` are left
    /// out, in [`RChunksExact::remainder`] (std's [`rchunks_exact`](slice::rchunks_exact)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let c: Vec<&[i32]> = v.par_rchunks_exact(2).collect();
    /// assert_eq!(c, [&[4, 5][..], &[2, 3]]);
    /// ```
    #[track_caller]
    fn par_rchunks_exact(&self, size: usize) -> RChunksExact<'_, T> {
        RChunksExact::new(self.as_parallel_slice(), size)
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    #[inline]
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Leaf length for a parallel sort of `n` elements: about eight leaves per worker of the
/// current pool (enough for idle workers to balance the load, few enough that the merge or
/// partition passes above the leaves stay few), and never below `min`. A pool of one
/// worker has nobody to share with: its whole slice is one leaf (std's sort, no passes).
fn leaf_len(n: usize, min: usize) -> usize {
    match crate::current_num_workers() {
        0 | 1 => n,
        workers => n.div_ceil(workers.saturating_mul(8)).max(min),
    }
}

/// Parallel methods on mutable slices (rayon's `ParallelSliceMut`): implemented for `[T]`,
/// so every `&mut [T]`, `Vec<T>` and array gets them through auto-deref.
///
/// ```
/// use offshoot::slice::ParallelSliceMut;
///
/// let mut v = vec![5, 1, 4, 2, 3];
/// v.par_sort();
/// assert_eq!(v, [1, 2, 3, 4, 5]);
/// ```
pub trait ParallelSliceMut<T: Send> {
    /// The slice these methods work on.
    ///
    /// ```
    /// use offshoot::slice::ParallelSliceMut;
    ///
    /// let mut v = [3, 1, 2];
    /// v.as_parallel_slice_mut()[0] = 0;
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// The mutable sub-slices between the elements for which `separator` is true (std's
    /// [`split_mut`](slice::split_mut)). The separators are found first, by a parallel
    /// pass, into a `Vec` of their positions.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [3, 1, 0, 2, 1, 0, 5];
    /// v.par_split_mut(|x| *x == 0).for_each(|piece| piece.sort());
    /// assert_eq!(v, [1, 3, 0, 1, 2, 0, 5]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// [`par_split_inclusive`](ParallelSlice::par_split_inclusive) with mutable pieces
    /// (std's [`split_inclusive_mut`](slice::split_inclusive_mut)).
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [3, 1, 0, 2, 1, 0];
    /// v.par_split_inclusive_mut(|x| *x == 0).for_each(|piece| piece.sort());
    /// assert_eq!(v, [0, 1, 3, 0, 1, 2]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitMut<'_, T>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::inclusive(self.as_parallel_slice_mut(), separator)
    }

    /// [`par_chunk_by`](ParallelSlice::par_chunk_by) with mutable runs (std's
    /// [`chunk_by_mut`](slice::chunk_by_mut)). Needs only `T: Send`: each part of the
    /// parallel pass compares neighbours inside its own part, and the few pairs that
    /// straddle two parts are compared by the caller.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 1, 2, 3, 3];
    /// v.par_chunk_by_mut(|a, b| a == b).for_each(|run| {
    ///     let n = run.len() as i32;
    ///     run.iter_mut().for_each(|x| *x = n);
    /// });
    /// assert_eq!(v, [2, 2, 1, 2, 2]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> SplitMut<'_, T>
    where
        F: Fn(&T, &T) -> bool + Sync + Send,
    {
        SplitMut::chunk_by(self.as_parallel_slice_mut(), pred)
    }

    /// Mutable chunks of `size` elements from the front, the last possibly shorter (std's
    /// [`chunks_mut`](slice::chunks_mut)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    #[track_caller]
    fn par_chunks_mut(&mut self, size: usize) -> ChunksMut<'_, T> {
        ChunksMut::new(self.as_parallel_slice_mut(), size)
    }

    /// Mutable chunks of exactly `size` elements from the front; the last `len % size` are
    /// left out, in [`ChunksExactMut::into_remainder`] (std's
    /// [`chunks_exact_mut`](slice::chunks_exact_mut)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_chunks_exact_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [2, 1, 4, 3, 5]);
    /// ```
    #[track_caller]
    fn par_chunks_exact_mut(&mut self, size: usize) -> ChunksExactMut<'_, T> {
        ChunksExactMut::new(self.as_parallel_slice_mut(), size)
    }

    /// Mutable chunks of `size` elements from the back, the last (the slice's front)
    /// possibly shorter (std's [`rchunks_mut`](slice::rchunks_mut)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [1, 3, 2, 5, 4]);
    /// ```
    #[track_caller]
    fn par_rchunks_mut(&mut self, size: usize) -> RChunksMut<'_, T> {
        RChunksMut::new(self.as_parallel_slice_mut(), size)
    }

    /// Mutable chunks of exactly `size` elements from the back; the first `len % size` are
    /// left out, in [`RChunksExactMut::into_remainder`] (std's
    /// [`rchunks_exact_mut`](slice::rchunks_exact_mut)).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use offshoot::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// v.par_rchunks_exact_mut(2).for_each(|c| c.reverse());
    /// assert_eq!(v, [1, 3, 2, 5, 4]);
    /// ```
    #[track_caller]
    fn par_rchunks_exact_mut(&mut self, size: usize) -> RChunksExactMut<'_, T> {
        RChunksExactMut::new(self.as_parallel_slice_mut(), size)
    }

    /// Sorts the slice in parallel, stably (equal elements keep their order). Allocates a
    /// scratch buffer as long as the slice.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [-5, 4, 1, -3, 2];
    /// v.par_sort();
    /// assert_eq!(v, [-5, -3, 1, 2, 4]);
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        mergesort::par_mergesort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice in parallel with a comparator, stably.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [5, 4, 1, 3, 2];
    /// v.par_sort_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        mergesort::par_mergesort(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice in parallel by a key, stably. The key is computed at every
    /// comparison; see [`par_sort_by_cached_key`](Self::par_sort_by_cached_key) for costly
    /// keys.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [-5i32, 4, 1, -3, 2];
    /// v.par_sort_by_key(|k| k.abs());
    /// assert_eq!(v, [1, 2, -3, 4, -5]);
    /// ```
    fn par_sort_by_key<K, F>(&mut self, key: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        mergesort::par_mergesort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            key(a).cmp(&key(b))
        });
    }

    /// Sorts the slice in parallel by a key computed once per element (in parallel), stably.
    /// Allocates the keys and their positions.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [-5i32, 4, 32, -3, 2];
    /// v.par_sort_by_cached_key(|k| k.to_string());
    /// assert_eq!(v, [-3, -5, 2, 32, 4]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, key: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        cached_key::par_sort_by_cached_key(self.as_parallel_slice_mut(), &key);
    }

    /// Sorts the slice in parallel without preserving the order of equal elements; in place,
    /// without allocating.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [-5, 4, 1, -3, 2];
    /// v.par_sort_unstable();
    /// assert_eq!(v, [-5, -3, 1, 2, 4]);
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        quicksort::par_quicksort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// Sorts the slice in parallel with a comparator, without preserving the order of equal
    /// elements.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [5, 4, 1, 3, 2];
    /// v.par_sort_unstable_by(|a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        quicksort::par_quicksort(self.as_parallel_slice_mut(), &compare);
    }

    /// Sorts the slice in parallel by a key, without preserving the order of equal
    /// elements. The key is computed at every comparison.
    ///
    /// ```
    /// use offshoot::prelude::*;
    ///
    /// let mut v = [-5i32, 4, 1, -3, 2];
    /// v.par_sort_unstable_by_key(|k| k.abs());
    /// assert_eq!(v, [1, 2, -3, 4, -5]);
    /// ```
    fn par_sort_unstable_by_key<K, F>(&mut self, key: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        quicksort::par_quicksort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            key(a).cmp(&key(b))
        });
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    #[inline]
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

mod cached_key;
