//! The `join` of the two runtimes whose fork takes plain closures (offshoot
//! and rayon), behind one zero-sized trait so each kernel writes its parallel
//! code once for both.
//!
//! `J::join(a, b)` is exactly `offshoot::join(a, b)` or `rayon::join(a, b)`:
//! the methods are `#[inline(always)]` forwarders on unit structs, so after
//! monomorphisation the kernels call the runtime directly, as a user would.
//! chili's fork passes a `&mut Scope` into each closure instead, so every
//! kernel has its own chili version written against `chili::Scope::join`.
//!
//! [`Spawn`] does the same for starting a task in a scope, offshoot's or
//! std's (one OS thread per task), for the kernels whose tasks wait, and
//! [`ParLoop`] for a parallel loop written with the runtime's own parallel
//! iterators (the fork-join per step of the phaser kernels).

/// A fork-join runtime whose `join` runs `a` and `b`, potentially in parallel.
pub trait Fork {
    /// Runs both closures, potentially in parallel, and returns both results.
    fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send;
}

/// `offshoot::join`; must be called inside `offshoot::ThreadPool::run`.
pub struct Offshoot;

impl Fork for Offshoot {
    #[inline(always)]
    fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        offshoot::join(a, b)
    }
}

/// `rayon::join`; called inside `rayon::ThreadPool::install`.
pub struct Rayon;

impl Fork for Rayon {
    #[inline(always)]
    fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(a, b)
    }
}

/// A parallel loop over `0..n` written as a user of the runtime writes it,
/// with its parallel iterators (`offshoot::prelude` or `rayon::prelude`):
/// the phaser kernels' fork-join per step, rayon's idiom for an iterative
/// program.
pub trait ParLoop {
    /// `(0..n).into_par_iter().for_each(body)`.
    fn for_each(n: usize, body: impl Fn(usize) + Send + Sync);
    /// `(0..n).into_par_iter().map(body).sum()`.
    fn sum(n: usize, body: impl Fn(usize) -> usize + Send + Sync) -> usize;
    /// `items.par_chunks(per).map(map).reduce(identity, op)`.
    fn chunks_reduce<T: Sync, R: Send>(
        items: &[T],
        per: usize,
        map: impl Fn(&[T]) -> R + Send + Sync,
        identity: impl Fn() -> R + Send + Sync,
        op: impl Fn(R, R) -> R + Send + Sync,
    ) -> R;
}

impl ParLoop for Offshoot {
    fn for_each(n: usize, body: impl Fn(usize) + Send + Sync) {
        use offshoot::prelude::*;
        (0..n).into_par_iter().for_each(body);
    }
    fn sum(n: usize, body: impl Fn(usize) -> usize + Send + Sync) -> usize {
        use offshoot::prelude::*;
        (0..n).into_par_iter().map(body).sum()
    }
    fn chunks_reduce<T: Sync, R: Send>(
        items: &[T],
        per: usize,
        map: impl Fn(&[T]) -> R + Send + Sync,
        identity: impl Fn() -> R + Send + Sync,
        op: impl Fn(R, R) -> R + Send + Sync,
    ) -> R {
        use offshoot::prelude::*;
        items.par_chunks(per).map(map).reduce(identity, op)
    }
}

impl ParLoop for Rayon {
    fn for_each(n: usize, body: impl Fn(usize) + Send + Sync) {
        use rayon::prelude::*;
        (0..n).into_par_iter().for_each(body);
    }
    fn sum(n: usize, body: impl Fn(usize) -> usize + Send + Sync) -> usize {
        use rayon::prelude::*;
        (0..n).into_par_iter().map(body).sum()
    }
    fn chunks_reduce<T: Sync, R: Send>(
        items: &[T],
        per: usize,
        map: impl Fn(&[T]) -> R + Send + Sync,
        identity: impl Fn() -> R + Send + Sync,
        op: impl Fn(R, R) -> R + Send + Sync,
    ) -> R {
        use rayon::prelude::*;
        items.par_chunks(per).map(map).reduce(identity, op)
    }
}

/// Starting a task in a scope, for the kernels whose tasks wait on each
/// other: an offshoot [`offshoot::Scope`] (a task that parks when it waits)
/// or a [`std::thread::Scope`] (an OS thread that blocks), so that such a
/// kernel writes the program its tasks run once for both.
pub trait Spawn<'scope>: Copy {
    /// Starts `f`; the scope waits for it before it ends.
    fn spawn_task<F: FnOnce() + Send + 'scope>(self, f: F);
}

impl<'scope> Spawn<'scope> for &offshoot::Scope<'scope> {
    #[inline]
    fn spawn_task<F: FnOnce() + Send + 'scope>(self, f: F) {
        self.spawn(move |_| f());
    }
}

impl<'scope, 'env> Spawn<'scope> for &'scope std::thread::Scope<'scope, 'env> {
    #[inline]
    fn spawn_task<F: FnOnce() + Send + 'scope>(self, f: F) {
        self.spawn(f);
    }
}
