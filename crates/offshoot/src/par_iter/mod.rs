//! Parallel iterators in the style of rayon's `par_iter`, on offshoot's lazily split loops
//! (`loops.rs`).
//!
//! # The protocol
//!
//! A pipeline is an index range `0..base_len()` of its source. A consumer runs a loop over
//! that range (split only when a worker asks); the loop walks each piece in blocks, and
//! for every block asks the pipeline for its items as an ordinary sequential `Iterator`
//! ([`ParallelIterator::block`]), which the consumer folds with `fold`/`sum`/`try_fold`. So
//! each block is the same tight loop the serial program has, and the per-block bookkeeping
//! (the split check, the poll, the timing) is paid per block, not per item.
//!
//! * Each piece (the whole range, or a part handed to a thief) has one
//!   [`ParallelIterator::State`], made on the worker that runs it: `map_init`, `fold`,
//!   `for_each_init` keep their per-piece value there. When the piece ends,
//!   [`ParallelIterator::flush`] yields what the state still holds (a `fold`'s accumulator).
//! * An [`IndexedParallelIterator`] yields exactly one item per index, in index order:
//!   its blocks are double-ended and exact-size ([`IndexedParallelIterator::iblock`]), which
//!   is what `zip`, `rev`, `step_by`, `chunks`, `skip`, `take` and `collect_into_vec` need.
//! * An adaptor is one small file (`map.rs`, `filter.rs`, ...): a struct holding its base,
//!   whose `block` wraps its base's block in the matching `std::iter` adaptor.
//!
//! Invariants:
//! * Each index of `0..base_len()` is handed at most once, over a pipeline's life, to one
//!   of `block`, `iblock` or `drop_block` (the loop hands every index to exactly one block);
//!   sources that give out `&mut T` or move `T` out rely on it.
//! * Early-exit consumers (`any`, `find_*`, `try_*`) stop the loop's pieces once the
//!   answer is known, and so does a pipeline that will yield no more
//!   ([`ParallelIterator::exhausted`]: a bridge whose iterator ended, `take_any` with all
//!   it takes, `while_some` after its `None`): the rest of a piece is disposed of with one
//!   `drop_block` (owned items are dropped, no closure runs).
//! * Results combine in index order, so `collect` keeps the order, `find_first` finds the
//!   first, `reduce` needs only associativity, and `min`/`max` break ties like `std`.

mod blocks;
mod bridge;
mod chain;
mod chunks;
mod collect;
mod consumer;
mod enumerate;
mod filter;
mod find;
mod flat_map;
mod fold;
mod indexed;
mod interleave;
mod intersperse;
mod into;
mod len;
mod map;
mod map_init;
mod misc;
mod multizip;
mod parallel;
mod range;
mod reduce;
mod renamed;
mod rev;
mod seq;
mod slice;
mod step_by;
mod str;
mod tree;
mod try_ops;
mod vec;
pub(crate) mod written;
mod zip;

use std::cmp::Ordering;

pub use either::Either;

pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use bridge::{IterBridge, ParallelBridge};
pub use chain::Chain;
pub use chunks::Chunks;
pub use collect::{FromParallelIterator, ParallelExtend};
pub use enumerate::Enumerate;
pub use filter::{Filter, FilterMap};
pub use flat_map::{FlatMap, FlatMapIter, Flatten, FlattenIter};
pub use fold::{Fold, FoldWith, TryFold, TryFoldWith};
pub use interleave::Interleave;
pub use intersperse::Intersperse;
pub(crate) use len::{Grid, Lengths};
pub use len::{MaxLen, MinLen};
pub use map::Map;
pub use map_init::{MapInit, MapWith};
pub use misc::{
    empty, once, repeat, repeat_n, repeatn, AnyWhile, Empty, Once, Repeat, RepeatN, TakeAny,
    WhileSome,
};
pub use multizip::MultiZip;
pub use range::{CharRangeIter, RangeInteger, RangeIter};
pub use renamed::{
    Cloned, Copied, FoldChunks, FoldChunksWith, Inspect, InterleaveShortest, PanicFuse, Positions,
    Skip, SkipAny, SkipAnyWhile, Split, Take, TakeAnyWhile, Update, WalkTree, WalkTreePostfix,
    WalkTreePrefix, ZipEq,
};
pub use rev::Rev;
pub use slice::{Iter, IterMut};
pub use step_by::StepBy;
pub use str::{ParallelString, Pattern, StrPieces};
pub use tree::{split, walk_tree, walk_tree_postfix, walk_tree_prefix};
pub use try_ops::Try;
pub use vec::{IntoIter, ParallelDrainFull, ParallelDrainRange};
pub use zip::Zip;

/// The names rayon users import from `rayon::iter`: the traits, the adaptor types and
/// the free functions (`use offshoot::iter::*;`).
pub mod iter {
    pub use super::{
        empty, once, repeat, repeat_n, repeatn, split, walk_tree, walk_tree_postfix,
        walk_tree_prefix, AnyWhile, Chain, Chunks, Cloned, Copied, Either, Empty, Enumerate,
        Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, FoldWith,
        FromParallelIterator, IndexedParallelIterator, Inspect, Interleave, Intersperse,
        IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, Map, MapInit,
        MapWith, MaxLen, MinLen, MultiZip, Once, ParallelDrainFull, ParallelDrainRange,
        ParallelExtend, ParallelIterator, RepeatN, Rev, StepBy, TakeAny, TryFold, TryFoldWith,
        Update, WhileSome, Zip,
    };
    pub use super::{CharRangeIter, IntoIter, Iter, IterMut, RangeInteger, RangeIter, Try};
    pub use super::{
        ExponentialBlocks, FoldChunks, FoldChunksWith, InterleaveShortest, PanicFuse, Positions,
        Repeat, Skip, SkipAny, SkipAnyWhile, Split, Take, TakeAnyWhile, UniformBlocks, WalkTree,
        WalkTreePostfix, WalkTreePrefix, ZipEq,
    };
    pub use super::{IterBridge, ParallelBridge};
}

pub use indexed::IndexedParallelIterator;
pub use into::{IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator};
pub use parallel::ParallelIterator;

/// Implements `ParallelIterator::block` of an indexed iterator through its `iblock`.
macro_rules! block_via_iblock {
    () => {
        /// # Safety
        /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out
        /// at most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
        #[inline]
        unsafe fn block<'s>(
            &'s self,
            st: &'s mut Self::State,
            lo: usize,
            hi: usize,
        ) -> impl Iterator<Item = Self::Item> {
            // SAFETY: forwarded contract.
            unsafe { $crate::par_iter::IndexedParallelIterator::iblock(self, st, lo, hi) }
        }
        fn opt_len(&self) -> Option<usize> {
            Some(self.base_len())
        }
    };
}
pub(crate) use block_via_iblock;

/// Implements the item-producing `ParallelIterator` methods (`block`, `flush`, `into_seq`)
/// of an adaptor that yields its `base` field's items unchanged (only how they are scheduled
/// or named differs).
macro_rules! forward_items {
    () => {
        /// # Safety
        /// As for `ParallelIterator::block`: over the pipeline's life each index is handed out
        /// at most once (to `block`, `iblock` or `drop_block`), and `lo <= hi <= base_len()`.
        #[inline]
        unsafe fn block<'s>(
            &'s self,
            st: &'s mut Self::State,
            lo: usize,
            hi: usize,
        ) -> impl Iterator<Item = Self::Item> {
            // SAFETY: forwarded contract.
            unsafe { self.base.block(st, lo, hi) }
        }
        #[inline]
        fn flush<'s>(&'s self, st: &'s mut Self::State) -> impl Iterator<Item = Self::Item> {
            self.base.flush(st)
        }
        fn into_seq(self) -> impl Iterator<Item = Self::Item> {
            self.base.into_seq()
        }
    };
}
pub(crate) use forward_items;

/// Implements the `ParallelIterator` methods an adaptor forwards unchanged to its `base`
/// field: `base_len`, `state` (the adaptor's state is its base's), `drop_block`,
/// `exhausted` and `lengths` (`forward_to_base!(own_exhausted)` leaves `exhausted` to the
/// adaptor, `forward_to_base!(own_lengths)` leaves `lengths`).
macro_rules! forward_to_base {
    () => {
        $crate::par_iter::forward_to_base!(own_exhausted);
        #[inline]
        fn exhausted(&self) -> bool {
            self.base.exhausted()
        }
    };
    (own_exhausted) => {
        $crate::par_iter::forward_to_base!(@shape);
        #[inline]
        fn lengths(&self) -> $crate::par_iter::Lengths {
            self.base.lengths()
        }
    };
    (own_lengths) => {
        $crate::par_iter::forward_to_base!(@shape);
        #[inline]
        fn exhausted(&self) -> bool {
            self.base.exhausted()
        }
    };
    (@shape) => {
        #[inline]
        fn base_len(&self) -> usize {
            self.base.base_len()
        }
        #[inline]
        fn state(&self) -> Self::State {
            self.base.state()
        }
        /// # Safety
        /// As for `ParallelIterator::drop_block` (that is, `ParallelIterator::block`): each
        /// index is handed out at most once over the pipeline's life, and
        /// `lo <= hi <= base_len()`.
        unsafe fn drop_block(&self, lo: usize, hi: usize) {
            // SAFETY: forwarded contract.
            unsafe { self.base.drop_block(lo, hi) }
        }
    };
}
pub(crate) use forward_to_base;

/// Implements `truncate` and `advance` of an indexed adaptor whose indices are its base's.
macro_rules! forward_shape {
    () => {
        fn truncate(&mut self, len: usize) {
            self.base.truncate(len)
        }
        fn advance(&mut self, n: usize) {
            self.base.advance(n)
        }
    };
}
pub(crate) use forward_shape;
