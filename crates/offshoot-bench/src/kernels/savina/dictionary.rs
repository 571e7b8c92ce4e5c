//! `dictionary` (Savina's Concurrent Dictionary, the thesis's reader-writer): a server
//! holds a `HashMap<u64, u64>`; W clients each send R requests, one at a time, a
//! deterministic mix of writes (`put`, W% of them) and reads (`get`), and add every
//! reply to their sums. Client c owns the keys c·K to c·K+K−1 and touches no other, so
//! the replies and the final map do not depend on how the clients interleave; the map
//! starts with every key k holding `mix(k)`. A `get` answers the key's value, a `put`
//! the value it replaced.
//!
//! The contenders are `rw`'s (see that module):
//! - serial: the loop serving each client's requests in turn;
//! - offshoot: the server is an `offshoot::actor` **selector** in the reader-writer
//!   pattern: each `get` runs as a task on a shared `Arc` of the map, in parallel with
//!   other gets; a `put` runs in the handler when no get is in flight and otherwise
//!   waits, all mailboxes but `ReadDone` disabled, for the gets to report back;
//! - offshoot-actors: the server a plain actor serving one request at a time;
//! - offshoot-tasks: no server: the map sits in an `offshoot::sync::RwLock` and each
//!   client is a task making its own requests in order, a `get` under `read()` (in
//!   parallel with other gets), a `put` under `write()`;
//! - tokio: ractor actors, the server serving one request at a time;
//! - kameo: the same actors in kameo;
//! - threads: a server thread and a thread per client over `std::sync::mpsc`.
//!
//! Inputs (W clients, R requests each, K keys per client, writes 10%): test 3, 40, 16;
//! quick 8, 500, 256; full 20, 10 000, 1 000 (Savina's W, fewer requests).
//! Cutoff: none.
//! Check: (Σ replies, Σ mix(k)·v over the final map) must equal a replay of the
//! clients in reverse order on a fresh map.

use std::collections::HashMap;
use std::hint::black_box;

use super::mix;
use super::rw::{self, Store, Workload};
use crate::kernels::plain::Plain;
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "dictionary",
    about:
        "clients get and put their keys at a dictionary server; gets in parallel, puts exclusive",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Concurrent Dictionary; Imam's thesis reader-writer",
};

/// W clients, R requests each, K keys each, `writes` percent puts.
#[derive(Clone, Copy, Debug)]
pub struct Dict {
    /// W.
    pub clients: u64,
    /// R.
    pub requests: u64,
    /// K.
    pub keys: u64,
    /// The share of puts, in percent.
    pub writes: u64,
}

/// A dictionary request.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// The value of a key (0 if absent).
    Get(u64),
    /// Sets a key; answers the value it replaced (0 if none).
    Put(u64, u64),
}

/// The dictionary.
pub struct Map(HashMap<u64, u64>);

impl Store for Map {
    type Op = Op;
    fn is_read(op: Op) -> bool {
        matches!(op, Op::Get(_))
    }
    fn read(&self, op: Op) -> u64 {
        match op {
            Op::Get(k) => self.0.get(&black_box(k)).copied().unwrap_or(0),
            Op::Put(..) => unreachable!("dictionary: a put served as a read"),
        }
    }
    fn write(&mut self, op: Op) -> u64 {
        match op {
            Op::Put(k, v) => self.0.insert(black_box(k), v).unwrap_or(0),
            Op::Get(_) => unreachable!("dictionary: a get served as a write"),
        }
    }
    fn checksum(&self) -> u64 {
        self.0
            .iter()
            .fold(0u64, |s, (&k, &v)| s.wrapping_add(mix(k).wrapping_mul(v)))
    }
}

impl Workload for Dict {
    type S = Map;
    fn clients(self) -> u64 {
        self.clients
    }
    fn requests(self) -> u64 {
        self.requests
    }
    fn store(self) -> Map {
        Map((0..self.clients * self.keys).map(|k| (k, mix(k))).collect())
    }
    fn op(self, c: u64, j: u64) -> Op {
        let r = mix(c * self.requests + j);
        let key = c * self.keys + (r >> 8) % self.keys;
        if r % 100 < self.writes {
            Op::Put(key, r >> 32)
        } else {
            Op::Get(key)
        }
    }
}

fn prepare(size: Size) -> Plain<Dict, rw::Answer> {
    let (clients, requests, keys) = match size {
        Size::Test => (3, 40, 16),
        Size::Quick => (8, 500, 256),
        Size::Full => (20, 10_000, 1_000),
    };
    let d = Dict {
        clients,
        requests,
        keys,
        writes: 10,
    };
    rw::state(
        d,
        format!("{clients} clients, {requests} requests each, {keys} keys each, 10% puts"),
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    rw::declare(ABOUT, prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_rejects_a_lost_put() {
        let d = Dict {
            clients: 3,
            requests: 50,
            keys: 8,
            writes: 30,
        };
        let right = rw::serial(&d);
        rw::check(&d, right).unwrap();
        rw::check(&d, rw::threads(&d)).unwrap();
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        rw::check(&d, pool.run(|| rw::offshoot(&d))).unwrap();
        rw::check(&d, pool.run(|| rw::offshoot_actors(&d))).unwrap();
        rw::check(&d, pool.run(|| rw::offshoot_tasks(&d))).unwrap();
        // Without writes, the map is unchanged; the checksum sees a changed value.
        let reads = Dict { writes: 0, ..d };
        let mut map = reads.store();
        let fresh = map.checksum();
        assert_eq!(rw::serial(&reads).1, fresh);
        map.write(Op::Put(0, 1));
        assert_ne!(map.checksum(), fresh);
        assert!(rw::check(&d, (right.0, map.checksum())).is_err());
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
