//! rayon's adaptor types under rayon's names: every adaptor prints with `{:?}` (also one
//! that holds closures, which are not `Debug`), the types rayon exports from `rayon::iter`
//! can be named in signatures, and the adaptors that are newtypes (`Skip`, `Positions`,
//! `FoldChunks`, ...) clone when their parts do.

mod common;

use std::fmt::Debug;

use common::bounded;
use offshoot::iter::{
    ExponentialBlocks, FoldChunks, FoldChunksWith, InterleaveShortest, PanicFuse, Positions,
    Repeat, Skip, SkipAny, SkipAnyWhile, Split, Take, TakeAnyWhile, UniformBlocks, WalkTree,
    WalkTreePostfix, WalkTreePrefix, ZipEq,
};
use offshoot::prelude::*;

/// The `{:?}` text of `it`, checked to start with `name` followed by ` {`.
fn shows_as<I: ParallelIterator + Debug>(it: I, name: &str) {
    let text = format!("{it:?}");
    assert!(
        text.starts_with(&format!("{name} {{")),
        "expected {name} {{ .. }}, got {text}"
    );
}

#[test]
fn adaptors_with_closures_print_rayon_names() {
    bounded(|| {
        let v: Vec<u32> = (0..10).collect();
        shows_as(v.par_iter().map(|x| x + 1), "Map");
        shows_as(v.par_iter().filter(|x| **x > 2), "Filter");
        shows_as(v.par_iter().filter_map(|x| x.checked_sub(1)), "FilterMap");
        shows_as(v.par_iter().flat_map(|x| 0..*x), "FlatMap");
        shows_as(v.par_iter().flat_map_iter(|x| 0..*x), "FlatMapIter");
        shows_as(v.par_iter().fold(|| 0, |a, x| a + x), "Fold");
        shows_as(v.par_iter().fold_with(7u32, |a, x| a + x), "FoldWith");
        shows_as(
            v.par_iter().try_fold(|| 0u32, |a, x| a.checked_add(*x)),
            "TryFold",
        );
        shows_as(
            v.par_iter().try_fold_with(0u32, |a, x| a.checked_add(*x)),
            "TryFoldWith",
        );
        shows_as(v.par_iter().inspect(|_| ()), "Inspect");
        shows_as(v.par_iter().copied().update(|x| *x += 1), "Update");
        shows_as(
            v.par_iter().map_with(5u8, |k, x| x + u32::from(*k)),
            "MapWith",
        );
        shows_as(v.par_iter().map_init(|| 5u32, |k, x| x + *k), "MapInit");
        shows_as(v.par_iter().positions(|x| x % 2 == 0), "Positions");
        shows_as(v.par_iter().skip_any_while(|x| **x < 3), "SkipAnyWhile");
        shows_as(v.par_iter().take_any_while(|x| **x < 3), "TakeAnyWhile");
        shows_as(
            v.par_iter().fold_chunks(3, || 0, |a, x| a + x),
            "FoldChunks",
        );
        shows_as(
            v.par_iter().fold_chunks_with(3, 0u32, |a, x| a + x),
            "FoldChunksWith",
        );
        shows_as(offshoot::iter::split(0..10, |r| (r, None)), "Split");
        shows_as(
            offshoot::iter::walk_tree(1u32, |&n| if n < 4 { vec![2 * n] } else { vec![] }),
            "WalkTree",
        );
        // The `_with` forms show their value, as rayon's do.
        assert!(format!("{:?}", v.par_iter().map_with(5u8, |_, x| *x)).contains("item: 5"));
        assert!(format!("{:?}", v.par_iter().fold_with(7u32, |a, _| a)).contains("item: 7"));
    });
}

#[test]
fn renamed_adaptors_print_rayon_names() {
    bounded(|| {
        let v: Vec<u32> = (0..10).collect();
        shows_as(v.par_iter().skip(2), "Skip");
        shows_as(v.par_iter().take(2), "Take");
        shows_as(v.par_iter().panic_fuse(), "PanicFuse");
        shows_as(v.par_iter().zip_eq(&v), "ZipEq");
        shows_as(v.par_iter().interleave_shortest(&v), "InterleaveShortest");
        shows_as(v.par_iter().skip_any(2), "SkipAny");
        shows_as(v.par_iter().by_uniform_blocks(3), "UniformBlocks");
        shows_as(v.par_iter().by_exponential_blocks(), "ExponentialBlocks");
        shows_as(v.par_iter().cloned(), "Cloned");
        shows_as(v.par_iter().copied(), "Copied");
        shows_as(
            offshoot::iter::walk_tree_prefix(1u32, |_| Vec::new()),
            "WalkTreePrefix",
        );
        shows_as(
            offshoot::iter::walk_tree_postfix(1u32, |_| Vec::new()),
            "WalkTreePostfix",
        );
    });
}

// ---- rayon's type names in signatures ----

type Slice<'a> = offshoot::slice::Iter<'a, u32>;

fn firsts(v: &[u32], n: usize) -> Take<Slice<'_>> {
    v.par_iter().take(n)
}

fn lasts(v: &[u32], n: usize) -> Skip<Slice<'_>> {
    v.par_iter().skip(n)
}

fn fused(v: &[u32]) -> PanicFuse<Slice<'_>> {
    v.par_iter().panic_fuse()
}

fn pairs<'a>(a: &'a [u32], b: &'a [u32]) -> ZipEq<Slice<'a>, Slice<'a>> {
    a.par_iter().zip_eq(b)
}

fn shuffled<'a>(a: &'a [u32], b: &'a [u32]) -> InterleaveShortest<Slice<'a>, Slice<'a>> {
    a.par_iter().interleave_shortest(b)
}

fn but_some(v: &[u32], n: usize) -> SkipAny<Slice<'_>> {
    v.par_iter().skip_any(n)
}

type Below = fn(&&u32) -> bool;

fn below_five(x: &&u32) -> bool {
    **x < 5
}

fn while_below(v: &[u32]) -> TakeAnyWhile<Slice<'_>, Below> {
    v.par_iter().take_any_while(below_five as Below)
}

fn after_below(v: &[u32]) -> SkipAnyWhile<Slice<'_>, Below> {
    v.par_iter().skip_any_while(below_five as Below)
}

fn uniform(v: &[u32]) -> UniformBlocks<Slice<'_>> {
    v.par_iter().by_uniform_blocks(3)
}

fn exponential(v: &[u32]) -> ExponentialBlocks<Slice<'_>> {
    v.par_iter().by_exponential_blocks()
}

type Odd = fn(&u32) -> bool;

fn odd_at(v: &[u32]) -> Positions<Slice<'_>, Odd> {
    v.par_iter().positions((|x| x % 2 == 1) as Odd)
}

type Zero = fn() -> u32;
type Add = fn(u32, &u32) -> u32;

fn chunk_sums(v: &[u32]) -> FoldChunks<Slice<'_>, Zero, Add> {
    v.par_iter()
        .fold_chunks(4, (|| 0) as Zero, (|a, x| a + x) as Add)
}

fn chunk_sums_from(v: &[u32], init: u32) -> FoldChunksWith<Slice<'_>, u32, Add> {
    v.par_iter()
        .fold_chunks_with(4, init, (|a, x| a + x) as Add)
}

fn forever(x: u32) -> Repeat<u32> {
    offshoot::iter::repeat(x)
}

type Halve = fn(std::ops::Range<u32>) -> (std::ops::Range<u32>, Option<std::ops::Range<u32>>);

fn halves(r: std::ops::Range<u32>) -> Split<std::ops::Range<u32>, Halve> {
    offshoot::iter::split(
        r,
        (|r| {
            if r.len() <= 3 {
                (r, None)
            } else {
                let mid = r.start + (r.end - r.start) / 2;
                (r.start..mid, Some(mid..r.end))
            }
        }) as Halve,
    )
}

type Kids = fn(&u32) -> Vec<u32>;

/// The binary tree of the numbers 1..16.
fn kids(n: &u32) -> Vec<u32> {
    if 2 * n < 16 {
        vec![2 * n, 2 * n + 1]
    } else {
        vec![]
    }
}

fn tree() -> WalkTree<u32, Kids> {
    offshoot::iter::walk_tree(1, kids as Kids)
}

fn prefix() -> WalkTreePrefix<u32, Kids> {
    offshoot::iter::walk_tree_prefix(1, kids as Kids)
}

fn postfix() -> WalkTreePostfix<u32, Kids> {
    offshoot::iter::walk_tree_postfix(1, kids as Kids)
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

#[test]
fn named_types_give_the_old_results() {
    bounded(|| {
        let v: Vec<u32> = (0..1000).collect();
        let w: Vec<u32> = (5000..5300).collect();
        let std_take: Vec<&u32> = v.iter().take(17).collect();
        assert_eq!(firsts(&v, 17).collect::<Vec<_>>(), std_take);
        assert_eq!(firsts(&v, 17).len(), 17);
        let std_skip: Vec<&u32> = v.iter().skip(990).collect();
        assert_eq!(lasts(&v, 990).collect::<Vec<_>>(), std_skip);
        assert_eq!(lasts(&v, 5000).count(), 0);
        // Skip and Take stay indexed: they zip, reverse and skip again.
        let std_mix: Vec<(&u32, &u32)> = v.iter().skip(3).take(5).rev().zip(&w).collect();
        let mix: Vec<_> = lasts(&v, 3).take(5).rev().zip(&w).collect();
        assert_eq!(mix, std_mix);
        assert_eq!(fused(&v).sum::<u32>(), v.iter().sum::<u32>());
        let std_pairs: Vec<(&u32, &u32)> = v[..300].iter().zip(&w).collect();
        assert_eq!(pairs(&v[..300], &w).collect::<Vec<_>>(), std_pairs);
        let mut std_shuffled = Vec::new();
        for (a, b) in v[..5].iter().zip(&w[..4]) {
            std_shuffled.extend([a, b]);
        }
        std_shuffled.push(&v[4]);
        assert_eq!(shuffled(&v[..5], &w[..4]).collect::<Vec<_>>(), std_shuffled);
        assert_eq!(shuffled(&v[..5], &w[..4]).len(), 9);
        assert_eq!(but_some(&v, 100).count(), 900);
        assert!(while_below(&v).collect::<Vec<_>>().iter().all(|x| **x < 5));
        let after = after_below(&v).collect::<Vec<_>>();
        assert!(after.len() >= 995 && after.iter().any(|x| **x == 999));
        let std_all: Vec<&u32> = v.iter().collect();
        assert_eq!(uniform(&v).collect::<Vec<_>>(), std_all);
        assert_eq!(exponential(&v).collect::<Vec<_>>(), std_all);
        let std_odd: Vec<usize> = v
            .iter()
            .enumerate()
            .filter(|(_, x)| *x % 2 == 1)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(odd_at(&v).collect::<Vec<_>>(), std_odd);
        let std_sums: Vec<u32> = v.chunks(4).map(|c| c.iter().sum()).collect();
        assert_eq!(chunk_sums(&v).collect::<Vec<_>>(), std_sums);
        assert_eq!(chunk_sums(&v).len(), 250);
        let std_sums_from: Vec<u32> = v.chunks(4).map(|c| c.iter().sum::<u32>() + 9).collect();
        assert_eq!(chunk_sums_from(&v, 9).collect::<Vec<_>>(), std_sums_from);
        let std_repeat: Vec<u32> = std::iter::repeat_n(8, 6).collect();
        assert_eq!(forever(8).take(6).collect::<Vec<_>>(), std_repeat);
        let pieces: Vec<std::ops::Range<u32>> = halves(0..100).collect();
        assert!(pieces.iter().all(|r| r.len() <= 3));
        let std_flat: Vec<u32> = (0..100).collect();
        assert_eq!(pieces.into_iter().flatten().collect::<Vec<_>>(), std_flat);
        assert_eq!(
            prefix().collect::<Vec<_>>(),
            [1, 2, 4, 8, 9, 5, 10, 11, 3, 6, 12, 13, 7, 14, 15]
        );
        assert_eq!(
            postfix().collect::<Vec<_>>(),
            [8, 9, 4, 10, 11, 5, 2, 12, 13, 6, 14, 15, 7, 3, 1]
        );
        assert_eq!(sorted(tree().collect()), (1..16).collect::<Vec<u32>>());
    });
}

// ---- Clone of the newtypes ----

/// Consumes a clone, then the original; both give the same items, in order.
fn same_twice<I>(it: I)
where
    I: ParallelIterator + Clone,
    I::Item: Debug + PartialEq,
{
    let a: Vec<I::Item> = it.clone().collect();
    let b: Vec<I::Item> = it.collect();
    assert_eq!(a, b);
}

#[test]
fn renamed_adaptors_clone() {
    bounded(|| {
        let v: Vec<u32> = (0..1000).collect();
        let w: Vec<u32> = (0..700).rev().collect();
        let k = 3;
        // The closures capture a value, as a user's do; they are `Clone`, so is the adaptor.
        same_twice(v.par_iter().positions(move |x| x % k == 0));
        same_twice(v.par_iter().fold_chunks(7, move || k, |a, x| a + x));
        same_twice(
            v.par_iter()
                .fold_chunks_with(7, k, move |a, x| a * k + x % 5),
        );
        same_twice(v.par_iter().skip(123));
        same_twice(v.par_iter().take(456));
        same_twice(v.par_iter().zip_eq(v.par_iter().rev()));
        same_twice(v.par_iter().interleave_shortest(&w));
        same_twice(v.par_iter().panic_fuse());
        same_twice(v.clone().into_par_iter().skip(10).take(20));
        let it = v.par_iter().positions(move |x| x % k == 1);
        assert_eq!(it.clone().count(), 333);
        assert_eq!(it.sum::<usize>(), (1..1000).step_by(3).sum::<usize>());
    });
}
