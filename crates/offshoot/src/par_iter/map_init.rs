//! `map_init` and `map_with`: a map whose operation gets a per-piece value, made (by
//! `init()`, or by cloning) on the worker that runs the piece, the first time the piece
//! yields an item — once per split piece, not per item or per block.
//!
//! Invariant: the value lives in the piece's state and never crosses threads.

use std::fmt;

use super::{forward_shape, IndexedParallelIterator, ParallelIterator};

/// How a per-piece value is made: any `Fn() -> T`, or a clone ([`MapWith`]).
#[doc(hidden)]
pub trait MakeState: Sync + Send {
    /// The value.
    type T;
    /// Makes one.
    fn make(&self) -> Self::T;
}

impl<T, F: Fn() -> T + Sync + Send> MakeState for F {
    type T = T;
    #[inline]
    fn make(&self) -> T {
        self()
    }
}

/// The operation of a [`MapInit`]: any `Fn(&mut T, X) -> R`, or a named one
/// (`FoldChunksWith`'s).
#[doc(hidden)]
pub trait InitOp<T, X>: Sync + Send {
    /// The result.
    type Out: Send;
    /// Applies the operation with the piece's value.
    fn call(&self, v: &mut T, x: X) -> Self::Out;
}

impl<T, X, R: Send, F: Fn(&mut T, X) -> R + Sync + Send> InitOp<T, X> for F {
    type Out = R;
    #[inline]
    fn call(&self, v: &mut T, x: X) -> R {
        self(v, x)
    }
}

/// A value cloned for every piece (`map_with`, `fold_with`, ...).
///
/// The original sits behind a lock, so that it need not be `Sync` (rayon asks only
/// `Send + Clone`): pieces on different workers clone it one at a time, each with the
/// original to itself, so a `Cell` or `RefCell` state is cloned safely. A piece clones
/// once, when it yields its first item, so the lock is taken once per piece.
#[doc(hidden)]
pub struct CloneState<T>(std::sync::Mutex<T>);

/// The value (as rayon's `item` field shows it).
impl<T: fmt::Debug> fmt::Debug for CloneState<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.try_lock() {
            Ok(v) => v.fmt(f),
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().fmt(f),
            Err(std::sync::TryLockError::WouldBlock) => f.write_str("<being cloned>"),
        }
    }
}

impl<T> CloneState<T> {
    pub(super) fn new(value: T) -> Self {
        CloneState(std::sync::Mutex::new(value))
    }
}

impl<T: Clone> CloneState<T> {
    fn clone_value(&self) -> T {
        // A clone that panicked left the original as it was (it had `&T` only): go on.
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl<T: Clone> Clone for CloneState<T> {
    fn clone(&self) -> Self {
        CloneState::new(self.clone_value())
    }
}

impl<T: Clone + Send> MakeState for CloneState<T> {
    type T = T;
    #[inline]
    fn make(&self) -> T {
        self.clone_value()
    }
}

/// See [`ParallelIterator::map_init`].
#[derive(Clone)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    f: F,
}

/// See [`ParallelIterator::map_with`].
pub type MapWith<I, T, F> = MapInit<I, CloneState<T>, F>;

/// `MapInit { base }`: `init` and the operation are closures (as rayon's).
impl<I: fmt::Debug, INIT: Fn() -> T, T, F> fmt::Debug for MapInit<I, INIT, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapInit").field("base", &self.base).finish()
    }
}

/// `MapWith { base, item }`, as rayon's.
impl<I: fmt::Debug, T: fmt::Debug, F> fmt::Debug for MapWith<I, T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.init)
            .finish()
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(super) fn new(base: I, init: INIT, f: F) -> Self {
        MapInit { base, init, f }
    }
}

impl<I, T, F> MapInit<I, CloneState<T>, F> {
    pub(super) fn with(base: I, init: T, f: F) -> Self {
        MapInit {
            base,
            init: CloneState::new(init),
            f,
        }
    }
}

impl<I, INIT, F> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: MakeState,
    F: InitOp<INIT::T, I::Item>,
{
    type Item = F::Out;
    type State = (Option<INIT::T>, I::State);
    #[inline]
    fn base_len(&self) -> usize {
        self.base.base_len()
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.base.lengths()
    }
    #[inline]
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
    ) -> impl Iterator<Item = F::Out> {
        let (v, bst) = st;
        // SAFETY: forwarded contract.
        unsafe { self.base.block(bst, lo, hi) }
            .map(move |x| self.f.call(v.get_or_insert_with(|| self.init.make()), x))
    }
    #[inline]
    fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = F::Out> {
        let (v, bst) = st;
        self.base
            .flush(bst)
            .map(move |x| self.f.call(v.get_or_insert_with(|| self.init.make()), x))
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
    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
    fn into_seq(self) -> impl Iterator<Item = F::Out> {
        let (init, f) = (self.init, self.f);
        let mut v = None;
        self.base
            .into_seq()
            .map(move |x| f.call(v.get_or_insert_with(|| init.make()), x))
    }
}

impl<I, INIT, F> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: MakeState,
    F: InitOp<INIT::T, I::Item>,
{
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    #[inline]
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = F::Out> + ExactSizeIterator {
        let (v, bst) = st;
        // SAFETY: forwarded contract.
        unsafe { self.base.iblock(bst, lo, hi) }
            .map(move |x| self.f.call(v.get_or_insert_with(|| self.init.make()), x))
    }
    forward_shape!();
}
