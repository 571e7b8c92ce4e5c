//! Slices as indexed sources: `&[T]` ([`Iter`]) and `&mut [T]` ([`IterMut`]), also
//! through `Vec`, arrays, `Option` and `Result` (its `Ok` value) by reference.
//!
//! Invariant: each index is handed out at most once (module invariant of `par_iter`),
//! which makes handing out `&mut T` sound: no two blocks ever touch the same element.

use std::marker::PhantomData;

use super::{block_via_iblock, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator over `&T` of a slice.
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Iter<'a, T> {
    slice: &'a [T],
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { slice: self.slice }
    }
}

impl<'a, T: Sync> Iter<'a, T> {
    pub(super) fn new(slice: &'a [T]) -> Self {
        Iter { slice }
    }
}

impl<'a, T: Sync> ParallelIterator for Iter<'a, T> {
    type Item = &'a T;
    type State = ();
    #[inline]
    fn base_len(&self) -> usize {
        self.slice.len()
    }
    #[inline]
    fn state(&self) {}
    block_via_iblock!();
    fn into_seq(self) -> impl Iterator<Item = &'a T> {
        self.slice.iter()
    }
}

impl<'a, T: Sync> IndexedParallelIterator for Iter<'a, T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a T> + ExactSizeIterator {
        self.slice[lo..hi].iter()
    }
    fn truncate(&mut self, len: usize) {
        self.slice = &self.slice[..len.min(self.slice.len())];
    }
    fn advance(&mut self, n: usize) {
        self.slice = &self.slice[n.min(self.slice.len())..];
    }
}

/// A parallel iterator over `&mut T` of a slice.
#[derive(Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct IterMut<'a, T> {
    ptr: *mut T,
    len: usize,
    marker: PhantomData<&'a mut [T]>,
}

// SAFETY: it hands out `&mut T` for disjoint indices only (module invariant), like
// `&mut [T]`, which is Send when `T: Send`.
unsafe impl<T: Send> Send for IterMut<'_, T> {}
// SAFETY: as above; sharing the iterator shares no element (each index goes to one block).
unsafe impl<T: Send> Sync for IterMut<'_, T> {}

impl<'a, T: Send> IterMut<'a, T> {
    pub(super) fn new(s: &'a mut [T]) -> Self {
        IterMut {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            marker: PhantomData,
        }
    }
}

impl<'a, T: Send> ParallelIterator for IterMut<'a, T> {
    type Item = &'a mut T;
    type State = ();
    #[inline]
    fn base_len(&self) -> usize {
        self.len
    }
    #[inline]
    fn state(&self) {}
    block_via_iblock!();
}

impl<'a, T: Send> IndexedParallelIterator for IterMut<'a, T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = &'a mut T> + ExactSizeIterator {
        assert!(lo <= hi && hi <= self.len);
        // SAFETY: in bounds; the slice is mutably borrowed for 'a; indices lo..hi are
        // handed out once (contract), so this `&mut` aliases no other.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(lo), hi - lo) }.iter_mut()
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
    fn advance(&mut self, n: usize) {
        let n = n.min(self.len);
        // SAFETY: `n <= len`: the pointer stays within (or one past) the slice.
        self.ptr = unsafe { self.ptr.add(n) };
        self.len -= n;
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a [T] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter::new(self)
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Vec<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter::new(self)
    }
}

impl<'a, T: Sync, const N: usize> IntoParallelIterator for &'a [T; N] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter::new(self)
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter::new(self.as_slice())
    }
}

/// `par_iter()` of a `Result`: its `Ok` value, or nothing (as rayon's).
///
/// ```
/// use offshoot::prelude::*;
/// let r: Result<i32, String> = Ok(3);
/// assert_eq!(r.par_iter().copied().sum::<i32>(), 3);
/// ```
impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter::new(match self {
            Ok(t) => std::slice::from_ref(t),
            Err(_) => &[],
        })
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut [T] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut::new(self)
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Vec<T> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut::new(self)
    }
}

impl<'a, T: Send, const N: usize> IntoParallelIterator for &'a mut [T; N] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut::new(self)
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut::new(self.as_mut_slice())
    }
}

/// `par_iter_mut()` of a `Result`: its `Ok` value, or nothing (as rayon's).
///
/// ```
/// use offshoot::prelude::*;
/// let mut r: Result<i32, String> = Ok(3);
/// r.par_iter_mut().for_each(|x| *x += 1);
/// assert_eq!(r, Ok(4));
/// ```
impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        IterMut::new(match self {
            Ok(t) => std::slice::from_mut(t),
            Err(_) => &mut [],
        })
    }
}
