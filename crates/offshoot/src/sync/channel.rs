//! Channels: many senders, many receivers; a full or empty channel parks the task.
//!
//! Invariants:
//! * The queue, the counts of live senders and receivers and both wait lists change only
//!   under `state`'s lock; waiters queue before they release it (no lost wake-up).
//! * When the last sender goes, receivers drain what is queued and then get
//!   [`RecvError`]; when the last receiver goes, sends fail with [`SendError`] and hand
//!   the value back. Both wake every waiter, so nobody waits on a channel that is closed.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{lock, wait_for, WaitList, WaitOn};

struct State<T> {
    queue: VecDeque<T>,
    cap: Option<usize>,
    senders: usize,
    receivers: usize,
    recv_waiters: WaitList,
    send_waiters: WaitList,
}

struct Chan<T> {
    state: std::sync::Mutex<State<T>>,
    /// What the deadlock report calls it besides its address (`bounded_named`,
    /// `unbounded_named`).
    name: Option<&'static str>,
}

/// The sending half of a channel. Clone it for more senders.
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

/// The receiving half of a channel. Clone it for more receivers.
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
}

/// A send on a channel with no receivers left; carries the value back.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

impl<T> std::fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SendError(..)")
    }
}

impl<T> std::fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("sending on a channel whose receivers are all gone")
    }
}

impl<T> std::error::Error for SendError<T> {}

/// A receive on an empty channel with no senders left.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct RecvError;

impl std::fmt::Display for RecvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("receiving on an empty channel whose senders are all gone")
    }
}

impl std::error::Error for RecvError {}

fn channel<T>(cap: Option<usize>, name: Option<&'static str>) -> (Sender<T>, Receiver<T>) {
    let chan = Arc::new(Chan {
        state: std::sync::Mutex::new(State {
            queue: VecDeque::new(),
            cap,
            senders: 1,
            receivers: 1,
            recv_waiters: WaitList::new(),
            send_waiters: WaitList::new(),
        }),
        name,
    });
    (Sender { chan: chan.clone() }, Receiver { chan })
}

/// A channel that holds at most `cap` messages: a send to a full channel parks until a
/// receive makes room. `cap == 0` is treated as 1 (there is no rendezvous channel).
///
/// ```
/// let (tx, rx) = offshoot::sync::bounded(2);
/// let (sum, ()) = offshoot::join(
///     move || rx.iter().sum::<u32>(),
///     move || (1..=100).for_each(|i| tx.send(i).unwrap()),
/// );
/// assert_eq!(sum, 5050);
/// ```
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    channel(Some(cap.max(1)), None)
}

/// [`bounded`], for a channel that a deadlock report names `name`: a task that waits on
/// either end for ever is listed as waiting on `Channel::send "name" (0x…)` (or
/// `Channel::recv`) instead of `Channel::send 0x…`. Both ends and their clones share the
/// name. Naming costs nothing until such a report is written.
///
/// ```
/// let (tx, rx) = offshoot::sync::bounded_named("work items", 1);
/// tx.send(7).unwrap();
/// assert_eq!(rx.recv(), Ok(7));
/// ```
pub fn bounded_named<T>(name: &'static str, cap: usize) -> (Sender<T>, Receiver<T>) {
    channel(Some(cap.max(1)), Some(name))
}

/// A channel without a bound: sends never wait.
///
/// ```
/// let (tx, rx) = offshoot::sync::unbounded();
/// tx.send("hi").unwrap();
/// drop(tx);
/// assert_eq!(rx.recv(), Ok("hi"));
/// assert!(rx.recv().is_err());
/// ```
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    channel(None, None)
}

/// [`unbounded`], for a channel that a deadlock report names `name` (see
/// [`bounded_named`]).
///
/// ```
/// let (tx, rx) = offshoot::sync::unbounded_named("log lines");
/// tx.send("started").unwrap();
/// drop(tx);
/// assert_eq!(rx.iter().collect::<Vec<_>>(), ["started"]);
/// ```
pub fn unbounded_named<T>(name: &'static str) -> (Sender<T>, Receiver<T>) {
    channel(None, Some(name))
}

impl<T> Sender<T> {
    /// Sends `value`, parking while the channel is full. Fails if every receiver is gone.
    ///
    /// ```
    /// let (tx, rx) = offshoot::sync::bounded(1);
    /// tx.send(1).unwrap();
    /// drop(rx);
    /// assert!(tx.send(2).is_err()); // no receiver left: the value comes back
    /// ```
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let at = std::panic::Location::caller();
        let mut value = Some(value);
        wait_for(
            &self.chan.state,
            || {
                WaitOn::new("Channel::send", &*self.chan)
                    .at(at)
                    .named(self.chan.name)
            },
            |s| {
                if s.cap.is_some_and(|c| s.queue.len() >= c) && s.receivers > 0 {
                    return None;
                }
                let v = value
                    .take()
                    .expect("offshoot: a send attempted after it succeeded");
                if s.receivers == 0 {
                    return Some(Err(SendError(v)));
                }
                s.queue.push_back(v);
                s.recv_waiters.wake_one();
                Some(Ok(()))
            },
            |s| &mut s.send_waiters,
            |_| {},
        )
    }
}

impl<T> Receiver<T> {
    /// Receives the oldest message, parking while the channel is empty. Fails once the
    /// channel is empty and every sender is gone.
    ///
    /// ```
    /// let (tx, rx) = offshoot::sync::unbounded();
    /// tx.send("hi").unwrap();
    /// drop(tx);
    /// assert_eq!(rx.recv(), Ok("hi"));
    /// assert!(rx.recv().is_err()); // empty, and no sender left
    /// ```
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        let at = std::panic::Location::caller();
        wait_for(
            &self.chan.state,
            || {
                WaitOn::new("Channel::recv", &*self.chan)
                    .at(at)
                    .named(self.chan.name)
            },
            |s| {
                if let Some(v) = s.queue.pop_front() {
                    s.send_waiters.wake_one();
                    return Some(Ok(v));
                }
                if s.senders == 0 {
                    Some(Err(RecvError))
                } else {
                    None
                }
            },
            |s| &mut s.recv_waiters,
            |_| {},
        )
    }

    /// Receives a message if one is queued.
    ///
    /// ```
    /// let (tx, rx) = offshoot::sync::unbounded();
    /// assert_eq!(rx.try_recv(), None);
    /// tx.send(5).unwrap();
    /// assert_eq!(rx.try_recv(), Some(5));
    /// ```
    pub fn try_recv(&self) -> Option<T> {
        let mut s = lock(&self.chan.state);
        let v = s.queue.pop_front();
        if v.is_some() {
            s.send_waiters.wake_one();
        }
        v
    }

    /// The messages until every sender is gone.
    ///
    /// ```
    /// let (tx, rx) = offshoot::sync::unbounded();
    /// for i in 0..3 {
    ///     tx.send(i).unwrap();
    /// }
    /// drop(tx); // the iterator ends once the channel is empty and has no sender
    /// assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        std::iter::from_fn(move || self.recv().ok())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        lock(&self.chan.state).senders += 1;
        Sender {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        lock(&self.chan.state).receivers += 1;
        Receiver {
            chan: self.chan.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut s = lock(&self.chan.state);
        s.senders -= 1;
        if s.senders == 0 {
            s.recv_waiters.wake_all();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut s = lock(&self.chan.state);
        s.receivers -= 1;
        if s.receivers == 0 {
            s.send_waiters.wake_all();
        }
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
