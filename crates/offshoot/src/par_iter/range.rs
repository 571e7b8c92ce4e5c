//! Integer and `char` ranges as indexed sources. One generic impl per range kind, over the
//! sealed [`RangeInteger`], so an untyped `(0..n).into_par_iter()` falls back to `i32` as
//! sequential code does. A range is kept as its start and its length, so inclusive ranges
//! ending at the type's `MAX` work.
//!
//! Invariant: `start + i` fits the type for every index `i < len` (the length is computed
//! from the range itself), so `offset` never overflows in value.

use std::ops::{Range, RangeInclusive};

use super::{block_via_iblock, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

mod sealed {
    pub trait Sealed {}
}

/// The integer types whose ranges are parallel iterators (all of Rust's integers).
pub trait RangeInteger: Copy + Send + Sync + PartialOrd + sealed::Sealed + 'static {
    /// The number of values in `start..end` (`start <= end`).
    #[doc(hidden)]
    fn span(start: Self, end: Self) -> u128;
    /// `start + i`, known to fit.
    #[doc(hidden)]
    fn offset(start: Self, i: usize) -> Self;
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
            fn offset(start: $t, i: usize) -> $t {
                // The true value fits (module invariant), so the wrapping sum is exact.
                start.wrapping_add(i as $t)
            }
        }
    )*};
}

range_integer!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize);

fn length(n: u128) -> usize {
    usize::try_from(n).expect("offshoot: the range has more than usize::MAX elements")
}

/// A parallel iterator over an integer range (`Range` or `RangeInclusive`).
#[derive(Clone, Debug)]
pub struct RangeIter<T> {
    start: T,
    len: usize,
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
    block_via_iblock!();
    fn into_seq(self) -> impl Iterator<Item = T> {
        let s = self.start;
        (0..self.len).map(move |i| T::offset(s, i))
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
        let s = self.start;
        (lo..hi).map(move |i| T::offset(s, i))
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
    fn advance(&mut self, n: usize) {
        let n = n.min(self.len);
        if n < self.len {
            self.start = T::offset(self.start, n);
        }
        self.len -= n;
    }
}

impl<T: RangeInteger> IntoParallelIterator for Range<T> {
    type Iter = RangeIter<T>;
    type Item = T;
    fn into_par_iter(self) -> RangeIter<T> {
        let len = if self.start < self.end {
            length(T::span(self.start, self.end))
        } else {
            0
        };
        RangeIter {
            start: self.start,
            len,
        }
    }
}

impl<T: RangeInteger> IntoParallelIterator for RangeInclusive<T> {
    type Iter = RangeIter<T>;
    type Item = T;
    /// # Panics
    ///
    /// If the range has more than `usize::MAX` elements.
    fn into_par_iter(self) -> RangeIter<T> {
        if self.is_empty() {
            let (s, _) = self.into_inner();
            return RangeIter { start: s, len: 0 };
        }
        let (s, e) = self.into_inner();
        let n = T::span(s, e)
            .checked_add(1)
            .expect("offshoot: the range has more than usize::MAX elements");
        RangeIter {
            start: s,
            len: length(n),
        }
    }
}

/// The first surrogate code point and the number of them (they are not `char`s).
const SURROGATES: u32 = 0xD800;
const SURROGATE_COUNT: u32 = 0x800;

/// A parallel iterator over a range of `char`s (surrogates skipped, as sequentially).
#[derive(Clone, Debug)]
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
