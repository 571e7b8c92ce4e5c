//! Parallel operations on slices, under rayon's names: `use offshoot::slice::ParallelSliceMut`
//! (or `offshoot::prelude::*`) gives every `&mut [T]` and `Vec<T>` the parallel sorts.
//!
//! * [`par_sort`](ParallelSliceMut::par_sort) and its `_by`, `_by_key`, `_by_cached_key`
//!   forms are **stable**: a parallel merge sort (`slice/mergesort.rs`) with one scratch buffer of
//!   the slice's length.
//! * [`par_sort_unstable`](ParallelSliceMut::par_sort_unstable) and its forms sort in place
//!   without allocating: a parallel pdqsort-style quicksort (`slice/quicksort.rs`).
//!
//! Both split with [`join`](crate::join), so on one worker they cost about what a
//! sequential sort does, and they use std's sorts on the pieces they no longer split.
//! Outside every pool they run in the global pool.
//!
//! A comparator that panics leaves the slice a permutation of its input (every element
//! still there once), like std's sorts; the panic resumes in the caller. A comparator that
//! is not a total order leaves the slice in an unspecified order, also a permutation.

use std::cmp::Ordering;

mod mergesort;
mod quicksort;

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
