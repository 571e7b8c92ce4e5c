//! Fallible consumers: `try_for_each` and `try_reduce`/`try_reduce_with`, over any
//! [`Try`] type (`Option`, `Result`, `ControlFlow`). The first failure seen stops the
//! other pieces at their next block (as `find_any` does); one failure is returned.
//!
//! Invariant: a piece's accumulator holds either its partial success or a failure, never
//! both; failures win when combining.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use super::consumer::{drive, Consumer};
use super::find::find_map_any;
use super::ParallelIterator;

mod sealed {
    pub trait Sealed {}
}

/// The types `try_` methods accept (a stable stand-in for `std::ops::Try`): `Option<T>`,
/// `Result<T, E>` and `ControlFlow<B, C>`.
pub trait Try: sealed::Sealed + Sized {
    /// The success value.
    type Output;
    /// What a failure carries.
    type Residual;
    /// Wraps a success.
    fn from_output(o: Self::Output) -> Self;
    /// Wraps a failure.
    fn from_residual(r: Self::Residual) -> Self;
    /// Success or failure.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<T> sealed::Sealed for Option<T> {}
impl<T> Try for Option<T> {
    type Output = T;
    type Residual = ();
    #[inline]
    fn from_output(o: T) -> Self {
        Some(o)
    }
    #[inline]
    fn from_residual(_: ()) -> Self {
        None
    }
    #[inline]
    fn branch(self) -> ControlFlow<(), T> {
        match self {
            Some(t) => ControlFlow::Continue(t),
            None => ControlFlow::Break(()),
        }
    }
}

impl<T, E> sealed::Sealed for Result<T, E> {}
impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = E;
    #[inline]
    fn from_output(o: T) -> Self {
        Ok(o)
    }
    #[inline]
    fn from_residual(e: E) -> Self {
        Err(e)
    }
    #[inline]
    fn branch(self) -> ControlFlow<E, T> {
        match self {
            Ok(t) => ControlFlow::Continue(t),
            Err(e) => ControlFlow::Break(e),
        }
    }
}

impl<B, C> sealed::Sealed for ControlFlow<B, C> {}
impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = B;
    #[inline]
    fn from_output(o: C) -> Self {
        ControlFlow::Continue(o)
    }
    #[inline]
    fn from_residual(b: B) -> Self {
        ControlFlow::Break(b)
    }
    #[inline]
    fn branch(self) -> ControlFlow<B, C> {
        self
    }
}

/// Whether `r` is a failure.
#[inline]
pub(super) fn is_break<R: Try>(r: R) -> Result<R::Output, R> {
    match r.branch() {
        ControlFlow::Continue(o) => Ok(o),
        ControlFlow::Break(b) => Err(R::from_residual(b)),
    }
}

pub(super) fn try_for_each<I, R, F>(iter: I, f: F) -> R
where
    I: ParallelIterator,
    R: Try<Output = ()> + Send,
    F: Fn(I::Item) -> R + Sync + Send,
{
    // The first failure found stops the others, as `find_map_any` does.
    find_map_any(iter, move |x| is_break(f(x)).err()).unwrap_or_else(|| R::from_output(()))
}

/// Folds fallible items with a fallible associative `op`; the accumulator is the item
/// type itself (a success so far, or the failure). `None`: nothing yet.
struct TryReduce<OP> {
    op: OP,
    failed: AtomicBool,
}

impl<OP> TryReduce<OP> {
    /// `a op b`, failing if either fails.
    #[inline]
    fn join<T, R: Try<Output = T>>(&self, a: R, b: R) -> R
    where
        OP: Fn(T, T) -> R,
    {
        let r = match (is_break(a), is_break(b)) {
            (Ok(a), Ok(b)) => (self.op)(a, b),
            (Err(f), _) | (_, Err(f)) => f,
        };
        match is_break(r) {
            Ok(t) => R::from_output(t),
            Err(f) => {
                // Relaxed: stops work early only.
                self.failed.store(true, Ordering::Relaxed);
                f
            }
        }
    }
}

impl<T, R: Try<Output = T> + Send, OP: Fn(T, T) -> R + Sync> Consumer<R> for TryReduce<OP> {
    type Acc = Option<R>;
    #[inline]
    fn identity(&self) -> Option<R> {
        None
    }
    #[inline]
    fn consume(
        &self,
        acc: Option<R>,
        it: impl Iterator<Item = R>,
        _: usize,
        _: usize,
    ) -> Option<R> {
        let mut acc = acc;
        for x in it {
            let r = match acc.take() {
                None => match is_break(x) {
                    Ok(t) => R::from_output(t),
                    Err(f) => {
                        self.failed.store(true, Ordering::Relaxed);
                        f
                    }
                },
                Some(a) => self.join(a, x),
            };
            let failed = self.failed.load(Ordering::Relaxed);
            acc = Some(r);
            if failed {
                break;
            }
        }
        acc
    }
    #[inline]
    fn combine(&self, a: Option<R>, b: Option<R>) -> Option<R> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.join(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }
    #[inline]
    fn skip(&self, _: usize, _: usize) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

pub(super) fn try_reduce_with<I, T, OP>(iter: I, op: OP) -> Option<I::Item>
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    OP: Fn(T, T) -> I::Item + Sync + Send,
{
    let c = TryReduce {
        op,
        failed: AtomicBool::new(false),
    };
    drive(iter, &c)
}

pub(super) fn try_reduce<I, T, ID, OP>(iter: I, identity: ID, op: OP) -> I::Item
where
    I: ParallelIterator,
    I::Item: Try<Output = T>,
    ID: Fn() -> T + Sync + Send,
    OP: Fn(T, T) -> I::Item + Sync + Send,
{
    match try_reduce_with(iter, op) {
        Some(r) => r,
        None => I::Item::from_output(identity()),
    }
}
