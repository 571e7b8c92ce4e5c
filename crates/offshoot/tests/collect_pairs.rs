//! Collecting into pairs as rayon does: `collect` builds `(FromA, FromB)` from pairs when
//! each side can be collected (`FromParallelIterator`, so `Box<[T]>`, `Result<C, E>` and
//! nested pairs too), and from `Either`s (left items to the first, right to the second);
//! `par_extend` extends a pair of collections from pairs or `Either`s. Order is kept on
//! both sides, on pools of 1, 2 and 3 workers.

mod common;

use std::collections::{BTreeSet, HashSet};

use common::bounded;
use offshoot::iter::Either;
use offshoot::prelude::*;

fn on_pools(f: impl Fn() + Send + Sync) {
    for n in [1, 2, 3] {
        common::pool(n).install(&f);
    }
}

fn side(x: i32) -> Either<i32, String> {
    if x % 3 == 0 {
        Either::Left(x)
    } else {
        Either::Right(x.to_string())
    }
}

#[test]
fn pairs_collect_into_any_two_collectables() {
    bounded(|| {
        on_pools(|| {
            let (a, b): (Vec<i32>, Vec<i64>) = (0..1000)
                .into_par_iter()
                .map(|x| (x, -(x as i64)))
                .collect();
            assert_eq!(a, (0..1000).collect::<Vec<_>>());
            assert_eq!(b, (0..1000).map(|x| -x).collect::<Vec<i64>>());

            let (boxed, text): (Box<[i32]>, String) =
                (0..5).into_par_iter().map(|x| (x, 'a')).collect();
            assert_eq!((&*boxed, text.as_str()), (&[0, 1, 2, 3, 4][..], "aaaaa"));

            let (ok, all): (Result<Vec<i32>, String>, Vec<i32>) = (0..100)
                .into_par_iter()
                .map(|x| (if x == 70 { Err(format!("{x}")) } else { Ok(x) }, x))
                .collect();
            assert_eq!(ok, Err("70".to_string()));
            assert_eq!(all.len(), 100);

            let ((x, y), z): ((Vec<i32>, BTreeSet<i32>), Vec<i32>) =
                (0..10).into_par_iter().map(|i| ((i, i % 2), -i)).collect();
            assert_eq!((x.len(), y.len(), z[9]), (10, 2, -9));
        })
    })
}

#[test]
fn eithers_collect_and_extend_into_pairs() {
    bounded(|| {
        on_pools(|| {
            let (l, r): (Vec<i32>, Vec<String>) = (0..1000).into_par_iter().map(side).collect();
            assert_eq!(l, (0..1000).filter(|x| x % 3 == 0).collect::<Vec<_>>());
            let want: Vec<String> = (0..1000)
                .filter(|x| x % 3 != 0)
                .map(|x| x.to_string())
                .collect();
            assert_eq!(r, want);

            let (l, r): (HashSet<i32>, Box<[String]>) = (0..10).into_par_iter().map(side).collect();
            assert_eq!((l.len(), r.len()), (4, 6));

            let mut pair = (vec![-3], vec!["x".to_string()]);
            pair.par_extend((0..10).into_par_iter().map(side));
            assert_eq!(pair.0, [-3, 0, 3, 6, 9]);
            assert_eq!(pair.1.len(), 7);
            assert_eq!(pair.1[1], "1");
        })
    })
}

#[test]
fn pairs_extend_a_pair_of_collections() {
    bounded(|| {
        on_pools(|| {
            let mut pair: (Vec<i32>, String) = (vec![7], "q".to_string());
            pair.par_extend((0..4).into_par_iter().map(|x| (x, 'z')));
            assert_eq!(pair, (vec![7, 0, 1, 2, 3], "qzzzz".to_string()));
        })
    })
}
