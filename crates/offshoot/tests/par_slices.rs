//! The slice sources (`par_chunks`, `par_chunks_mut`, `par_chunks_exact`(`_mut`),
//! `par_rchunks`(`_mut`), `par_rchunks_exact`(`_mut`), `par_windows`, `par_split`,
//! `par_split_mut`, `par_split_inclusive`(`_mut`), `par_chunk_by`(`_mut`),
//! `par_array_windows`) against std's `chunks`, `windows`, `split`, ... on random lengths
//! (0, 1, non-powers of two) and random sizes, on pools of 1, 2 and 3 workers: same pieces
//! in the same order, also reversed and after `skip`/`take`; writes through the `_mut`
//! forms land where the serial loop puts them; size 0 panics with a clear message.

mod common;

use std::sync::OnceLock;

use offshoot::prelude::*;
use offshoot::ThreadPool;
use proptest::prelude::*;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| [1, 2, 3].iter().map(|&n| common::pool(n)).collect())
}

fn on_each_pool(f: impl Fn(&ThreadPool) + Sync) {
    for p in pools() {
        f(p);
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    }
}

/// Checks an indexed source of sub-slices against std's sequential iterator: the whole
/// collect, the reversed collect, `len`, and a `skip`/`take` window of it.
fn check_indexed<'a, I, S>(p: &ThreadPool, par: impl Fn() -> I + Sync, seq: impl Fn() -> S)
where
    I: IndexedParallelIterator<Item = &'a [u32]>,
    S: DoubleEndedIterator<Item = &'a [u32]> + ExactSizeIterator,
{
    let want: Vec<&[u32]> = seq().collect();
    assert_eq!(p.run(|| par().len()), want.len());
    assert_eq!(p.run(|| par().collect::<Vec<_>>()), want);
    let rev: Vec<&[u32]> = seq().rev().collect();
    assert_eq!(p.run(|| par().rev().collect::<Vec<_>>()), rev);
    let (k, t) = (want.len() / 3, want.len() / 2);
    let mid: Vec<&[u32]> = seq().skip(k).take(t).collect();
    assert_eq!(p.run(|| par().skip(k).take(t).collect::<Vec<_>>()), mid);
    let sums: Vec<(usize, u64)> = p.run(|| {
        par()
            .enumerate()
            .map(|(i, c)| (i, c.iter().map(|&x| x as u64).sum()))
            .collect()
    });
    let want_sums: Vec<(usize, u64)> = seq()
        .enumerate()
        .map(|(i, c)| (i, c.iter().map(|&x| x as u64).sum()))
        .collect();
    assert_eq!(sums, want_sums);
}

/// Fills every chunk handed out by `par` with its chunk number and position, as the serial
/// loop `seq` does, and compares the slices.
fn check_mut<F, G>(p: &ThreadPool, n: usize, par: F, seq: G)
where
    F: Fn(&mut [u32]) + Sync,
    G: Fn(&mut [u32]),
{
    let mut want = vec![u32::MAX; n];
    seq(&mut want);
    let mut got = vec![u32::MAX; n];
    p.run(|| par(&mut got));
    assert_eq!(got, want);
}

fn stamp(i: usize, c: &mut [u32]) {
    for (j, x) in c.iter_mut().enumerate() {
        *x = (i * 1000 + j) as u32;
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn chunks_like_std(v in prop::collection::vec(any::<u32>(), 0..1200), size in 1usize..70) {
        on_each_pool(|p| {
            check_indexed(p, || v.par_chunks(size), || v.chunks(size));
            check_indexed(p, || v.par_chunks_exact(size), || v.chunks_exact(size));
            check_indexed(p, || v.par_rchunks(size), || v.rchunks(size));
            check_indexed(p, || v.par_rchunks_exact(size), || v.rchunks_exact(size));
            assert_eq!(v.par_chunks_exact(size).remainder(), v.chunks_exact(size).remainder());
            assert_eq!(v.par_rchunks_exact(size).remainder(), v.rchunks_exact(size).remainder());
        });
    }

    #[test]
    fn windows_like_std(v in prop::collection::vec(any::<u32>(), 0..1200), size in 1usize..40) {
        on_each_pool(|p| check_indexed(p, || v.par_windows(size), || v.windows(size)));
    }

    #[test]
    fn split_like_std(v in prop::collection::vec(0u32..5, 0..1500)) {
        on_each_pool(|p| {
            let want: Vec<&[u32]> = v.split(|x| *x == 0).collect();
            let got: Vec<&[u32]> = p.run(|| v.par_split(|x| *x == 0).collect());
            assert_eq!(got, want);
            assert_eq!(p.run(|| v.par_split(|x| *x == 0).count()), want.len());
        });
    }

    #[test]
    fn split_inclusive_and_chunk_by_like_std(v in prop::collection::vec(0u32..4, 0..1500)) {
        on_each_pool(|p| {
            let want: Vec<&[u32]> = v.split_inclusive(|x| *x == 0).collect();
            let got: Vec<&[u32]> = p.run(|| v.par_split_inclusive(|x| *x == 0).collect());
            assert_eq!(got, want);
            let got: Vec<&[u32]> = p.run(|| v.par_split_inclusive(|x| *x == 0).rev().collect());
            assert_eq!(got, want.iter().rev().copied().collect::<Vec<_>>());
            for same in [|a: &u32, b: &u32| a == b, |a: &u32, b: &u32| a <= b] {
                let want: Vec<&[u32]> = v.chunk_by(same).collect();
                let got: Vec<&[u32]> = p.run(|| v.par_chunk_by(same).collect());
                assert_eq!(got, want);
                let k = want.len() / 3;
                let got: Vec<&[u32]> = p.run(|| v.par_chunk_by(same).skip(k).collect());
                assert_eq!(got, want[k..]);
            }
            let want: Vec<[u32; 3]> = v.windows(3).map(|w| [w[0], w[1], w[2]]).collect();
            let got: Vec<[u32; 3]> = p.run(|| v.par_array_windows::<3>().copied().collect());
            assert_eq!(got, want);
        });
    }

    /// Long enough that runs straddle the parts `par_chunk_by_mut`'s pass compares apart
    /// (4096 elements each); runs both short and long.
    #[test]
    fn split_inclusive_mut_and_chunk_by_mut_writes_land(
        v in prop::collection::vec((0u32..3, 1usize..3000), 0..12)
    ) {
        let v: Vec<u32> = v.into_iter().flat_map(|(x, n)| std::iter::repeat_n(x, n % 7 + n / 500 * 500)).collect();
        on_each_pool(|p| {
            let mut want = v.clone();
            for (i, piece) in want.split_inclusive_mut(|x| *x == 0).enumerate() {
                piece.iter_mut().for_each(|x| *x += 10 * i as u32);
            }
            let mut got = v.clone();
            p.run(|| {
                got.par_split_inclusive_mut(|x| *x == 0)
                    .enumerate()
                    .for_each(|(i, piece)| piece.iter_mut().for_each(|x| *x += 10 * i as u32))
            });
            assert_eq!(got, want);
            let mut want = v.clone();
            for (i, run) in want.chunk_by_mut(|a, b| a == b).enumerate() {
                let n = run.len() as u32;
                run.iter_mut().for_each(|x| *x = *x * 100_000 + n * 10 + i as u32 % 10);
            }
            let mut got = v.clone();
            p.run(|| {
                got.par_chunk_by_mut(|a, b| a == b).enumerate().for_each(|(i, run)| {
                    let n = run.len() as u32;
                    run.iter_mut().for_each(|x| *x = *x * 100_000 + n * 10 + i as u32 % 10);
                })
            });
            assert_eq!(got, want);
        });
    }

    #[test]
    fn split_mut_writes_land(v in prop::collection::vec(0u32..5, 0..1500)) {
        on_each_pool(|p| {
            let mut want = v.clone();
            for (i, piece) in want.split_mut(|x| *x == 0).enumerate() {
                piece.iter_mut().for_each(|x| *x = 10 + i as u32);
            }
            let mut got = v.clone();
            p.run(|| {
                got.par_split_mut(|x| *x == 0)
                    .enumerate()
                    .for_each(|(i, piece)| piece.iter_mut().for_each(|x| *x = 10 + i as u32))
            });
            assert_eq!(got, want);
        });
    }

    #[test]
    fn chunks_mut_writes_land(n in 0usize..1200, size in 1usize..70) {
        on_each_pool(|p| {
            check_mut(p, n,
                |s| s.par_chunks_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)),
                |s| s.chunks_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)));
            check_mut(p, n,
                |s| s.par_chunks_exact_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)),
                |s| s.chunks_exact_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)));
            check_mut(p, n,
                |s| s.par_rchunks_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)),
                |s| s.rchunks_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)));
            check_mut(p, n,
                |s| s.par_rchunks_exact_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)),
                |s| s.rchunks_exact_mut(size).enumerate().for_each(|(i, c)| stamp(i, c)));
            check_mut(p, n,
                |s| s.par_chunks_mut(size).rev().skip(1).enumerate().for_each(|(i, c)| stamp(i, c)),
                |s| s.chunks_mut(size).rev().skip(1).enumerate().for_each(|(i, c)| stamp(i, c)));
            check_mut(p, n,
                |s| stamp(7, s.par_chunks_exact_mut(size).into_remainder()),
                |s| stamp(7, s.chunks_exact_mut(size).into_remainder()));
            check_mut(p, n,
                |s| stamp(7, s.par_rchunks_exact_mut(size).into_remainder()),
                |s| stamp(7, s.rchunks_exact_mut(size).into_remainder()));
        });
    }
}

#[test]
fn zip_of_chunks_mut_and_chunks() {
    // The row-wise pattern of a stencil: each output row from the matching input rows.
    let src: Vec<u32> = (0..1003).collect();
    for p in pools() {
        let mut dst = vec![0u32; 1003];
        p.run(|| {
            dst.par_chunks_mut(10)
                .zip(src.par_chunks(10))
                .for_each(|(d, s)| d.iter_mut().zip(s).for_each(|(d, s)| *d = s * 2))
        });
        assert!(dst.iter().enumerate().all(|(i, &x)| x == 2 * i as u32));
    }
}

#[test]
fn empty_and_one_element() {
    let e: [u8; 0] = [];
    assert_eq!(e.par_chunks(3).count(), 0);
    assert_eq!(e.par_windows(1).count(), 0);
    assert_eq!(e.par_split(|_| true).collect::<Vec<_>>(), [&[] as &[u8]]);
    let one = [9u8];
    assert_eq!(one.par_chunks(5).collect::<Vec<_>>(), [&[9u8][..]]);
    assert_eq!(one.par_rchunks_exact(2).count(), 0);
    assert_eq!(one.par_windows(2).count(), 0);
    assert_eq!(one.par_split(|x| *x == 9).count(), 2);
    // As std: an empty slice has no inclusive piece and no run; a separator at the end
    // ends the last piece.
    assert_eq!(e.par_split_inclusive(|_| true).count(), 0);
    assert_eq!(e.par_chunk_by(|_, _| true).count(), 0);
    assert_eq!(
        one.par_split_inclusive(|x| *x == 9).collect::<Vec<_>>(),
        [&[9u8][..]]
    );
    assert_eq!(
        one.par_chunk_by(|_, _| false).collect::<Vec<_>>(),
        [&[9u8][..]]
    );
    assert_eq!(one.par_array_windows::<2>().count(), 0);
}

/// Runs that start exactly where `par_chunk_by_mut`'s pass splits the slice (every 4096
/// elements): the pairs across those points are compared apart from the rest.
#[test]
fn chunk_by_runs_that_start_at_the_pass_boundaries() {
    let v: Vec<u32> = [(0, 4096), (1, 4096), (2, 1), (3, 8191), (3, 2)]
        .into_iter()
        .flat_map(|(x, n)| std::iter::repeat_n(x, n))
        .collect();
    let want: Vec<usize> = v.chunk_by(|a, b| a == b).map(<[u32]>::len).collect();
    assert_eq!(want, [4096, 4096, 1, 8193]);
    on_each_pool(|p| {
        let got: Vec<usize> = p.run(|| v.par_chunk_by(|a, b| a == b).map(<[u32]>::len).collect());
        assert_eq!(got, want);
        let mut w = v.clone();
        let got: Vec<usize> =
            p.run(|| w.par_chunk_by_mut(|a, b| a == b).map(|r| r.len()).collect());
        assert_eq!(got, want);
    });
}

#[test]
#[should_panic(expected = "window size")]
fn array_windows_zero_panics() {
    let _ = [1u8, 2].par_array_windows::<0>();
}

#[test]
#[should_panic(expected = "par_chunks(0): the chunk size must be at least 1")]
fn chunks_zero_panics() {
    let _ = [1, 2, 3].par_chunks(0);
}

#[test]
#[should_panic(expected = "par_chunks_mut(0): the chunk size must be at least 1")]
fn chunks_mut_zero_panics() {
    let _ = [1, 2, 3].par_chunks_mut(0);
}

#[test]
#[should_panic(expected = "par_rchunks_exact_mut(0): the chunk size must be at least 1")]
fn rchunks_exact_mut_zero_panics() {
    let _ = [1, 2, 3].par_rchunks_exact_mut(0);
}

#[test]
#[should_panic(expected = "par_windows(0): the window size must be at least 1")]
fn windows_zero_panics() {
    let _ = [1, 2, 3].par_windows(0);
}

#[test]
fn a_panic_in_a_chunk_closure_surfaces_once() {
    common::install_panic_hook();
    for p in pools() {
        let what = format!("chunk boom {}", p.workers());
        let mut v = vec![0u32; 100_003];
        let msg = common::panic_message(|| {
            p.run(|| {
                v.par_chunks_mut(7).enumerate().for_each(|(i, c)| {
                    if i == 9_999 {
                        common::boom(&what)
                    }
                    c.fill(1);
                })
            })
        });
        assert_eq!(msg, common::boom_msg(&what));
        assert_eq!(common::times_raised(&common::boom_msg(&what)), 1);
    }
}
