//! [`Fifo`]: a bounded first-in first-out queue, OPA's FIFO class on [`Object`].
//!
//! Invariants:
//! * The versioned state is the ring's `head` and `len`; the items live in `slots`, shared
//!   by every version, and are touched only by the `put` and `get` bodies, which run one at
//!   a time (they are write operations: the object's writer lock). A body moves an item and
//!   updates `head`/`len` with nothing in between that can panic or stop, so the slots always
//!   agree with the last committed version.
//! * `put` is suspended exactly while `len == capacity`, `get` exactly while `len == 0`: each
//!   body suspends its own operation when it makes the ring full (empty) and restores the
//!   other one when it makes the ring leave empty (full), in the same commit.

use std::sync::Arc;

use crate::sync::{lock, Object, ObjectBuilder, Op};

/// The versioned state: where the ring starts and how many items it holds.
struct Ring<V> {
    head: usize,
    len: usize,
    slots: Arc<[std::sync::Mutex<Option<V>>]>,
}

impl<V> Clone for Ring<V> {
    fn clone(&self) -> Self {
        Ring {
            head: self.head,
            len: self.len,
            slots: self.slots.clone(),
        }
    }
}

/// A bounded FIFO queue for tasks: [`put`](Fifo::put) parks while it is full,
/// [`get`](Fifo::get) while it is empty, each on its own queue, so a put wakes one waiting
/// consumer and never a producer (and a get one producer, never a consumer).
///
/// Written on [`Object`] as OPA writes it: `get` starts suspended; a put that fills the
/// queue suspends `put`, one that makes it non-empty restores `get`; a get does the mirror.
///
/// ```
/// use offshoot::sync::opa::Fifo;
/// let q = Fifo::new(2);
/// let sum = offshoot::scope(|s| {
///     s.spawn(|_| (1..=10).for_each(|i| q.put(i))); // parks whenever 2 are queued
///     (0..10).map(|_| q.get()).sum::<u64>()
/// });
/// assert_eq!(sum, 55);
/// assert_eq!(q.woken_producers() + q.woken_consumers() <= 20, true);
/// ```
pub struct Fifo<V> {
    object: Object<Ring<V>>,
    capacity: usize,
    put: Op<V, ()>,
    get: Op<(), V>,
    len: Op<(), usize>,
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
        let ring = Ring {
            head: 0,
            len: 0,
            slots: (0..capacity).map(|_| std::sync::Mutex::new(None)).collect(),
        };
        let mut b: ObjectBuilder<Ring<V>> = Object::builder(ring);
        if let Some(n) = name {
            b = b.named(n);
        }
        let put = b.op("put");
        let get = b.op("get");
        let len = b.op("len");
        b.write(put, move |r, item| {
            let at = (r.head + r.len) % capacity;
            *lock(&r.slots[at]) = Some(item);
            r.len += 1;
            if r.len == capacity {
                r.suspend(put);
            }
            if r.len == 1 {
                r.restore(get);
            }
        });
        b.write(get, move |r, ()| {
            let item = lock(&r.slots[r.head])
                .take()
                .expect("offshoot: Fifo::get is restored only while an item is queued");
            r.head = (r.head + 1) % capacity;
            r.len -= 1;
            if r.len == 0 {
                r.suspend(get);
            }
            if r.len == capacity - 1 {
                r.restore(put);
            }
            item
        });
        b.read(len, |r, ()| r.len);
        b.suspended(get);
        Fifo {
            object: b.build(),
            capacity,
            put,
            get,
            len,
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

    /// How many items are queued now (without waiting).
    ///
    /// ```
    /// let q = offshoot::sync::opa::Fifo::<()>::new(3);
    /// assert!(q.is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.object.call(self.len, ())
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
