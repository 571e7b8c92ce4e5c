//! `opa-fifo`: producers and consumers through OPA's FIFO (issue 46), a bounded queue of 16
//! slots written on `offshoot::sync::Object` with operation replacement: a full queue
//! suspends `put`, an empty one `get`, each with its own wait queue. P producers each put N
//! items; C consumers take P·N/C items each (the first P·N mod C one more) and sum them.
//!
//! - serial: one loop putting every item into a 16-slot ring and emptying it into the sum
//!   whenever it is full;
//! - offshoot: P + C tasks on an `offshoot::sync::opa::Fifo`;
//! - offshoot-tasks: the same tasks on offshoot's bounded channel (`sync::bounded`), the
//!   construct the FIFO should be within 1.5× of;
//! - threads: P + C OS threads on a `std::sync::mpsc::sync_channel` (its receiver behind a
//!   std mutex, as several consumers share it).
//!
//! Per item: divide the time by P·N. Inputs (P, C, N): test 3, 3, 200; quick 4, 4, 20,000;
//! full 8, 8, 100,000. Cutoff: none. Check: the items are 0..P·N once each, checked by their
//! count, sum and sum of squares (`monitor-buffer`'s checksum).

use std::hint::black_box;

use offshoot::sync::opa::Fifo;

use super::monitor_buffer::{Checksum, Team};
use super::plain::{call, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::par::Spawn;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "opa-fifo",
    about: "producers and consumers through OPA's 16-slot FIFO on operation replacement",
    cutoff: "none",
    source: "Umatani's OPA thesis §3.2.2 (FIFO class); issue 46",
};

/// Slots in the queue.
pub const CAPACITY: usize = 16;

/// Starts the team: `put(item)` and `take()` are the queue's.
fn start<'s>(
    scope: impl Spawn<'s>,
    team: Team,
    put: &'s (impl Fn(u64) + Sync),
    take: &'s (impl Fn() -> u64 + Sync),
    total: &'s std::sync::Mutex<Checksum>,
) {
    for p in 0..team.producers {
        scope.spawn_task(move || (0..team.items).for_each(|k| put(team.item(p, k))));
    }
    for c in 0..team.consumers {
        scope.spawn_task(move || {
            let mut mine = Checksum::default();
            for _ in 0..team.share(c) {
                mine.add(take());
            }
            let mut t = total.lock().expect("total poisoned");
            *t = t.merge(mine);
        });
    }
}

/// The plain loop.
pub fn serial(team: Team) -> Checksum {
    let mut ring = [0u64; CAPACITY];
    let (mut len, mut sum) = (0, Checksum::default());
    for p in 0..team.producers {
        for k in 0..team.items {
            if len == CAPACITY {
                ring.iter().for_each(|&i| sum.add(i));
                len = 0;
            }
            ring[len] = black_box(team.item(p, k));
            len += 1;
        }
    }
    ring[..len].iter().for_each(|&i| sum.add(i));
    sum
}

/// offshoot: tasks on an `opa::Fifo`; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(team: Team) -> Checksum {
    let q = Fifo::new(CAPACITY);
    let total = std::sync::Mutex::new(Checksum::default());
    let put = |i| q.put(i);
    let take = || q.get();
    offshoot::scope(|s| start(s, team, &put, &take, &total));
    total.into_inner().expect("total poisoned")
}

/// offshoot's tasks on offshoot's bounded channel.
pub fn offshoot_tasks(team: Team) -> Checksum {
    let (tx, rx) = offshoot::sync::bounded(CAPACITY);
    let total = std::sync::Mutex::new(Checksum::default());
    let put = |i| tx.send(i).expect("receivers alive");
    let take = || rx.recv().expect("senders alive");
    offshoot::scope(|s| start(s, team, &put, &take, &total));
    total.into_inner().expect("total poisoned")
}

/// OS threads on a std sync channel.
pub fn threads(team: Team) -> Checksum {
    let (tx, rx) = std::sync::mpsc::sync_channel(CAPACITY);
    let rx = std::sync::Mutex::new(rx);
    let total = std::sync::Mutex::new(Checksum::default());
    let put = |i| tx.send(i).expect("receiver alive");
    let take = || rx.lock().expect("poisoned").recv().expect("senders alive");
    std::thread::scope(|s| start(s, team, &put, &take, &total));
    total.into_inner().expect("total poisoned")
}

fn prepare(size: Size) -> Plain<Team, Checksum> {
    let (producers, consumers, items) = match size {
        Size::Test => (3, 3, 200),
        Size::Quick => (4, 4, 20_000),
        Size::Full => (8, 8, 100_000),
    };
    let team = Team {
        producers,
        consumers,
        items,
    };
    let label =
        format!("{producers} producers × {items} items, {consumers} consumers, {CAPACITY} slots");
    Plain::new(
        team,
        label,
        Checksum::of_range(producers * items),
        "checksum",
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(serial))
        .offshoot(call(offshoot))
        .offshoot_tasks(call(offshoot_tasks))
        .threads(call(threads))
        .build()
}

#[cfg(test)]
mod tests {
    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&super::info());
    }
}
