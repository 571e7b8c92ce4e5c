//! `map` and the adaptors that are a map in disguise: `cloned`, `copied`, `inspect`,
//! `update`. Each runs its operation inside its base's blocks (`Iterator::map`), so it
//! keeps the base's indexing and costs what the sequential `map` costs.
//!
//! Invariant: a `Map` asks its base for exactly the indices it is asked for.

use std::fmt;

use super::{forward_shape, forward_to_base, IndexedParallelIterator, ParallelIterator};

/// The operation of a [`Map`]: any `Fn(T) -> R`, or one of the named operations behind
/// `Cloned`, `Copied`, `Inspect`, `Update` and `FoldChunks`.
#[doc(hidden)]
pub trait MapOp<T>: Sync + Send {
    /// The result.
    type Out: Send;
    /// Applies the operation.
    fn call(&self, x: T) -> Self::Out;
}

impl<T, R: Send, F: Fn(T) -> R + Sync + Send> MapOp<T> for F {
    type Out = R;
    #[inline]
    fn call(&self, x: T) -> R {
        self(x)
    }
}

/// The operation of [`Cloned`](super::Cloned).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ClonedOp;

impl<'a, T: Clone + Send + Sync + 'a> MapOp<&'a T> for ClonedOp {
    type Out = T;
    #[inline]
    fn call(&self, x: &'a T) -> T {
        x.clone()
    }
}

/// The operation of [`Copied`](super::Copied).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct CopiedOp;

impl<'a, T: Copy + Send + Sync + 'a> MapOp<&'a T> for CopiedOp {
    type Out = T;
    #[inline]
    fn call(&self, x: &'a T) -> T {
        *x
    }
}

/// The operation of [`Inspect`](super::Inspect).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct InspectOp<F>(pub(super) F);

impl<T: Send, F: Fn(&T) + Sync + Send> MapOp<T> for InspectOp<F> {
    type Out = T;
    #[inline]
    fn call(&self, x: T) -> T {
        (self.0)(&x);
        x
    }
}

/// The operation of [`Update`](super::Update).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct UpdateOp<F>(pub(super) F);

impl<T: Send, F: Fn(&mut T) + Sync + Send> MapOp<T> for UpdateOp<F> {
    type Out = T;
    #[inline]
    fn call(&self, mut x: T) -> T {
        (self.0)(&mut x);
        x
    }
}

/// See [`ParallelIterator::map`].
#[derive(Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Map<I, F> {
    base: I,
    f: F,
}

/// The base only: the operation is a closure (as rayon's `Map`).
impl<I: fmt::Debug, F> fmt::Debug for Map<I, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map").field("base", &self.base).finish()
    }
}

impl<I, F> Map<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        Map { base, f }
    }
}

impl<I: ParallelIterator, F: MapOp<I::Item>> ParallelIterator for Map<I, F> {
    type Item = F::Out;
    type State = I::State;
    forward_to_base!();
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = F::Out> {
        // SAFETY: forwarded contract.
        unsafe { self.base.block(st, lo, hi) }.map(move |x| self.f.call(x))
    }
    #[inline]
    fn flush<'s>(&'s self, st: &'s mut I::State) -> impl Iterator<Item = F::Out> {
        self.base.flush(st).map(move |x| self.f.call(x))
    }
    fn into_seq(self) -> impl Iterator<Item = F::Out> {
        let f = self.f;
        self.base.into_seq().map(move |x| f.call(x))
    }
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator, F: MapOp<I::Item>> IndexedParallelIterator for Map<I, F> {
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut I::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = F::Out> + ExactSizeIterator {
        // SAFETY: forwarded contract.
        unsafe { self.base.iblock(st, lo, hi) }.map(move |x| self.f.call(x))
    }
    forward_shape!();
}
