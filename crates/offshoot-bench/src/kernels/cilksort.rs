//! `cilksort`: sorts random 64-bit keys with Cilk's mergesort, whose merge is
//! itself parallel.
//!
//! An array of at least QUICKSIZE keys is cut into four quarters that are
//! sorted in parallel (each recursively) into place, then the two pairs are
//! merged in parallel into the scratch buffer, then the two halves are merged
//! back. A merge splits the larger input at its middle key, finds that key's
//! rank in the other input by binary search, places it, and merges the two
//! sides in parallel; below MERGESIZE elements in the smaller input it merges
//! serially. Arrays shorter than QUICKSIZE are sorted with a serial
//! quicksort (median-of-three, Hoare partition) that hands ranges of at most
//! INSERTIONSIZE keys to insertion sort.
//!
//! Inputs: keys from a seeded SplitMix64: test 50,000, quick 500,000, full
//! 4,100,000 (the size in the Cilk-5 paper's table).
//! Cutoffs (Cilk-5's `cilksort.cilk`, used by every contender, serial too):
//! QUICKSIZE = 2048, MERGESIZE = 2048, INSERTIONSIZE = 20.
//! Source: `cilksort` of Cilk-5 (Frigo, Leiserson, Randall 1998); BOTS `sort`.
//! Check: the serial output must be sorted and equal to the input sorted by
//! `slice::sort_unstable`.

use super::{compare_slices, About, Kernel, KernelInfo, Size, Work};
use crate::harness::Contender;
use crate::rng::SplitMix64;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "cilksort",
    about: "mergesort of random u64 keys with a parallel merge",
    cutoff: "Cilk-5's: serial quicksort below QUICKSIZE = 2048 keys, serial merge below \
             MERGESIZE = 2048, insertion sort below INSERTIONSIZE = 20",
    source: "Cilk-5 `cilksort` (Frigo, Leiserson, Randall 1998), BOTS `sort`",
};

/// Below this many keys an array is sorted by the serial quicksort.
pub const QUICKSIZE: usize = 2048;
/// Below this many keys in the smaller input a merge is serial.
pub const MERGESIZE: usize = 2048;
/// Quicksort hands ranges of at most this many keys to insertion sort.
pub const INSERTIONSIZE: usize = 20;

type Key = u64;

/// Serial cilksort: the same recursion with the forks removed.
/// `tmp` is scratch space of the same length as `a`.
pub fn serial(a: &mut [Key], tmp: &mut [Key]) {
    debug_assert_eq!(a.len(), tmp.len());
    if a.len() < QUICKSIZE {
        seqquick(a);
        return;
    }
    let q = a.len() / 4;
    {
        let (a01, a23) = a.split_at_mut(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        let (a0, a1) = a01.split_at_mut(q);
        let (a2, a3) = a23.split_at_mut(q);
        let (t0, t1) = t01.split_at_mut(q);
        let (t2, t3) = t23.split_at_mut(q);
        serial(a0, t0);
        serial(a1, t1);
        serial(a2, t2);
        serial(a3, t3);
    }
    let (a01, a23) = a.split_at(2 * q);
    let (t01, t23) = tmp.split_at_mut(2 * q);
    merge_serial(&a01[..q], &a01[q..], t01);
    merge_serial(&a23[..q], &a23[q..], t23);
    merge_serial(&tmp[..2 * q], &tmp[2 * q..], a);
}

fn merge_serial(x: &[Key], y: &[Key], dest: &mut [Key]) {
    let (x, y) = if y.len() > x.len() { (y, x) } else { (x, y) };
    if y.len() <= MERGESIZE {
        seqmerge(x, y, dest);
        return;
    }
    let (m, k) = split_point(x, y);
    dest[m + k] = x[m];
    let (lo, hi) = dest.split_at_mut(m + k);
    merge_serial(&x[..m], &y[..k], lo);
    merge_serial(&x[m + 1..], &y[k..], &mut hi[1..]);
}

/// Parallel cilksort with `offshoot::join`.
pub fn offshoot(a: &mut [Key], tmp: &mut [Key]) {
    debug_assert_eq!(a.len(), tmp.len());
    if a.len() < QUICKSIZE {
        seqquick(a);
        return;
    }
    let q = a.len() / 4;
    {
        let (a01, a23) = a.split_at_mut(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        let (a0, a1) = a01.split_at_mut(q);
        let (a2, a3) = a23.split_at_mut(q);
        let (t0, t1) = t01.split_at_mut(q);
        let (t2, t3) = t23.split_at_mut(q);
        offshoot::join(
            || offshoot::join(|| offshoot(a0, t0), || offshoot(a1, t1)),
            || offshoot::join(|| offshoot(a2, t2), || offshoot(a3, t3)),
        );
    }
    {
        let (a01, a23) = a.split_at(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        offshoot::join(
            || merge_offshoot(&a01[..q], &a01[q..], t01),
            || merge_offshoot(&a23[..q], &a23[q..], t23),
        );
    }
    merge_offshoot(&tmp[..2 * q], &tmp[2 * q..], a);
}

fn merge_offshoot(x: &[Key], y: &[Key], dest: &mut [Key]) {
    let (x, y) = if y.len() > x.len() { (y, x) } else { (x, y) };
    if y.len() <= MERGESIZE {
        seqmerge(x, y, dest);
        return;
    }
    let (m, k) = split_point(x, y);
    dest[m + k] = x[m];
    let (lo, hi) = dest.split_at_mut(m + k);
    offshoot::join(
        || merge_offshoot(&x[..m], &y[..k], lo),
        || merge_offshoot(&x[m + 1..], &y[k..], &mut hi[1..]),
    );
}

/// Parallel cilksort with `rayon::join`.
pub fn rayon(a: &mut [Key], tmp: &mut [Key]) {
    debug_assert_eq!(a.len(), tmp.len());
    if a.len() < QUICKSIZE {
        seqquick(a);
        return;
    }
    let q = a.len() / 4;
    {
        let (a01, a23) = a.split_at_mut(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        let (a0, a1) = a01.split_at_mut(q);
        let (a2, a3) = a23.split_at_mut(q);
        let (t0, t1) = t01.split_at_mut(q);
        let (t2, t3) = t23.split_at_mut(q);
        rayon::join(
            || rayon::join(|| rayon(a0, t0), || rayon(a1, t1)),
            || rayon::join(|| rayon(a2, t2), || rayon(a3, t3)),
        );
    }
    {
        let (a01, a23) = a.split_at(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        rayon::join(
            || merge_rayon(&a01[..q], &a01[q..], t01),
            || merge_rayon(&a23[..q], &a23[q..], t23),
        );
    }
    merge_rayon(&tmp[..2 * q], &tmp[2 * q..], a);
}

fn merge_rayon(x: &[Key], y: &[Key], dest: &mut [Key]) {
    let (x, y) = if y.len() > x.len() { (y, x) } else { (x, y) };
    if y.len() <= MERGESIZE {
        seqmerge(x, y, dest);
        return;
    }
    let (m, k) = split_point(x, y);
    dest[m + k] = x[m];
    let (lo, hi) = dest.split_at_mut(m + k);
    rayon::join(
        || merge_rayon(&x[..m], &y[..k], lo),
        || merge_rayon(&x[m + 1..], &y[k..], &mut hi[1..]),
    );
}

/// Parallel cilksort with chili's `Scope::join`.
pub fn chili(s: &mut chili::Scope<'_>, a: &mut [Key], tmp: &mut [Key]) {
    debug_assert_eq!(a.len(), tmp.len());
    if a.len() < QUICKSIZE {
        seqquick(a);
        return;
    }
    let q = a.len() / 4;
    {
        let (a01, a23) = a.split_at_mut(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        let (a0, a1) = a01.split_at_mut(q);
        let (a2, a3) = a23.split_at_mut(q);
        let (t0, t1) = t01.split_at_mut(q);
        let (t2, t3) = t23.split_at_mut(q);
        // chili runs its second closure first: keep serial's order.
        s.join(
            |s| s.join(|s| chili(s, a3, t3), |s| chili(s, a2, t2)),
            |s| s.join(|s| chili(s, a1, t1), |s| chili(s, a0, t0)),
        );
    }
    {
        let (a01, a23) = a.split_at(2 * q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        s.join(
            |s| merge_chili(s, &a23[..q], &a23[q..], t23),
            |s| merge_chili(s, &a01[..q], &a01[q..], t01),
        );
    }
    merge_chili(s, &tmp[..2 * q], &tmp[2 * q..], a);
}

fn merge_chili(s: &mut chili::Scope<'_>, x: &[Key], y: &[Key], dest: &mut [Key]) {
    let (x, y) = if y.len() > x.len() { (y, x) } else { (x, y) };
    if y.len() <= MERGESIZE {
        seqmerge(x, y, dest);
        return;
    }
    let (m, k) = split_point(x, y);
    dest[m + k] = x[m];
    let (lo, hi) = dest.split_at_mut(m + k);
    s.join(
        |s| merge_chili(s, &x[m + 1..], &y[k..], &mut hi[1..]),
        |s| merge_chili(s, &x[..m], &y[..k], lo),
    );
}

/// For a merge of sorted `x` (the larger) and `y`: the middle index `m` of
/// `x` and the number `k` of keys of `y` that are <= `x[m]`. Keys
/// `x[..m]` and `y[..k]` go before `x[m]` in the output, the rest after.
#[inline]
fn split_point(x: &[Key], y: &[Key]) -> (usize, usize) {
    let m = x.len() / 2;
    let pivot = x[m];
    (m, y.partition_point(|&v| v <= pivot))
}

/// Serial merge of sorted `x` and `y` into `dest` (`dest.len() == x.len() + y.len()`).
fn seqmerge(x: &[Key], y: &[Key], dest: &mut [Key]) {
    debug_assert_eq!(dest.len(), x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    for d in dest.iter_mut() {
        if j >= y.len() || (i < x.len() && x[i] <= y[j]) {
            *d = x[i];
            i += 1;
        } else {
            *d = y[j];
            j += 1;
        }
    }
}

/// Cilk's serial quicksort: partition, recurse on the left part, loop on the
/// right part, insertion sort for short ranges.
fn seqquick(mut a: &mut [Key]) {
    while a.len() > INSERTIONSIZE {
        let split = partition(a);
        let (left, right) = std::mem::take(&mut a).split_at_mut(split);
        seqquick(left);
        a = right;
    }
    insertion(a);
}

/// Hoare partition around the median of the first, middle and last keys
/// (moved to the middle). Returns `s` with `0 < s < len`, every key of
/// `a[..s]` <= every key of `a[s..]`.
fn partition(a: &mut [Key]) -> usize {
    let (lo, mid, hi) = (0, a.len() / 2, a.len() - 1);
    if a[mid] < a[lo] {
        a.swap(mid, lo);
    }
    if a[hi] < a[lo] {
        a.swap(hi, lo);
    }
    if a[hi] < a[mid] {
        a.swap(hi, mid);
    }
    let pivot = a[mid];
    let (mut i, mut j) = (lo, hi);
    loop {
        while a[i] < pivot {
            i += 1;
        }
        while a[j] > pivot {
            j -= 1;
        }
        if i >= j {
            return j + 1;
        }
        a.swap(i, j);
        i += 1;
        j -= 1;
    }
}

fn insertion(a: &mut [Key]) {
    for i in 1..a.len() {
        let v = a[i];
        let mut j = i;
        while j > 0 && a[j - 1] > v {
            a[j] = a[j - 1];
            j -= 1;
        }
        a[j] = v;
    }
}

struct CilkSort {
    input: Vec<Key>,
    data: Vec<Key>,
    tmp: Vec<Key>,
    expected: Vec<Key>,
    accepted: bool,
}

/// `n` keys from a seeded generator.
pub fn keys(n: usize, seed: u64) -> Vec<Key> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

/// The keys' seed (the peers get it on their command line).
const SEED: u64 = 0x5027;

fn prepare(size: Size) -> CilkSort {
    let n = match size {
        Size::Test => 50_000,
        Size::Quick => 250_000,
        Size::Full => 4_100_000,
    };
    let input = keys(n, SEED);
    let mut expected = input.clone();
    expected.sort_unstable();
    CilkSort {
        data: input.clone(),
        tmp: vec![0; n],
        input,
        expected,
        accepted: false,
    }
}

impl Work for CilkSort {
    fn input(&self) -> String {
        format!("{} random u64 keys", self.input.len())
    }
    fn reset(&mut self) {
        self.data.copy_from_slice(&self.input);
        self.tmp.fill(0);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        if !self.data.windows(2).all(|w| w[0] <= w[1]) {
            return Err("the serial output is not sorted".to_string());
        }
        compare_slices(&self.data, &self.expected)
            .map_err(|e| format!("serial output differs from std's sort: {e}"))?;
        self.accepted = true;
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        if !self.accepted {
            return Err("no reference answer (serial run missing)".to_string());
        }
        compare_slices(&self.data, &self.expected)
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, |k| serial(&mut k.data, &mut k.tmp))
        .offshoot(|k| offshoot(&mut k.data, &mut k.tmp))
        .rayon(|k| rayon(&mut k.data, &mut k.tmp))
        .chili(|k, s| chili(s, &mut k.data, &mut k.tmp))
        .peers(Contender::PEERS, |k| {
            if !k.accepted {
                return Err("no reference answer (serial run missing)".to_string());
            }
            Ok(crate::peers::PeerInput {
                args: vec![k.input.len().to_string(), SEED.to_string()],
                answer: crate::peers::digest_words(k.expected.iter().copied()),
            })
        })
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_sorts() {
        for n in [0, 1, 2, 3, 20, 21, 100, 2047, 2048, 9000, 50_000] {
            let mut a = keys(n, n as u64);
            let mut want = a.clone();
            want.sort_unstable();
            let mut tmp = vec![0; n];
            serial(&mut a, &mut tmp);
            assert_eq!(a, want, "n = {n}");
        }
    }

    #[test]
    fn serial_sorts_many_duplicates() {
        let mut a: Vec<Key> = keys(30_000, 3).into_iter().map(|k| k % 7).collect();
        let mut want = a.clone();
        want.sort_unstable();
        let mut tmp = vec![0; a.len()];
        serial(&mut a, &mut tmp);
        assert_eq!(a, want);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
