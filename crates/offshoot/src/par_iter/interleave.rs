//! `interleave` and `interleave_shortest`: the items of two indexed iterators taken in
//! turn (`a0 b0 a1 b1 ...`), then the rest of the longer one. Among the first `k` items,
//! the side that goes first has `ceil(k / 2)` and the other `floor(k / 2)` while both
//! last; past that the longer side has the rest. So block `lo..hi` is one contiguous range
//! of each side, merged by [`Alternate`].
//!
//! Invariants: each side is asked for exactly the indices of its items in the block;
//! `a_first` says which side's item comes first (it changes only when `advance` drops an
//! odd number of alternating items).

use super::{block_via_iblock, IndexedParallelIterator, ParallelIterator};

/// See [`IndexedParallelIterator::interleave`].
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct Interleave<A, B> {
    a: A,
    b: B,
    a_first: bool,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator<Item = A::Item>> Interleave<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Interleave {
            a,
            b,
            a_first: true,
        }
    }

    /// How many of the first `k` items come from `a` and from `b`.
    fn split(&self, k: usize) -> (usize, usize) {
        let (na, nb) = (self.a.base_len(), self.b.base_len());
        let (nx, ny) = if self.a_first { (na, nb) } else { (nb, na) };
        let both = 2 * nx.min(ny);
        let (kx, ky) = if k <= both {
            (k.div_ceil(2), k / 2)
        } else if nx > ny {
            (ny + (k - both), ny)
        } else {
            (nx, nx + (k - both))
        };
        if self.a_first {
            (kx, ky)
        } else {
            (ky, kx)
        }
    }
}

impl<A, B> ParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    type Item = A::Item;
    type State = (A::State, B::State);
    fn base_len(&self) -> usize {
        self.a.base_len() + self.b.base_len()
    }
    #[inline]
    fn lengths(&self) -> super::Lengths {
        self.a.lengths().and(self.b.lengths())
    }
    fn state(&self) -> Self::State {
        (self.a.state(), self.b.state())
    }
    block_via_iblock!();
    /// # Safety
    /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each index
    /// is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn drop_block(&self, lo: usize, hi: usize) {
        let ((a0, b0), (a1, b1)) = (self.split(lo), self.split(hi));
        // SAFETY: forwarded contract: each side's items of the block, once.
        unsafe {
            self.a.drop_block(a0, a1);
            self.b.drop_block(b0, b1);
        }
    }
}

impl<A, B> IndexedParallelIterator for Interleave<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    /// # Safety
    /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`): each
    /// index is handed out at most once over the pipeline's life, and `lo <= hi <= base_len()`.
    unsafe fn iblock<'s>(
        &'s self,
        st: &'s mut Self::State,
        lo: usize,
        hi: usize,
    ) -> impl DoubleEndedIterator<Item = A::Item> + ExactSizeIterator {
        let ((a0, b0), (a1, b1)) = (self.split(lo), self.split(hi));
        let (sa, sb) = st;
        Alternate {
            // SAFETY: forwarded contract: each side's items of the block, once.
            a: unsafe { self.a.iblock(sa, a0, a1) },
            // SAFETY: as above.
            b: unsafe { self.b.iblock(sb, b0, b1) },
            // Item `lo` comes from `a` exactly when `a` has had as many items as it should
            // have before it, i.e. when `a` goes first at even positions.
            a_next: lo.is_multiple_of(2) == self.a_first,
        }
    }
    fn truncate(&mut self, len: usize) {
        let (ka, kb) = self.split(len.min(self.base_len()));
        self.a.truncate(ka);
        self.b.truncate(kb);
    }
    fn advance(&mut self, n: usize) {
        let n = n.min(self.base_len());
        let (ka, kb) = self.split(n);
        let both = 2 * self.a.base_len().min(self.b.base_len());
        if n <= both && n % 2 == 1 {
            self.a_first = !self.a_first;
        }
        self.a.advance(ka);
        self.b.advance(kb);
    }
}

/// Takes items from `a` and `b` in turn, starting with `a` if `a_next`; once one side is
/// empty, the rest of the other.
struct Alternate<X, Y> {
    a: X,
    b: Y,
    a_next: bool,
}

impl<X: ExactSizeIterator, Y: ExactSizeIterator<Item = X::Item>> Iterator for Alternate<X, Y> {
    type Item = X::Item;
    fn next(&mut self) -> Option<X::Item> {
        let take_a = if self.a.len() == 0 {
            false
        } else {
            self.a_next || self.b.len() == 0
        };
        self.a_next = !take_a;
        if take_a {
            self.a.next()
        } else {
            self.b.next()
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
}

impl<X: ExactSizeIterator, Y: ExactSizeIterator<Item = X::Item>> ExactSizeIterator
    for Alternate<X, Y>
{
}

impl<X, Y> DoubleEndedIterator for Alternate<X, Y>
where
    X: DoubleEndedIterator + ExactSizeIterator,
    Y: DoubleEndedIterator + ExactSizeIterator<Item = X::Item>,
{
    fn next_back(&mut self) -> Option<X::Item> {
        let (ra, rb) = (self.a.len(), self.b.len());
        // The last item comes from the side that has more, or, with equal counts, from
        // the side that does not go first.
        let from_a = ra > rb || (ra == rb && !self.a_next);
        if from_a {
            self.a.next_back()
        } else {
            self.b.next_back()
        }
    }
}
