//! The lock-free list through which other threads hand a worker the fibers they woke: an
//! intrusive multi-producer stack (each node carries its own link) that the owner takes
//! whole, oldest first. A wake from another worker is then one compare-and-swap, no lock.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file, with the
//! worker's sleep handshake modelled):
//! 1. A node is pushed only while it is in no list (the park/wake token queues a parked
//!    fiber exactly once per park, `token.rs`), and not touched by its pusher after the
//!    push's compare-and-swap succeeded; the owner alone takes nodes out, all at once
//!    (`take_all` swaps the head for null). No pop of a single node exists, so the classic
//!    ABA of a Treiber pop cannot happen: a push that succeeds links its node to the head
//!    it compared against, which is the head at that instant, whatever happened before.
//! 2. Every pushed node is taken exactly once, and nodes pushed by one thread are taken in
//!    the order it pushed them.
//! 3. Push and take are sequentially consistent read-modify-writes, and `is_empty` a
//!    sequentially consistent load: a pusher that pushes and then reads the owner's sleep
//!    state, and an owner that publishes its sleep state and then reads `is_empty`, cannot
//!    both miss each other (the owner sees the node, or the pusher sees it asleep and wakes
//!    it). The successful push releases what the pusher wrote before it to the owner's take.

use std::ptr;

use crate::atomics::{AtomicPtr, Ordering};

/// A node of a [`ReadyStack`]: it holds the link to the next one.
pub(crate) trait Linked: Sized {
    fn link(&self) -> &AtomicPtr<Self>;
}

/// See the module docs.
pub(crate) struct ReadyStack<T: Linked> {
    head: AtomicPtr<T>,
}

impl<T: Linked> ReadyStack<T> {
    pub(crate) fn new() -> ReadyStack<T> {
        ReadyStack {
            head: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Pushes `node` (from any thread).
    ///
    /// # Safety
    /// `node` is live, in no list, and stays live until the owner has taken it out.
    pub(crate) unsafe fn push(&self, node: *mut T) {
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: per the contract, `node` is live and nobody else links it now.
            unsafe { (*node).link().store(head, Ordering::Relaxed) };
            // SeqCst: see invariant 3; it also releases the link written above.
            match self
                .head
                .compare_exchange_weak(head, node, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// Whether nothing was pushed since the last take.
    pub(crate) fn is_empty(&self) -> bool {
        // SeqCst: invariant 3: the owner's read after it published its sleep state
        // (`Remote::has_news` in `quiet`), pairing with `push`'s SeqCst CAS before the pusher
        // reads that state (`unpark_if_sleeping`); also the cheap look in `take_all`.
        self.head.load(Ordering::SeqCst).is_null()
    }

    /// Takes every node pushed so far (owner only) and passes them to `f`, oldest first.
    pub(crate) fn take_all(&self, mut f: impl FnMut(*mut T)) {
        if self.is_empty() {
            return;
        }
        // SeqCst (acquire): the links and whatever the pushers wrote before pushing.
        let mut n = self.head.swap(ptr::null_mut(), Ordering::SeqCst);
        // Newest first: reverse the links in place, then walk.
        let mut rev: *mut T = ptr::null_mut();
        while !n.is_null() {
            // SAFETY: taken nodes are live (push contract) and ours alone now.
            let next = unsafe { (*n).link().load(Ordering::Relaxed) };
            // SAFETY: as above.
            unsafe { (*n).link().store(rev, Ordering::Relaxed) };
            rev = n;
            n = next;
        }
        while !rev.is_null() {
            // SAFETY: as above; read the link before `f` may reuse the node.
            let next = unsafe { (*rev).link().load(Ordering::Relaxed) };
            f(rev);
            rev = next;
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Two wakers push nodes for one owner, which drains them and sleeps when it finds
    //! none, the way a worker does (`Waiter::wake` and `Worker::idle_sleep`): every node is
    //! taken exactly once, in each waker's order, and no wake is lost (a lost one leaves
    //! the owner parked for good, which loom reports as a deadlock).
    //!
    //! Loom treats `SeqCst` loads, stores and read-modify-writes as `AcqRel` (its README,
    //! "Unsupported features"), which cannot express invariant 3's store-then-load on two
    //! locations; it does model `fence(SeqCst)`. So the model puts a `SeqCst` fence between
    //! each side's two accesses, which gives the guarantee the runtime's `SeqCst` accesses
    //! give in the C11 model (a total order over them): without the fences loom reports
    //! the lost wake that weaker orderings would allow.
    use super::*;
    use crate::atomics::Permit;
    use loom::sync::atomic::{fence, AtomicBool, AtomicUsize};
    use loom::sync::Arc;
    use loom::thread;

    struct Node {
        link: AtomicPtr<Node>,
        id: usize,
    }

    impl Linked for Node {
        fn link(&self) -> &AtomicPtr<Node> {
            &self.link
        }
    }

    struct Owner {
        ready: ReadyStack<Node>,
        sleeping: AtomicBool,
        wakes: AtomicUsize,
        permit: Permit,
    }

    /// A waker's side: push, then wake the owner if it sleeps.
    fn wake(o: &Owner, node: *mut Node) {
        // SAFETY: each node is pushed once and lives until the model ends.
        unsafe { o.ready.push(node) };
        fence(Ordering::SeqCst);
        if o.sleeping.load(Ordering::SeqCst) {
            o.wakes.fetch_add(1, Ordering::SeqCst);
            o.permit.unpark();
        }
    }

    #[test]
    fn every_wake_is_taken_once_in_order_and_none_is_lost() {
        loom::model(|| {
            let nodes: Vec<*mut Node> = (0..3)
                .map(|id| {
                    Box::into_raw(Box::new(Node {
                        link: AtomicPtr::new(ptr::null_mut()),
                        id,
                    }))
                })
                .collect();
            let o = Arc::new(Owner {
                ready: ReadyStack::new(),
                sleeping: AtomicBool::new(false),
                wakes: AtomicUsize::new(0),
                permit: Permit::default(),
            });
            // Waker 0 pushes nodes 0 then 1; waker 1 pushes node 2.
            let (a, b, c) = (nodes[0] as usize, nodes[1] as usize, nodes[2] as usize);
            let w0 = {
                let o = o.clone();
                thread::spawn(move || {
                    wake(&o, a as *mut Node);
                    wake(&o, b as *mut Node);
                })
            };
            let w1 = {
                let o = o.clone();
                thread::spawn(move || wake(&o, c as *mut Node))
            };
            let mut seen = Vec::new();
            while seen.len() < 3 {
                // SAFETY: the nodes live until the end of the model.
                o.ready.take_all(|n| seen.push(unsafe { (*n).id }));
                if seen.len() == 3 {
                    break;
                }
                o.sleeping.store(true, Ordering::SeqCst);
                fence(Ordering::SeqCst);
                if o.ready.is_empty() {
                    o.permit.park();
                }
                o.sleeping.store(false, Ordering::SeqCst);
            }
            w0.join().unwrap();
            w1.join().unwrap();
            let mut sorted = seen.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![0, 1, 2], "taken exactly once each");
            let pos = |id| seen.iter().position(|&s| s == id).unwrap();
            assert!(pos(0) < pos(1), "one waker's nodes out of order: {seen:?}");
            assert!(o.ready.is_empty());
            for n in nodes {
                // SAFETY: made by Box::into_raw above, taken out of the stack.
                drop(unsafe { Box::from_raw(n) });
            }
        });
    }
}
