//! `isolated`: mutual exclusion in the style of Imam's thesis §2 (HJlib's `isolated`) —
//! global sections, serialised with every other isolated section, and object-based
//! sections, serialised only with sections whose object sets intersect theirs. A task
//! that must wait parks (its worker runs other tasks); outside every pool the thread
//! blocks.
//!
//! Built on the parking locks of `sync`: a global [`RwLock`] (object-based sections hold it
//! shared, global ones exclusively) and one [`Mutex`] per object in use, found by the
//! object's address in a table and taken in increasing address order.
//!
//! Invariants:
//! * Deadlock freedom among isolated sections: a section takes the global lock first, then
//!   its objects' locks in increasing address order, each once (duplicates removed), and
//!   releases them all when it ends (also by panic or stop, through the guards).
//! * A table entry lives while a section uses or waits for its object (`users`); the last
//!   user removes it, so the table holds only objects in use.
//! * Inside a section the thread's seed count holds the isolated mark (`Worker::
//!   enter_isolated`): every parallel construct (`join`, `spawn`, `finish`, `scope`, loops,
//!   parallel iterators) and a nested `isolated` panics at its entry, before it does
//!   anything; the mark is restored when the section ends, also by unwinding.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use crate::sync::{Mutex, RwLock};
use crate::worker::Worker;

/// Runs `body` isolated from every other isolated section (global and object-based) of
/// the process: at most one runs at a time. A task that must wait parks.
///
/// Inside the body, a parallel construct (`join`, `spawn`, `finish`, `scope`, a parallel
/// loop or iterator) or a nested `isolated` is an error (a panic naming it): the section
/// should be short, and it must not wait for work that might need the section. Waiting on
/// a `sync` primitive is allowed (the task parks holding the section), but waiting for
/// something that another isolated section must do can deadlock, as with any lock: a global
/// section queued meanwhile holds back every later section (the deadlock watch reports
/// such a cycle).
///
/// # Panics
///
/// Inside another isolated section; and when the body panics, after the section was
/// released.
///
/// ```
/// use std::cell::Cell;
///
/// // A counter with no synchronisation of its own; isolated sections serialise its users.
/// struct Counter(Cell<u64>);
/// // SAFETY: only ever touched inside `isolated`, which serialises every access.
/// unsafe impl Sync for Counter {}
///
/// impl Counter {
///     fn bump(&self) {
///         self.0.set(self.0.get() + 1);
///     }
/// }
///
/// let c = Counter(Cell::new(0));
/// offshoot::par_for(0..1000, |_| offshoot::isolated(|| c.bump()));
/// assert_eq!(c.0.get(), 1000);
/// ```
#[track_caller]
pub fn isolated<R>(body: impl FnOnce() -> R) -> R {
    let at = std::panic::Location::caller();
    enter_check();
    let _all = crate::metrics::waiting(|| global().write_at(at));
    // Work/span (`metrics/`): this section comes after every section that ended before it.
    crate::metrics::absorb(&GLOBAL_STAMP);
    crate::metrics::absorb(&OBJECTS_STAMP);
    let r = run_marked(body);
    crate::metrics::raise(&GLOBAL_STAMP);
    r
}

/// The span at which the last global section ended (`metrics/`; raised under the write lock).
static GLOBAL_STAMP: crate::metrics::Stamp = crate::metrics::Stamp::new();
/// The longest span at which any section on objects ended (raised under the read lock, so
/// a global section, which takes the write lock, comes after all of them).
static OBJECTS_STAMP: crate::metrics::Stamp = crate::metrics::Stamp::new();

/// Runs `body` isolated from every other isolated section whose objects intersect
/// `objects` (and from every global one); sections on disjoint objects run in parallel.
/// IsolatedObjects are compared by address: one reference (`&a`), an array or `Vec` of references
/// to one type, or a tuple of up to four references of any types.
///
/// # Panics
///
/// As [`isolated`].
///
/// ```
/// struct Account {
///     balance: std::sync::atomic::AtomicI64,
/// }
/// let accounts: Vec<Account> = (0..8)
///     .map(|_| Account { balance: 100.into() })
///     .collect();
/// offshoot::par_for(0..1000, |i| {
///     let (from, to) = (&accounts[i % 8], &accounts[(i * 3 + 1) % 8]);
///     // Two transfers touching different accounts run in parallel.
///     offshoot::isolated_on((from, to), || {
///         use std::sync::atomic::Ordering::Relaxed;
///         let b = from.balance.load(Relaxed);
///         from.balance.store(b - 1, Relaxed);
///         let b = to.balance.load(Relaxed);
///         to.balance.store(b + 1, Relaxed);
///     });
/// });
/// let total: i64 = accounts.iter().map(|a| a.balance.load(std::sync::atomic::Ordering::Relaxed)).sum();
/// assert_eq!(total, 800);
/// ```
#[track_caller]
pub fn isolated_on<O: IsolatedObjects, R>(objects: O, body: impl FnOnce() -> R) -> R {
    let at = std::panic::Location::caller();
    enter_check();
    let mut keys = Vec::new();
    objects.addresses(&mut keys);
    keys.sort_unstable();
    keys.dedup();
    let entries = Entries::take(&keys);
    let (_shared, _locks) = crate::metrics::waiting(|| {
        let shared = global().read_at(at);
        let locks: Vec<_> = entries.0.iter().map(|e| e.lock.lock_at(at)).collect();
        (shared, locks)
    });
    // Work/span (`metrics/`): after the last global section and the last section on each
    // of these objects (an object's stamp lasts while a section uses or waits for it).
    crate::metrics::absorb(&GLOBAL_STAMP);
    for e in &entries.0 {
        crate::metrics::absorb(&e.stamp);
    }
    let r = run_marked(body);
    for e in &entries.0 {
        crate::metrics::raise(&e.stamp);
    }
    crate::metrics::raise(&OBJECTS_STAMP);
    r
}

/// What [`isolated_on`] isolates on: objects, by address.
pub trait IsolatedObjects {
    /// Appends the address of every object to `out`.
    fn addresses(&self, out: &mut Vec<usize>);
}

fn address<T: ?Sized>(r: &T) -> usize {
    (r as *const T).cast::<()>() as usize
}

impl<T> IsolatedObjects for &T {
    fn addresses(&self, out: &mut Vec<usize>) {
        out.push(address(*self));
    }
}

impl<T, const N: usize> IsolatedObjects for [&T; N] {
    fn addresses(&self, out: &mut Vec<usize>) {
        out.extend(self.iter().map(|r| address(*r)));
    }
}

impl<T> IsolatedObjects for &[&T] {
    fn addresses(&self, out: &mut Vec<usize>) {
        out.extend(self.iter().map(|r| address(*r)));
    }
}

impl<T> IsolatedObjects for Vec<&T> {
    fn addresses(&self, out: &mut Vec<usize>) {
        out.extend(self.iter().map(|r| address(*r)));
    }
}

macro_rules! tuple_objects {
    ($($name:ident),+) => {
        impl<$($name),+> IsolatedObjects for ($(&$name,)+) {
            #[allow(non_snake_case)]
            fn addresses(&self, out: &mut Vec<usize>) {
                let ($($name,)+) = self;
                $(out.push(address(*$name));)+
            }
        }
    };
}
tuple_objects!(A, B);
tuple_objects!(A, B, C);
tuple_objects!(A, B, C, D);

/// What a deadlock report calls the lock global sections take (the user never made it, so
/// it is named for what waits on it).
const GLOBAL_NAME: &str = "offshoot::isolated: the lock of every isolated section";
/// What a deadlock report calls an object's lock.
const OBJECT_NAME: &str = "offshoot::isolated_on: the lock of an isolated object";

/// Global sections take it exclusively, object-based ones shared.
fn global() -> &'static RwLock<()> {
    #[cfg(not(loom))]
    static GLOBAL: RwLock<()> = RwLock::named(GLOBAL_NAME, ());
    // Loom's primitives cannot be made in a `const fn` (the loom build runs no section).
    #[cfg(loom)]
    static GLOBAL: std::sync::LazyLock<RwLock<()>> =
        std::sync::LazyLock::new(|| RwLock::named(GLOBAL_NAME, ()));
    &GLOBAL
}

/// One object in use: its address, its lock, and how many sections use or wait for it
/// (changed only under the table's lock).
struct Entry {
    key: usize,
    lock: Mutex<()>,
    users: std::sync::atomic::AtomicUsize,
    /// The span at which the last section on this object ended (`metrics/`).
    stamp: crate::metrics::Stamp,
}

/// The objects in use, by address.
static TABLE: LazyLock<std::sync::Mutex<HashMap<usize, Arc<Entry>>>> =
    LazyLock::new(Default::default);

/// Work/span (`metrics/`): the stamps of objects no section uses now, kept so that the next
/// section on the object comes after the last (under the table's lock). Only objects
/// isolated on in a pool that measures get here (a stamp never raised stays zero).
static RETIRED: LazyLock<std::sync::Mutex<HashMap<usize, crate::metrics::Span>>> =
    LazyLock::new(Default::default);

/// The entries of one section, in address order; released (and removed from the table
/// when unused) on drop.
struct Entries(Vec<Arc<Entry>>);

impl Entries {
    fn take(keys: &[usize]) -> Entries {
        use std::sync::atomic::Ordering::Relaxed;
        let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
        Entries(
            keys.iter()
                .map(|&k| {
                    let e = t.entry(k).or_insert_with(|| {
                        let stamp = crate::metrics::Stamp::new();
                        if let Some(s) = retired().remove(&k) {
                            stamp.raise(s);
                        }
                        Arc::new(Entry {
                            key: k,
                            lock: Mutex::named(OBJECT_NAME, ()),
                            stamp,
                            users: 0.into(),
                        })
                    });
                    // Counted under the table's lock, like the removal below.
                    e.users.fetch_add(1, Relaxed);
                    e.clone()
                })
                .collect(),
        )
    }
}

impl Drop for Entries {
    fn drop(&mut self) {
        use std::sync::atomic::Ordering::Relaxed;
        let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
        for e in &self.0 {
            if e.users.fetch_sub(1, Relaxed) == 1 {
                t.remove(&e.key);
                let span = e.stamp.get();
                if span != crate::metrics::Span::default() {
                    retired().insert(e.key, span);
                }
            }
        }
    }
}

fn retired() -> std::sync::MutexGuard<'static, HashMap<usize, crate::metrics::Span>> {
    RETIRED.lock().unwrap_or_else(|e| e.into_inner())
}

/// A nested `isolated` is an error (it could wait for its own section, or take objects out
/// of order).
fn enter_check() {
    if Worker::in_isolated() {
        panic!(
            "offshoot: isolated inside an isolated section; sections do not nest — widen \
             the outer section (isolated_on with every object) instead"
        );
    }
}

/// Runs `body` with the thread marked as inside a section (see the module invariants).
fn run_marked<R>(body: impl FnOnce() -> R) -> R {
    struct Unmark(u32);
    impl Drop for Unmark {
        fn drop(&mut self) {
            Worker::leave_isolated(self.0);
        }
    }
    let _unmark = Unmark(Worker::enter_isolated());
    body()
}
