//! `bank` (Savina's Bank Transaction): request-reply transfers between accounts
//! through a teller. The teller issues T transfer orders, each to a pseudo-random
//! source account ("send `amount` to account `to`"); the source debits itself, sends
//! the money to the destination account as a `Credit`, and may take no further order
//! until the destination's `Ack` comes back; then it tells the teller the transfer is
//! done. The teller ends after T completions and the accounts are stopped. Credits are
//! always taken (an account waiting for its own reply still receives money), so two
//! accounts paying each other cannot deadlock.
//!
//! - serial: the loop applying the T transfers to an array of balances;
//! - offshoot: the accounts are `offshoot::actor` **selectors** with three mailboxes in
//!   priority order, `Reply` (acks), `Credit` (money) and `Order` (the teller's): an
//!   account disables `Order` while it waits for its ack (the thesis's request-reply
//!   without a blocking ask or a stash); the teller is an actor; the calling task
//!   waits for the teller's `offshoot::sync::Promise`, then stops the accounts (which
//!   hold handles to each other), whose exits record their balances;
//! - tokio: ractor actors; one mailbox, so an account stashes the orders that arrive
//!   while it waits (ractor's `call` inside a handler would be the blocking ask, which
//!   deadlocks on two accounts paying each other); the accounts are drained at the end
//!   and hand back their balances in `post_stop` (`mesh::tokio`);
//! - kameo: the same stashing accounts as kameo actors (`mesh::kameo`), stopped
//!   gracefully at the end, their balances in their final states;
//! - offshoot-tasks: one task per account (`offshoot::scope`) reading its
//!   `offshoot::sync::unbounded` channel, with the same stash (offshoot's channels
//!   have no select), and the calling task as the teller (`mesh::tasks`); a `None`
//!   message ends an account's loop, leaving its balance in place;
//! - threads: one thread per account with the same stash, and the calling thread as
//!   the teller; a `None` message stops an account, which returns its balance
//!   (`mesh::threads`).
//!
//! Inputs (A accounts, T transfers, opening balance 1 000 000): test 8, 200; quick 64,
//! 5 000; full 1 000, 50 000 (Savina's defaults).
//! Cutoff: none.
//! Check: (transfers done, total balance, Σ balance·mix(account)) must be (T, A times
//! the opening balance, the same sum over balances computed as each account's opening
//! balance plus what it received minus what it sent).

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use offshoot::actor::{self, ActorRef, Selector, SelectorContext, SelectorRef};

use super::mesh::{self, Member, Sink};
use super::mix;
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, KernelInfo, Size};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "bank",
    about: "a teller's transfers between account actors, each a request and a reply",
    cutoff: "none",
    source: "Savina (shamsimam/savina) Bank Transaction",
};

/// Every account's balance at the start.
pub const OPENING: i64 = 1_000_000;

/// A accounts, T transfers.
#[derive(Clone, Copy, Debug)]
pub struct Bank {
    /// A.
    pub accounts: usize,
    /// T.
    pub transfers: u64,
}

/// One transfer order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// The source account.
    pub from: usize,
    /// The destination account.
    pub to: usize,
    /// How much.
    pub amount: i64,
}

impl Bank {
    /// Transfer k (the same pseudo-random orders on every contender).
    pub fn transfer(self, k: u64) -> Transfer {
        let r = mix(k);
        let a = self.accounts as u64;
        Transfer {
            from: (r % a) as usize,
            to: ((r >> 21) % a) as usize,
            amount: ((r >> 42) % 1_000) as i64 + 1,
        }
    }
}

/// The answer: (transfers done, total balance, Σ balance·mix(account)).
pub type Books = (u64, i64, u64);

/// Sums the final balances into [`Books`].
fn books(done: u64, balances: impl IntoIterator<Item = i64>) -> Books {
    let (total, weighted) =
        balances
            .into_iter()
            .enumerate()
            .fold((0i64, 0u64), |(t, w), (i, b)| {
                (
                    t + b,
                    w.wrapping_add((b as u64).wrapping_mul(mix(i as u64))),
                )
            });
    (done, total, weighted)
}

/// The plain loop over an array of balances.
pub fn serial(b: Bank) -> Books {
    let mut balance = vec![OPENING; b.accounts];
    for k in 0..b.transfers {
        let t = black_box(b.transfer(k));
        balance[t.from] -= t.amount;
        balance[t.to] += t.amount;
    }
    books(b.transfers, balance)
}

/// The oracle: the books from each account's flows in and out.
fn check(b: &Bank, got: Books) -> Result<(), String> {
    let (mut sent, mut received) = (vec![0i64; b.accounts], vec![0i64; b.accounts]);
    for t in (0..b.transfers).map(|k| b.transfer(k)) {
        sent[t.from] += t.amount;
        received[t.to] += t.amount;
    }
    let want = books(
        b.transfers,
        (0..b.accounts).map(|i| OPENING + received[i] - sent[i]),
    );
    if got == want {
        Ok(())
    } else {
        Err(format!("books {got:?}, expected {want:?}"))
    }
}

/// What accounts receive, whoever carries it.
#[derive(Clone, Copy, Debug)]
enum Msg {
    /// From the teller.
    Order(Transfer),
    /// From the source account, `amount` for this one.
    Credit { amount: i64, from: usize },
    /// From the destination account: the credit was taken.
    Ack,
}

offshoot::mailboxes! {
    /// An offshoot account's mailboxes, in priority order.
    enum Port {
        Reply,
        Credit,
        Order,
    }
}

/// The addresses of an offshoot account: the other accounts and the teller.
struct Addresses {
    accounts: Vec<SelectorRef<Account>>,
    teller: ActorRef<Sink>,
}

/// What an offshoot account receives: the addresses (sent to the `Reply` mailbox
/// before any order, so that the priority order takes it before any credit), or a
/// [`Msg`].
enum Mail {
    Link(Arc<Addresses>),
    Do(Msg),
}

/// An offshoot account; its balance goes to `shown[me]` as its state is dropped.
struct Account {
    me: usize,
    balance: i64,
    book: Option<Arc<Addresses>>,
    shown: Arc<Vec<AtomicI64>>,
}

impl Selector for Account {
    type Mailbox = Port;
    type Message = Mail;
    fn receive(&mut self, _: Port, mail: Mail, ctx: &mut SelectorContext<'_, Self>) {
        let msg = match mail {
            Mail::Link(book) => {
                self.book = Some(book);
                return;
            }
            Mail::Do(msg) => msg,
        };
        let book = self.book.as_ref().expect("bank: linked before the orders");
        match msg {
            Msg::Order(t) => {
                self.balance -= t.amount;
                let credit = Msg::Credit {
                    amount: t.amount,
                    from: self.me,
                };
                book.accounts[t.to].send(Port::Credit, Mail::Do(credit));
                ctx.disable(Port::Order); // until the ack
            }
            Msg::Credit { amount, from } => {
                self.balance += amount;
                book.accounts[from].send(Port::Reply, Mail::Do(Msg::Ack));
            }
            Msg::Ack => {
                book.teller.send(());
                ctx.enable(Port::Order);
            }
        }
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        self.shown[self.me].store(self.balance, Ordering::Relaxed);
    }
}

/// offshoot selectors; call inside `offshoot::ThreadPool::run`.
pub fn offshoot(b: Bank) -> Books {
    let shown: Arc<Vec<AtomicI64>> = Arc::new((0..b.accounts).map(|_| AtomicI64::new(0)).collect());
    offshoot::finish(|| {
        let done = offshoot::sync::Promise::new();
        let teller = actor::start(Sink {
            left: b.transfers,
            done: done.clone(),
        });
        let accounts: Vec<_> = (0..b.accounts)
            .map(|me| {
                actor::start_selector(Account {
                    me,
                    balance: OPENING,
                    book: None,
                    shown: shown.clone(),
                })
            })
            .collect();
        let book = Arc::new(Addresses {
            accounts: accounts.clone(),
            teller,
        });
        for a in &accounts {
            a.send(Port::Reply, Mail::Link(book.clone()));
        }
        drop(book);
        for k in 0..b.transfers {
            let t = b.transfer(k);
            accounts[t.from].send(Port::Order, Mail::Do(Msg::Order(t)));
        }
        if b.transfers > 0 {
            done.get();
        }
        for a in &accounts {
            a.stop(); // they hold handles to each other
        }
    });
    books(b.transfers, shown.iter().map(|s| s.load(Ordering::Relaxed)))
}

/// An account that takes one order at a time and stashes the others meanwhile (the
/// ractor, kameo and thread versions): `send(to, msg)` reaches account `to`, `done()` the
/// teller.
struct Stashing {
    me: usize,
    balance: i64,
    waiting: bool,
    stash: VecDeque<Transfer>,
}

impl Stashing {
    fn new(me: usize) -> Self {
        Stashing {
            me,
            balance: OPENING,
            waiting: false,
            stash: VecDeque::new(),
        }
    }
}

impl Member for Stashing {
    type Msg = Msg;
    fn receive(&mut self, msg: Msg, mut send: impl FnMut(usize, Msg), mut done: impl FnMut()) {
        match msg {
            Msg::Order(t) if self.waiting => self.stash.push_back(t),
            Msg::Order(t) => {
                self.balance -= t.amount;
                self.waiting = true;
                let credit = Msg::Credit {
                    amount: t.amount,
                    from: self.me,
                };
                send(t.to, credit);
            }
            Msg::Credit { amount, from } => {
                self.balance += amount;
                send(from, Msg::Ack);
            }
            Msg::Ack => {
                self.waiting = false;
                done();
                if let Some(t) = self.stash.pop_front() {
                    self.receive(Msg::Order(t), send, done);
                }
            }
        }
    }
}

/// The accounts and the orders.
fn mesh_of(b: Bank) -> (Vec<Stashing>, impl Iterator<Item = (usize, Msg)>) {
    let accounts = (0..b.accounts).map(Stashing::new).collect();
    let orders = (0..b.transfers).map(move |k| {
        let t = b.transfer(k);
        (t.from, Msg::Order(t))
    });
    (accounts, orders)
}

/// ractor actors on the tokio runtime.
pub fn tokio(rt: &tokio::runtime::Runtime, b: Bank) -> Books {
    let (accounts, orders) = mesh_of(b);
    let accounts = mesh::tokio(rt, accounts, orders, b.transfers);
    books(b.transfers, accounts.iter().map(|a| a.balance))
}

/// kameo actors on the tokio runtime.
pub fn kameo(rt: &tokio::runtime::Runtime, b: Bank) -> Books {
    let (accounts, orders) = mesh_of(b);
    let accounts = mesh::kameo(rt, accounts, orders, b.transfers);
    books(b.transfers, accounts.iter().map(|a| a.balance))
}

/// One thread per account; the calling thread is the teller.
pub fn threads(b: Bank) -> Books {
    let (accounts, orders) = mesh_of(b);
    let accounts = mesh::threads(accounts, orders, b.transfers);
    books(b.transfers, accounts.iter().map(|a| a.balance))
}

/// One task per account; the calling task is the teller. Call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(b: Bank) -> Books {
    let (accounts, orders) = mesh_of(b);
    let accounts = mesh::tasks(accounts, orders, b.transfers);
    books(b.transfers, accounts.iter().map(|a| a.balance))
}

fn prepare(size: Size) -> Plain<Bank, Books> {
    let (accounts, transfers) = match size {
        Size::Test => (8, 200),
        Size::Quick => (64, 5_000),
        Size::Full => (1_000, 50_000),
    };
    let b = Bank {
        accounts,
        transfers,
    };
    Plain::checked(
        b,
        format!("{accounts} accounts, {transfers} transfers"),
        check,
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(ABOUT, prepare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_rejects_a_lost_transfer() {
        let b = Bank {
            accounts: 4,
            transfers: 30,
        };
        let right = serial(b);
        assert_eq!(right.1, 4 * OPENING);
        check(&b, right).unwrap();
        check(&b, threads(b)).unwrap();
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        check(&b, pool.run(|| offshoot(b))).unwrap();
        check(&b, pool.run(|| offshoot_tasks(b))).unwrap();
        // The books without one transfer between two accounts: the total is conserved,
        // the rest is not.
        let lost = (0..b.transfers)
            .find(|&k| b.transfer(k).from != b.transfer(k).to)
            .unwrap();
        let mut balance = vec![OPENING; b.accounts];
        for t in (0..b.transfers)
            .filter(|&k| k != lost)
            .map(|k| b.transfer(k))
        {
            balance[t.from] -= t.amount;
            balance[t.to] += t.amount;
        }
        let fewer = books(b.transfers, balance);
        assert_eq!(fewer.1, right.1);
        assert!(check(&b, fewer).is_err());
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
