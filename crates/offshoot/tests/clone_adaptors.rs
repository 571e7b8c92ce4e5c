//! `Clone` on every parallel iterator whose parts clone, as in rayon: a clone made before
//! consuming runs the same pipeline from the start (`take_any`'s count, `while_some`'s and
//! `take_any_while`'s flags fresh; a `vec::IntoIter` clones the elements it owns).

mod common;

use common::bounded;
use offshoot::prelude::*;

/// Consumes a clone, then the original: both give the same multiset.
fn twice<I>(it: I) -> (Vec<I::Item>, Vec<I::Item>)
where
    I: ParallelIterator + Clone,
    I::Item: Ord,
{
    let mut a: Vec<_> = it.clone().collect();
    let mut b: Vec<_> = it.collect();
    a.sort();
    b.sort();
    (a, b)
}

/// `sorted` holds 10 distinct values below `n`.
fn ten_distinct_of(sorted: &[i32], n: i32) -> bool {
    sorted.len() == 10
        && sorted.windows(2).all(|w| w[0] < w[1])
        && sorted.iter().all(|x| (0..n).contains(x))
}

#[test]
fn clones_run_the_same_pipeline() {
    bounded(|| {
        common::pool(2).install(|| {
            let v: Vec<i32> = (0..1000).collect();
            let (a, b) = twice(v.clone().into_par_iter().map(|x| x * 2));
            assert_eq!((a.len(), a), (1000, b));
            // `take_any`/`skip_any` keep *any* n elements, so the clone and the original
            // may keep different ones: each keeps 10 distinct source elements.
            let (a, b) = twice(v.par_iter().copied().take_any(10));
            assert!(
                ten_distinct_of(&a, 1000) && ten_distinct_of(&b, 1000),
                "{a:?} {b:?}"
            );
            let (a, b) = twice(v.par_iter().copied().skip_any(990));
            assert!(
                ten_distinct_of(&a, 1000) && ten_distinct_of(&b, 1000),
                "{a:?} {b:?}"
            );
            let (a, b) = twice(
                (0..100)
                    .into_par_iter()
                    .map(|x| (x < 50).then_some(x))
                    .while_some(),
            );
            assert!(a.len() <= 50 && b.len() <= 50);
            let (a, b) = twice((0..100).into_par_iter().take_any_while(|x| *x < 30));
            assert!(a.iter().chain(&b).all(|x| *x < 30));
            let (a, b) = twice((0..100).into_par_iter().skip_any_while(|_| false));
            assert_eq!((a.len(), b.len()), (100, 100));
            let (a, b) = twice(offshoot::iter::empty::<i32>());
            assert!(a.is_empty() && b.is_empty());
            // Owned elements: the clone copies them; each copy is dropped once.
            let words: Vec<String> = (0..50).map(|i| i.to_string()).collect();
            let (a, b) = twice(words.clone().into_par_iter().skip(5).take(40));
            assert_eq!(a, b);
            assert_eq!(a.len(), 40);
        })
    })
}
