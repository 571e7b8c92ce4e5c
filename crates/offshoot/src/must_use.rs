//! Doctest-only checks that a lazy parallel iterator and a pool builder are `#[must_use]`,
//! as rayon's adaptors are: `v.par_iter().map(f);` as a statement does nothing, and under
//! `#![deny(unused_must_use)]` it does not compile.
//!
//! Invariant: each check is a pair, the expression used (`let _ = ...;`, which must
//! compile, so the second fails for the lint alone) and the expression dropped (which must
//! not compile). Nothing here is part of the crate's API: the module exists only when
//! rustdoc collects doctests.

/// One module per expression, each with the two doctests.
macro_rules! must_use {
    ($($name:ident: $e:expr;)*) => {$(
        #[doc = concat!(
            "```\n#![deny(unused_must_use)]\nuse offshoot::prelude::*;\n",
            "let v: Vec<i32> = (0..10).collect();\nlet mut w = v.clone();\nlet _ = &mut w;\n",
            "let _ = ", stringify!($e), ";\n```\n\n",
            "```compile_fail\n#![deny(unused_must_use)]\nuse offshoot::prelude::*;\n",
            "let v: Vec<i32> = (0..10).collect();\nlet mut w = v.clone();\nlet _ = &mut w;\n",
            stringify!($e), ";\n```\n",
        )]
        pub mod $name {}
    )*};
}

must_use! {
    par_iter: v.par_iter();
    par_iter_mut: w.par_iter_mut();
    into_par_iter: v.clone().into_par_iter();
    range: (0..10).into_par_iter();
    map: v.par_iter().map(|x| x + 1);
    map_init: v.par_iter().map_init(|| 1, |a, x| x + *a);
    map_with: v.par_iter().map_with(1, |a, x| x + *a);
    cloned: v.par_iter().cloned();
    copied: v.par_iter().copied();
    inspect: v.par_iter().inspect(|_| ());
    update: v.clone().into_par_iter().update(|x| *x += 1);
    filter: v.par_iter().filter(|x| **x > 1);
    filter_map: v.par_iter().filter_map(|x| Some(*x));
    flat_map: v.par_iter().flat_map(|x| vec![*x]);
    flat_map_iter: v.par_iter().flat_map_iter(|x| vec![*x]);
    flatten: v.par_iter().map(|x| vec![*x]).flatten();
    flatten_iter: v.par_iter().map(|x| vec![*x]).flatten_iter();
    chain: v.par_iter().chain(&v);
    fold: v.par_iter().fold(|| 0, |a, x| a + x);
    fold_with: v.par_iter().fold_with(0, |a, x| a + x);
    try_fold: v.par_iter().try_fold(|| 0, |a, x| Some(a + x));
    try_fold_with: v.par_iter().try_fold_with(0, |a, x| Some(a + x));
    while_some: v.par_iter().map(|x| Some(*x)).while_some();
    take_any: v.par_iter().take_any(2);
    skip_any: v.par_iter().skip_any(2);
    take_any_while: v.par_iter().take_any_while(|x| **x < 5);
    skip_any_while: v.par_iter().skip_any_while(|x| **x < 5);
    panic_fuse: v.par_iter().panic_fuse();
    enumerate: v.par_iter().enumerate();
    zip: v.par_iter().zip(&v);
    zip_eq: v.par_iter().zip_eq(&v);
    interleave: v.par_iter().interleave(&v);
    interleave_shortest: v.par_iter().interleave_shortest(&v);
    rev: v.par_iter().rev();
    skip: v.par_iter().skip(1);
    take: v.par_iter().take(1);
    step_by: v.par_iter().step_by(2);
    intersperse: v.par_iter().intersperse(&0);
    chunks: v.par_iter().chunks(2);
    fold_chunks: v.par_iter().fold_chunks(2, || 0, |a, x| a + x);
    fold_chunks_with: v.par_iter().fold_chunks_with(2, 0, |a, x| a + x);
    with_min_len: v.par_iter().with_min_len(2);
    with_max_len: v.par_iter().with_max_len(2);
    by_uniform_blocks: v.par_iter().by_uniform_blocks(2);
    by_exponential_blocks: v.par_iter().by_exponential_blocks();
    positions: v.par_iter().positions(|x| *x > 1);
    par_chunks: v.par_chunks(2);
    par_windows: v.par_windows(2);
    par_split: v.par_split(|x| *x == 3);
    par_chunks_mut: w.par_chunks_mut(2);
    par_bridge: v.iter().par_bridge();
    str_chars: "ab".par_chars();
    str_split: "a b".par_split(' ');
    drain: w.par_drain(..);
    thread_pool_builder: offshoot::ThreadPoolBuilder::new().num_threads(2);
    builder: offshoot::ThreadPool::builder().workers(2);
}
