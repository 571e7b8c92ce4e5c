//! offshoot-bench: the benchmark suite of the offshoot task-parallel runtime.
//!
//! Runs the classic fork-join kernels (Cilk-5's, BOTS', UTS, the heartbeat
//! schedulers' tree sum) as a plain serial program and on offshoot, rayon and
//! chili, and the kernels whose tasks wait on each other (futures, a ring of
//! waiting tasks, a monitor's bounded buffer) on offshoot, tokio and plain OS
//! threads; checks every answer, and reports medians, spreads and ratios as
//! terminal tables, JSON, Markdown and an SVG chart; plus microbenchmarks of
//! the primitives. The binary's entry point is [`cli::main`].

pub mod cli;
pub mod curve;
pub mod harness;
pub mod kernels;
pub mod machine;
pub mod micro;
pub mod par;
pub mod peers;
pub mod profile;
pub mod report;
pub mod rng;
pub mod svg;
pub mod workspan;
