//! The stable parallel sort: a merge sort on [`join`](crate::join) with one scratch buffer.
//!
//! `sort(v, buf, into_buf)` sorts the elements of `v` and leaves them in `v` (or, with
//! `into_buf`, in `buf`). Above the leaf size it sorts the two halves into the *other* side
//! (in parallel), then merges them back into its own destination; the merge splits the
//! longer run at its middle, finds the split of the shorter run by binary search and merges
//! the two pairs in parallel, until the pieces are small enough for a sequential merge.
//! Leaves are sorted with std's stable `sort_by` (copied over when they belong in `buf`).
//!
//! Invariants:
//! * Elements only move bitwise between `v` and `buf` (copies, never clones); the buffer
//!   is a `Vec` of length 0, so it never drops an element itself.
//! * **Panic safety:** whether a call returns, unwinds (a comparator panicked, or a
//!   sibling's panic stopped it) or is dropped unrun (a failed `join` never starts its
//!   second closure), every element of its range ends in the call's destination side
//!   exactly once. A sequential merge keeps that with a guard that moves what it has not
//!   merged yet to the rest of its destination; a sort whose halves ended but that fails
//!   before its merge moves the halves over; every closure handed to `join` carries a
//!   guard ([`Unrun`]) that does the call's moves if the closure is dropped before it
//!   starts. So a panicking comparator leaves `v` a permutation of its input: nothing
//!   lost, nothing dropped twice.
//! * Stability: a merge takes from the left run on ties, and its splits send every element
//!   of the right run that equals the left pivot to the right (and every element of the
//!   left run that equals the right pivot to the left).

use std::cmp::Ordering;
use std::mem::{self, size_of};
use std::ptr;

use super::raw::Raw;
use crate::join;

/// Leaves are at least this long (std's sort is fastest on the pieces it sorts whole).
const MIN_LEAF: usize = 4096;
/// A merge whose output is at most this long runs sequentially.
const MERGE_SEQ: usize = 4096;

/// Sorts `v` stably with `compare`, in parallel.
pub(crate) fn par_mergesort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let n = v.len();
    if size_of::<T>() == 0 || n <= MIN_LEAF {
        v.sort_by(compare);
        return;
    }
    let leaf = super::leaf_len(n, MIN_LEAF);
    let mut buf: Vec<T> = Vec::with_capacity(n);
    let src = Raw(v.as_mut_ptr());
    let dst = Raw(buf.as_mut_ptr());
    // SAFETY: `v` and `buf` are disjoint, each `n` long (`buf`'s capacity), and borrowed
    // exclusively for the call; `sort` leaves every element in `v` however it ends.
    unsafe { sort(src, dst, n, false, leaf, compare) };
}

/// Moves `len` elements from `from` to `to` when dropped (unless forgotten): what an
/// unwinding sort or merge owes its destination.
struct MoveOnDrop<T> {
    from: *const T,
    to: *mut T,
    len: usize,
}

// SAFETY: the guard stands for moving `Send` elements between ranges that its owner owns
// exclusively; it may go with its owner (a closure) to another worker.
unsafe impl<T: Send> Send for MoveOnDrop<T> {}

impl<T> MoveOnDrop<T> {
    /// A guard for `len` elements from `from` to `to`, or none when there is nothing to
    /// move (the elements are where they must end).
    fn new(from: Raw<T>, to: Raw<T>, len: usize) -> Option<MoveOnDrop<T>> {
        (!ptr::eq(from.0, to.0)).then(|| MoveOnDrop {
            from: from.0,
            to: to.0,
            len,
        })
    }
}

/// The moves a call would owe its destination if its closure were dropped before it ran:
/// done on drop, unless [`Unrun::start`] disarmed them first.
struct Unrun<T>(#[allow(dead_code)] [Option<MoveOnDrop<T>>; 2]);

impl<T> Unrun<T> {
    /// The closure runs: from now on the call keeps its invariant itself.
    fn start(self) {
        mem::forget(self);
    }
}

impl<T> Drop for MoveOnDrop<T> {
    fn drop(&mut self) {
        // SAFETY: whoever armed the guard owns both ranges, which are disjoint; the `len`
        // elements at `from` are initialised and `to` is their destination.
        unsafe { ptr::copy_nonoverlapping(self.from, self.to, self.len) };
    }
}

/// Sorts the `n` elements at `v`, leaving them at `v` (or at `buf` when `into_buf`).
///
/// # Safety
/// `v` holds `n` initialised elements; `buf` has room for `n`; the ranges are disjoint and
/// used by nobody else during the call. On return or unwind the elements are at the
/// destination and the other range is logically uninitialised.
unsafe fn sort<T, F>(v: Raw<T>, buf: Raw<T>, n: usize, into_buf: bool, leaf: usize, compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if n <= leaf {
        // A leaf that belongs in `buf` moves over when sorted, or (permuted) on an unwind.
        let _to_buf = into_buf.then(|| MoveOnDrop {
            from: v.0,
            to: buf.0,
            len: n,
        });
        // SAFETY: `v` holds `n` initialised elements nobody else uses.
        unsafe { std::slice::from_raw_parts_mut(v.0, n) }.sort_by(compare);
        return;
    }
    let mid = n / 2;
    // The halves go to the other side; from there they are merged into ours.
    let (from, to) = if into_buf { (v, buf) } else { (buf, v) };
    // However the halves end they leave their elements at `from`; if the join unwinds,
    // move them to `to`.
    let guard = MoveOnDrop {
        from: from.0,
        to: to.0,
        len: n,
    };
    // SAFETY: the halves split both ranges at `mid`, disjointly.
    let (v2, buf2, from2) = unsafe { (v.add(mid), buf.add(mid), from.add(mid)) };
    // A half that never runs still has its elements in `v`; its destination is `from`.
    let unrun = |v: Raw<T>, from: Raw<T>, len| Unrun([MoveOnDrop::new(v, from, len), None]);
    let (u1, u2) = (unrun(v, from, mid), unrun(v2, from2, n - mid));
    join(
        || {
            u1.start();
            // SAFETY: the first halves of both ranges, used by this closure only.
            unsafe { sort(v, buf, mid, !into_buf, leaf, compare) }
        },
        || {
            u2.start();
            // SAFETY: the second halves.
            unsafe { sort(v2, buf2, n - mid, !into_buf, leaf, compare) }
        },
    );
    mem::forget(guard);
    // SAFETY: both sorted runs are at `from`, `to` has room for all `n`; disjoint.
    unsafe { merge(from, mid, from.add(mid), n - mid, to, compare) };
}

/// Merges the sorted runs `a` (`alen`) and `b` (`blen`) into `dst`, stably, in parallel.
///
/// # Safety
/// The runs hold initialised elements, `dst` has room for `alen + blen`, and the three
/// ranges are disjoint and used by nobody else. On return or unwind every element is in
/// `dst` (the runs are then logically uninitialised).
unsafe fn merge<T, F>(a: Raw<T>, alen: usize, b: Raw<T>, blen: usize, dst: Raw<T>, compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if alen + blen <= MERGE_SEQ || alen == 0 || blen == 0 {
        // SAFETY: forwarded.
        unsafe { merge_seq(a.0, alen, b.0, blen, dst.0, compare) };
        return;
    }
    // Until the halves take over, an unwind (the comparator in the search) moves both runs.
    // SAFETY: `dst` has room for `alen + blen`.
    let dst_b = unsafe { dst.add(alen) };
    let guards = (
        MoveOnDrop::new(a, dst, alen),
        MoveOnDrop::new(b, dst_b, blen),
    );
    // SAFETY: the runs are initialised and not written during the search.
    let (sa, sb) = unsafe {
        (
            std::slice::from_raw_parts(a.0, alen),
            std::slice::from_raw_parts(b.0, blen),
        )
    };
    let (i, j) = if alen >= blen {
        // Elements of `b` equal to the pivot go after it (to the right).
        let i = alen / 2;
        let j = sb.partition_point(|x| compare(x, &sa[i]) == Ordering::Less);
        (i, j)
    } else {
        // Elements of `a` equal to the pivot go before it (to the left).
        let j = blen / 2;
        let i = sa.partition_point(|x| compare(&sb[j], x) != Ordering::Less);
        (i, j)
    };
    mem::forget(guards);
    // SAFETY: `a[..i] + b[..j]` go to `dst[..i + j]`, the rest after: disjoint pieces.
    let (a2, b2, dst2, dst1_b, dst2_b) = unsafe {
        (
            a.add(i),
            b.add(j),
            dst.add(i + j),
            dst.add(i),
            dst.add(i + j + (alen - i)),
        )
    };
    // A piece that never runs moves both of its runs to its part of `dst`.
    let u1 = Unrun([MoveOnDrop::new(a, dst, i), MoveOnDrop::new(b, dst1_b, j)]);
    let u2 = Unrun([
        MoveOnDrop::new(a2, dst2, alen - i),
        MoveOnDrop::new(b2, dst2_b, blen - j),
    ]);
    join(
        || {
            u1.start();
            // SAFETY: the left pieces, used by this closure only.
            unsafe { merge(a, i, b, j, dst, compare) }
        },
        || {
            u2.start();
            // SAFETY: the right pieces.
            unsafe { merge(a2, alen - i, b2, blen - j, dst2, compare) }
        },
    );
}

/// The sequential merge: takes the smaller head (the left one on ties) until a run ends.
///
/// # Safety
/// As for [`merge`].
unsafe fn merge_seq<T, F>(a: *mut T, alen: usize, b: *mut T, blen: usize, dst: *mut T, compare: &F)
where
    F: Fn(&T, &T) -> Ordering,
{
    /// What is left of both runs and where it goes; on drop (the end, or an unwind out of
    /// `compare`) moves the rest of `a`, then the rest of `b`, to `out`.
    struct Rest<T> {
        a: *const T,
        a_end: *const T,
        b: *const T,
        b_end: *const T,
        out: *mut T,
    }
    impl<T> Drop for Rest<T> {
        fn drop(&mut self) {
            // SAFETY: `a..a_end` and `b..b_end` are the unmerged, initialised elements, and
            // `out` has room for exactly them (every merged element advanced it by one).
            unsafe {
                let na = self.a_end.offset_from(self.a) as usize;
                ptr::copy_nonoverlapping(self.a, self.out, na);
                let nb = self.b_end.offset_from(self.b) as usize;
                ptr::copy_nonoverlapping(self.b, self.out.add(na), nb);
            }
        }
    }
    // SAFETY: the ends are one past the runs.
    let mut r = unsafe {
        Rest {
            a,
            a_end: a.add(alen),
            b,
            b_end: b.add(blen),
            out: dst,
        }
    };
    while r.a < r.a_end && r.b < r.b_end {
        // SAFETY: both heads are initialised elements of their runs; `compare` may unwind,
        // and then `r` (still consistent) moves the rest.
        let take_b = unsafe { compare(&*r.b, &*r.a) } == Ordering::Less;
        let src = if take_b { r.b } else { r.a };
        // SAFETY: `out` has room for this element; then the pointers advance past it, so
        // it is counted in exactly one place.
        unsafe {
            ptr::copy_nonoverlapping(src, r.out, 1);
            r.out = r.out.add(1);
            if take_b {
                r.b = r.b.add(1);
            } else {
                r.a = r.a.add(1);
            }
        }
    }
    // Dropping `r` moves the tail of the run that is left.
}
