//! `monitor-buffer`: producers and consumers over one bounded buffer of 16
//! slots guarded by a monitor, the textbook use of `wait`/`notify_all`. P
//! producers each put N items; C consumers take P·N/C items each (the first
//! P·N mod C one more) and sum them. A full buffer makes producers wait, an
//! empty one consumers; every put and take notifies all waiters. There are
//! more tasks than workers, and most of them wait most of the time.
//!
//! - serial: one loop putting every item into a 16-slot buffer and emptying
//!   it into the sum whenever it is full (the same items through the same
//!   kind of buffer, with nobody waiting);
//! - offshoot: P + C tasks (`Scope::spawn`) on an `offshoot::sync::Monitor`;
//!   its waits park the task, not the worker;
//! - threads: the same program on P + C OS threads (`std::thread::scope`) on a
//!   `std::sync::Mutex` with one `std::sync::Condvar` and `notify_all`, as
//!   the monitor has one wait set: the blocking baseline.
//!
//! Per item: divide the time by P·N. Inputs (P producers, C consumers, N
//! items per producer): test 3, 3, 200; quick 8, 8, 5,000; full 16, 16,
//! 10,000.
//! Cutoff: none (one task per producer and per consumer).
//! Check: producer p's k-th item is p·N + k, so the items are 0..P·N once
//! each: the answer (count, sum, sum of squares, wrapping) must equal the
//! closed forms of that range, which a lost, duplicated or altered item
//! changes.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::hint::black_box;

use offshoot::sync::Monitor;

use super::plain::{call, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::par::Spawn;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "monitor-buffer",
    about: "producers and consumers over a 16-slot bounded buffer guarded by a monitor",
    cutoff: "none",
    source: "the bounded buffer of monitors (Hoare 1974); Imam's thesis ch. 2-3 waiting tasks",
};

/// Slots in the buffer.
pub const CAPACITY: usize = 16;

/// The answer: count, sum and sum of squares of the items taken (wrapping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checksum {
    /// Items.
    pub count: u64,
    /// Sum of the items.
    pub sum: u64,
    /// Sum of their squares.
    pub squares: u64,
}

impl Checksum {
    pub(super) fn add(&mut self, item: u64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(item);
        self.squares = self.squares.wrapping_add(item.wrapping_mul(item));
    }

    pub(super) fn merge(self, other: Checksum) -> Checksum {
        Checksum {
            count: self.count + other.count,
            sum: self.sum.wrapping_add(other.sum),
            squares: self.squares.wrapping_add(other.squares),
        }
    }

    /// The oracle: the checksum of the items 0..n, in closed form.
    pub fn of_range(n: u64) -> Checksum {
        let n = u128::from(n);
        let sum = n * n.saturating_sub(1) / 2;
        let squares = n.saturating_sub(1) * n * (2 * n).saturating_sub(1) / 6;
        Checksum {
            count: n as u64,
            // Truncation is the wrapping the kernel's sums do.
            sum: sum as u64,
            squares: squares as u64,
        }
    }
}

/// Producers, consumers and items per producer.
#[derive(Clone, Copy, Debug)]
pub struct Team {
    /// P.
    pub producers: u64,
    /// C.
    pub consumers: u64,
    /// N.
    pub items: u64,
}

impl Team {
    /// Producer `p`'s `k`-th item.
    pub(super) fn item(self, p: u64, k: u64) -> u64 {
        p * self.items + k
    }

    /// How many items consumer `c` takes.
    pub(super) fn share(self, c: u64) -> u64 {
        let total = self.producers * self.items;
        total / self.consumers + u64::from(c < total % self.consumers)
    }
}

/// A bounded buffer of [`CAPACITY`] items shared by producers and consumers.
trait Buffer: Sync {
    /// Puts `item` in, waiting while the buffer is full.
    fn put(&self, item: u64);
    /// Takes the oldest item out, waiting while the buffer is empty.
    fn take(&self) -> u64;
}

/// offshoot's buffer: a monitor.
struct MonitorBuffer(Monitor<RefCell<VecDeque<u64>>>);

impl Buffer for MonitorBuffer {
    fn put(&self, item: u64) {
        let g = self.0.enter();
        while g.borrow().len() == CAPACITY {
            g.wait();
        }
        g.borrow_mut().push_back(item);
        g.notify_all();
    }

    fn take(&self) -> u64 {
        let g = self.0.enter();
        loop {
            let next = g.borrow_mut().pop_front();
            if let Some(item) = next {
                g.notify_all();
                return item;
            }
            g.wait();
        }
    }
}

/// The OS threads' buffer: a std mutex and one condition variable.
struct CondvarBuffer {
    queue: std::sync::Mutex<VecDeque<u64>>,
    changed: std::sync::Condvar,
}

impl Buffer for CondvarBuffer {
    fn put(&self, item: u64) {
        let queue = self.queue.lock().expect("buffer poisoned");
        let mut queue = self
            .changed
            .wait_while(queue, |q| q.len() == CAPACITY)
            .expect("buffer poisoned");
        queue.push_back(item);
        self.changed.notify_all();
    }

    fn take(&self) -> u64 {
        let queue = self.queue.lock().expect("buffer poisoned");
        let mut queue = self
            .changed
            .wait_while(queue, |q| q.is_empty())
            .expect("buffer poisoned");
        let item = queue.pop_front().expect("not empty");
        self.changed.notify_all();
        item
    }
}

/// Starts the team in `scope`; every consumer adds its checksum to `total`
/// when it is done.
fn start<'s>(
    scope: impl Spawn<'s>,
    team: Team,
    buffer: &'s impl Buffer,
    total: &'s std::sync::Mutex<Checksum>,
) {
    for p in 0..team.producers {
        scope.spawn_task(move || {
            for k in 0..team.items {
                buffer.put(team.item(p, k));
            }
        });
    }
    for c in 0..team.consumers {
        scope.spawn_task(move || {
            let mut mine = Checksum::default();
            for _ in 0..team.share(c) {
                mine.add(buffer.take());
            }
            // A short critical section that does not wait: a std mutex is
            // fine here, also in a pool.
            let mut t = total.lock().expect("total poisoned");
            *t = t.merge(mine);
        });
    }
}

/// The plain loop.
pub fn serial(team: Team) -> Checksum {
    let mut buffer = VecDeque::with_capacity(CAPACITY);
    let mut sum = Checksum::default();
    for p in 0..team.producers {
        for k in 0..team.items {
            if buffer.len() == CAPACITY {
                for item in buffer.drain(..) {
                    sum.add(item);
                }
            }
            buffer.push_back(black_box(team.item(p, k)));
        }
    }
    for item in buffer {
        sum.add(item);
    }
    sum
}

/// offshoot: a task per producer and per consumer on a monitor; call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot(team: Team) -> Checksum {
    let buffer = MonitorBuffer(Monitor::new(RefCell::new(VecDeque::with_capacity(
        CAPACITY,
    ))));
    let total = std::sync::Mutex::new(Checksum::default());
    offshoot::scope(|s| start(s, team, &buffer, &total));
    total.into_inner().expect("total poisoned")
}

/// An OS thread per producer and per consumer on a std mutex and condvar.
pub fn threads(team: Team) -> Checksum {
    let buffer = CondvarBuffer {
        queue: std::sync::Mutex::new(VecDeque::with_capacity(CAPACITY)),
        changed: std::sync::Condvar::new(),
    };
    let total = std::sync::Mutex::new(Checksum::default());
    std::thread::scope(|s| start(s, team, &buffer, &total));
    total.into_inner().expect("total poisoned")
}

fn prepare(size: Size) -> Plain<Team, Checksum> {
    let (producers, consumers, items) = match size {
        Size::Test => (3, 3, 200),
        Size::Quick => (8, 8, 5_000),
        Size::Full => (16, 16, 10_000),
    };
    let team = Team {
        producers,
        consumers,
        items,
    };
    let label =
        format!("{producers} producers × {items} items, {consumers} consumers, {CAPACITY} slots");
    let want = Checksum::of_range(producers * items);
    Plain::new(team, label, want, "checksum")
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(serial))
        .offshoot(call(offshoot))
        .threads(call(threads))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_and_shares() {
        let mut c = Checksum::default();
        (0..10).for_each(|i| c.add(i));
        assert_eq!(c, Checksum::of_range(10));
        assert_eq!(Checksum::of_range(0), Checksum::default());
        let team = Team {
            producers: 3,
            consumers: 4,
            items: 5,
        };
        assert_eq!((0..4).map(|c| team.share(c)).sum::<u64>(), 15);
        assert_eq!(serial(team), Checksum::of_range(15));
        assert_eq!(threads(team), Checksum::of_range(15));
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
