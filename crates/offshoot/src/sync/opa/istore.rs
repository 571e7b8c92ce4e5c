//! [`IStore`]: an I-structure cell, OPA's I-store class on [`Object`].
//!
//! Invariants:
//! * The value lives in the object's state, a `OnceLock`, set in place by the exclusive
//!   operation `put`. The object has no write operation, so its state is never copied: its
//!   first version is its only one (`Object`'s invariants), and the cell sits in that
//!   version's block, with no `Arc` of its own to reach (a `get` after a `put` on another
//!   worker reads one cache line fewer that the put wrote).
//! * `get` is suspended exactly while the cell is empty (suspended at construction, restored
//!   by the `put` that fills it, before that put's writer lock is given up), so a `get` that
//!   runs finds it set.
//! * A second `put` changes nothing and hands its value back.

use std::sync::OnceLock;

use crate::sync::{AlreadyPut, Object, Op};

/// A single-assignment cell whose reads wait until it is written (an I-structure element):
/// [`get`](IStore::get) parks until the one [`put`](IStore::put); a second put is an error.
///
/// Written on [`Object`] as OPA writes it: `get` starts suspended, and `put` (an exclusive
/// operation, which sets the value in place) restores it. Reads after the put never wait
/// and take no lock.
///
/// ```
/// use offshoot::sync::opa::IStore;
/// let cell = IStore::new();
/// let got = offshoot::scope(|s| {
///     s.spawn(|_| cell.put(42).unwrap());
///     cell.get() // parks until the put
/// });
/// assert_eq!(got, 42);
/// assert!(cell.put(7).is_err()); // written once
/// assert_eq!(cell.get(), 42);
/// ```
pub struct IStore<V> {
    object: Object<OnceLock<V>>,
    get: Op<(), V>,
    try_get: Op<(), Option<V>>,
    put: Op<V, Result<(), AlreadyPut<V>>>,
}

impl<V: Clone + Send + Sync + 'static> IStore<V> {
    /// An empty cell.
    ///
    /// ```
    /// let c = offshoot::sync::opa::IStore::<u8>::new();
    /// assert_eq!(c.try_get(), None);
    /// ```
    pub fn new() -> IStore<V> {
        IStore::build(Object::builder(OnceLock::new()))
    }

    /// An empty cell that deadlock reports name `name`: a task that waits for it for ever
    /// is listed as waiting on `Object::call "name" (0x…) for operation "get" to be
    /// restored`.
    ///
    /// ```
    /// let c = offshoot::sync::opa::IStore::named("answer");
    /// c.put(1).unwrap();
    /// assert_eq!(c.get(), 1);
    /// ```
    pub fn named(name: &'static str) -> IStore<V> {
        IStore::build(Object::builder(OnceLock::new()).named(name))
    }

    fn build(mut b: crate::sync::ObjectBuilder<OnceLock<V>>) -> IStore<V> {
        let get = b.op("get");
        let try_get = b.op("try_get");
        let put = b.op("put");
        b.read(get, |v: &OnceLock<V>, ()| {
            v.get()
                .cloned()
                .expect("offshoot: IStore::get is restored only once the cell is written")
        });
        b.read(try_get, |v: &OnceLock<V>, ()| v.get().cloned());
        b.exclusive(put, move |c, value| match c.set(value) {
            Ok(()) => {
                c.restore(get);
                Ok(())
            }
            Err(value) => Err(AlreadyPut(value)),
        });
        b.suspended(get);
        IStore {
            object: b.build(),
            get,
            try_get,
            put,
        }
    }

    /// The value, parking until it is written.
    ///
    /// ```
    /// let c = offshoot::sync::opa::IStore::new();
    /// c.put("x").unwrap();
    /// assert_eq!(c.get(), "x");
    /// ```
    #[track_caller]
    pub fn get(&self) -> V {
        self.object.call(self.get, ())
    }

    /// The value if it is written, without waiting.
    ///
    /// ```
    /// let c = offshoot::sync::opa::IStore::new();
    /// assert_eq!(c.try_get(), None);
    /// c.put(3).unwrap();
    /// assert_eq!(c.try_get(), Some(3));
    /// ```
    pub fn try_get(&self) -> Option<V> {
        self.object.call(self.try_get, ())
    }

    /// Writes the value and wakes the readers waiting for it.
    ///
    /// # Errors
    /// [`AlreadyPut`] with `value` if the cell was written before; the cell keeps its value.
    ///
    /// ```
    /// let c = offshoot::sync::opa::IStore::new();
    /// assert!(c.put(1).is_ok());
    /// assert_eq!(c.put(2).unwrap_err().0, 2);
    /// ```
    #[track_caller]
    pub fn put(&self, value: V) -> Result<(), AlreadyPut<V>> {
        self.object.call(self.put, value)
    }

    /// How many readers wait for the value now.
    ///
    /// ```
    /// assert_eq!(offshoot::sync::opa::IStore::<u8>::new().waiting(), 0);
    /// ```
    pub fn waiting(&self) -> usize {
        self.object.waiting(self.get)
    }
}

impl<V: Clone + Send + Sync + 'static> Default for IStore<V> {
    fn default() -> Self {
        IStore::new()
    }
}

impl<V: Clone + Send + Sync + std::fmt::Debug + 'static> std::fmt::Debug for IStore<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("IStore").field(&self.try_get()).finish()
    }
}
