//! `fold`, `fold_with`, `try_fold`, `try_fold_with`: fold the items of every split piece
//! into one accumulator, kept in the piece's state, and yield it when the piece ends
//! (`flush`). So there is one accumulator per piece, not per item or per block, as in
//! rayon; the results are not indexed.
//!
//! Invariants: a block's items are all folded (or, after a `try_fold` failure, dropped)
//! before `block` returns; the accumulator is yielded once, by `flush`, and every piece
//! yields one (the identity if it folded nothing: an empty pipeline's fold yields one
//! identity, as rayon's does; `consumer.rs` flushes an empty pipeline's state).

use std::fmt;
use std::marker::PhantomData;

use super::map_init::{CloneState, MakeState};
use super::try_ops::{is_break, Try};
use super::ParallelIterator;

/// See [`ParallelIterator::fold`].
#[derive(Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    f: F,
}

/// See [`ParallelIterator::fold_with`].
pub type FoldWith<I, T, F> = Fold<I, CloneState<T>, F>;

/// `Fold { base }`: the identity and the operation are closures (as rayon's).
impl<I: fmt::Debug, ID: Fn() -> T, T, F> fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fold").field("base", &self.base).finish()
    }
}

/// `FoldWith { base, item }`, as rayon's.
impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for FoldWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.identity)
            .finish()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, f: F) -> Self {
        Fold { base, identity, f }
    }
}

impl<I, T, F> Fold<I, CloneState<T>, F> {
    pub(super) fn with(base: I, init: T, f: F) -> Self {
        Fold {
            base,
            identity: CloneState::new(init),
            f,
        }
    }
}

impl<I, ID, F> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    ID: MakeState,
    ID::T: Send,
    F: Fn(ID::T, I::Item) -> ID::T + Sync + Send,
{
    type Item = ID::T;
    type State = (Option<ID::T>, I::State);
    fn base_len(&self) -> usize {
        self.base.base_len()
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths()
    }
    fn state(&self) -> Self::State {
        (None, self.base.state())
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = ID::T> {
        let (acc, bst) = st;
        let a = acc.take().unwrap_or_else(|| self.identity.make());
        // SAFETY: forwarded contract.
        *acc = Some(unsafe { self.base.block(bst, lo, hi) }.fold(a, &self.f));
        std::iter::empty()
    }
    fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = ID::T> {
        // Every piece yields one accumulator, the identity if it folded nothing (as rayon's:
        // an empty pipeline's fold yields one identity, so `fold(..).reduce_with(..)` is
        // `Some` for an empty input too).
        let (acc, bst) = st;
        let a = acc.take().unwrap_or_else(|| self.identity.make());
        std::iter::once(self.base.flush(bst).fold(a, &self.f))
    }
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe { self.base.drop_block(lo, hi) }
    }
    #[inline]
    fn exhausted(&self) -> bool {
        self.base.exhausted()
    }
}

/// See [`ParallelIterator::try_fold`].
#[derive(Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct TryFold<I, R, ID, F> {
    base: I,
    identity: ID,
    f: F,
    marker: PhantomData<fn() -> R>,
}

/// See [`ParallelIterator::try_fold_with`].
pub type TryFoldWith<I, R, F> = TryFold<I, R, CloneState<<R as Try>::Output>, F>;

/// `TryFold { base }`: the identity and the operation are closures (as rayon's).
impl<I: fmt::Debug, R, ID: Fn() -> T, T, F> fmt::Debug for TryFold<I, R, ID, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFold").field("base", &self.base).finish()
    }
}

/// `TryFoldWith { base, item }`, as rayon's.
impl<I: fmt::Debug, R, T: fmt::Debug, F> fmt::Debug for TryFold<I, R, CloneState<T>, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.identity)
            .finish()
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F> {
    pub(super) fn new(base: I, identity: ID, f: F) -> Self {
        TryFold {
            base,
            identity,
            f,
            marker: PhantomData,
        }
    }
}

impl<I, R: Try, F> TryFold<I, R, CloneState<R::Output>, F> {
    pub(super) fn with(base: I, init: R::Output, f: F) -> Self {
        TryFold::new(base, CloneState::new(init), f)
    }
}

impl<I, R, ID, F> TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    R: Try<Output = ID::T> + Send,
    ID: MakeState,
    F: Fn(ID::T, I::Item) -> R + Sync + Send,
{
    /// Folds `it` into `acc` until the first failure (the rest of `it` is dropped).
    fn fold_into(&self, acc: &mut Option<R>, it: impl Iterator<Item = I::Item>) {
        let mut t = match acc.take().map(is_break) {
            None => self.identity.make(),
            Some(Ok(t)) => t,
            Some(Err(failed)) => {
                *acc = Some(failed);
                return;
            }
        };
        for x in it {
            match is_break((self.f)(t, x)) {
                Ok(next) => t = next,
                Err(failed) => {
                    *acc = Some(failed);
                    return;
                }
            }
        }
        *acc = Some(R::from_output(t));
    }
}

impl<I, R, ID, F> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    R: Try<Output = ID::T> + Send,
    ID: MakeState,
    F: Fn(ID::T, I::Item) -> R + Sync + Send,
{
    type Item = R;
    type State = (Option<R>, I::State);
    fn base_len(&self) -> usize {
        self.base.base_len()
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths()
    }
    fn state(&self) -> Self::State {
        (None, self.base.state())
    }
    /// # Safety
    /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out at
    /// most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
    unsafe fn block<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = R> {
        let (acc, bst) = st;
        // SAFETY: forwarded contract.
        self.fold_into(acc, unsafe { self.base.block(bst, lo, hi) });
        std::iter::empty()
    }
    fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = R> {
        // One result per piece, `from_output(identity)` if it folded nothing (as `fold`).
        let (acc, bst) = st;
        self.fold_into(acc, self.base.flush(bst));
        acc.take().into_iter()
    }
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        // SAFETY: forwarded contract.
        unsafe { self.base.drop_block(lo, hi) }
    }
    #[inline]
    fn exhausted(&self) -> bool {
        self.base.exhausted()
    }
}
