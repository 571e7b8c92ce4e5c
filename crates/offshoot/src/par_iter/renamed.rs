//! rayon's adaptor types whose work another pipeline already does: `skip` is an `advance`
//! of its base, `zip_eq` a checked [`Zip`], `skip_any` a [`TakeAny`], `fold_chunks` a
//! [`Map`] of [`Chunks`], `split` a `Vec`'s [`IntoIter`], ... Each is a newtype with
//! rayon's name and rayon's generic parameters around that pipeline, so that code naming
//! rayon's types (`rayon::iter::Skip<I>`) compiles, while the work is what it was.
//!
//! Invariant: a newtype forwards every protocol method (`base_len`, `state`, `block`,
//! `flush`, `drop_block`, `exhausted`, `lengths`, `into_seq`, `opt_len`; `iblock`,
//! `len`, `truncate`, `advance`) to its inner pipeline (its `base`) unchanged, so it hands
//! out exactly the indices it is asked for, as the inner one does.

use std::fmt;
use std::marker::PhantomData;

use super::map::{ClonedOp, CopiedOp, InspectOp, MapOp, UpdateOp};
use super::map_init::{CloneState, InitOp};
use super::{
    forward_shape, forward_to_base, AnyWhile, Chunks, Enumerate, FilterMap,
    IndexedParallelIterator, Interleave, IntoIter, Map, MapInit, ParallelIterator, TakeAny, Zip,
};

/// Defines, for each `$name<$p...> = $inner;`, a `pub struct $name<$p...>` holding the
/// pipeline `$inner` as its `base`, with the protocol forwarded to it, `Clone` when the
/// base is `Clone`, and `Debug` as `$name { base: .. }` when the base is `Debug`.
macro_rules! renamed {
    ($($(#[$doc:meta])* $name:ident<$($p:ident),+> = $inner:ty;)+) => {$(
        $(#[$doc])*
        #[must_use = "lazy iterators do nothing unless consumed"]
        pub struct $name<$($p),+> {
            base: $inner,
            marker: PhantomData<fn() -> ($($p,)+)>,
        }

        impl<$($p),+> $name<$($p),+> {
            pub(super) fn new(base: $inner) -> Self {
                $name { base, marker: PhantomData }
            }
        }

        impl<$($p),+> Clone for $name<$($p),+>
        where
            $inner: Clone,
        {
            fn clone(&self) -> Self {
                $name::new(self.base.clone())
            }
        }

        impl<$($p),+> fmt::Debug for $name<$($p),+>
        where
            $inner: fmt::Debug,
        {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("base", &self.base).finish()
            }
        }

        impl<$($p),+> ParallelIterator for $name<$($p),+>
        where
            $inner: ParallelIterator,
        {
            type Item = <$inner as ParallelIterator>::Item;
            type State = <$inner as ParallelIterator>::State;
            forward_to_base!();
            $crate::par_iter::forward_items!();
            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }
        }

        impl<$($p),+> IndexedParallelIterator for $name<$($p),+>
        where
            $inner: IndexedParallelIterator,
        {
            /// # Safety
            /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`):
            /// each index is handed out at most once over the pipeline's life, and
            /// `lo <= hi <= base_len()`.
            #[inline]
            unsafe fn iblock<'s>(
                &'s self,
                st: &'s mut Self::State,
                lo: usize,
                hi: usize,
            ) -> impl DoubleEndedIterator<Item = Self::Item> + ExactSizeIterator {
                // SAFETY: forwarded contract.
                unsafe { self.base.iblock(st, lo, hi) }
            }
            fn len(&self) -> usize {
                self.base.len()
            }
            forward_shape!();
        }
    )+};
}

renamed! {
    /// See [`ParallelIterator::cloned`].
    Cloned<I> = Map<I, ClonedOp>;
    /// See [`ParallelIterator::copied`].
    Copied<I> = Map<I, CopiedOp>;
    /// See [`ParallelIterator::inspect`].
    Inspect<I, F> = Map<I, InspectOp<F>>;
    /// See [`ParallelIterator::update`].
    Update<I, F> = Map<I, UpdateOp<F>>;
    /// See [`ParallelIterator::panic_fuse`]: the base, unchanged.
    PanicFuse<I> = I;
    /// See [`ParallelIterator::skip_any`].
    SkipAny<I> = TakeAny<I>;
    /// See [`ParallelIterator::take_any_while`].
    TakeAnyWhile<I, P> = AnyWhile<I, P>;
    /// See [`ParallelIterator::skip_any_while`].
    SkipAnyWhile<I, P> = AnyWhile<I, P>;
    /// See [`IndexedParallelIterator::skip`]: the base, without its first `n` indices.
    Skip<I> = I;
    /// See [`IndexedParallelIterator::take`]: the base, cut after its first `n` indices.
    Take<I> = I;
    /// See [`IndexedParallelIterator::zip_eq`]: a [`Zip`] of two sides of equal length.
    ZipEq<A, B> = Zip<A, B>;
    /// See [`IndexedParallelIterator::interleave_shortest`]: an [`Interleave`] of the two
    /// sides cut where the shorter one ends.
    InterleaveShortest<I, J> = Interleave<I, J>;
    /// See [`IndexedParallelIterator::fold_chunks`]: the [`Chunks`] of the base, each
    /// folded from `identity()`.
    FoldChunks<I, ID, F> = Map<Chunks<I>, FoldChunksOp<ID, F>>;
    /// See [`IndexedParallelIterator::fold_chunks_with`]: the [`Chunks`] of the base, each
    /// folded from a clone of the piece's copy of `init`.
    FoldChunksWith<I, U, F> = MapInit<Chunks<I>, CloneState<U>, FoldChunksWithOp<F>>;
    /// See [`IndexedParallelIterator::positions`]: the indices of the items for which the
    /// predicate holds.
    Positions<I, P> = FilterMap<Enumerate<I>, PositionsOp<P>>;
    /// The pieces made by [`split`](super::split): a `Vec`'s [`IntoIter`] of them.
    Split<D, S> = IntoIter<D>;
    /// The nodes of a tree: see [`walk_tree`](super::walk_tree).
    WalkTree<S, B> = IntoIter<S>;
    /// The nodes of a tree in prefix order: see [`walk_tree_prefix`](super::walk_tree_prefix).
    WalkTreePrefix<S, B> = IntoIter<S>;
    /// The nodes of a tree in postfix order: see
    /// [`walk_tree_postfix`](super::walk_tree_postfix).
    WalkTreePostfix<S, B> = IntoIter<S>;
}

/// The operation of [`FoldChunks`]: folds a chunk from `identity()` with `fold_op`.
#[doc(hidden)]
#[derive(Clone)]
pub struct FoldChunksOp<ID, F> {
    identity: ID,
    fold_op: F,
}

impl<ID, F> FoldChunksOp<ID, F> {
    pub(super) fn new(identity: ID, fold_op: F) -> Self {
        FoldChunksOp { identity, fold_op }
    }
}

/// The name only (both are closures).
impl<ID, F> fmt::Debug for FoldChunksOp<ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunksOp").finish_non_exhaustive()
    }
}

impl<X, T, ID, F> MapOp<Vec<X>> for FoldChunksOp<ID, F>
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, X) -> T + Sync + Send,
{
    type Out = T;
    #[inline]
    fn call(&self, chunk: Vec<X>) -> T {
        chunk.into_iter().fold((self.identity)(), &self.fold_op)
    }
}

/// The operation of [`FoldChunksWith`]: folds a chunk from a clone of the piece's value.
#[doc(hidden)]
#[derive(Clone)]
pub struct FoldChunksWithOp<F>(F);

impl<F> FoldChunksWithOp<F> {
    pub(super) fn new(fold_op: F) -> Self {
        FoldChunksWithOp(fold_op)
    }
}

/// The name only (the operation is a closure).
impl<F> fmt::Debug for FoldChunksWithOp<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldChunksWithOp").finish_non_exhaustive()
    }
}

impl<X, T, F> InitOp<T, Vec<X>> for FoldChunksWithOp<F>
where
    T: Clone + Send,
    F: Fn(T, X) -> T + Sync + Send,
{
    type Out = T;
    #[inline]
    fn call(&self, init: &mut T, chunk: Vec<X>) -> T {
        chunk.into_iter().fold(init.clone(), &self.0)
    }
}

/// The operation of [`Positions`]: an enumerated item's index if the predicate holds.
#[doc(hidden)]
#[derive(Clone)]
pub struct PositionsOp<P>(P);

/// The name only (the predicate is a closure).
impl<P> fmt::Debug for PositionsOp<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PositionsOp").finish_non_exhaustive()
    }
}

impl<P> PositionsOp<P> {
    pub(super) fn new(p: P) -> Self {
        PositionsOp(p)
    }
}

impl<X, P: Fn(X) -> bool + Sync + Send> MapOp<(usize, X)> for PositionsOp<P> {
    type Out = Option<usize>;
    #[inline]
    fn call(&self, (i, x): (usize, X)) -> Option<usize> {
        (self.0)(x).then_some(i)
    }
}
