//! A declared deadlock's report: the objects waited on, each waiting task's line, and
//! the shared report every ended wait panics with.

use std::fmt::Write as _;
use std::panic::resume_unwind;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Holder;
use crate::fiber::TokenParked;

/// Writes a report that no wait carries (a deadlock that no wait can be ended for, a
/// blocked worker) to the process's stderr: straight to it, not through `eprintln!`, whose
/// output a test harness captures for the test that started the thread (the watch thread
/// outlives it).
pub(super) fn emit(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// "2 tasks wait", "1 actor waits", "1 task and 3 actors wait".
pub(super) fn waiters(tasks: usize, actors: usize) -> String {
    let n = |k: usize, what: &str| format!("{k} {what}{}", if k == 1 { "" } else { "s" });
    let verb = if tasks + actors == 1 { "waits" } else { "wait" };
    match (tasks, actors) {
        (t, 0) => format!("{} {verb}", n(t, "task")),
        (0, a) => format!("{} {verb}", n(a, "actor")),
        (t, a) => format!("{} and {} {verb}", n(t, "task"), n(a, "actor")),
    }
}

/// An object waited on, as a report names it: `Mutex 0x7f…` when unnamed, `Mutex
/// "accounts" (0x7f…)` when its creator named it (`Mutex::named`), the name quoted and
/// escaped as `{:?}` writes it.
pub(crate) struct Object {
    /// The construct and operation, e.g. "Mutex" or "Channel::recv".
    pub(crate) what: &'static str,
    pub(crate) name: Option<&'static str>,
    pub(crate) addr: usize,
}

impl std::fmt::Display for Object {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name {
            None => write!(f, "{} {:#x}", self.what, self.addr),
            Some(name) => write!(f, "{} {name:?} ({:#x})", self.what, self.addr),
        }
    }
}

/// The report of one declared deadlock, shared by the waits it ends.
pub(crate) struct Report {
    pub(super) text: String,
    /// Whether one of the ended waits has panicked with it already.
    pub(super) raised: AtomicBool,
}

impl Report {
    /// Ends the calling task's wait with the report: the first wait to get here panics (the
    /// panic hook prints the report once), the others unwind with the same message quietly.
    pub(crate) fn raise(&self) -> ! {
        // SeqCst: not needed for a pairing: a lone read-modify-write flag (its atomicity alone
        // makes one wait first) beside an immutable text; kept on this once-per-wait path.
        if self.raised.swap(true, Ordering::SeqCst) {
            resume_unwind(Box::new(self.text.clone()))
        }
        panic!("{}", self.text)
    }
}

/// Writes the report's line for one parked task `e` on the worker named `worker`, whose
/// lock (if it waits for one) is held by `holder`. Returns whether the wait may be inside
/// joins that planted no seed (the report then explains those once, at its end).
pub(super) fn describe_wait(
    text: &mut String,
    worker: &str,
    e: &TokenParked,
    holder: Option<Holder>,
) -> bool {
    let mut past_seed_limit = false;
    let _ = write!(
        text,
        "\n  task {} (on {}) waits on {}",
        e.task,
        worker,
        Object {
            what: e.on.what,
            name: e.on.name,
            addr: e.on.addr
        }
    );
    if let Some(p) = e.on.phase {
        let _ = write!(text, " for the end of phase {p}");
    }
    if let Some(op) = e.on.operation {
        let _ = write!(text, " for operation {op:?} to be restored");
    }
    match holder {
        Some(Holder::Outside(id)) => {
            let _ = write!(
                text,
                ", held by thread {id} outside the pools (its task_id), which itself \
                     waits in offshoot"
            );
        }
        Some(Holder::OutsideReaders { count, .. }) => {
            let _ = write!(
                text,
                ", read by {count} thread{} outside the pools, which {} waits in offshoot",
                if count == 1 { "" } else { "s" },
                if count == 1 { "itself" } else { "each" }
            );
        }
        Some(Holder::Task(id)) if id != 0 => {
            let _ = write!(text, ", held by task {id}");
        }
        _ => {}
    }
    if !e.on.interruptible {
        // Begun while its task unwound, or re-entering a monitor.
        text.push_str(" (a wait that cannot be ended: it goes on)");
    }
    if e.past_seed_limit {
        past_seed_limit = true;
        text.push_str(" (maybe inside joins that planted no seed: see below)");
    }
    if let Some(at) = e.on.at {
        let _ = write!(text, "; called at {at}");
    }
    past_seed_limit
}
