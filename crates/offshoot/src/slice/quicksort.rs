//! The unstable parallel sort: a quicksort on [`join`](crate::join) in the manner of
//! pdqsort, partitioning in place.
//!
//! Each call picks a pivot (median of three, or of three medians of three on long slices),
//! moves it to the front, partitions the rest with a branch-free Lomuto pass into
//! "less than the pivot" and "not less", puts the pivot between them and sorts both sides
//! in parallel. Short slices go to std's `sort_unstable_by`.
//!
//! * **Many equal elements:** a right side knows the pivot it was split off (`floor`, all
//!   its elements are not less than it). When its own pivot equals that floor, it
//!   partitions into "equal to the pivot" and "greater" instead, and only the greater part
//!   is sorted further: runs of equal keys cost one pass.
//! * **Bad pivots:** each call gets a budget of about log2(len) badly unbalanced
//!   partitions (the smaller side under an eighth); when it runs out, the slice goes to
//!   `sort_unstable_by`, whose worst case is O(n log n).
//!
//! Invariant (panic safety): the slice is only ever changed by swapping two of its
//! elements, so whenever the comparator panics — mid-partition, or in a sibling — the
//! slice holds a permutation of its input; nothing is lost or dropped twice.

use std::cmp::Ordering;
use std::mem::size_of;

use crate::join;

/// Slices at most this long are sorted whole by std (the leaves are at least this long).
const MIN_LEAF: usize = 4096;

/// Sorts `v` with `compare`, in parallel, without preserving the order of equal elements.
pub(crate) fn par_quicksort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let n = v.len();
    if size_of::<T>() == 0 || n <= MIN_LEAF {
        v.sort_unstable_by(compare);
        return;
    }
    let leaf = super::leaf_len(n, MIN_LEAF);
    let budget = usize::BITS - n.leading_zeros();
    quick(v, None, budget, leaf, compare);
}

fn quick<T, F>(v: &mut [T], floor: Option<&mut T>, budget: u32, leaf: usize, compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let n = v.len();
    if n <= leaf || budget == 0 {
        v.sort_unstable_by(compare);
        return;
    }
    let p = choose_pivot(v, compare);
    v.swap(0, p);
    let (pivot, rest) = v
        .split_first_mut()
        .expect("a long slice has a first element");
    if let Some(floor) = floor {
        if compare(floor, pivot) != Ordering::Less {
            // The pivot equals the floor: every element not greater than it equals it. Put
            // those first and go on with the greater ones only.
            let eq = partition(rest, |x| compare(pivot, x) != Ordering::Less);
            let (_, greater) = v.split_at_mut(eq + 1);
            quick(greater, None, budget, leaf, compare);
            return;
        }
    }
    let lt = partition(rest, |x| compare(x, pivot) == Ordering::Less);
    // The pivot goes between the two sides.
    v.swap(0, lt);
    let (left, right) = v.split_at_mut(lt);
    let (pivot, right) = right
        .split_first_mut()
        .expect("the pivot is in the right part");
    let budget = if left.len().min(right.len()) < n / 8 {
        budget - 1
    } else {
        budget
    };
    join(
        || quick(left, None, budget, leaf, compare),
        || quick(right, Some(pivot), budget, leaf, compare),
    );
}

/// Moves the elements for which `pred` holds to the front, by swaps only; returns how many
/// there are. Branch-free: every element is swapped with the first one not known to hold,
/// and that boundary moves on when it did hold.
fn partition<T>(v: &mut [T], pred: impl Fn(&T) -> bool) -> usize {
    let mut lt = 0;
    for i in 0..v.len() {
        let holds = pred(&v[i]);
        // Invariant: v[..lt] hold, v[lt..i] do not. Swapping v[i] with v[lt] keeps it
        // whichever way `holds` went.
        v.swap(i, lt);
        lt += holds as usize;
    }
    lt
}

/// The index of a pivot: a median of three, or on long slices the median of three such
/// medians spread over the slice.
fn choose_pivot<T, F>(v: &[T], compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    let n = v.len();
    let (a, b, c) = (n / 4, n / 2, n / 4 * 3);
    if n < 1024 {
        return median3(v, a, b, c, compare);
    }
    let d = n / 8;
    let a = median3(v, a - d, a, a + d, compare);
    let b = median3(v, b - d, b, b + d, compare);
    let c = median3(v, c - d, c, c + d, compare);
    median3(v, a, b, c, compare)
}

fn median3<T, F>(v: &[T], a: usize, b: usize, c: usize, compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    let less = |i: usize, j: usize| compare(&v[i], &v[j]) == Ordering::Less;
    if less(a, b) {
        if less(b, c) {
            b
        } else if less(a, c) {
            c
        } else {
            a
        }
    } else if less(a, c) {
        a
    } else if less(b, c) {
        c
    } else {
        b
    }
}
