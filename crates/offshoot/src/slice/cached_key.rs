//! `par_sort_by_cached_key`: computes each element's key once, in parallel, sorts the
//! (key, position) pairs with the parallel quicksort (positions are distinct, so the order
//! is stable), then applies the permutation to the slice by swaps.
//!
//! Invariant: the slice is changed only by swaps, after every key is known, so a panicking
//! key function leaves it untouched and a panicking `Ord` of the keys leaves it as it was
//! (the pairs are sorted in their own vector).

use std::mem::MaybeUninit;

use crate::join;

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
    fill_keys(v, &mut pairs.spare_capacity_mut()[..n], 0, key);
    // SAFETY: `fill_keys` returned normally, so it initialised all `n` slots.
    unsafe { pairs.set_len(n) };
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

/// Writes `(key(&v[i]), base + i)` into `out[i]`, in parallel. On a panic of `key` the
/// keys written so far are leaked, never read.
fn fill_keys<T, K, F>(v: &mut [T], out: &mut [MaybeUninit<(K, usize)>], base: usize, key: &F)
where
    T: Send,
    K: Send,
    F: Fn(&T) -> K + Sync,
{
    if v.len() <= KEYS_SEQ {
        for (i, (x, o)) in v.iter().zip(out.iter_mut()).enumerate() {
            o.write((key(x), base + i));
        }
        return;
    }
    let mid = v.len() / 2;
    let (v1, v2) = v.split_at_mut(mid);
    let (o1, o2) = out.split_at_mut(mid);
    join(
        || fill_keys(v1, o1, base, key),
        || fill_keys(v2, o2, base + mid, key),
    );
}
