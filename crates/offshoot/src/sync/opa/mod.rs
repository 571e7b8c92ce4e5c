//! OPA's synchronization classes, written as OPA writes them: on an [`Object`] whose
//! operations are suspended and restored at run time (Umatani's thesis §3.2.2).
//!
//! Every wait happens before an operation starts, on that operation's own queue: an
//! [`IStore`]'s readers wait on `get`, a [`Fifo`]'s producers on `put` and its consumers on
//! `get`, a [`Barrier`]'s parties on the `pass` of their round. So a put into a FIFO wakes
//! one consumer and never a producer, where a monitor's one wait set wakes everyone
//! (`notify_all`) and lets them sort it out.
//!
//! [`Object`]: super::Object

mod barrier;
mod fifo;
mod istore;

pub use barrier::Barrier;
pub use fifo::Fifo;
pub use istore::IStore;
