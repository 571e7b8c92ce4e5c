//! `MultiZip`: a tuple of up to 12 indexed iterators walked in lockstep, as rayon's
//! `(a, b, c).into_par_iter()` (also `(&a, &b).into_par_iter()` and `par_iter()` /
//! `par_iter_mut()` of a tuple of collections).
//!
//! Invariant: every member has the same length (the longer ones are truncated to the
//! shortest, dropping what they own, when the `MultiZip` is made), and each is asked for
//! exactly the indices the `MultiZip` is asked for, so one block of the tuple is one block
//! of each member, and `Lockstep` never sees its members run out at different times.

use super::{
    block_via_iblock, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};

/// The parallel iterator of a tuple of indexed parallel iterators: its items are tuples of
/// their items at the same index (rayon's `MultiZip`), as long as the shortest member.
///
/// ```
/// use offshoot::prelude::*;
/// let (a, b, mut c) = (vec![1, 2, 3], vec![10, 20, 30, 40], vec![0; 3]);
/// (&a, &b, &mut c).into_par_iter().for_each(|(x, y, z)| *z = x + y);
/// assert_eq!(c, [11, 22, 33]);
/// let sums: Vec<i32> = (a, b).into_par_iter().map(|(x, y)| x * y).collect();
/// assert_eq!(sums, [10, 40, 90]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "lazy iterators do nothing unless consumed"]
pub struct MultiZip<T> {
    members: T,
}

/// One block of each member, stepped together.
struct Lockstep<T>(T);

macro_rules! multizip {
    ($($T:ident $i:tt),+) => {
        impl<$($T: IndexedParallelIterator),+> MultiZip<($($T,)+)> {
            fn new(mut members: ($($T,)+)) -> Self {
                let n = usize::MAX $(.min(members.$i.base_len()))+;
                $(members.$i.truncate(n);)+
                MultiZip { members }
            }
        }

        impl<$($T: IntoParallelIterator),+> IntoParallelIterator for ($($T,)+)
        where
            $($T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);
            fn into_par_iter(self) -> Self::Iter {
                <Self::Iter>::new(($(self.$i.into_par_iter(),)+))
            }
        }

        // Bounded on the element types' `IntoParallelRefIterator` (`..RefMutIterator`), not
        // on `&'a T: IntoParallelIterator`: with the latter, a caller's bound
        // `&'a C: IntoParallelIterator` with `C` still unknown sends the trait solver
        // through `&(C,)`, `&((C,),)`, ... until it overflows.
        impl<'a, $($T),+> IntoParallelIterator for &'a ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'a>, <$T as IntoParallelRefIterator<'a>>::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($(<$T as IntoParallelRefIterator<'a>>::Iter,)+)>;
            type Item = ($(<$T as IntoParallelRefIterator<'a>>::Item,)+);
            fn into_par_iter(self) -> Self::Iter {
                <Self::Iter>::new(($(self.$i.par_iter(),)+))
            }
        }

        impl<'a, $($T),+> IntoParallelIterator for &'a mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'a>, <$T as IntoParallelRefMutIterator<'a>>::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($(<$T as IntoParallelRefMutIterator<'a>>::Iter,)+)>;
            type Item = ($(<$T as IntoParallelRefMutIterator<'a>>::Item,)+);
            fn into_par_iter(self) -> Self::Iter {
                <Self::Iter>::new(($(self.$i.par_iter_mut(),)+))
            }
        }

        impl<$($T: IndexedParallelIterator),+> ParallelIterator for MultiZip<($($T,)+)> {
            type Item = ($($T::Item,)+);
            type State = ($($T::State,)+);
            #[inline]
            fn base_len(&self) -> usize {
                self.members.0.base_len()
            }
            #[inline]
            fn lengths(&self) -> super::Lengths {
                super::Lengths::ANY$(.and(self.members.$i.lengths()))+
            }
            #[inline]
            fn state(&self) -> Self::State {
                ($(self.members.$i.state(),)+)
            }
            block_via_iblock!();
            /// # Safety
            /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each
            /// index is handed out at most once over the pipeline's life, and
            /// `lo <= hi <= base_len()`.
            unsafe fn drop_block(&self, lo: usize, hi: usize) {
                // SAFETY: forwarded contract (every member has this length).
                unsafe { $(self.members.$i.drop_block(lo, hi);)+ }
            }
        }

        impl<$($T: IndexedParallelIterator),+> IndexedParallelIterator for MultiZip<($($T,)+)> {
            /// # Safety
            /// As for `IndexedParallelIterator::iblock` (that is, `ParallelIterator::block`):
            /// each index is handed out at most once over the pipeline's life, and
            /// `lo <= hi <= base_len()`.
            #[inline]
            unsafe fn iblock<'s>(
                &'s self,
                st: &'s mut Self::State,
                lo: usize,
                hi: usize,
            ) -> impl DoubleEndedIterator<Item = Self::Item> + ExactSizeIterator {
                // SAFETY: forwarded contract (every member has this length; each state is
                // the member's own).
                Lockstep(($(unsafe { self.members.$i.iblock(&mut st.$i, lo, hi) },)+))
            }
            fn truncate(&mut self, len: usize) {
                $(self.members.$i.truncate(len);)+
            }
            fn advance(&mut self, n: usize) {
                $(self.members.$i.advance(n);)+
            }
        }

        impl<$($T: ExactSizeIterator),+> Iterator for Lockstep<($($T,)+)> {
            type Item = ($($T::Item,)+);
            #[inline]
            fn next(&mut self) -> Option<Self::Item> {
                Some(($(self.0.$i.next()?,)+))
            }
            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = usize::MAX $(.min(self.0.$i.len()))+;
                (n, Some(n))
            }
        }

        impl<$($T: ExactSizeIterator + DoubleEndedIterator),+> DoubleEndedIterator
            for Lockstep<($($T,)+)>
        {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                // Every member has the same length, so the last items line up.
                Some(($(self.0.$i.next_back()?,)+))
            }
        }

        impl<$($T: ExactSizeIterator),+> ExactSizeIterator for Lockstep<($($T,)+)> {}
    };
}

multizip!(A 0);
multizip!(A 0, B 1);
multizip!(A 0, B 1, C 2);
multizip!(A 0, B 1, C 2, D 3);
multizip!(A 0, B 1, C 2, D 3, E 4);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
