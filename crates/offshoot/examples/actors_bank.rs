//! A bank of account actors and teller selectors: request-reply without a blocking ask.
//! Each teller takes one transfer at a time from its `Regular` mailbox, asks the source
//! account to debit (disabling `Regular` until the reply arrives in `Reply`), then the
//! destination to credit; transfers that would overdraw are refused. Prints the counts and
//! checks that money was neither made nor lost.
//!
//! `cargo run --release -p offshoot --example actors_bank -- [TRANSFERS]`

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use offshoot::actor::{self, Actor, ActorRef, Context, Selector, SelectorContext};

const ACCOUNTS: usize = 64;
const TELLERS: usize = 8;
const OPENING: i64 = 1_000;

/// An account: its balance, mirrored in `shown` for the final check.
struct Account {
    balance: i64,
    shown: Arc<AtomicI64>,
}

enum Op {
    Debit(i64, actor::SelectorRef<Teller>),
    Credit(i64, actor::SelectorRef<Teller>),
}

impl Actor for Account {
    type Message = Op;
    fn receive(&mut self, op: Op, _: &mut Context<'_, Self>) {
        match op {
            Op::Debit(x, teller) => {
                let ok = self.balance >= x;
                if ok {
                    self.balance -= x;
                }
                self.shown.store(self.balance, Ordering::Relaxed);
                teller.send(Port::Reply, Msg::Debited(ok));
            }
            Op::Credit(x, teller) => {
                self.balance += x;
                self.shown.store(self.balance, Ordering::Relaxed);
                teller.send(Port::Reply, Msg::Credited);
            }
        }
    }
}

offshoot::mailboxes! {
    enum Port {
        Reply,
        Regular,
    }
}

enum Msg {
    Transfer { from: usize, to: usize, amount: i64 },
    Debited(bool),
    Credited,
}

/// A teller: one transfer in progress at a time.
struct Teller {
    accounts: Arc<Vec<ActorRef<Account>>>,
    pending: Option<(usize, i64)>,
    done: Arc<AtomicU64>,
    refused: Arc<AtomicU64>,
}

impl Selector for Teller {
    type Mailbox = Port;
    type Message = Msg;
    fn receive(&mut self, _: Port, msg: Msg, ctx: &mut SelectorContext<'_, Self>) {
        match msg {
            Msg::Transfer { from, to, amount } => {
                self.pending = Some((to, amount));
                self.accounts[from].send(Op::Debit(amount, ctx.myself()));
                ctx.disable(Port::Regular); // until the transfer is complete
            }
            Msg::Debited(true) => {
                let (to, amount) = self.pending.take().expect("a transfer in progress");
                self.accounts[to].send(Op::Credit(amount, ctx.myself()));
            }
            Msg::Debited(false) => {
                self.pending = None;
                self.refused.fetch_add(1, Ordering::Relaxed);
                ctx.enable(Port::Regular);
            }
            Msg::Credited => {
                self.done.fetch_add(1, Ordering::Relaxed);
                ctx.enable(Port::Regular);
            }
        }
    }
}

fn main() {
    let transfers: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("TRANSFERS: a whole number"))
        .unwrap_or(200_000);
    let shown: Arc<Vec<Arc<AtomicI64>>> = Arc::new(
        (0..ACCOUNTS)
            .map(|_| Arc::new(AtomicI64::new(OPENING)))
            .collect(),
    );
    let (done, refused) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let pool = offshoot::ThreadPool::builder().build().unwrap();
    let t = Instant::now();
    {
        let (shown, done, refused) = (shown.clone(), done.clone(), refused.clone());
        pool.run(move || {
            let accounts: Arc<Vec<ActorRef<Account>>> = Arc::new(
                shown
                    .iter()
                    .map(|s| {
                        actor::start(Account {
                            balance: OPENING,
                            shown: s.clone(),
                        })
                    })
                    .collect(),
            );
            let tellers: Vec<_> = (0..TELLERS)
                .map(|_| {
                    actor::start_selector(Teller {
                        accounts: accounts.clone(),
                        pending: None,
                        done: done.clone(),
                        refused: refused.clone(),
                    })
                })
                .collect();
            drop(accounts); // the tellers hold the accounts now
            offshoot::par_for(0..transfers as usize, |i| {
                let r = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16;
                let from = (r % ACCOUNTS as u64) as usize;
                let to = ((r >> 8) % ACCOUNTS as u64) as usize;
                let amount = (r >> 16) as i64 % 300;
                tellers[i % TELLERS].send(Port::Regular, Msg::Transfer { from, to, amount });
            });
            // The tellers' handles go here: each exits once its transfers are done, which
            // drops its account handles, and the accounts exit in turn; `run` waits.
        });
    }
    let secs = t.elapsed().as_secs_f64();
    let total: i64 = shown.iter().map(|s| s.load(Ordering::Relaxed)).sum();
    let (d, r) = (
        done.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed),
    );
    println!(
        "{transfers} transfers on {} workers: {d} done, {r} refused, in {:.1} ms ({:.0} ns per transfer)",
        pool.current_num_threads(),
        secs * 1e3,
        secs * 1e9 / transfers as f64
    );
    assert_eq!(d + r, transfers, "every transfer was answered");
    assert_eq!(total, OPENING * ACCOUNTS as i64, "money was made or lost");
    println!("total balance {total}: conserved");
}
