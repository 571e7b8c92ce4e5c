//! The messages ranks exchange, and their encoding (postcard, a compact serde format).
//!
//! Invariants:
//! * Every message is one [`Msg`] in an envelope that names the run it belongs to (the
//!   sender's count of runs on its [`Session`](crate::Session)); a message that does not
//!   decode is a broken build or a foreign sender, reported with the sender's rank (never
//!   ignored silently).
//! * A package carries the id its victim gave it; results name that id, so a result is
//!   matched to exactly one waiting frame, and a second result for it (after a recovery)
//!   is dropped.

use serde::{Deserialize, Serialize};

/// A rank's statistics, sent to rank 0 at the end of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct RankStats {
    /// This rank's number.
    pub rank: usize,
    /// Steal requests this rank sent (random and lifeline).
    pub steals_sent: u64,
    /// Steal requests of this rank answered with work.
    pub steals_won: u64,
    /// Packages this rank gave away (answers to steals, and loot pushed on lifelines).
    pub packages_sent: u64,
    /// Packages this rank ran for other ranks.
    pub packages_run: u64,
    /// Packages this rank ran again itself because their thief stopped answering.
    pub packages_recovered: u64,
    /// Bytes this rank sent, all messages together.
    pub bytes_sent: u64,
    /// Time this rank's agent saw every worker of its pool idle, in microseconds.
    pub idle_us: u64,
}

/// One message between ranks.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// "Give me work": from a rank whose workers found nothing locally. `lifeline`: the
    /// asker goes quiet and waits on this rank if it has nothing now.
    Steal { lifeline: bool },
    /// Work, as a package: in answer to a steal, or pushed to a lifeline waiter
    /// (`lifeline`: the receiver's registration here is used up).
    Loot { package: Package, lifeline: bool },
    /// "Nothing here" (for a lifeline steal: "nothing now; you are registered").
    NoLoot { lifeline: bool },
    /// The result of package `id`, to the rank that gave it away.
    Result { id: u64, outcome: Outcome },
    /// "Still running your packages": from a thief to its victims, while it runs them.
    Alive,
    /// A better bound of a distributed [`Bound`](crate::Bound), to every rank.
    Bound { value: i64 },
    /// The distributed eureka resolved (or the run failed): stop every task of the run.
    Resolve,
    /// A solution found on the sender's rank (to rank 0, which keeps the first).
    Found(Vec<u8>),
    /// The root ended: shut down.
    Done,
    /// A rank's goodbye to rank 0, with its statistics.
    Bye(RankStats),
}

/// Work that travels: the victim's id for it, the task's name and its encoded value.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Package {
    pub(crate) id: u64,
    pub(crate) name: String,
    pub(crate) payload: Vec<u8>,
}

/// How a package ended on its thief.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Outcome {
    /// Its output, encoded.
    Value(Vec<u8>),
    /// It panicked, or could not run (unknown task, bad bytes): the message.
    Failed(String),
    /// It was stopped by the run's eureka.
    Stopped,
}

/// `m`, of run `run`, as bytes.
pub(crate) fn encode(run: u64, m: &Msg) -> Vec<u8> {
    postcard::to_stdvec(&(run, m)).expect("offshoot-mpi: a message always encodes")
}

/// The run and the message in `bytes`, which came from rank `from`.
pub(crate) fn decode(from: usize, bytes: &[u8]) -> (u64, Msg) {
    postcard::from_bytes(bytes).unwrap_or_else(|e| {
        panic!(
            "offshoot-mpi: a message from rank {from} did not decode ({e}); every rank must \
             run the same build of the program"
        )
    })
}

pub(crate) fn encode_package(p: &Package) -> Vec<u8> {
    postcard::to_stdvec(p).expect("offshoot-mpi: a package always encodes")
}

pub(crate) fn decode_package(bytes: &[u8]) -> Package {
    postcard::from_bytes(bytes).expect("offshoot-mpi: a package made on this rank decodes")
}
