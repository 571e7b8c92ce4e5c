//! `par_sort_by_cached_key`: computes each element's key once, in parallel, sorts the
//! (key, position) pairs with the parallel quicksort (positions are distinct, so the order
//! is stable), then applies the permutation to the slice by swaps.
//!
//! Invariant: the slice is changed only by swaps, after every key is known, so a panicking
//! key function leaves it untouched and a panicking `Ord` of the keys leaves it as it was
//! (the pairs are sorted in their own vector). The keys computed before a key function's
//! panic are dropped (each half's written pairs are a [`Written`] range).

use super::raw::Raw;
use crate::join;
use crate::par_iter::written::Written;

/// Below this many elements the keys are computed by one task.
const KEYS_SEQ: usize = 1024;

pub(super) fn par_sort_by_cached_key<T, K, F>(v: &mut [T], key: &F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    let n = v.len();
    if n < 2 {
        return;
    }
    let mut pairs: Vec<(K, usize)> = Vec::with_capacity(n);
    let written = fill_keys(v, pairs.as_mut_ptr(), 0, key);
    debug_assert_eq!(written.len(), n);
    let filled = written.release();
    // SAFETY: `fill_keys` returned normally, so it initialised all `n` slots, which it just
    // released to `pairs`.
    unsafe { pairs.set_len(filled) };
    super::quicksort::par_quicksort(&mut pairs, &|a: &(K, usize), b: &(K, usize)| a.cmp(b));
    // Element `pairs[i].1` belongs at `i`. Earlier swaps moved the element that was at a
    // position below `i` to where that position's pair points: follow the chain.
    for i in 0..n {
        let mut from = pairs[i].1;
        while from < i {
            from = pairs[from].1;
        }
        pairs[i].1 = from;
        v.swap(i, from);
    }
}

/// Writes `(key(&v[i]), base + i)` into slot `base + i` of the buffer at `out`, in
/// parallel, and returns the slots written (`base..base + v.len()`). On a panic of `key`
/// the pairs written so far are dropped.
fn fill_keys<T, K, F>(
    v: &mut [T],
    out: *mut (K, usize),
    base: usize,
    key: &F,
) -> Written<(K, usize)>
where
    T: Send,
    K: Send,
    F: Fn(&T) -> K + Sync,
{
    if v.len() <= KEYS_SEQ {
        let mut w = Written::empty(out.wrapping_add(base));
        let pairs = v.iter().enumerate().map(|(i, x)| (key(x), base + i));
        // SAFETY: slots `base..base + v.len()` are within the buffer (its capacity is the
        // whole slice's length), written by this leaf alone, once.
        unsafe { w.extend(pairs, v.len()) };
        return w;
    }
    let mid = v.len() / 2;
    let (v1, v2) = v.split_at_mut(mid);
    let out = Raw(out);
    let (a, b) = join(
        || fill_keys(v1, out.ptr(), base, key),
        || fill_keys(v2, out.ptr(), base + mid, key),
    );
    a.join(b)
}
