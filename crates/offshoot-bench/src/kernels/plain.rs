//! The harness interface for kernels whose every contender is one call of a
//! function on the kernel's input, returning a `Copy` answer that a known value
//! or a check function validates: the fork-join kernels whose state is their
//! input (`fib`, `nqueens`, `tree-sum`, `uts`, `par-for`: serial, offshoot,
//! rayon and chili) and the kernels of `offshoot::sync` (`futures-fib`, `ring`,
//! `monitor-buffer`: serial, offshoot, tokio or OS threads). A kernel file then
//! holds its functions and one [`Plain`] built in its `prepare`, not an
//! [`Instance`] impl of its own.
//!
//! Invariant: each contender's function gets the same input (a reference
//! passed through `black_box`) and its answer is the one recorded; a contender
//! the kernel has no function for is never called (its
//! [`super::KernelInfo::contenders`] does not list it; if it did, the call
//! panics and the harness reports it).

use std::fmt::Debug;
use std::hint::black_box;

use super::{missing, Answer, Instance};
use crate::harness::Contender;

/// One contender's version of the kernel.
pub type Version<I, T> = fn(&I) -> T;

/// How the serial answer is validated.
enum Expect<I, T> {
    /// It must equal `want`; `what` names it in the error message.
    Value { want: T, what: &'static str },
    /// The function says whether it is right (an oracle of its own).
    Check(fn(&I, T) -> Result<(), String>),
}

/// A prepared kernel of plain calls; build it with [`Plain::new`] or
/// [`Plain::checked`] and add the peers it has.
pub struct Plain<I, T> {
    input: I,
    label: String,
    expect: Expect<I, T>,
    serial: Version<I, T>,
    offshoot: Version<I, T>,
    offshoot_tasks: Option<Version<I, T>>,
    offshoot_actors: Option<Version<I, T>>,
    rayon: Option<Version<I, T>>,
    chili: Option<fn(&mut chili::Scope<'_>, &I) -> T>,
    tokio: Option<fn(&tokio::runtime::Runtime, &I) -> T>,
    kameo: Option<fn(&tokio::runtime::Runtime, &I) -> T>,
    threads: Option<Version<I, T>>,
    peer_args: Option<fn(&I) -> Vec<String>>,
    peer_answer: fn(&T) -> String,
    out: Answer<T>,
}

impl<I, T: Copy + PartialEq + Debug + Send> Plain<I, T> {
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
        let expect = Expect::Value {
            want: expected,
            what,
        };
        Self::with_expect(input, label, expect, serial, offshoot)
    }

    /// Like [`Plain::new`], for an answer that `check` validates against the
    /// input (an `Err` says what is wrong).
    pub fn checked(
        input: I,
        label: String,
        check: fn(&I, T) -> Result<(), String>,
        serial: Version<I, T>,
        offshoot: Version<I, T>,
    ) -> Self {
        Self::with_expect(input, label, Expect::Check(check), serial, offshoot)
    }

    fn with_expect(
        input: I,
        label: String,
        expect: Expect<I, T>,
        serial: Version<I, T>,
        offshoot: Version<I, T>,
    ) -> Self {
        Plain {
            input,
            label,
            expect,
            serial,
            offshoot,
            offshoot_tasks: None,
            offshoot_actors: None,
            rayon: None,
            chili: None,
            tokio: None,
            kameo: None,
            threads: None,
            peer_args: None,
            peer_answer: |answer| format!("{answer:?}"),
            out: Answer::new(),
        }
    }

    /// Adds the version on offshoot's tasks and channels (it runs inside
    /// `ThreadPool::run`, like the offshoot version).
    /// Appends `more` to the input's description (e.g. figures measured on the instance
    /// itself, after it was built).
    pub fn append_label(&mut self, more: &str) {
        self.label.push_str(more);
    }

    pub fn with_offshoot_tasks(mut self, f: Version<I, T>) -> Self {
        self.offshoot_tasks = Some(f);
        self
    }

    /// Adds the offshoot-actors version (plain actors where `offshoot` uses selectors;
    /// it runs inside `ThreadPool::run`).
    pub fn with_offshoot_actors(mut self, f: Version<I, T>) -> Self {
        self.offshoot_actors = Some(f);
        self
    }

    /// Adds the rayon version (it runs inside `rayon::ThreadPool::install`).
    pub fn with_rayon(mut self, f: Version<I, T>) -> Self {
        self.rayon = Some(f);
        self
    }

    /// Adds the chili version (given the pool's scope).
    pub fn with_chili(mut self, f: fn(&mut chili::Scope<'_>, &I) -> T) -> Self {
        self.chili = Some(f);
        self
    }

    /// Adds the tokio version (given the runtime; it calls `block_on`).
    pub fn with_tokio(mut self, f: fn(&tokio::runtime::Runtime, &I) -> T) -> Self {
        self.tokio = Some(f);
        self
    }

    /// Adds the kameo version (given the tokio runtime; it calls `block_on`).
    pub fn with_kameo(mut self, f: fn(&tokio::runtime::Runtime, &I) -> T) -> Self {
        self.kameo = Some(f);
        self
    }

    /// Adds the version on OS threads (it starts and joins its own threads).
    pub fn with_threads(mut self, f: Version<I, T>) -> Self {
        self.threads = Some(f);
        self
    }

    /// Gives the peers in other languages ([`crate::peers`]) their kernel arguments; their
    /// answer is the reference answer as `{:?}` writes it (decimal for the integers).
    pub fn with_peer_args(mut self, f: fn(&I) -> Vec<String>) -> Self {
        self.peer_args = Some(f);
        self
    }

    /// Writes the answer the peers must print where `{:?}` is not one token.
    pub fn with_peer_answer(mut self, f: fn(&T) -> String) -> Self {
        self.peer_answer = f;
        self
    }

    fn call(&mut self, f: Version<I, T>) {
        self.out.set(f(black_box(&self.input)));
    }
}

impl<I: Send, T: Copy + PartialEq + Debug + Send> Instance for Plain<I, T> {
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
    fn offshoot_tasks(&mut self) {
        let f = self
            .offshoot_tasks
            .unwrap_or_else(|| missing(Contender::OffshootTasks));
        self.call(f);
    }
    fn offshoot_actors(&mut self) {
        let f = self
            .offshoot_actors
            .unwrap_or_else(|| missing(Contender::OffshootActors));
        self.call(f);
    }
    fn rayon(&mut self) {
        let f = self.rayon.unwrap_or_else(|| missing(Contender::Rayon));
        self.call(f);
    }
    fn chili(&mut self, s: &mut chili::Scope<'_>) {
        let f = self.chili.unwrap_or_else(|| missing(Contender::Chili));
        self.out.set(f(s, black_box(&self.input)));
    }
    fn tokio(&mut self, rt: &tokio::runtime::Runtime) {
        let f = self.tokio.unwrap_or_else(|| missing(Contender::Tokio));
        self.out.set(f(rt, black_box(&self.input)));
    }
    fn kameo(&mut self, rt: &tokio::runtime::Runtime) {
        let f = self.kameo.unwrap_or_else(|| missing(Contender::Kameo));
        self.out.set(f(rt, black_box(&self.input)));
    }
    fn threads(&mut self) {
        let f = self.threads.unwrap_or_else(|| missing(Contender::Threads));
        self.call(f);
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
    fn peer_input(&self) -> Result<crate::peers::PeerInput, String> {
        let args = self.peer_args.ok_or("this kernel has no peer version")?;
        let answer = self
            .out
            .reference()
            .ok_or("no reference answer (serial run missing)")?;
        Ok(crate::peers::PeerInput {
            args: args(&self.input),
            answer: (self.peer_answer)(&answer),
        })
    }
}
