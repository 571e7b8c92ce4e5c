//! [`Written`]: the slots of a buffer that one piece of a parallel fill has initialised,
//! owned until the fill is whole.
//!
//! A parallel fill (`collect_into_vec`, `collect` of an indexed iterator into a `Vec`, the
//! keys of `par_sort_by_cached_key`) writes each item straight into its final slot of a
//! buffer whose length is set only at the end. If a piece panics, the buffer's length stays
//! 0, so the items already written would be leaked — destructors never run, as rayon's
//! `collect_drop_on_unwind` tests check. Each piece therefore holds its written slots as a
//! `Written` range, grown one item at a time as it writes and joined with its neighbours'
//! as pieces combine (in index order); a range that is dropped — on the unwinding path —
//! drops its items. Only the whole range, every slot written, is [released](Written::release)
//! to the buffer.
//!
//! Invariants:
//! * A range owns exactly the `len` initialised slots from `start`; nothing else reads or
//!   drops them until it is released.
//! * Ranges are joined only when adjacent (the left one ends where the right one starts);
//!   an iterator that yields fewer items than its length leaves a gap, which is reported
//!   as a panic (the ranges on both sides then drop their items).

use std::marker::PhantomData;
use std::ptr;

/// Initialised slots `start..start + len` of a buffer of `T`, owned; see the module docs.
pub(crate) struct Written<T> {
    start: *mut T,
    len: usize,
    _owns: PhantomData<T>,
}

// SAFETY: a `Written` owns its items (it drops them), so it may move to another thread when
// they may.
unsafe impl<T: Send> Send for Written<T> {}

impl<T> Written<T> {
    /// No slots yet, starting at `start`.
    #[inline]
    pub(crate) fn empty(start: *mut T) -> Self {
        Written {
            start,
            len: 0,
            _owns: PhantomData,
        }
    }

    /// How many slots are written.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The slot just after the written ones.
    #[inline]
    fn end(&self) -> *mut T {
        self.start.wrapping_add(self.len)
    }

    /// Writes the items of `it`, at most `max` of them, into the next slots and takes them
    /// into the range. If `it` panics, the items written before are in the range.
    ///
    /// # Safety
    /// The `max` slots from `end()` are within the buffer, uninitialised, and written by
    /// nobody else.
    #[inline]
    pub(crate) unsafe fn extend(&mut self, it: impl Iterator<Item = T>, max: usize) {
        /// Adds the items written to the range, also when `it` unwinds.
        struct Grow<'a, T> {
            w: &'a mut Written<T>,
            n: usize,
        }
        impl<T> Drop for Grow<'_, T> {
            #[inline]
            fn drop(&mut self) {
                self.w.len += self.n;
            }
        }
        // SAFETY: per the contract, these `max` slots are ours to write.
        let slots = unsafe {
            std::slice::from_raw_parts_mut(self.end().cast::<std::mem::MaybeUninit<T>>(), max)
        };
        let mut g = Grow { w: self, n: 0 };
        // A zip of two exact-size iterators: the same loop as a sequential `extend`, with
        // the count in a register (the guard reads it only at the end or on unwinding).
        slots.iter_mut().zip(it).for_each(|(slot, x)| {
            slot.write(x);
            g.n += 1;
        });
    }

    /// Continues `self` at `at`: an empty range moves there; a non-empty one must end there
    /// (else the iterator that fills it yielded fewer items than it said: a panic, which
    /// drops the written items).
    #[inline]
    pub(crate) fn continue_at(&mut self, at: *mut T) {
        if self.len == 0 {
            self.start = at;
        } else {
            assert!(
                self.end() == at,
                "offshoot: an indexed iterator yielded the wrong number of items"
            );
        }
    }

    /// Joins two adjacent ranges, `self` the lower (see [`Written::continue_at`]).
    #[inline]
    pub(crate) fn join(mut self, right: Written<T>) -> Written<T> {
        if right.len == 0 {
            return self;
        }
        self.continue_at(right.start);
        self.len += right.len;
        // The right range's items now belong to `self`.
        std::mem::forget(right);
        self
    }

    /// Gives the items up (their buffer takes them, e.g. by setting its length); returns
    /// how many there were.
    #[inline]
    pub(crate) fn release(self) -> usize {
        let n = self.len;
        std::mem::forget(self);
        n
    }
}

impl<T> Drop for Written<T> {
    fn drop(&mut self) {
        // SAFETY: the range owns its `len` initialised slots (module invariant), and is not
        // released, so nobody else drops them.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.len)) }
    }
}

impl<T> std::fmt::Debug for Written<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Written")
            .field("start", &self.start)
            .field("len", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct Counted<'a>(&'a Cell<usize>);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn a_dropped_range_drops_its_items_and_a_released_one_does_not() {
        let drops = Cell::new(0);
        let mut buf: Vec<Counted> = Vec::with_capacity(4);
        let p = buf.as_mut_ptr();
        let mut a = Written::empty(p);
        let mut b = Written::empty(p);
        b.continue_at(p.wrapping_add(2));
        // SAFETY: slots 0, 1 (a) and 2, 3 (b) are within the capacity, each written once.
        unsafe {
            a.extend([Counted(&drops), Counted(&drops)].into_iter(), 2);
            b.extend(std::iter::once(Counted(&drops)), 2);
        }
        drop(b);
        assert_eq!(drops.get(), 1);
        let mut c = Written::empty(p.wrapping_add(2));
        // SAFETY: slot 2 was dropped above and is written again, once.
        unsafe { c.extend(std::iter::once(Counted(&drops)), 1) };
        let whole = a.join(c);
        assert_eq!(whole.len(), 3);
        let n = whole.release();
        // SAFETY: slots 0..3 are initialised and were released to the buffer.
        unsafe { buf.set_len(n) };
        assert_eq!(drops.get(), 1);
        drop(buf);
        assert_eq!(drops.get(), 4);
    }

    #[test]
    #[should_panic(expected = "wrong number of items")]
    fn a_gap_between_ranges_is_reported() {
        let mut buf: Vec<u32> = Vec::with_capacity(4);
        let p = buf.as_mut_ptr();
        let mut a = Written::empty(p);
        // SAFETY: slot 0 is within the capacity.
        unsafe { a.extend(std::iter::once(1), 1) };
        let mut b = Written::empty(p);
        b.continue_at(p.wrapping_add(2));
        // SAFETY: slot 2 is within the capacity.
        unsafe { b.extend(std::iter::once(3), 1) };
        let _ = a.join(b);
    }
}
