//! The cost of one uncontended call of an OPA object (`sync::Object`, issue 46) against the
//! construct it stands in for, for instruction counts: each variant runs N operations in
//! one task of a one-worker pool, in the function `measured`, and checks its answer.
//!
//! ```sh
//! cargo build --release -p offshoot-bench --example object_calls
//! valgrind --tool=callgrind --toggle-collect='*measured*' --callgrind-out-file=/tmp/c.out \
//!     target/release/examples/object_calls istore 20000
//! callgrind_annotate /tmp/c.out | head   # the total over N is Ir per operation
//! ```
//!
//! Variants (N operations each):
//! - `istore` / `promise`: put then get each of N cells (`opa::IStore` / `sync::Promise`),
//!   made before the measured part; an operation is one put and one get.
//! - `istore-get` / `promise-get`: get N times from a cell that was put (the read path).
//! - `istore-wait` / `promise-wait`: for each of N cells, a scope whose spawned task puts
//!   it while the scope's body gets it: on one worker the get finds the cell empty and
//!   parks, the worker runs the put, which wakes it (the waiting path: announce, park,
//!   wake, resume); an operation is one scope, one put and one waiting get.
//! - `fifo` / `channel`: put 8 items then get 8, N/8 times, through 16 slots (`opa::Fifo`
//!   / `sync::bounded`); an operation is one put and one get.
//! - `read` / `write`: N calls of an `Object`'s read operation (a counter's value) or of its
//!   write operation (add 1), against `shared-read` / `shared-write`: the same on a bare
//!   `sync::Shared`.
//!
//! Measured (Ir per operation, N = 8000, callgrind 3.19, release profile; before the call
//! path of commit 5910782 → after): `istore` 641 → 361 (`promise` 364), `istore-get` 181 →
//! 51 (`promise-get` 38), `fifo` 665 → 336 (`channel` 194), `read` 175 → 135
//! (`shared-read` 92), `write` 731 → 730 (`shared-write` 585).
//! `istore-wait` 3323 → 3011 (`promise-wait` 2944) with a wait list's first token kept
//! inline (docs/DESIGN-NOTES.md, "An I-store's waiting get"). With the span stamp of
//! exclusive operations (metrics), the flattened bodies (`sync/op_body.rs`) and the
//! stamps' one-flag check: `fifo` 351, `istore` 368 (`promise` 342), `istore-get` 63,
//! `read` 120, `write` 699.

use std::hint::black_box;

use offshoot::sync::opa::{Fifo, IStore};
use offshoot::sync::{bounded, Object, Promise, Shared};

/// Runs `variant` `n` times and returns its check value.
#[inline(never)]
fn measured(variant: &str, n: u64, cells: &Cells) -> u64 {
    match (variant, cells) {
        ("istore", Cells::IStore(cells)) => cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.put(i as u64).unwrap();
                c.get()
            })
            .sum(),
        ("promise", Cells::Promise(cells)) => cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.put(i as u64).unwrap();
                *c.get()
            })
            .sum(),
        ("istore-wait", Cells::IStore(cells)) => cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                offshoot::scope(|s| {
                    s.spawn(move |_| c.put(i as u64).unwrap());
                    c.get()
                })
            })
            .sum(),
        ("promise-wait", Cells::Promise(cells)) => cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                offshoot::scope(|s| {
                    s.spawn(move |_| c.put(i as u64).unwrap());
                    *c.get()
                })
            })
            .sum(),
        ("istore-get", Cells::IStore(cells)) => (0..n).map(|_| black_box(&cells[0]).get()).sum(),
        ("promise-get", Cells::Promise(cells)) => (0..n).map(|_| *black_box(&cells[0]).get()).sum(),
        ("fifo", _) => {
            let q = Fifo::new(16);
            let mut sum = 0;
            for i in (0..n).step_by(8) {
                (i..i + 8).for_each(|j| q.put(j));
                (0..8).for_each(|_| sum += q.get());
            }
            sum
        }
        ("channel", _) => {
            let (tx, rx) = bounded(16);
            let mut sum = 0;
            for i in (0..n).step_by(8) {
                (i..i + 8).for_each(|j| tx.send(j).unwrap());
                (0..8).for_each(|_| sum += rx.recv().unwrap());
            }
            sum
        }
        ("read" | "write", Cells::Object((o, get, add))) => {
            let op = if variant == "read" { *get } else { *add };
            (0..n).map(|_| o.call(op, ())).sum()
        }
        ("shared-read", Cells::Shared(s)) => (0..n).map(|_| s.read(|v| *v)).sum(),
        ("shared-write", Cells::Shared(s)) => (0..n)
            .map(|_| {
                s.write(|v| {
                    **v += 1;
                    **v
                })
            })
            .sum(),
        _ => panic!("unknown variant {variant:?}: see the file's top comment"),
    }
}

type Counter = (
    Object<u64>,
    offshoot::sync::Op<(), u64>,
    offshoot::sync::Op<(), u64>,
);

enum Cells {
    IStore(Vec<IStore<u64>>),
    Promise(Vec<Promise<u64>>),
    Object(Counter),
    Shared(Shared<u64>),
    None,
}

fn counter() -> Counter {
    let mut b = Object::builder(0u64).named("counter");
    let get = b.op("get");
    let add = b.op("add");
    b.read(get, |v, ()| *v);
    b.write(add, |v, ()| {
        **v += 1;
        **v
    });
    (b.build(), get, add)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant = args.get(1).map(String::as_str).unwrap_or("istore");
    let n: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    assert!(n.is_multiple_of(8), "N must be a multiple of 8");
    let cells = match variant {
        "istore" | "istore-wait" => Cells::IStore((0..n).map(|_| IStore::new()).collect()),
        "promise" | "promise-wait" => Cells::Promise((0..n).map(|_| Promise::new()).collect()),
        "istore-get" => {
            let c = IStore::new();
            c.put(1).unwrap();
            Cells::IStore(vec![c])
        }
        "promise-get" => {
            let c = Promise::new();
            c.put(1).unwrap();
            Cells::Promise(vec![c])
        }
        "read" | "write" => Cells::Object(counter()),
        "shared-read" | "shared-write" => Cells::Shared(Shared::new(0)),
        _ => Cells::None,
    };
    let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    let got = pool.run(|| measured(variant, n, &cells));
    let want = match variant {
        "istore" | "promise" | "istore-wait" | "promise-wait" | "fifo" | "channel" => {
            n * (n - 1) / 2
        }
        "istore-get" | "promise-get" => n,
        "read" | "shared-read" => 0,
        _ => n * (n + 1) / 2,
    };
    assert_eq!(got, want, "{variant}: a wrong answer");
    println!("{variant} {n}: ok");
}
