//! What a client attaches to a region for its extent (a eureka), uninterpreted by the
//! core.

use super::FinishState;

/// Something a client attaches to a region for its extent — a eureka (`eureka/`) — which
/// the core does not interpret: a pointer to the client's data, and the hooks the region
/// calls once its state sits at its final address (`attach`) and once every task of the
/// region has ended (`detach`). A client recognises its own attachments by their `hooks`
/// (one static per kind) and reads its data back through `data`.
///
/// Invariant: `data` outlives the region (the attaching call returns only after it).
#[derive(Clone, Copy)]
pub(crate) struct Attachment {
    pub(crate) data: std::ptr::NonNull<()>,
    pub(crate) hooks: &'static AttachmentHooks,
}

// SAFETY: the data is the client's, shared by the tasks of the region (any worker); a
// client attaches only data that is `Sync` (the eureka's is a `&dyn Registered`).
unsafe impl Send for Attachment {}

/// The calls a region makes to its [`Attachment`].
pub(crate) struct AttachmentHooks {
    /// The region's state is in place (before its body runs).
    pub(crate) attach: unsafe fn(std::ptr::NonNull<()>, &FinishState),
    /// Every task of the region has ended (also when it failed).
    pub(crate) detach: unsafe fn(std::ptr::NonNull<()>, &FinishState),
}

/// Calls an attachment's `detach` when dropped.
pub(super) struct Attached<'a>(pub(super) Attachment, pub(super) &'a FinishState);

impl Drop for Attached<'_> {
    fn drop(&mut self) {
        // SAFETY: the data outlives the region (the `Attachment` invariant), whose state
        // is `self.1`, still in place.
        unsafe { (self.0.hooks.detach)(self.0.data, self.1) }
    }
}
