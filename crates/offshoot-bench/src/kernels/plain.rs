//! The state of the kernels whose every contender is one call of a function on the
//! kernel's input, returning a `Copy` answer that a known value or a check function
//! validates: the fork-join kernels whose state is their input (`fib`, `nqueens`,
//! `tree-sum`, `uts`, `par-for`: serial, offshoot, rayon and chili), the kernels of
//! `offshoot::sync` (`futures-fib`, `ring`, `monitor-buffer`: serial, offshoot, tokio or OS
//! threads) and the Savina kernels. A kernel file then holds its functions, a `prepare` that
//! builds one [`Plain`], and its declaration ([`super::Kernel`]) whose contenders are
//! [`call`]s of those functions; the reset, the acceptance of the serial answer and the
//! checks are this file's.
//!
//! Invariant: each contender's function gets the same input (a reference passed through
//! `black_box`) and its answer is the one recorded.

use std::fmt::Debug;
use std::hint::black_box;

use super::{Answer, Work};
use crate::peers::PeerInput;

/// One contender's function of the kernel's input.
pub type Version<I, T> = fn(&I) -> T;

/// How the serial answer is validated.
enum Expect<I, T> {
    /// It must equal `want`; `what` names it in the error message.
    Value { want: T, what: &'static str },
    /// The function says whether it is right (an oracle of its own).
    Check(fn(&I, T) -> Result<(), String>),
}

/// The state of a kernel of plain calls: its input, how its answer is validated, and the
/// answers; build it with [`Plain::new`] or [`Plain::checked`] in the kernel's `prepare`,
/// and declare each contender with [`call`], [`scoped`] or [`on_runtime`] (or their `_ref`
/// forms, for a function of a reference to the input).
pub struct Plain<I, T> {
    input: I,
    label: String,
    expect: Expect<I, T>,
    out: Answer<T>,
}

impl<I, T: Copy + PartialEq + Debug + Send> Plain<I, T> {
    /// A kernel on `input` (described by `label`) whose answer must be
    /// `expected` (called `what` in error messages).
    pub fn new(input: I, label: String, expected: T, what: &'static str) -> Self {
        let expect = Expect::Value {
            want: expected,
            what,
        };
        Self::with_expect(input, label, expect)
    }

    /// Like [`Plain::new`], for an answer that `check` validates against the
    /// input (an `Err` says what is wrong).
    pub fn checked(input: I, label: String, check: fn(&I, T) -> Result<(), String>) -> Self {
        Self::with_expect(input, label, Expect::Check(check))
    }

    fn with_expect(input: I, label: String, expect: Expect<I, T>) -> Self {
        Plain {
            input,
            label,
            expect,
            out: Answer::new(),
        }
    }

    /// Appends `more` to the input's description (e.g. figures measured on the instance
    /// itself, after it was built).
    pub fn append_label(&mut self, more: &str) {
        self.label.push_str(more);
    }
}

/// A contender that is one call of `f` on a copy of the input (read through `black_box`),
/// its answer recorded.
pub fn call<I: Copy + 'static, T: Copy + PartialEq + Debug + 'static>(
    f: fn(I) -> T,
) -> impl Fn(&mut Plain<I, T>) + Send + Sync + 'static {
    move |p| p.out.set(f(*black_box(&p.input)))
}

/// Like [`call`], for a function of a reference to the input.
pub fn by_ref<I: 'static, T: Copy + PartialEq + Debug + 'static>(
    f: fn(&I) -> T,
) -> impl Fn(&mut Plain<I, T>) + Send + Sync + 'static {
    move |p| p.out.set(f(black_box(&p.input)))
}

/// Like [`call`], for chili's version (given the pool's scope).
pub fn scoped<I: Copy + 'static, T: Copy + PartialEq + Debug + 'static>(
    f: fn(&mut chili::Scope<'_>, I) -> T,
) -> impl Fn(&mut Plain<I, T>, &mut chili::Scope<'_>) + Send + Sync + 'static {
    move |p, s| p.out.set(f(s, *black_box(&p.input)))
}

/// Like [`by_ref`], for chili's version (given the pool's scope).
pub fn scoped_ref<I: 'static, T: Copy + PartialEq + Debug + 'static>(
    f: fn(&mut chili::Scope<'_>, &I) -> T,
) -> impl Fn(&mut Plain<I, T>, &mut chili::Scope<'_>) + Send + Sync + 'static {
    move |p, s| p.out.set(f(s, black_box(&p.input)))
}

/// Like [`call`], for a version given the tokio runtime (tokio, kameo; it calls
/// `block_on`).
pub fn on_runtime<I: Copy + 'static, T: Copy + PartialEq + Debug + 'static>(
    f: fn(&tokio::runtime::Runtime, I) -> T,
) -> impl Fn(&mut Plain<I, T>, &tokio::runtime::Runtime) + Send + Sync + 'static {
    move |p, rt| p.out.set(f(rt, *black_box(&p.input)))
}

/// Like [`by_ref`], for a version given the tokio runtime.
pub fn on_runtime_ref<I: 'static, T: Copy + PartialEq + Debug + 'static>(
    f: fn(&tokio::runtime::Runtime, &I) -> T,
) -> impl Fn(&mut Plain<I, T>, &tokio::runtime::Runtime) + Send + Sync + 'static {
    move |p, rt| p.out.set(f(rt, black_box(&p.input)))
}

/// The peers' input of a plain kernel: `args` of the input, and the reference answer as
/// `{:?}` writes it (decimal for the integers).
pub fn peer_args<I: 'static, T: Copy + PartialEq + Debug + 'static>(
    args: fn(&I) -> Vec<String>,
) -> impl Fn(&Plain<I, T>) -> Result<PeerInput, String> + Send + Sync + 'static {
    peer_args_answer(args, |answer| format!("{answer:?}"))
}

/// Like [`peer_args`], with the answer written by `answer` where `{:?}` is not one token.
pub fn peer_args_answer<I: 'static, T: Copy + PartialEq + Debug + 'static>(
    args: fn(&I) -> Vec<String>,
    answer: fn(&T) -> String,
) -> impl Fn(&Plain<I, T>) -> Result<PeerInput, String> + Send + Sync + 'static {
    move |p| {
        let want = p
            .out
            .reference()
            .ok_or("no reference answer (serial run missing)")?;
        Ok(PeerInput {
            args: args(&p.input),
            answer: answer(&want),
        })
    }
}

impl<I: Send + 'static, T: Copy + PartialEq + Debug + Send + 'static> Work for Plain<I, T> {
    fn input(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self) {
        self.out.clear();
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        match self.expect {
            Expect::Value { want, what } => self.out.accept(|got| {
                if got == want {
                    Ok(())
                } else {
                    Err(format!("{what} {got:?}, expected {want:?}"))
                }
            }),
            Expect::Check(check) => {
                let input = &self.input;
                self.out.accept(|got| check(input, got))
            }
        }
    }
    fn check(&self) -> Result<(), String> {
        self.out.check()
    }
}
