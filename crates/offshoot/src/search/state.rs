//! [`State`]: the one shared, mutable state of a backtracking search, which the body, the
//! spawn-request handlers and the undo-redo clauses take turns to use.
//!
//! A `State<S>` is a `RefCell` that the runtime can see into: it holds the value and a
//! single *lent* flag. Whoever uses the value — the body through [`State::with`] or a
//! [`StateMut`] guard, the runtime on behalf of a handler or an undo/redo — sets the flag
//! for exactly that time.
//!
//! Invariants:
//! * At most one borrow of the value exists at any time, `&` or `&mut`: every borrow is
//!   taken through [`State::try_lend`], which refuses while the flag is set, and releases
//!   the flag when its [`StateMut`] is dropped (also while unwinding).
//! * `State<S>` is `!Sync` (its flag is a `Cell`), so `&State<S>` never leaves the thread
//!   that owns it: neither the closures given to `join`/`spawn` nor the tasks a handler
//!   spawns (all `Send`) can capture it. The runtime lends the value only from a poll
//!   point of that same thread.

use std::cell::{Cell, UnsafeCell};
use std::fmt;
use std::ops::{Deref, DerefMut};

/// The shared state of a search: one value that the body changes in place and that
/// [spawn-request handlers](State::handle) and [undo-redo clauses](State::undo_redo) see at
/// poll points, while the body is not using it.
///
/// The body reaches the value through [`with`](State::with) (or a [`StateMut`] guard from
/// [`borrow_mut`](State::borrow_mut)). While the body holds such a borrow, the value is
/// *lent*: a request answered at a poll point inside that borrow (a nested `join`, a loop,
/// [`poll`](crate::poll)) does not call the handlers of this state — they count as declining —
/// and an undo-redo clause of this state cannot roll back, so no handler older than it is
/// called either. Handlers get the value back at the next poll where it is at rest.
///
/// `State` is `!Sync`: a reference to it cannot be captured by `join`, `spawn` or a spawned
/// task, so the value is only ever used on the thread that runs the search.
///
/// ```
/// use offshoot::search::State;
///
/// let st = State::new(vec![1, 2, 3]);
/// st.with(|v| v.push(4));
/// assert_eq!(st.with(|v| v.len()), 4);
/// {
///     let mut g = st.borrow_mut();
///     g.pop();
///     assert!(st.try_borrow_mut().is_none(), "one borrow at a time");
/// }
/// assert_eq!(st.into_inner(), [1, 2, 3]);
/// ```
pub struct State<S> {
    lent: Cell<bool>,
    value: UnsafeCell<S>,
}

impl<S> State<S> {
    /// A state holding `value`, at rest.
    ///
    /// ```
    /// let st = offshoot::search::State::new(vec![1, 2, 3]);
    /// assert_eq!(st.into_inner(), [1, 2, 3]);
    /// ```
    pub const fn new(value: S) -> State<S> {
        State {
            lent: Cell::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// Runs `f` with the value borrowed mutably. This is how a search body reads and
    /// changes the state; keep these borrows short, since handlers of this state cannot run
    /// during them.
    ///
    /// # Panics
    ///
    /// If the value is already borrowed (nested `with`, a leaked guard, or a handler of this
    /// state calling `with` on it).
    ///
    /// ```
    /// let st = offshoot::search::State::new(0u32);
    /// let doubled = st.with(|x| {
    ///     *x += 21;
    ///     *x * 2
    /// });
    /// assert_eq!(doubled, 42);
    /// ```
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        let mut g = self.borrow_mut();
        f(&mut g)
    }

    /// A guard borrowing the value mutably until it is dropped.
    ///
    /// # Panics
    ///
    /// If the value is already borrowed; see [`try_borrow_mut`](State::try_borrow_mut).
    ///
    /// ```
    /// let st = offshoot::search::State::new(String::from("ab"));
    /// st.borrow_mut().push('c');
    /// assert_eq!(*st.borrow_mut(), "abc");
    /// ```
    #[inline]
    #[track_caller]
    pub fn borrow_mut(&self) -> StateMut<'_, S> {
        match self.try_lend() {
            Some(g) => g,
            None => already_borrowed(),
        }
    }

    /// A guard borrowing the value mutably, or `None` while it is borrowed elsewhere.
    ///
    /// ```
    /// let st = offshoot::search::State::new(1);
    /// let g = st.try_borrow_mut().unwrap();
    /// assert!(st.try_borrow_mut().is_none());
    /// drop(g);
    /// assert!(st.try_borrow_mut().is_some());
    /// ```
    #[inline]
    pub fn try_borrow_mut(&self) -> Option<StateMut<'_, S>> {
        self.try_lend()
    }

    /// The value, by a plain `&mut` (no borrow flag needed: `&mut self` is unique).
    ///
    /// ```
    /// let mut st = offshoot::search::State::new(5);
    /// *st.get_mut() += 1;
    /// assert_eq!(st.into_inner(), 6);
    /// ```
    pub fn get_mut(&mut self) -> &mut S {
        self.value.get_mut()
    }

    /// The value, consuming the state.
    ///
    /// ```
    /// let st = offshoot::search::State::new([0u8; 4]);
    /// assert_eq!(st.into_inner(), [0; 4]);
    /// ```
    pub fn into_inner(self) -> S {
        self.value.into_inner()
    }

    /// Whether nobody borrows the value now.
    #[inline]
    pub(crate) fn at_rest(&self) -> bool {
        !self.lent.get()
    }

    /// The one way to borrow the value: refuses while it is lent.
    #[inline]
    pub(crate) fn try_lend(&self) -> Option<StateMut<'_, S>> {
        if self.lent.get() {
            return None;
        }
        self.lent.set(true);
        Some(StateMut { state: self })
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn already_borrowed() -> ! {
    panic!(
        "offshoot::search::State is already borrowed (a nested `with`/`borrow_mut`, a leaked \
         guard, or a handler or undo-redo clause borrowing the state it is lent)"
    )
}

impl<S: Default> Default for State<S> {
    fn default() -> Self {
        State::new(S::default())
    }
}

impl<S> fmt::Debug for State<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("lent", &self.lent.get())
            .finish_non_exhaustive()
    }
}

/// A mutable borrow of a [`State`]'s value; the value is lent until the guard is dropped.
/// Like the state itself it cannot leave its thread (`!Send`).
///
/// ```
/// let st = offshoot::search::State::new(vec![0u8; 3]);
/// let mut g = st.borrow_mut();
/// g[1] = 7;
/// drop(g);
/// assert_eq!(st.into_inner(), [0, 7, 0]);
/// ```
pub struct StateMut<'s, S> {
    state: &'s State<S>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for StateMut<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl<S> Deref for StateMut<'_, S> {
    type Target = S;
    #[inline]
    fn deref(&self) -> &S {
        // SAFETY: this guard is the only borrow while the flag is set (module invariant),
        // and the returned reference lives no longer than the guard.
        unsafe { &*self.state.value.get() }
    }
}

impl<S> DerefMut for StateMut<'_, S> {
    #[inline]
    fn deref_mut(&mut self) -> &mut S {
        // SAFETY: as in `deref`; `&mut self` makes the reference unique among the guard's.
        unsafe { &mut *self.state.value.get() }
    }
}

impl<S> Drop for StateMut<'_, S> {
    #[inline]
    fn drop(&mut self) {
        self.state.lent.set(false);
    }
}
