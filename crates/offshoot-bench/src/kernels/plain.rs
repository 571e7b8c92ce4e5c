//! The harness interface for kernels whose every contender is one call of a
//! function on a small `Copy` input, returning a `Copy` answer that a known
//! value checks: the kernels of `offshoot::sync` (`futures-fib`, `ring`,
//! `monitor-buffer`), which differ only in those functions and their peers.
//!
//! Invariant: each contender's function gets the same input (through
//! `black_box`) and its answer is the one recorded; a contender the kernel
//! has no function for is never called (its [`super::KernelInfo::contenders`]
//! does not list it; if it did, the call panics and the harness reports it).

use std::fmt::Debug;
use std::hint::black_box;

use super::{missing, Answer, Instance};
use crate::harness::Contender;

/// One contender's version of the kernel.
pub type Version<I, T> = fn(I) -> T;

/// A prepared kernel of plain calls; build it with [`Plain::new`] and add the
/// peers it has.
pub struct Plain<I, T> {
    input: I,
    label: String,
    expected: T,
    what: &'static str,
    serial: Version<I, T>,
    offshoot: Version<I, T>,
    tokio: Option<fn(&tokio::runtime::Runtime, I) -> T>,
    threads: Option<Version<I, T>>,
    out: Answer<T>,
}

impl<I: Copy + Send, T: Copy + PartialEq + Debug + Send> Plain<I, T> {
    /// A kernel on `input` (described by `label`) whose answer must be
    /// `expected` (called `what` in error messages), with its serial and
    /// offshoot versions; `offshoot` runs inside `ThreadPool::run`.
    pub fn new(
        input: I,
        label: String,
        expected: T,
        what: &'static str,
        serial: Version<I, T>,
        offshoot: Version<I, T>,
    ) -> Self {
        Plain {
            input,
            label,
            expected,
            what,
            serial,
            offshoot,
            tokio: None,
            threads: None,
            out: Answer::new(),
        }
    }

    /// Adds the tokio version (given the runtime; it calls `block_on`).
    pub fn with_tokio(mut self, f: fn(&tokio::runtime::Runtime, I) -> T) -> Self {
        self.tokio = Some(f);
        self
    }

    /// Adds the version on OS threads (it starts and joins its own threads).
    pub fn with_threads(mut self, f: Version<I, T>) -> Self {
        self.threads = Some(f);
        self
    }

    fn call(&mut self, f: Version<I, T>) {
        self.out.set(f(black_box(self.input)));
    }
}

impl<I: Copy + Send, T: Copy + PartialEq + Debug + Send> Instance for Plain<I, T> {
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.out.clear();
    }
    fn serial(&mut self) {
        self.call(self.serial);
    }
    fn offshoot(&mut self) {
        self.call(self.offshoot);
    }
    fn tokio(&mut self, rt: &tokio::runtime::Runtime) {
        let f = self.tokio.unwrap_or_else(|| missing(Contender::Tokio));
        self.out.set(f(rt, black_box(self.input)));
    }
    fn threads(&mut self) {
        let f = self.threads.unwrap_or_else(|| missing(Contender::Threads));
        self.call(f);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let (want, what) = (self.expected, self.what);
        self.out.accept(|got| {
            if got == want {
                Ok(())
            } else {
                Err(format!("{what} {got:?}, expected {want:?}"))
            }
        })
    }
    fn check(&self) -> Result<(), String> {
        self.out.check()
    }
}
