//! `Segments<E>`: an array of up to `cap` elements allocated as they are first used, so
//! that a large capacity (a `Count::new(k)`, a trace's events per worker) costs nothing up
//! front.
//!
//! Element `i` lives in segment `s = ilog2(i + 1)`, at offset `i + 1 - 2^s`; segment `s`
//! holds `2^s` elements (fewer for the last one, cut at `cap`). A segment is allocated,
//! every element made with the caller's `make`, by the first caller that needs it, and
//! installed with one compare-and-swap; a caller that loses the race frees its own and uses
//! the winner's. So at most about twice as many elements as the highest index used exist,
//! and `2^64 - 1` indices fit in 64 segments.
//!
//! Invariant: a segment pointer goes from null to a live allocation once and stays until
//! the `Segments` drops or is taken apart (`into_elements`), with `&mut self`.

use std::sync::atomic::{AtomicPtr, Ordering};

const SEGMENTS: usize = usize::BITS as usize;

pub(crate) struct Segments<E> {
    cap: usize,
    segments: [AtomicPtr<E>; SEGMENTS],
}

// SAFETY: shared, a `Segments` hands out `&E` to any thread (so `E: Sync`) and may drop
// the elements on another thread than the one that made them (so `E: Send`).
unsafe impl<E: Send + Sync> Sync for Segments<E> {}
// SAFETY: owning the `Segments` owns every element in it.
unsafe impl<E: Send> Send for Segments<E> {}

/// Segment and offset of element `i` (`i < usize::MAX`).
fn place(i: usize) -> (usize, usize) {
    let n = i + 1;
    let s = n.ilog2() as usize;
    (s, n - (1usize << s))
}

impl<E> Segments<E> {
    /// Room for `cap` elements, none allocated.
    pub(crate) fn new(cap: usize) -> Segments<E> {
        Segments {
            cap,
            segments: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// How many elements segment `s` holds (`s` begins below `cap`).
    fn len_of(&self, s: usize) -> usize {
        let start = (1usize << s) - 1;
        (1usize << s).min(self.cap - start)
    }

    /// Element `i`, or `None` at or past the capacity. Allocates its segment, making each
    /// element with `make`, if no caller did before.
    pub(crate) fn get_or_make(&self, i: usize, make: impl Fn() -> E) -> Option<&E> {
        if i >= self.cap {
            return None;
        }
        let (s, off) = place(i);
        // Acquire: pairs with the compare-and-swap that installed the segment, so its
        // elements are seen made.
        let mut p = self.segments[s].load(Ordering::Acquire);
        if p.is_null() {
            let len = self.len_of(s);
            let fresh: Box<[E]> = (0..len).map(|_| make()).collect();
            let fresh = Box::into_raw(fresh) as *mut E;
            // AcqRel: releases the fresh elements to later loads; acquires the winner's
            // when this one loses.
            match self.segments[s].compare_exchange(
                std::ptr::null_mut(),
                fresh,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => p = fresh,
                Err(winner) => {
                    // SAFETY: `fresh` came from `Box::into_raw` of a `len`-element boxed
                    // slice just above and was never shared.
                    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(fresh, len)) });
                    p = winner;
                }
            }
        }
        // SAFETY: `p` is segment `s`'s live allocation of `len_of(s)` elements
        // (invariant), and `off < len_of(s)` because `i < cap`.
        Some(unsafe { &*p.add(off) })
    }

    /// Element `i` if its segment exists.
    pub(crate) fn get(&self, i: usize) -> Option<&E> {
        if i >= self.cap {
            return None;
        }
        let (s, off) = place(i);
        // Acquire: as in `get_or_make`.
        let p = self.segments[s].load(Ordering::Acquire);
        // SAFETY: as in `get_or_make`.
        (!p.is_null()).then(|| unsafe { &*p.add(off) })
    }

    /// Every allocated element, in index order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &E> {
        (0..SEGMENTS)
            .take_while(|&s| (1usize << s) - 1 < self.cap)
            .flat_map(move |s| {
                // Acquire: as in `get_or_make`.
                let p = self.segments[s].load(Ordering::Acquire);
                let seg: &[E] = if p.is_null() {
                    &[]
                } else {
                    // SAFETY: a live segment of `len_of(s)` elements (invariant).
                    unsafe { std::slice::from_raw_parts(p, self.len_of(s)) }
                };
                seg.iter()
            })
    }

    /// Every allocated element, moved out, in index order.
    pub(crate) fn into_elements(mut self) -> Vec<E> {
        let mut out = Vec::new();
        for s in 0..SEGMENTS {
            if let Some(seg) = self.take_segment(s) {
                out.extend(seg.into_vec());
            }
        }
        out
    }

    /// Segment `s`, taken out of the array (so it is freed once).
    fn take_segment(&mut self, s: usize) -> Option<Box<[E]>> {
        let p = std::mem::replace(self.segments[s].get_mut(), std::ptr::null_mut());
        // SAFETY: a non-null segment is a live allocation of `len_of(s)` elements from
        // `Box::into_raw`; it was just taken out of the array.
        (!p.is_null()).then(|| unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, self.len_of(s)))
        })
    }
}

impl<E> Drop for Segments<E> {
    fn drop(&mut self) {
        for s in 0..SEGMENTS {
            drop(self.take_segment(s));
        }
    }
}

impl<E> std::fmt::Debug for Segments<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segments")
            .field("capacity", &self.cap)
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{place, Segments};

    #[test]
    fn places_cover_every_index_once() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..1000 {
            let (s, off) = place(i);
            assert!(off < 1 << s);
            assert!(seen.insert((s, off)));
        }
        assert_eq!(place(usize::MAX - 1).0, 63);
    }

    #[test]
    fn a_huge_capacity_allocates_as_used() {
        // Smaller under Miri, which is slow to make a million elements.
        let (mid, big) = if cfg!(miri) {
            (300, 1 << 10)
        } else {
            (12345, 1 << 20)
        };
        let seg = Segments::<u32>::new(usize::MAX);
        for i in [0usize, 5, big, mid] {
            assert_eq!(seg.get(i), None);
            assert_eq!(seg.get_or_make(i, || 7), Some(&7));
        }
        // The segments of 0, 5, `mid` and `big` exist (1, 4 and two powers of two
        // elements), nothing else.
        let seg_len = |i: usize| 1usize << (i + 1).ilog2();
        assert_eq!(seg.iter().count(), 1 + 4 + seg_len(mid) + seg_len(big));
        assert_eq!(seg.get(6), Some(&7));
        assert_eq!(seg.get(2), None);
    }

    #[test]
    fn the_last_segment_is_cut_at_the_capacity() {
        let seg = Segments::<String>::new(5);
        for i in 0..5 {
            seg.get_or_make(i, String::new).unwrap();
        }
        assert!(seg.get_or_make(5, String::new).is_none());
        assert_eq!(seg.iter().count(), 5);
        assert_eq!(seg.into_elements().len(), 5);
    }
}
