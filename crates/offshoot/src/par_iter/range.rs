//! Integer and `char` ranges as sources. One generic impl per range kind, over the
//! sealed [`RangeInteger`], so an untyped `(0..n).into_par_iter()` falls back to `i32` as
//! sequential code does. A range is kept as its start and its length, so inclusive ranges
//! ending at the type's `MAX` work.
//!
//! A range with at most `usize::MAX` values is indexed: index `i` is value `start + i`. A
//! longer one (`u128`, `i128`, and the whole of `u64`/`usize` inclusive) runs as rayon runs
//! it, unindexed: its `usize::MAX` indices each stand for a run of consecutive values
//! ([`Spread`]), so a block yields its indices' runs in order (the consumer runs such a
//! range one index at a time and polls between indices; `find_*` also every 4096
//! items: `Lengths::runs`); it has no length
//! (`opt_len` is `None`), and the indexed operations (`len`, `zip`, `enumerate`, ...) panic
//! on it, as they do not compile on rayon's.
//!
//! Invariants:
//! * `start + k` fits the type for every value offset `k` of the range (the length is
//!   computed from the range itself), so `offset` never overflows in value.
//! * Spread: index `i` covers offsets `off(i)..off(i + 1)`, `off(i) = i * q + min(i, r)`,
//!   with `q >= 1` values each and one more for the first `r` (at most `usize::MAX`, so
//!   one index's run is a `Range<usize>`); `off(usize::MAX)` is the number of values, so
//!   the runs cover the range once, in order.

use std::ops::{Range, RangeInclusive};

use either::Either;

use super::{block_via_iblock, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

mod sealed {
    pub trait Sealed {}
}

/// The integer types whose ranges are parallel iterators (all of Rust's integers).
pub trait RangeInteger: Copy + Send + Sync + PartialOrd + sealed::Sealed + 'static {
    /// The number of values in `start..end` (`start <= end`).
    #[doc(hidden)]
    fn span(start: Self, end: Self) -> u128;
    /// `start + k`, known to fit.
    #[doc(hidden)]
    fn offset(start: Self, k: u128) -> Self;
}

macro_rules! range_integer {
    ($($t:ty => $u:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl RangeInteger for $t {
            #[inline]
            fn span(start: $t, end: $t) -> u128 {
                // The exact difference: it fits the unsigned type of the same width.
                end.wrapping_sub(start) as $u as u128
            }
            #[inline]
            fn offset(start: $t, k: u128) -> $t {
                // The true value fits (module invariant), so the wrapping sum is exact.
                start.wrapping_add(k as $t)
            }
        }
    )*};
}

range_integer!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize);

/// How a range longer than its indices spreads its values over them (module invariants).
#[derive(Clone, Copy, Debug)]
struct Spread {
    q: u128,
    r: u128,
}

impl Spread {
    /// `last + 1` values (`last` the offset of the last one, so `2^128` values fit) over
    /// `indices` indices, `indices <= last`.
    ///
    /// # Panics
    ///
    /// If an index would stand for more than `usize::MAX` values (a range of nearly all
    /// `2^128` values of `u128` or `i128`: a block is a `Range<usize>` of values).
    fn new(last: u128, indices: usize) -> Spread {
        let l = indices as u128;
        let (q, r) = (last / l, last % l);
        let sp = if r + 1 == l {
            Spread { q: q + 1, r: 0 }
        } else {
            Spread { q, r: r + 1 }
        };
        assert!(
            sp.q + u128::from(sp.r > 0) <= usize::MAX as u128,
            "offshoot: a range of more than (2^64 - 1)^2 values (nearly all of u128 or i128) \
             is not supported; iterate its halves one after the other"
        );
        sp
    }

    /// The offset of index `i`'s first value, modulo `2^128` (exact below the end).
    #[inline]
    fn off(self, i: usize) -> u128 {
        let i = i as u128;
        i.wrapping_mul(self.q).wrapping_add(i.min(self.r))
    }

    /// The offsets of the values of indices `lo..hi` (`lo < hi`), first and last.
    #[inline]
    fn offsets(self, lo: usize, hi: usize) -> RangeInclusive<u128> {
        self.off(lo)..=self.off(hi).wrapping_sub(1)
    }

    /// The first value's offset and the number of values of indices `lo..hi`
    /// (`lo < hi`), when that number fits a `usize` (always for one index).
    #[inline]
    fn run(self, lo: usize, hi: usize) -> Option<(u128, usize)> {
        let ks = self.offsets(lo, hi);
        let n = usize::try_from(ks.end() - ks.start())
            .ok()?
            .checked_add(1)?;
        Some((*ks.start(), n))
    }
}

/// The values of indices `lo..hi` of a spread range, as `base + (a..b)`.
#[cold]
#[inline(never)]
fn spread_block<T: RangeInteger>(start: T, sp: Spread, lo: usize, hi: usize) -> (T, usize, usize) {
    if lo == hi {
        return (start, 0, 0);
    }
    let (first, n) = sp.run(lo, hi).expect(MANY_VALUES);
    (T::offset(start, first), 0, n)
}

/// A block of a spread range with more values than a `usize` counts: the consumer runs
/// such a range one index at a time (`Lengths::runs`), so this does not happen.
const MANY_VALUES: &str =
    "offshoot: a block of a range longer than usize::MAX holds more than usize::MAX values";

const NO_INDEX: &str = "offshoot: the range has more than usize::MAX elements: it runs as an \
    unindexed ParallelIterator (as in rayon), with no length or index (len, zip, enumerate, \
    collect_into_vec, ...)";

/// A parallel iterator over an integer range (`Range` or `RangeInclusive`).
///
/// A range of at most `usize::MAX` values is indexed. A longer one (of `u128` or `i128`,
/// or all of `u64` inclusive) runs unindexed, as rayon's does: it has no length
/// ([`opt_len`](ParallelIterator::opt_len) is `None`), and an indexed operation on it
/// panics.
///
/// ```
/// use offshoot::prelude::*;
/// let octillion = 10u128.pow(27);
/// let x = (0..octillion).into_par_iter().find_any(|x| x % 1000 == 999);
/// assert!(x.is_some());
/// assert_eq!((0..octillion).into_par_iter().opt_len(), None);
/// assert_eq!((0..1000u128).into_par_iter().len(), 1000);
/// ```
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct RangeIter<T> {
    start: T,
    /// The number of indices: of values, unless `spread`.
    len: usize,
    /// More values than `usize::MAX`: how they spread over the `len == usize::MAX` indices.
    spread: Option<Spread>,
}

impl<T: RangeInteger> RangeIter<T> {
    /// The range of `last + 1` values from `start` (`None`: no values).
    fn new(start: T, last: Option<u128>) -> Self {
        match last {
            None => RangeIter {
                start,
                len: 0,
                spread: None,
            },
            Some(last) if last < usize::MAX as u128 => RangeIter {
                start,
                len: last as usize + 1,
                spread: None,
            },
            Some(last) => RangeIter {
                start,
                len: usize::MAX,
                spread: Some(Spread::new(last, usize::MAX)),
            },
        }
    }

    fn indexed(&self) {
        assert!(self.spread.is_none(), "{NO_INDEX}");
    }
}

impl<T: RangeInteger> ParallelIterator for RangeIter<T> {
    type Item = T;
    type State = ();
    #[inline]
    fn base_len(&self) -> usize {
        self.len
    }
    #[inline]
    fn state(&self) {}
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(&'s self, _: &'s mut (), lo: usize, hi: usize) -> impl Iterator<Item = T> {
        debug_assert!(lo <= hi && hi <= self.len);
        // One loop for both kinds (a spread block is its values' run), so an ordinary range's
        // block is exactly its `iblock`'s `Range<usize>` map.
        let (base, a, b) = match self.spread {
            None => (self.start, lo, hi),
            Some(sp) => spread_block(self.start, sp, lo, hi),
        };
        (a..b).map(move |j| T::offset(base, j as u128))
    }
    fn opt_len(&self) -> Option<usize> {
        self.spread.is_none().then_some(self.len)
    }
    fn lengths(&self) -> super::Lengths {
        super::Lengths {
            runs: self.spread.is_some(),
            ..super::Lengths::ANY
        }
    }
    fn into_seq(self) -> impl Iterator<Item = T> {
        let s = self.start;
        match self.spread {
            None => Either::Left((0..self.len).map(move |i| T::offset(s, i as u128))),
            // One index at a time: each one's run fits a `Range<usize>`.
            Some(sp) => Either::Right((0..self.len).flat_map(move |i| {
                let (first, n) = sp.run(i, i + 1).expect(MANY_VALUES);
                let base = T::offset(s, first);
                (0..n).map(move |j| T::offset(base, j as u128))
            })),
        }
    }
}

impl<T: RangeInteger> IndexedParallelIterator for RangeIter<T> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = T> + ExactSizeIterator {
        debug_assert!(lo <= hi && hi <= self.len);
        self.indexed();
        let s = self.start;
        (lo..hi).map(move |i| T::offset(s, i as u128))
    }
    fn len(&self) -> usize {
        self.indexed();
        self.len
    }
    fn truncate(&mut self, len: usize) {
        self.indexed();
        self.len = self.len.min(len);
    }
    fn advance(&mut self, n: usize) {
        self.indexed();
        let n = n.min(self.len);
        if n < self.len {
            self.start = T::offset(self.start, n as u128);
        }
        self.len -= n;
    }
}

impl<T: RangeInteger> IntoParallelIterator for Range<T> {
    type Iter = RangeIter<T>;
    type Item = T;
    fn into_par_iter(self) -> RangeIter<T> {
        let last = (self.start < self.end).then(|| T::span(self.start, self.end) - 1);
        RangeIter::new(self.start, last)
    }
}

impl<T: RangeInteger> IntoParallelIterator for RangeInclusive<T> {
    type Iter = RangeIter<T>;
    type Item = T;
    fn into_par_iter(self) -> RangeIter<T> {
        let empty = self.is_empty();
        let (s, e) = self.into_inner();
        RangeIter::new(s, (!empty).then(|| T::span(s, e)))
    }
}

/// The first surrogate code point and the number of them (they are not `char`s).
const SURROGATES: u32 = 0xD800;
const SURROGATE_COUNT: u32 = 0x800;

/// A parallel iterator over a range of `char`s (surrogates skipped, as sequentially).
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct CharRangeIter {
    /// The first code point.
    start: u32,
    len: usize,
}

impl CharRangeIter {
    /// The code points `from..to` (`from <= to`, both valid `char`s or `to` one past one).
    fn new(from: u32, to: u32) -> Self {
        let mut n = to - from;
        if from < SURROGATES && to >= SURROGATES + SURROGATE_COUNT {
            n -= SURROGATE_COUNT;
        }
        CharRangeIter {
            start: from,
            len: n as usize,
        }
    }

    #[inline]
    fn at(start: u32, i: usize) -> char {
        let mut c = start + i as u32;
        if start < SURROGATES && c >= SURROGATES {
            c += SURROGATE_COUNT;
        }
        char::from_u32(c).expect("offshoot: char range index out of range")
    }
}

impl ParallelIterator for CharRangeIter {
    type Item = char;
    type State = ();
    fn base_len(&self) -> usize {
        self.len
    }
    fn state(&self) {}
    block_via_iblock!();
}

impl IndexedParallelIterator for CharRangeIter {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn iblock<'s>(
        &'s self,
        _: &'s mut (),
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = char> + ExactSizeIterator {
        let s = self.start;
        (lo..hi).map(move |i| Self::at(s, i))
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
    fn advance(&mut self, n: usize) {
        let n = n.min(self.len);
        if n < self.len {
            // Index `n` becomes index 0; the gap rule still holds from the new start.
            self.start = Self::at(self.start, n) as u32;
        }
        self.len -= n;
    }
}

impl IntoParallelIterator for Range<char> {
    type Iter = CharRangeIter;
    type Item = char;
    fn into_par_iter(self) -> CharRangeIter {
        let (s, e) = (self.start as u32, self.end as u32);
        CharRangeIter::new(s, e.max(s))
    }
}

impl IntoParallelIterator for RangeInclusive<char> {
    type Iter = CharRangeIter;
    type Item = char;
    fn into_par_iter(self) -> CharRangeIter {
        if self.is_empty() {
            return CharRangeIter { start: 0, len: 0 };
        }
        let (s, e) = self.into_inner();
        CharRangeIter::new(s as u32, e as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs of a spread cover every offset once, in order, for many shapes (small index
    /// counts stand in for `usize::MAX`), including `2^128` values.
    #[test]
    fn a_spread_covers_every_value_once_in_order() {
        for &(last, indices) in &[(99u128, 7usize), (6, 7), (7, 7), (1000, 3), (13, 13)] {
            let sp = Spread::new(last, indices);
            let mut next = 0u128;
            for i in 0..indices {
                let ks = sp.offsets(i, i + 1);
                assert_eq!(*ks.start(), next, "({last}, {indices}) index {i}");
                assert!(ks.end() >= ks.start());
                next = ks.end() + 1;
            }
            assert_eq!(next, last + 1);
        }
        // The largest range a spread takes: usize::MAX values per index.
        let most = (usize::MAX as u128) * (usize::MAX as u128) - 1;
        let sp = Spread::new(most, usize::MAX);
        assert_eq!(*sp.offsets(0, usize::MAX).end(), most);
        assert_eq!(
            sp.run(usize::MAX - 1, usize::MAX),
            Some((most + 1 - usize::MAX as u128, usize::MAX))
        );
        let a = sp.offsets(0, 1000);
        let b = sp.offsets(1000, usize::MAX);
        assert_eq!(a.end() + 1, *b.start());
        assert!(std::panic::catch_unwind(|| Spread::new(most + 1, usize::MAX)).is_err());
    }

    #[test]
    fn an_octillion_spreads_over_every_index() {
        const OCTILLION: u128 = 10u128.pow(27);
        let r = (0..OCTILLION).into_par_iter();
        assert_eq!(r.base_len(), usize::MAX);
        // SAFETY: each index once, within the range.
        let first = unsafe { r.block(&mut (), 0, 1) }.count() as u128;
        assert_eq!(first, OCTILLION / usize::MAX as u128 + 1);
        // SAFETY: as above (the last index).
        let last = unsafe { r.block(&mut (), usize::MAX - 1, usize::MAX) }.last();
        assert_eq!(last, Some(OCTILLION - 1));
    }
}
