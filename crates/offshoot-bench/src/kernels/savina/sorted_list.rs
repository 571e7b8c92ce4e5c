//! `sorted-list` (Savina's Concurrent Sorted Linked-List, the thesis's reader-writer): a
//! server holds a sorted singly linked list of distinct keys; W clients each send R
//! requests, one at a time, a deterministic mix of `insert` (W% of them), `size` (S%)
//! and `contains` (the rest), and add every reply to their sums. Client c owns the keys
//! k with k mod W = c (so every client's keys run through the whole list), below W·K,
//! and touches no other: its `size` counts its own keys, and the replies and the final
//! list do not depend on how the clients interleave. The list starts with the keys k
//! below W·K whose `mix(k)` is even. Every request walks the list from its head (a
//! `size` walks all of it). `insert` answers 1 if the key is new, `contains` the key + 1
//! if present (else 0), `size` the count.
//!
//! The contenders are `rw`'s (see that module):
//! - serial: the loop serving each client's requests in turn;
//! - offshoot: the server is an `offshoot::actor` **selector** in the reader-writer
//!   pattern: each `contains` and `size` runs as a task on a shared `Arc` of the list, in
//!   parallel with the other reads; an `insert` runs in the handler when no read is in
//!   flight and otherwise waits, all mailboxes but `ReadDone` disabled, for the reads to
//!   report back;
//! - offshoot-actors: the server a plain actor serving one request at a time;
//! - offshoot-tasks: no server: the list sits in an `offshoot::sync::RwLock` and each
//!   client is a task making its own requests in order, a `contains` or `size` under
//!   `read()` (in parallel with other reads), an `insert` under `write()`;
//! - tokio: ractor actors, the server serving one request at a time;
//! - kameo: the same actors in kameo;
//! - threads: a server thread and a thread per client over `std::sync::mpsc`.
//!
//! Inputs (W clients, R requests each, K keys per client, inserts 10%, sizes 1%): test
//! 3, 40, 16; quick 8, 300, 64; full 20, 2 000, 100 (Savina's W, fewer requests).
//! Cutoff: none.
//! Check: (Σ replies, the final list's ordered hash) must equal a replay of the
//! clients in reverse order on a fresh list; the hash folds the keys in list order, so
//! an unsorted or changed list changes it.

use std::hint::black_box;

use super::mix;
use super::rw::{self, Store, Workload};
use crate::kernels::plain::Plain;
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "sorted-list",
    about: "clients insert, look up and count their keys in a sorted linked list server; reads in parallel",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Concurrent Sorted Linked-List; Imam's thesis reader-writer",
};

/// W clients, R requests each, K keys each, `inserts` and `sizes` in percent.
#[derive(Clone, Copy, Debug)]
pub struct Sorted {
    /// W.
    pub clients: u64,
    /// R.
    pub requests: u64,
    /// K.
    pub keys: u64,
    /// The share of inserts, in percent.
    pub inserts: u64,
    /// The share of sizes, in percent.
    pub sizes: u64,
}

/// A sorted-list request.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// Adds a key; answers 1 if it was not there.
    Insert(u64),
    /// Answers the key + 1 if it is there, else 0.
    Contains(u64),
    /// How many keys of client `c` (k mod W = c) there are; W is the second field.
    Size(u64, u64),
}

/// A node of the list.
struct Node {
    key: u64,
    next: Option<Box<Node>>,
}

/// A sorted singly linked list of distinct keys.
pub struct List {
    head: Option<Box<Node>>,
}

impl List {
    /// The keys in order.
    fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::successors(self.head.as_deref(), |n| n.next.as_deref()).map(|n| n.key)
    }

    /// Inserts `key`; whether it was new.
    fn insert(&mut self, key: u64) -> bool {
        let mut cur = &mut self.head;
        while cur.as_ref().is_some_and(|n| n.key < key) {
            cur = &mut cur.as_mut().expect("sorted-list: checked").next;
        }
        if cur.as_ref().is_some_and(|n| n.key == key) {
            return false;
        }
        let next = cur.take();
        *cur = Some(Box::new(Node { key, next }));
        true
    }
}

impl Drop for List {
    /// Frees the nodes in a loop (a recursive drop of a long list would overflow the
    /// stack).
    fn drop(&mut self) {
        let mut cur = self.head.take();
        while let Some(mut n) = cur {
            cur = n.next.take();
        }
    }
}

impl Store for List {
    type Op = Op;
    fn is_read(op: Op) -> bool {
        !matches!(op, Op::Insert(_))
    }
    fn read(&self, op: Op) -> u64 {
        match op {
            Op::Contains(k) => {
                let k = black_box(k);
                self.keys()
                    .take_while(|&x| x <= k)
                    .find(|&x| x == k)
                    .map_or(0, |x| x + 1)
            }
            Op::Size(c, w) => self.keys().filter(|&x| x % w == c).count() as u64,
            Op::Insert(_) => unreachable!("sorted-list: an insert served as a read"),
        }
    }
    fn write(&mut self, op: Op) -> u64 {
        match op {
            Op::Insert(k) => self.insert(black_box(k)) as u64,
            _ => unreachable!("sorted-list: a read served as a write"),
        }
    }
    fn checksum(&self) -> u64 {
        self.keys().fold(0, |h, k| mix(h ^ k))
    }
}

impl Workload for Sorted {
    type S = List;
    fn clients(self) -> u64 {
        self.clients
    }
    fn requests(self) -> u64 {
        self.requests
    }
    fn store(self) -> List {
        let mut list = List { head: None };
        for k in (0..self.clients * self.keys).rev() {
            if mix(k).is_multiple_of(2) {
                list.head = Some(Box::new(Node {
                    key: k,
                    next: list.head.take(),
                }));
            }
        }
        list
    }
    fn op(self, c: u64, j: u64) -> Op {
        let r = mix(c * self.requests + j);
        let key = (r >> 8) % self.keys * self.clients + c;
        match r % 100 {
            p if p < self.inserts => Op::Insert(key),
            p if p < self.inserts + self.sizes => Op::Size(c, self.clients),
            _ => Op::Contains(key),
        }
    }
}

fn prepare(size: Size) -> Plain<Sorted, rw::Answer> {
    let (clients, requests, keys) = match size {
        Size::Test => (3, 40, 16),
        Size::Quick => (8, 300, 64),
        Size::Full => (20, 2_000, 100),
    };
    let s = Sorted {
        clients,
        requests,
        keys,
        inserts: 10,
        sizes: 1,
    };
    rw::state(
        s,
        format!(
            "{clients} clients, {requests} requests each, {keys} keys each, 10% inserts, 1% sizes"
        ),
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
    fn the_list_stays_sorted_and_the_check_sees_a_change() {
        let s = Sorted {
            clients: 3,
            requests: 60,
            keys: 10,
            inserts: 30,
            sizes: 10,
        };
        let mut list = s.store();
        let before: Vec<u64> = list.keys().collect();
        assert!(before.windows(2).all(|p| p[0] < p[1]));
        let absent = (0..30).find(|k| !before.contains(k)).unwrap();
        assert_eq!(list.read(Op::Contains(absent)), 0);
        assert_eq!(list.write(Op::Insert(absent)), 1);
        assert_eq!(list.write(Op::Insert(absent)), 0);
        assert_eq!(list.read(Op::Contains(absent)), absent + 1);
        let after: Vec<u64> = list.keys().collect();
        assert!(after.windows(2).all(|p| p[0] < p[1]));
        assert_eq!(after.len(), before.len() + 1);
        let sizes: u64 = (0..3).map(|c| list.read(Op::Size(c, 3))).sum();
        assert_eq!(sizes, after.len() as u64);

        let right = rw::serial(&s);
        rw::check(&s, right).unwrap();
        rw::check(&s, rw::threads(&s)).unwrap();
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        rw::check(&s, pool.run(|| rw::offshoot(&s))).unwrap();
        rw::check(&s, pool.run(|| rw::offshoot_actors(&s))).unwrap();
        rw::check(&s, pool.run(|| rw::offshoot_tasks(&s))).unwrap();
        assert!(rw::check(&s, (right.0.wrapping_add(1), right.1)).is_err());
        assert!(rw::check(&s, (right.0, list.checksum())).is_err());
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
