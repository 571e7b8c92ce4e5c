//! Indexed sources: integer ranges, slices by `&` and `&mut`, and `Vec` by value.
//!
//! Invariants: `block(lo, hi)` is asked for each index at most once (module invariant of
//! `par_iter`), which makes handing out `&mut T` ([`IterMut`]) and moving `T` out
//! ([`IntoIter`]) sound: no two blocks ever touch the same element.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};

/// A parallel iterator over an integer range.
#[derive(Clone, Debug)]
pub struct RangeIter<T> {
    range: Range<T>,
}

macro_rules! range_source {
    ($($t:ty),*) => {$(
        impl ParallelIterator for RangeIter<$t> {
            type Item = $t;
            fn base_len(&self) -> usize {
                if self.range.start >= self.range.end {
                    return 0;
                }
                let n = (self.range.end as i128) - (self.range.start as i128);
                usize::try_from(n).expect("offshoot: the range has more than usize::MAX elements")
            }
            unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = $t> + '_ {
                // In range: lo <= hi <= base_len, so start + i fits the type.
                let s = self.range.start;
                (lo..hi).map(move |i| ((s as i128) + (i as i128)) as $t)
            }
            fn truncate(&mut self, len: usize) {
                if len < self.base_len() {
                    self.range.end = ((self.range.start as i128) + (len as i128)) as $t;
                }
            }
        }
        impl IndexedParallelIterator for RangeIter<$t> {}
        impl IntoParallelIterator for Range<$t> {
            type Iter = RangeIter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> RangeIter<$t> {
                RangeIter { range: self }
            }
        }
        impl IntoParallelIterator for std::ops::RangeInclusive<$t> {
            type Iter = RangeIter<$t>;
            type Item = $t;
            /// # Panics
            /// If the end is the type's maximum (the exclusive end would overflow).
            fn into_par_iter(self) -> RangeIter<$t> {
                let (s, e) = self.into_inner();
                let end = e.checked_add(1).expect("offshoot: an inclusive range ending at the type's MAX cannot be iterated in parallel; use an exclusive range");
                RangeIter { range: s..end.max(s) }
            }
        }
    )*};
}

range_source!(usize, u32, u64, i32, i64);

/// A parallel iterator over `&T` of a slice.
#[derive(Debug)]
pub struct Iter<'a, T> {
    slice: &'a [T],
}

impl<'a, T: Sync> ParallelIterator for Iter<'a, T> {
    type Item = &'a T;
    fn base_len(&self) -> usize {
        self.slice.len()
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = &'a T> + '_ {
        self.slice[lo..hi].iter()
    }
    fn truncate(&mut self, len: usize) {
        self.slice = &self.slice[..len.min(self.slice.len())];
    }
}

impl<T: Sync> IndexedParallelIterator for Iter<'_, T> {}

impl<'a, T: Sync + 'a> IntoParallelRefIterator<'a> for [T] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn par_iter(&'a self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

impl<'a, T: Sync + 'a> IntoParallelRefIterator<'a> for Vec<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn par_iter(&'a self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a [T] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Vec<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Iter<'a, T> {
        Iter { slice: self }
    }
}

/// A parallel iterator over `&mut T` of a slice.
#[derive(Debug)]
pub struct IterMut<'a, T> {
    ptr: *mut T,
    len: usize,
    marker: PhantomData<&'a mut [T]>,
}

// SAFETY: it hands out `&mut T` for disjoint indices only (module invariant), like
// `&mut [T]`, which is Send/Sync when `T: Send`/`T: Sync`; blocks on other threads need
// `T: Send` to mutate.
unsafe impl<T: Send> Send for IterMut<'_, T> {}
// SAFETY: as above; sharing the iterator shares no element.
unsafe impl<T: Send> Sync for IterMut<'_, T> {}

impl<'a, T: Send> ParallelIterator for IterMut<'a, T> {
    type Item = &'a mut T;
    fn base_len(&self) -> usize {
        self.len
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = &'a mut T> + '_ {
        assert!(lo <= hi && hi <= self.len);
        // SAFETY: in bounds; the slice is mutably borrowed for 'a; indices lo..hi are
        // handed out once (contract), so this `&mut` aliases no other.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(lo), hi - lo) }.iter_mut()
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

impl<T: Send> IndexedParallelIterator for IterMut<'_, T> {}

fn iter_mut<T>(s: &mut [T]) -> IterMut<'_, T> {
    IterMut {
        ptr: s.as_mut_ptr(),
        len: s.len(),
        marker: PhantomData,
    }
}

impl<'a, T: Send + 'a> IntoParallelRefMutIterator<'a> for [T] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn par_iter_mut(&'a mut self) -> IterMut<'a, T> {
        iter_mut(self)
    }
}

impl<'a, T: Send + 'a> IntoParallelRefMutIterator<'a> for Vec<T> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn par_iter_mut(&'a mut self) -> IterMut<'a, T> {
        iter_mut(self)
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut [T] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        iter_mut(self)
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Vec<T> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> IterMut<'a, T> {
        iter_mut(self)
    }
}

/// A parallel iterator that moves the elements out of a `Vec`.
///
/// Every element is moved out or dropped exactly once, also by early-exit consumers and
/// when the iterator is dropped unused. If a closure panics, the elements not yet moved out
/// are leaked, not dropped.
#[derive(Debug)]
pub struct IntoIter<T> {
    /// The buffer, with length 0: the elements are owned by the iterator until moved out.
    buf: ManuallyDrop<Vec<T>>,
    len: usize,
    /// Set once a consumer started: from then on the consumer disposes of every element.
    started: AtomicBool,
}

// SAFETY: the elements move to whichever thread runs their block; `T: Send` allows it.
unsafe impl<T: Send> Send for IntoIter<T> {}
// SAFETY: shared access only moves disjoint elements out, each once (module invariant).
unsafe impl<T: Send> Sync for IntoIter<T> {}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;
    fn base_len(&self) -> usize {
        self.len
    }
    unsafe fn block(&self, lo: usize, hi: usize) -> impl Iterator<Item = T> + '_ {
        assert!(lo <= hi && hi <= self.len);
        self.started.store(true, Ordering::Relaxed);
        let p = self.buf.as_ptr();
        // SAFETY: in bounds of the initialised elements; each index is read once
        // (contract), so every element is moved out at most once.
        (lo..hi).map(move |i| unsafe { std::ptr::read(p.add(i)) })
    }
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        assert!(lo <= hi && hi <= self.len);
        self.started.store(true, Ordering::Relaxed);
        let p = self.buf.as_ptr() as *mut T;
        // SAFETY: as in `block`: these elements are initialised and disposed of once.
        unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(p.add(lo), hi - lo)) };
    }
    fn truncate(&mut self, len: usize) {
        if len < self.len {
            let p = self.buf.as_mut_ptr();
            // SAFETY: `&mut self`: no consumer runs; the tail is initialised and owned here.
            unsafe {
                std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                    p.add(len),
                    self.len - len,
                ))
            };
            self.len = len;
        }
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {}

impl<T> Drop for IntoIter<T> {
    fn drop(&mut self) {
        if !*self.started.get_mut() {
            // Never consumed: the elements are still ours.
            let p = self.buf.as_mut_ptr();
            // SAFETY: no block ever ran, so all `len` elements are initialised and owned.
            unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(p, self.len)) };
        }
        // The buffer only (its length is 0).
        // SAFETY: `buf` is not used after this.
        drop(unsafe { ManuallyDrop::take(&mut self.buf) });
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
            len,
            started: AtomicBool::new(false),
        }
    }
}
