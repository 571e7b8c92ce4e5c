//! `flat_map`, `flat_map_iter`, `flatten`, `flatten_iter`: every item becomes an inner
//! iterator whose items are yielded in order. An inner parallel iterator runs sequentially
//! on the worker that produced it ([`ParallelIterator::into_seq`]), lazily (`seq.rs`): it
//! is never held whole and stops where its consumer stops; the outer range is what
//! splits. The results are not indexed.
//!
//! Invariants: each adaptor asks its base for exactly the indices it is asked for;
//! `flat_map` and `flatten` report `Lengths::deep` (an index may yield any number of
//! items), so early-exit consumers check and poll inside a block (`find.rs`).
//! `flat_map_iter` and `flatten_iter` do not: their inner iterators are the user's own
//! sequential ones, chosen for a tight loop, whose per-item check would cost more than the
//! item (10× on `flat_map_iter(|i| 0..8).any(..)`).

use std::fmt;

use super::{forward_to_base, IntoParallelIterator, ParallelIterator};

/// Defines a flattening adaptor: `$name<I, $($f)?>`, each base item `x` becoming the
/// sequential iterator `$inner(self, x)`.
macro_rules! flattener {
    ($(#[$doc:meta])* $name:ident [$($f:ident)?] ($($bound:tt)*) $item:ty, |$s:ident, $x:ident| $inner:expr,
     into_seq: |$this:ident| $seq:expr, deep: $deep:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        #[must_use = "lazy iterators do nothing unless consumed"]
        pub struct $name<I $(, $f)?> {
            base: I,
            $(f: $f,)?
        }

        /// The base only (an operation is a closure), as rayon's.
        impl<I: fmt::Debug $(, $f)?> fmt::Debug for $name<I $(, $f)?> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }

        impl<I, $($f,)? U> ParallelIterator for $name<I $(, $f)?>
        where
            I: ParallelIterator,
            $($bound)*
        {
            type Item = $item;
            type State = I::State;
            forward_to_base!(own_lengths);
            #[inline]
            fn lengths(&self) -> super::Lengths {
                let base = self.base.lengths();
                super::Lengths {
                    deep: base.deep || $deep,
                    ..base
                }
            }
            /// # Safety
            /// As for `ParallelIterator::block`: over the pipeline's life each index is handed
            /// out at most once (to `block`, `iblock` or `drop_block`), and
            /// `lo <= hi <= base_len()`.
            #[inline]
            unsafe fn block<'s>(
                &'s self,
                st: &'s mut I::State,
                lo: usize,
                hi: usize,
            ) -> impl Iterator<Item = $item> {
                let $s = self;
                // SAFETY: forwarded contract.
                unsafe { self.base.block(st, lo, hi) }.flat_map(move |$x| $inner)
            }
            #[inline]
            fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = $item> {
                let $s = self;
                self.base.flush(st).flat_map(move |$x| $inner)
            }
            /// Lazily, the inner iterators one after the other: a nested `flat_map` never
            /// holds an inner pipeline whole.
            fn into_seq(self) -> impl Iterator<Item = $item> {
                let $this = self;
                $seq
            }
        }
    };
}

flattener!(
    /// See [`ParallelIterator::flat_map`].
    FlatMap[F] (F: Fn(I::Item) -> U + Sync + Send, U: IntoParallelIterator,) U::Item,
    |s, x| (s.f)(x).into_par_iter().into_seq(),
    into_seq: |this| {
        let f = this.f;
        this.base.into_seq().flat_map(move |x| f(x).into_par_iter().into_seq())
    },
    deep: true
);
flattener!(
    /// See [`ParallelIterator::flat_map_iter`].
    FlatMapIter[F] (F: Fn(I::Item) -> U + Sync + Send, U: IntoIterator, U::Item: Send,) U::Item,
    |s, x| { let _ = s; (s.f)(x) },
    into_seq: |this| this.base.into_seq().flat_map(this.f),
    deep: false
);
flattener!(
    /// See [`ParallelIterator::flatten`].
    Flatten[] (I: ParallelIterator<Item = U>, U: IntoParallelIterator,) U::Item,
    |s, x| { let _ = s; x.into_par_iter().into_seq() },
    into_seq: |this| this.base.into_seq().flat_map(|x| x.into_par_iter().into_seq()),
    deep: true
);
flattener!(
    /// See [`ParallelIterator::flatten_iter`].
    FlattenIter[] (I: ParallelIterator<Item = U>, U: IntoIterator, U::Item: Send,) U::Item,
    |s, x| { let _ = s; x },
    into_seq: |this| this.base.into_seq().flatten(),
    deep: false
);

impl<I, F> FlatMap<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        FlatMap { base, f }
    }
}

impl<I, F> FlatMapIter<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        FlatMapIter { base, f }
    }
}

impl<I> Flatten<I> {
    pub(super) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> FlattenIter<I> {
    pub(super) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}
