//! `Chain`: the current value of a eureka that moves from value to value (Minima's
//! bound, Convergence's latest), readable with one load and no reference count; also an
//! append-only set of values (NVersion's tallies, `push_unless`).
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

impl<T> Chain<T> {
    /// Publishes `x` unless a value already in the chain `matches` it (`matches(&x, v)`):
    /// gives `x` back with that value. Every value is compared with `x` once: a retry after
    /// losing the compare-and-swap compares only the values published since. So a chain
    /// whose values after the first are all published this way never holds two that
    /// match each other, for a `matches` that is an equivalence. On success returns the
    /// published value.
    pub(super) fn push_unless(
        &self,
        x: T,
        matches: impl Fn(&T, &T) -> bool,
    ) -> Result<&T, (T, &T)> {
        // Acquire: pairs with the release of the CAS that published the head, so its
        // value and its `older` link (written before) are visible.
        let mut top = self.head.load(Ordering::Acquire);
        if let Some(v) = self.walk(top, ptr::null_mut()).find(|v| matches(&x, v)) {
            return Err((x, v));
        }
        // A box between attempts, so that a panic of `matches` drops `x` instead of
        // leaking the node.
        let mut node = Box::new(Node {
            value: x,
            older: top,
        });
        loop {
            let raw = Box::into_raw(node);
            match self
                .head
                .compare_exchange_weak(top, raw, Ordering::AcqRel, Ordering::Acquire)
            {
                // SAFETY: published: it lives until the chain drops (invariant).
                Ok(_) => return Ok(unsafe { &(*raw).value }),
                Err(now) => {
                    // SAFETY: `raw` is not published, so it is still this thread's.
                    node = unsafe { Box::from_raw(raw) };
                    // The nodes published since `top` lie between `now` and `top`.
                    if let Some(v) = self.walk(now, top).find(|v| matches(&node.value, v)) {
                        return Err((node.value, v));
                    }
                    node.older = now;
                    top = now;
                }
            }
        }
    }

    /// Every value, newest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        // Acquire: as in `current`.
        self.walk(self.head.load(Ordering::Acquire), ptr::null_mut())
    }

    /// The values of the nodes from `from` (a node read with acquire, or reached from one)
    /// down to `until`, not included (null: to the oldest).
    fn walk(&self, from: *mut Node<T>, until: *mut Node<T>) -> impl Iterator<Item = &T> {
        let mut p = from;
        std::iter::from_fn(move || {
            if p == until || p.is_null() {
                return None;
            }
            // SAFETY: nodes live until the chain drops (invariant); a node's `older` was
            // written before the node was published, and the node it names before that.
            let node = unsafe { &*p };
            p = node.older;
            Some(&node.value)
        })
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
