//! `Chain`: the current value of a eureka that moves from value to value (Minima's
//! bound, Convergence's latest), readable with one load and no reference count.
//!
//! Invariant: `head` points to the newest node; every node holds a pointer to the one it
//! replaced; nodes are published by a compare-and-swap (release) and never freed or
//! changed until the `Chain` is dropped, which frees them all. So a reader's `&T` from
//! `current` stays valid as long as its borrow of the `Chain`, with no reclamation
//! scheme: memory grows by one node per change (a bound changes rarely; a long strictly
//! improving run of offers costs a node each).

use std::ptr;

use crate::atomics::{AtomicPtr, Ordering};

struct Node<T> {
    value: T,
    older: *mut Node<T>,
}

pub(super) struct Chain<T> {
    head: AtomicPtr<Node<T>>,
}

// SAFETY: nodes are shared read-only between threads (`T: Sync`) and moved in from any
// thread (`T: Send`); the pointer is atomic.
unsafe impl<T: Send + Sync> Sync for Chain<T> {}
// SAFETY: owning the chain owns every node.
unsafe impl<T: Send> Send for Chain<T> {}

impl<T> Chain<T> {
    pub(super) fn new(init: T) -> Chain<T> {
        let node = Box::into_raw(Box::new(Node {
            value: init,
            older: ptr::null_mut(),
        }));
        Chain {
            head: AtomicPtr::new(node),
        }
    }

    /// The newest value.
    #[inline]
    pub(super) fn current(&self) -> &T {
        // Acquire: pairs with the release of the CAS that published the node.
        let p = self.head.load(Ordering::Acquire);
        // SAFETY: the head is never null and nodes live until the chain drops (invariant).
        unsafe { &(*p).value }
    }

    /// Publishes `x` if `replaces(&x, current)` holds, retrying while others publish;
    /// gives `x` back if it does not (any more). On success returns the value it
    /// replaced and the published one.
    pub(super) fn push_if(&self, x: T, replaces: impl Fn(&T, &T) -> bool) -> Result<(&T, &T), T> {
        let mut cur = self.head.load(Ordering::Acquire);
        // SAFETY: nodes live until the chain drops (invariant).
        let current = unsafe { &(*cur).value };
        if !replaces(&x, current) {
            return Err(x);
        }
        let node = Box::into_raw(Box::new(Node {
            value: x,
            older: cur,
        }));
        loop {
            match self
                .head
                .compare_exchange_weak(cur, node, Ordering::AcqRel, Ordering::Acquire)
            {
                // SAFETY: as above; `cur` is the node just replaced, `node` the one
                // published.
                Ok(_) => return Ok(unsafe { (&(*cur).value, &(*node).value) }),
                Err(now) => {
                    cur = now;
                    // SAFETY: `node` is not published, so it is still this thread's.
                    let n = unsafe { &mut *node };
                    // SAFETY: nodes live until the chain drops (invariant).
                    let current = unsafe { &(*cur).value };
                    if !replaces(&n.value, current) {
                        // SAFETY: unpublished: taken back whole, once.
                        return Err(unsafe { Box::from_raw(node) }.value);
                    }
                    n.older = cur;
                }
            }
        }
    }
}

impl<T> Drop for Chain<T> {
    fn drop(&mut self) {
        // `&mut self`: no other thread can touch the head any more.
        let mut p = self.head.load(Ordering::Relaxed);
        while !p.is_null() {
            // SAFETY: every node was made by `Box::into_raw` and is freed once, here.
            let node = unsafe { Box::from_raw(p) };
            p = node.older;
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::Chain;
    use loom::sync::Arc;

    /// Two offers race to lower a bound that a reader watches: the bound ends at the
    /// least value, every value the reader sees was offered (or the initial one) and
    /// never rises, and a losing offer comes back.
    #[test]
    fn racing_offers_leave_the_least() {
        loom::model(|| {
            let c = Arc::new(Chain::new(10u32));
            let less = |x: &u32, cur: &u32| x < cur;
            let offers: Vec<_> = [7u32, 5]
                .into_iter()
                .map(|v| {
                    let c = c.clone();
                    loom::thread::spawn(move || c.push_if(v, less).is_ok())
                })
                .collect();
            let seen = *c.current();
            assert!([10, 7, 5].contains(&seen));
            let later = *c.current();
            assert!(later <= seen, "the bound rose from {seen} to {later}");
            let taken: Vec<bool> = offers.into_iter().map(|t| t.join().unwrap()).collect();
            assert_eq!(*c.current(), 5);
            assert!(taken[1], "the least offer is always taken");
        });
    }
}
