//! [`RawMut`]: a `&'a mut [T]` held as a pointer and a length, so that a parallel source
//! can hand out disjoint `&'a mut` sub-slices from a shared `&self` (the blocks of the
//! `par_iter` protocol run on several workers at once).
//!
//! Invariant: the pointer and length describe a slice mutably borrowed for `'a`; callers of
//! [`RawMut::get`] ask for pairwise disjoint ranges (the protocol hands each index to one
//! block), so no two live `&mut` overlap.
//!
//! [`Raw`] is the bare pointer of the same idea, for the sorts' `join` trees: a buffer
//! whose halves two closures write, each its own disjoint range.

use std::marker::PhantomData;
use std::ops::Range;

/// A mutably borrowed slice from which disjoint sub-slices are taken through `&self`.
#[derive(Debug)]
pub(super) struct RawMut<'a, T> {
    ptr: *mut T,
    len: usize,
    marker: PhantomData<&'a mut [T]>,
}

// SAFETY: it gives out `&mut T` for disjoint ranges only (the module invariant), as
// `&mut [T]` does, which is Send when `T: Send`.
unsafe impl<T: Send> Send for RawMut<'_, T> {}
// SAFETY: as above; sharing it shares no element, since each range goes to one caller.
unsafe impl<T: Send> Sync for RawMut<'_, T> {}

impl<'a, T> RawMut<'a, T> {
    pub(super) fn new(s: &'a mut [T]) -> Self {
        RawMut {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            marker: PhantomData,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The elements `r`.
    ///
    /// # Safety
    ///
    /// `r` lies within `0..len()` and is disjoint from every other range asked for while
    /// the returned slice lives.
    pub(super) unsafe fn get(&self, r: Range<usize>) -> &'a mut [T] {
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: in bounds (checked); the slice is mutably borrowed for 'a; the range
        // aliases no other live one (contract).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }

    /// Keeps only the elements `r` (later `get`s index from `r.start`).
    pub(super) fn narrow(&mut self, r: Range<usize>) {
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: `r.start <= len`: the pointer stays within (or one past) the slice.
        self.ptr = unsafe { self.ptr.add(r.start) };
        self.len = r.end - r.start;
    }
}

/// A raw pointer that may cross to another worker: the ranges behind the pointers that
/// cross are disjoint, and each is used by one task at a time.
pub(super) struct Raw<T>(pub(super) *mut T);

impl<T> Clone for Raw<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Raw<T> {}

// SAFETY: see the type; the elements are `Send`.
unsafe impl<T: Send> Send for Raw<T> {}
// SAFETY: a `Raw` is only copied into the closures of a `join` (the merge sort's halves,
// the cached-key sort's halves of keys); each closure uses its own disjoint range.
unsafe impl<T: Send> Sync for Raw<T> {}

impl<T> Raw<T> {
    /// The pointer (a method, so that a closure captures the whole `Raw`, which may cross
    /// workers, and not its field).
    pub(super) fn ptr(self) -> *mut T {
        self.0
    }

    /// The pointer `i` elements further.
    ///
    /// # Safety
    /// `i` is within (or one past) the allocation.
    pub(super) unsafe fn add(self, i: usize) -> Raw<T> {
        // SAFETY: by the caller.
        Raw(unsafe { self.0.add(i) })
    }
}
