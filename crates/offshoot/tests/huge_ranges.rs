//! Integer ranges with more values than `usize::MAX` run as rayon runs them: as unindexed
//! parallel iterators (rayon's `octillion` tests), instead of panicking when they are made.
//! Ranges that fit stay indexed (`len`, `zip`, `enumerate`, `collect_into_vec`); a huge
//! one has no length (`opt_len` is `None`), and an indexed use of it panics with a message
//! that says so. A range of nearly all `2^128` values (more than `(2^64 - 1)^2`) is
//! refused with a message.

mod common;

use common::{bounded, panic_message};
use offshoot::prelude::*;
use offshoot::ThreadPoolBuilder;

const OCTILLION: u128 = 10u128.pow(27);

fn two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn find_any_in_an_octillion_returns() {
    bounded(|| {
        let x = two_threads(|| {
            (0..OCTILLION)
                .into_par_iter()
                .find_any(|x| *x > OCTILLION / 2)
        });
        assert!(
            x.is_some_and(|x| x > OCTILLION / 2 && x < OCTILLION),
            "{x:?}"
        );
        // The upper half starts at 0; a worker that asks takes it at once.
        let n = OCTILLION as i128;
        let y = two_threads(|| (-n..n).into_par_iter().find_any(|y| *y >= 0));
        assert!(y.is_some_and(|y| (0..n).contains(&y)), "{y:?}");
    })
}

/// `find_last` over a range longer than `usize::MAX`: each index stands for a long run of
/// values, so a block raises the mark at its first hit and stops once a later block holds
/// one, and it polls inside the run; the workers close in on the top in about 64 rounds
/// of requests, then walk one index's run (before: the top piece walked its runs to the
/// end without answering requests, which takes years).
#[test]
fn find_last_in_an_octillion_returns() {
    bounded(|| {
        two_threads(|| {
            assert_eq!(
                (0..OCTILLION).into_par_iter().find_last(|_| true),
                Some(OCTILLION - 1)
            );
            assert_eq!(
                (0..=OCTILLION).into_par_iter().find_last(|x| x % 2 == 1),
                Some(OCTILLION - 1)
            );
        })
    })
}

#[test]
fn find_first_and_any_over_whole_types() {
    bounded(|| {
        two_threads(|| {
            assert_eq!((0..OCTILLION).into_par_iter().find_first(|_| true), Some(0));
            assert_eq!(
                (0..=u128::MAX / 2).into_par_iter().find_first(|x| *x > 5),
                Some(6)
            );
            assert_eq!(
                (i128::MIN..=-1).into_par_iter().find_first(|_| true),
                Some(i128::MIN)
            );
            let top = (u128::MAX / 2..=u128::MAX).into_par_iter();
            assert_eq!(top.find_any(|x| *x == u128::MAX / 2), Some(u128::MAX / 2));
            assert_eq!(
                (0..=u64::MAX)
                    .into_par_iter()
                    .map(|x| x / 2)
                    .find_first(|_| true),
                Some(0)
            );
            let big = (0..=u64::MAX)
                .into_par_iter()
                .find_any(|x| *x > u64::MAX / 2);
            assert!(big.is_some_and(|x| x > u64::MAX / 2));
            assert!((0..=usize::MAX).into_par_iter().any(|x| x == 1));
        })
    })
}

#[test]
fn a_huge_range_has_no_length_and_small_ones_stay_indexed() {
    bounded(|| {
        assert_eq!((0..OCTILLION).into_par_iter().opt_len(), None);
        assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None);
        // Nearly all 2^128 values: an index would stand for more than usize::MAX of them.
        let msg = panic_message(|| (0..=u128::MAX).into_par_iter());
        assert!(msg.contains("halves"), "{msg}");
        let msg = panic_message(|| (0..OCTILLION).into_par_iter().len());
        assert!(msg.contains("usize::MAX"), "{msg}");
        let msg = panic_message(|| {
            (0..OCTILLION)
                .into_par_iter()
                .enumerate()
                .find_any(|_| true)
        });
        assert!(msg.contains("usize::MAX"), "{msg}");

        // Just fitting: usize::MAX values, indexed.
        assert_eq!((0..u64::MAX).into_par_iter().len() as u64, u64::MAX);
        assert_eq!((1..=u64::MAX).into_par_iter().len() as u64, u64::MAX);
        let r = (OCTILLION..OCTILLION + 1000).into_par_iter();
        assert_eq!(r.len(), 1000);
        let v: Vec<(u128, i128)> = two_threads(|| {
            (OCTILLION..OCTILLION + 1000)
                .into_par_iter()
                .zip((-500i128..500).into_par_iter())
                .collect()
        });
        assert_eq!(v.len(), 1000);
        assert_eq!(v[999], (OCTILLION + 999, 499));
    })
}
