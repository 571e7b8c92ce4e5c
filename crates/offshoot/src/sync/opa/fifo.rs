//! [`Fifo`]: a bounded first-in first-out queue, OPA's FIFO class on [`Object`].
//!
//! Invariants:
//! * The items live in one `VecDeque` shared by the object's state (an `Arc`), changed in
//!   place by the exclusive operations `put` and `get` and by nothing else. Those run one at
//!   a time under the object's writer lock (whose acquire and release order each after the
//!   one before), so they need no lock of their own: the deque sits in an `UnsafeCell`.
//!   `len` counts the items, stored by the same operations, for [`Fifo::len`].
//! * `put` is suspended exactly while the queue holds `capacity` items, `get` exactly while
//!   it holds none: each body suspends its own operation when it makes the queue full
//!   (empty) and restores the other one when it makes it leave empty (full), with effect when
//!   it returns, before the writer lock is given up.

use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::sync::{Exclusive, Object, ObjectBuilder, Op};

/// The queue's items (module invariants).
struct Items<V> {
    slots: UnsafeCell<VecDeque<V>>,
    len: AtomicUsize,
}

// SAFETY: `slots` is reached only from the exclusive operations of the one object whose
// state holds it, which run one at a time, each ordered after the one before by the object's
// writer lock (module invariants): no two threads touch it at once. Items move between
// threads through it, hence `V: Send`; `len` is an atomic.
unsafe impl<V: Send> Sync for Items<V> {}

impl<V> Items<V> {
    /// The deque, for the exclusive operation `q` of the queue's object that runs now.
    fn slots<'a>(q: &'a mut Exclusive<'_, Arc<Items<V>>>) -> &'a mut VecDeque<V> {
        // SAFETY: `q` is lent only to a running exclusive operation of the object whose
        // state this is, which holds the object's writer lock for as long as `q` lives, and
        // the borrow of `q` (unique) keeps this one from being taken twice inside it.
        unsafe { &mut *q.slots.get() }
    }
}

/// A bounded FIFO queue for tasks: [`put`](Fifo::put) parks while it is full,
/// [`get`](Fifo::get) while it is empty, each on its own queue, so a put wakes one waiting
/// consumer and never a producer (and a get one producer, never a consumer).
///
/// Written on [`Object`] as OPA writes it: `get` starts suspended; a put that fills the
/// queue suspends `put`, one that makes it non-empty restores `get`; a get does the mirror.
/// `put` and `get` are exclusive operations (OPA's `synchronized` methods): they change the
/// queue in place rather than commit a copy of it.
///
/// ```
/// use offshoot::sync::opa::Fifo;
/// let q = Fifo::new(2);
/// let sum = offshoot::scope(|s| {
///     s.spawn(|_| (1..=10).for_each(|i| q.put(i))); // parks whenever 2 are queued
///     (0..10).map(|_| q.get()).sum::<u64>()
/// });
/// assert_eq!(sum, 55);
/// assert!(q.woken_consumers() <= 10); // at most one wake-up per item
/// ```
pub struct Fifo<V> {
    object: Object<Arc<Items<V>>>,
    /// The object's state, for [`Fifo::len`] (module invariants).
    items: Arc<Items<V>>,
    capacity: usize,
    put: Op<V, ()>,
    get: Op<(), V>,
}

impl<V: Send + 'static> Fifo<V> {
    /// An empty queue of `capacity` slots.
    ///
    /// # Panics
    /// If `capacity` is 0.
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::<u8>::new(4);
    /// assert_eq!((q.len(), q.capacity()), (0, 4));
    /// ```
    pub fn new(capacity: usize) -> Fifo<V> {
        Fifo::build(capacity, None)
    }

    /// An empty queue that deadlock reports name `name` (`Object::call "name" (0x…) for
    /// operation "get" to be restored`).
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::named("jobs", 1);
    /// q.put(1u8);
    /// assert_eq!(q.get(), 1);
    /// ```
    pub fn named(name: &'static str, capacity: usize) -> Fifo<V> {
        Fifo::build(capacity, Some(name))
    }

    fn build(capacity: usize, name: Option<&'static str>) -> Fifo<V> {
        assert!(capacity > 0, "offshoot::sync::opa::Fifo: a capacity of 0");
        let items = Arc::new(Items {
            slots: UnsafeCell::new(VecDeque::with_capacity(capacity)),
            len: AtomicUsize::new(0),
        });
        let mut b: ObjectBuilder<Arc<Items<V>>> = Object::builder(items.clone());
        if let Some(n) = name {
            b = b.named(n);
        }
        let put = b.op("put");
        let get = b.op("get");
        b.exclusive(put, move |q, item| {
            let slots = Items::slots(q);
            slots.push_back(item);
            let len = slots.len();
            // Relaxed: a count for `Fifo::len`, which orders nothing by it.
            q.len.store(len, Ordering::Relaxed);
            if len == capacity {
                q.suspend(put);
            }
            if len == 1 {
                q.restore(get);
            }
        });
        b.exclusive(get, move |q, ()| {
            let slots = Items::slots(q);
            let item = slots
                .pop_front()
                .expect("offshoot: Fifo::get is restored only while an item is queued");
            let len = slots.len();
            // Relaxed: as in `put`.
            q.len.store(len, Ordering::Relaxed);
            if len == 0 {
                q.suspend(get);
            }
            if len == capacity - 1 {
                q.restore(put);
            }
            item
        });
        b.suspended(get);
        Fifo {
            object: b.build(),
            items,
            capacity,
            put,
            get,
        }
    }

    /// Appends `item`, parking while the queue is full.
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::new(1);
    /// q.put('a');
    /// assert_eq!(q.len(), 1);
    /// ```
    #[track_caller]
    pub fn put(&self, item: V) {
        self.object.call(self.put, item)
    }

    /// Takes the oldest item, parking while the queue is empty.
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::new(3);
    /// q.put(1);
    /// q.put(2);
    /// assert_eq!((q.get(), q.get()), (1, 2));
    /// ```
    #[track_caller]
    pub fn get(&self) -> V {
        self.object.call(self.get, ())
    }

    /// How many items are queued now (without waiting for a put or get in progress).
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::<()>::new(3);
    /// assert!(q.is_empty());
    /// ```
    pub fn len(&self) -> usize {
        // Relaxed: a count that orders nothing (see `put`).
        self.items.len.load(Ordering::Relaxed)
    }

    /// Whether no item is queued now.
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::new(3);
    /// q.put(0);
    /// assert!(!q.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of slots.
    ///
    /// ```
    /// assert_eq!(offshoot::sync::opa::Fifo::<u8>::new(5).capacity(), 5);
    /// ```
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many times a producer waiting on a full queue has been woken (a statistic).
    ///
    /// ```
    /// assert_eq!(offshoot::sync::opa::Fifo::<u8>::new(1).woken_producers(), 0);
    /// ```
    pub fn woken_producers(&self) -> u64 {
        self.object.woken(self.put)
    }

    /// How many times a consumer waiting on an empty queue has been woken (a statistic).
    ///
    /// ```
    /// assert_eq!(offshoot::sync::opa::Fifo::<u8>::new(1).woken_consumers(), 0);
    /// ```
    pub fn woken_consumers(&self) -> u64 {
        self.object.woken(self.get)
    }

    /// How many producers wait on a full queue, and how many consumers on an empty one, now.
    ///
    /// ```
    /// assert_eq!(offshoot::sync::opa::Fifo::<u8>::new(1).waiting(), (0, 0));
    /// ```
    pub fn waiting(&self) -> (usize, usize) {
        (self.object.waiting(self.put), self.object.waiting(self.get))
    }
}

impl<V> std::fmt::Debug for Fifo<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fifo")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}
