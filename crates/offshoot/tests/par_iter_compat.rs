//! rayon's parallel-iterator surface against `std::iter` (proptest, random inputs, pools
//! of 1, 2 and 3 workers): every adaptor and consumer, empty and one-element inputs,
//! lengths that are not powers of two, every integer range type including ranges that end
//! at the type's `MAX`, `char` ranges, early-exit consumers stopping the others (items
//! visited are counted), drop counting for owning sources through every indexed adaptor,
//! panics inside closures surfacing once, order preservation, and one per-piece value for
//! `map_init`/`fold`.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use offshoot::iter::*;
use offshoot::prelude::{ParallelDrainFull, ParallelDrainRange};
use offshoot::str::ParallelString;
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
        cases: 32,
        ..ProptestConfig::default()
    }
}

fn vecs() -> impl Strategy<Value = Vec<i32>> {
    prop_oneof![
        prop::collection::vec(-1000i32..1000, 0..3),
        prop::collection::vec(-1000i32..1000, 0..2500),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn indexed_adaptors_match_std(v in vecs(), k in 0usize..40, step in 1usize..9, size in 1usize..9) {
        for p in pools() {
            let got: Vec<i32> = p.run(|| v.par_iter().rev().cloned().collect());
            prop_assert_eq!(got, v.iter().rev().cloned().collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().copied().skip(k).collect());
            prop_assert_eq!(got, v.iter().copied().skip(k).collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().copied().take(k).collect());
            prop_assert_eq!(got, v.iter().copied().take(k).collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().copied().step_by(step).collect());
            prop_assert_eq!(got, v.iter().copied().step_by(step).collect::<Vec<_>>());
            let got: Vec<Vec<i32>> = p.run(|| v.par_iter().copied().chunks(size).collect());
            prop_assert_eq!(got, v.chunks(size).map(|c| c.to_vec()).collect::<Vec<_>>());
            let got: Vec<(usize, i32)> = p.run(|| v.par_iter().copied().enumerate().skip(k).rev().collect());
            prop_assert_eq!(got, v.iter().copied().enumerate().skip(k).rev().collect::<Vec<_>>());
            let got: Vec<(usize, &i32)> = p.run(|| v.par_iter().rev().enumerate().step_by(step).take(k).collect());
            prop_assert_eq!(got, v.iter().rev().enumerate().step_by(step).take(k).collect::<Vec<_>>());
            let got: Vec<Vec<i32>> = p.run(|| v.par_iter().copied().rev().chunks(size).rev().collect());
            let mut want: Vec<Vec<i32>> = v.iter().copied().rev().collect::<Vec<_>>().chunks(size).map(|c| c.to_vec()).collect();
            want.reverse();
            prop_assert_eq!(got, want);
            let got: Vec<(i32, i32)> = p.run(|| v.par_iter().copied().zip(v.par_iter().copied().skip(k)).rev().collect());
            prop_assert_eq!(got, v.iter().copied().zip(v.iter().copied().skip(k)).rev().collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().copied().chain(v.par_iter().copied().rev()).skip(k).rev().collect());
            let mut want: Vec<i32> = v.iter().copied().chain(v.iter().copied().rev()).skip(k).collect();
            want.reverse();
            prop_assert_eq!(got, want);
            let got: Vec<i32> = p.run(|| v.par_iter().copied().update(|x| *x *= 2).inspect(|x| assert!(x % 2 == 0)).collect());
            prop_assert_eq!(got, v.iter().map(|x| x * 2).collect::<Vec<_>>());
            let mut out = vec![7; 3];
            p.run(|| v.par_iter().map(|x| x - 1).collect_into_vec(&mut out));
            prop_assert_eq!(out, v.iter().map(|x| x - 1).collect::<Vec<_>>());
            prop_assert_eq!(p.run(|| v.par_iter().skip(k).len()), v.len().saturating_sub(k));
        }
    }

    #[test]
    fn interleave_matches_a_sequential_merge(a in vecs(), b in vecs(), k in 0usize..50, j in 0usize..50) {
        let merged = |a: &[i32], b: &[i32]| {
            let mut out = Vec::new();
            for i in 0..a.len().max(b.len()) {
                out.extend(a.get(i));
                out.extend(b.get(i));
            }
            out
        };
        let shortest = |a: &[i32], b: &[i32]| {
            let n = if a.len() > b.len() { 2 * b.len() + 1 } else { 2 * a.len() };
            merged(a, b)[..n].to_vec()
        };
        for p in pools() {
            let got: Vec<i32> = p.run(|| a.par_iter().copied().interleave(b.par_iter().copied()).collect());
            prop_assert_eq!(&got, &merged(&a, &b));
            let got: Vec<i32> = p.run(|| a.par_iter().copied().interleave(b.par_iter().copied()).skip(k).take(j).rev().collect());
            let mut want: Vec<i32> = merged(&a, &b).into_iter().skip(k).take(j).collect();
            want.reverse();
            prop_assert_eq!(got, want);
            let got: Vec<i32> = p.run(|| a.par_iter().copied().interleave_shortest(b.par_iter().copied()).collect());
            prop_assert_eq!(got, shortest(&a, &b));
            let got: Vec<i32> = p.run(|| a.par_iter().copied().interleave(b.par_iter().copied()).skip(k).interleave(a.par_iter().copied()).collect());
            let first: Vec<i32> = merged(&a, &b).into_iter().skip(k).collect();
            prop_assert_eq!(got, merged(&first, &a));
        }
    }

    #[test]
    fn tuples_zip_like_nested_std_zips(a in vecs(), b in vecs(), c in vecs(), k in 0usize..40) {
        let want: Vec<(i32, i32, i32)> = a.iter().zip(&b).zip(&c).map(|((x, y), z)| (*x, *y, *z)).collect();
        for p in pools() {
            let got: Vec<(i32, i32, i32)> = p.run(|| (&a, &b, &c).into_par_iter().map(|(x, y, z)| (*x, *y, *z)).collect());
            prop_assert_eq!(&got, &want);
            let got: Vec<(i32, i32, i32)> = p.run(|| (a.clone(), b.clone(), c.clone()).into_par_iter().skip(k).rev().collect());
            let mut w: Vec<(i32, i32, i32)> = want.iter().copied().skip(k).collect();
            w.reverse();
            prop_assert_eq!(got, w);
            let got: Vec<(usize, i32)> = p.run(|| (0..a.len() + 3, &a).into_par_iter().map(|(i, x)| (i, *x)).collect());
            prop_assert_eq!(got, a.iter().copied().enumerate().collect::<Vec<_>>());
            let (mut x, y) = (a.clone(), b.clone());
            p.run(|| (&mut x, &y).into_par_iter().for_each(|(s, t)| *s += *t));
            let sums: Vec<i32> = a.iter().zip(&b).map(|(s, t)| s + t).chain(a.iter().skip(b.len()).copied()).collect();
            prop_assert_eq!(x, sums);
            let mut pair = (a.clone(), b.clone());
            let one: Vec<(i32, i32)> = p.run(|| pair.par_iter().map(|(x, y)| (*x, *y)).collect());
            prop_assert_eq!(one, a.iter().copied().zip(b.iter().copied()).collect::<Vec<_>>());
            p.run(|| pair.par_iter_mut().for_each(|(x, y)| std::mem::swap(x, y)));
            prop_assert_eq!(&pair.0[..a.len().min(b.len())], &b[..a.len().min(b.len())]);
            let one: Vec<(i32,)> = p.run(|| (&a,).into_par_iter().map(|(x,)| (*x,)).collect());
            prop_assert_eq!(one, a.iter().map(|x| (*x,)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn unindexed_adaptors_match_std(v in vecs()) {
        for p in pools() {
            let got: Vec<i32> = p.run(|| v.par_iter().filter_map(|x| (x % 3 == 0).then_some(x / 3)).collect());
            prop_assert_eq!(got, v.iter().filter_map(|x| (x % 3 == 0).then_some(x / 3)).collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().flat_map(|&x| 0..(x.rem_euclid(4))).collect());
            prop_assert_eq!(got, v.iter().flat_map(|&x| 0..(x.rem_euclid(4))).collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().flat_map_iter(|&x| std::iter::repeat_n(x, (x & 3) as usize)).collect());
            prop_assert_eq!(got, v.iter().flat_map(|&x| std::iter::repeat_n(x, (x & 3) as usize)).collect::<Vec<_>>());
            let nested: Vec<Vec<i32>> = v.chunks(7).map(|c| c.to_vec()).collect();
            let got: Vec<i32> = p.run(|| nested.clone().into_par_iter().flatten().collect());
            prop_assert_eq!(&got, &v);
            let got: Vec<i32> = p.run(|| nested.par_iter().flatten_iter().copied().collect());
            prop_assert_eq!(&got, &v);
            let got: Vec<i32> = p.run(|| v.par_iter().filter(|x| **x > 0).copied().chain(v.par_iter().copied().filter(|x| *x < 0)).collect());
            prop_assert_eq!(got, v.iter().copied().filter(|x| *x > 0).chain(v.iter().copied().filter(|x| *x < 0)).collect::<Vec<_>>());
            // fold: one accumulator per piece, in order; concatenated they are the input.
            let parts: Vec<Vec<i32>> = p.run(|| v.par_iter().fold(Vec::new, |mut a, &x| { a.push(x); a }).collect());
            prop_assert_eq!(parts.concat(), v.clone());
            let s: i64 = p.run(|| v.par_iter().fold_with(0i64, |a, &x| a + x as i64).sum());
            prop_assert_eq!(s, v.iter().map(|&x| x as i64).sum::<i64>());
            let r: Option<i64> = p.run(|| v.par_iter().try_fold(|| 0i64, |a, &x| (x != 999).then_some(a + x as i64)).try_reduce(|| 0, |a, b| Some(a + b)));
            prop_assert_eq!(r, (!v.contains(&999)).then(|| v.iter().map(|&x| x as i64).sum::<i64>()));
            let got: Vec<i32> = p.run(|| v.par_iter().map_init(|| 3, |three, x| x * *three).collect());
            prop_assert_eq!(got, v.iter().map(|x| x * 3).collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().map_with(5, |five, x| x + *five).filter(|x| x % 2 == 0).collect());
            prop_assert_eq!(got, v.iter().map(|x| x + 5).filter(|x| x % 2 == 0).collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().map(|&x| (x != 500).then_some(x)).while_some().collect());
            let want: Vec<i32> = v.iter().copied().take_while(|&x| x != 500).collect();
            prop_assert!(got.starts_with(&want) || v.contains(&500));
            if !v.contains(&500) { prop_assert_eq!(got, want); }
            prop_assert_eq!(p.run(|| v.par_iter().take_any(5).count()), v.len().min(5));
            let got: Vec<i32> = p.run(|| v.par_iter().copied().take_any_while(|x| *x != 7).collect());
            prop_assert!(got.iter().all(|x| *x != 7));
            if !v.contains(&7) { prop_assert_eq!(&got, &v); }
            let got: Vec<i32> = p.run(|| v.par_iter().copied().skip_any_while(|x| *x != 7).collect());
            prop_assert_eq!(got.contains(&7), v.contains(&7));
            if !v.contains(&7) { prop_assert!(got.is_empty()); }
            prop_assert_eq!(p.run(|| v.par_iter().skip_any(5).count()), v.len().saturating_sub(5));
        }
    }

    #[test]
    fn consumers_match_std(v in vecs(), t in -1000i32..1000) {
        for p in pools() {
            prop_assert_eq!(p.run(|| v.par_iter().map(|&x| x as i64).sum::<i64>()), v.iter().map(|&x| x as i64).sum::<i64>());
            let small = || v.iter().take(40).map(|x| 1 + (x & 1) as i64);
            prop_assert_eq!(p.run(|| v.par_iter().take(40).map(|x| 1 + (x & 1) as i64).product::<i64>()), small().product::<i64>());
            prop_assert_eq!(p.run(|| v.par_iter().copied().reduce_with(|a, b| a.max(b))), v.iter().copied().reduce(|a, b| a.max(b)));
            prop_assert_eq!(p.run(|| v.par_iter().min_by(|a, b| (*a / 10).cmp(&(*b / 10)))), v.iter().min_by(|a, b| (*a / 10).cmp(&(*b / 10))));
            prop_assert_eq!(p.run(|| v.par_iter().max_by(|a, b| (*a / 10).cmp(&(*b / 10)))), v.iter().max_by(|a, b| (*a / 10).cmp(&(*b / 10))));
            prop_assert_eq!(p.run(|| v.par_iter().find_first(|x| **x > t)), v.iter().find(|x| **x > t));
            prop_assert_eq!(p.run(|| v.par_iter().find_last(|x| **x > t)), v.iter().rev().find(|x| **x > t));
            prop_assert_eq!(p.run(|| v.par_iter().position_first(|x| *x > t)), v.iter().position(|x| *x > t));
            prop_assert_eq!(p.run(|| v.par_iter().position_last(|x| *x > t)), v.iter().rposition(|x| *x > t));
            prop_assert_eq!(p.run(|| v.par_iter().find_map_first(|x| (*x > t).then_some(x * 2))), v.iter().find_map(|x| (*x > t).then_some(x * 2)));
            prop_assert_eq!(p.run(|| v.par_iter().find_map_last(|x| (*x > t).then_some(x * 2))), v.iter().rev().find_map(|x| (*x > t).then_some(x * 2)));
            let any = p.run(|| v.par_iter().find_any(|x| **x > t));
            prop_assert_eq!(any.is_some(), v.iter().any(|x| *x > t));
            prop_assert!(any.is_none_or(|x| *x > t));
            let pos = p.run(|| v.par_iter().position_any(|x| *x == t));
            prop_assert!(pos.map_or(!v.contains(&t), |i| v[i] == t));
            let got: Vec<usize> = p.run(|| v.par_iter().positions(|x| *x > t).collect());
            prop_assert_eq!(got, v.iter().enumerate().filter(|(_, x)| **x > t).map(|(i, _)| i).collect::<Vec<_>>());
            let r: Result<(), i32> = p.run(|| v.par_iter().try_for_each(|&x| if x == t { Err(x) } else { Ok(()) }));
            prop_assert_eq!(r, if v.contains(&t) { Err(t) } else { Ok(()) });
            let r: Option<i64> = p.run(|| v.par_iter().map(|&x| (x != t).then_some(x as i64)).try_reduce(|| 0, |a, b| Some(a + b)));
            prop_assert_eq!(r, (!v.contains(&t)).then(|| v.iter().map(|&x| x as i64).sum::<i64>()));
            prop_assert!(p.run(|| v.par_iter().eq(&v)));
            prop_assert_eq!(p.run(|| v.par_iter().cmp(v.par_iter().skip(1))), v.iter().cmp(v.iter().skip(1)));
        }
    }

    #[test]
    fn collect_targets_keep_order(v in vecs()) {
        for p in pools() {
            let (a, b): (Vec<i32>, BTreeSet<i32>) = p.run(|| v.par_iter().map(|&x| (x, x / 2)).collect());
            prop_assert_eq!(a, v.clone());
            prop_assert_eq!(b, v.iter().map(|x| x / 2).collect::<BTreeSet<_>>());
            let m: HashMap<i32, usize> = p.run(|| v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect());
            prop_assert_eq!(m, v.iter().enumerate().map(|(i, &x)| (x, i)).collect::<HashMap<_, _>>());
            let m: BTreeMap<i32, usize> = p.run(|| v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect());
            prop_assert_eq!(m, v.iter().enumerate().map(|(i, &x)| (x, i)).collect::<BTreeMap<_, _>>());
            let s: HashSet<i32> = p.run(|| v.par_iter().copied().collect());
            prop_assert_eq!(s, v.iter().copied().collect::<HashSet<_>>());
            let s: BTreeSet<i32> = p.run(|| v.par_iter().copied().collect());
            prop_assert_eq!(s, v.iter().copied().collect::<BTreeSet<_>>());
            let d: VecDeque<i32> = p.run(|| v.par_iter().copied().collect());
            prop_assert_eq!(d, v.iter().copied().collect::<VecDeque<_>>());
            let l: LinkedList<i32> = p.run(|| v.par_iter().copied().collect());
            prop_assert_eq!(l, v.iter().copied().collect::<LinkedList<_>>());
            let s: String = p.run(|| v.par_iter().map(|x| char::from(b'a' + x.rem_euclid(26) as u8)).collect());
            prop_assert_eq!(s, v.iter().map(|x| char::from(b'a' + x.rem_euclid(26) as u8)).collect::<String>());
            let s: String = p.run(|| v.par_iter().map(|x| x.to_string()).collect());
            prop_assert_eq!(s, v.iter().map(|x| x.to_string()).collect::<String>());
            let r: Result<Vec<i32>, i32> = p.run(|| v.par_iter().map(|&x| if x == 77 { Err(x) } else { Ok(x) }).collect());
            prop_assert_eq!(r, v.iter().map(|&x| if x == 77 { Err(x) } else { Ok(x) }).collect::<Result<Vec<_>, _>>());
            let o: Option<Vec<i32>> = p.run(|| v.par_iter().map(|&x| (x != 77).then_some(x)).collect());
            prop_assert_eq!(o, v.iter().map(|&x| (x != 77).then_some(x)).collect::<Option<Vec<_>>>());
            let (a, b): (Vec<i32>, Vec<i32>) = p.run(|| v.par_iter().partition(|x| **x % 2 == 0));
            prop_assert_eq!((a, b), v.iter().partition::<Vec<i32>, _>(|x| *x % 2 == 0));
            let (a, b): (Vec<i32>, VecDeque<usize>) = p.run(|| v.par_iter().enumerate().map(|(i, &x)| (x, i)).unzip());
            prop_assert_eq!(a, v.clone());
            prop_assert_eq!(b, (0..v.len()).collect::<VecDeque<_>>());
            let mut e = vec![1, 2];
            p.run(|| e.par_extend(v.par_iter().copied()));
            prop_assert_eq!(&e[2..], &v[..]);
            let mut e = vec![1, 2];
            p.run(|| e.par_extend(v.par_iter()));
            prop_assert_eq!(&e[2..], &v[..]);
            let (l, r): (Vec<i32>, Vec<String>) = p.run(|| v.par_iter().partition_map(|&x| if x > 0 { Either::Left(x) } else { Either::Right(x.to_string()) }));
            prop_assert_eq!(l, v.iter().copied().filter(|&x| x > 0).collect::<Vec<_>>());
            prop_assert_eq!(r, v.iter().filter(|&&x| x <= 0).map(|x| x.to_string()).collect::<Vec<_>>());
            let list = p.run(|| v.par_iter().copied().filter(|x| x % 2 == 0).collect_vec_list());
            prop_assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
            let got: Vec<i64> = p.run(|| v.par_iter().fold_chunks_with(3, 1i64, |a, &x| a + x as i64).collect());
            prop_assert_eq!(got, v.chunks(3).map(|c| c.iter().fold(1i64, |a, &x| a + x as i64)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn ranges_of_every_integer_type(lo in -200i64..200, len in 0i64..600) {
        for p in pools() {
            macro_rules! check {
                ($($t:ty),*) => {$(
                    #[allow(irrefutable_let_patterns)]
                    if let (Ok(a), Ok(b)) = (<$t>::try_from(lo), <$t>::try_from(lo + len)) {
                        let got: Vec<$t> = p.run(|| (a..b).into_par_iter().collect());
                        prop_assert_eq!(got, (a..b).collect::<Vec<_>>());
                        let got: Vec<$t> = p.run(|| (a..=b).into_par_iter().rev().collect());
                        prop_assert_eq!(got, (a..=b).rev().collect::<Vec<_>>());
                        prop_assert_eq!(p.run(|| (a..b).into_par_iter().len()), (a..b).count());
                    }
                    let m = <$t>::MAX;
                    let k = (len as usize).min(100);
                    let got: Vec<$t> = p.run(|| (m - k as $t..=m).into_par_iter().collect());
                    prop_assert_eq!(got, (m - k as $t..=m).collect::<Vec<_>>());
                    let n = <$t>::MIN;
                    prop_assert_eq!(p.run(|| (n..n + k as $t).into_par_iter().count()), k);
                )*};
            }
            check!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
        }
    }

    #[test]
    fn intersperse_matches_a_serial_oracle(v in vecs(), k in 0usize..60, t in 0usize..5000) {
        let oracle = |v: &[i32]| -> Vec<i32> {
            let mut out = Vec::new();
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    out.push(-7);
                }
                out.push(*x);
            }
            out
        };
        let want = oracle(&v);
        for p in pools() {
            let got: Vec<i32> = p.run(|| v.par_iter().copied().intersperse(-7).collect());
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(p.run(|| v.par_iter().copied().intersperse(-7).len()), want.len());
            let got: Vec<i32> = p.run(|| v.par_iter().copied().intersperse(-7).rev().collect());
            prop_assert_eq!(got, want.iter().rev().copied().collect::<Vec<_>>());
            let got: Vec<i32> = p.run(|| v.par_iter().copied().intersperse(-7).skip(k).take(t).collect());
            prop_assert_eq!(got, want.iter().skip(k).take(t).copied().collect::<Vec<_>>());
            // take then skip, and skip twice: the ends move more than once.
            let got: Vec<i32> = p.run(|| {
                v.par_iter().copied().intersperse(-7).take(t).skip(k).skip(1).collect()
            });
            prop_assert_eq!(got, want.iter().take(t).skip(k).skip(1).copied().collect::<Vec<_>>());
            let got: Vec<(usize, i32)> = p.run(|| {
                v.par_iter().copied().intersperse(-7).enumerate().filter(|(_, x)| *x != -7).collect()
            });
            let want_pos: Vec<(usize, i32)> = want.iter().copied().enumerate().filter(|(_, x)| *x != -7).collect();
            prop_assert_eq!(got, want_pos);
            // Unindexed: every index yields at least one item, so each piece's first item
            // follows an earlier one (or starts the result): exactly the serial answer.
            let sep = i64::MIN;
            let twice: Vec<i64> = v.iter().flat_map(|&x| [x as i64, x as i64 + 1]).collect();
            let want2: Vec<i64> = twice.iter().enumerate().flat_map(|(i, &x)| (i > 0).then_some(sep).into_iter().chain([x])).collect();
            let got: Vec<i64> = p.run(|| {
                v.par_iter().flat_map(|&x| vec![x as i64, x as i64 + 1]).intersperse(sep).collect()
            });
            prop_assert_eq!(got, want2);
            // A filter may leave a piece's predecessors empty: the items keep their order,
            // no two separators meet, and at most a leading one is extra.
            let kept: Vec<i64> = v.iter().filter(|x| *x % 3 != 0).map(|&x| x as i64).collect();
            let got: Vec<i64> = p.run(|| {
                v.par_iter().filter(|x| *x % 3 != 0).map(|&x| x as i64).intersperse(sep).collect()
            });
            let items: Vec<i64> = got.iter().copied().filter(|&x| x != sep).collect();
            prop_assert_eq!(&items, &kept);
            prop_assert!(got.windows(2).all(|w| !(w[0] == sep && w[1] == sep)), "{:?}", got);
            prop_assert!(got.last() != Some(&sep), "{:?}", got);
            let seps = got.len() - items.len();
            prop_assert!(seps == kept.len().saturating_sub(1) || (seps == kept.len() && got.first() == Some(&sep)), "{:?}", got);
        }
    }

    #[test]
    fn string_pieces_match_str(chars in prop::collection::vec(prop::sample::select(vec!['a', 'b', ' ', '\n', '\r', ',', 'é', '€', '\u{3000}', '\t']), 0..3000)) {
        let s: String = chars.into_iter().collect();
        for p in pools() {
            let got: Vec<char> = p.run(|| s.par_chars().collect());
            prop_assert_eq!(got, s.chars().collect::<Vec<_>>());
            let got: Vec<(usize, char)> = p.run(|| s.par_char_indices().collect());
            prop_assert_eq!(got, s.char_indices().collect::<Vec<_>>());
            let got: Vec<u8> = p.run(|| s.par_bytes().rev().collect());
            prop_assert_eq!(got, s.bytes().rev().collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_lines().collect());
            prop_assert_eq!(got, s.lines().collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_split_whitespace().collect());
            prop_assert_eq!(got, s.split_whitespace().collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_split_ascii_whitespace().collect());
            prop_assert_eq!(got, s.split_ascii_whitespace().collect::<Vec<_>>());
            for sep in [',', '€', '\n'] {
                let got: Vec<&str> = p.run(|| s.par_split(sep).collect());
                prop_assert_eq!(got, s.split(sep).collect::<Vec<_>>());
                let got: Vec<&str> = p.run(|| s.par_split_inclusive(sep).collect());
                prop_assert_eq!(got, s.split_inclusive(sep).collect::<Vec<_>>());
                let got: Vec<&str> = p.run(|| s.par_split_terminator(sep).collect());
                prop_assert_eq!(got, s.split_terminator(sep).collect::<Vec<_>>());
                let got: Vec<(usize, &str)> = p.run(|| s.par_match_indices(sep).collect());
                prop_assert_eq!(got, s.match_indices(sep).collect::<Vec<_>>());
            }
            // Every kind of pattern: a slice, an array, a reference to one, a predicate.
            let set = [',', '€', '\u{3000}'];
            let got: Vec<&str> = p.run(|| s.par_split(&set[..]).collect());
            prop_assert_eq!(got, s.split(&set[..]).collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_split_terminator(set).collect());
            prop_assert_eq!(got, s.split_terminator(set).collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_split_inclusive(&set).collect());
            prop_assert_eq!(got, s.split_inclusive(&set).collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_split(char::is_whitespace).collect());
            prop_assert_eq!(got, s.split(char::is_whitespace).collect::<Vec<_>>());
            let got: Vec<&str> = p.run(|| s.par_matches(|c: char| !c.is_ascii()).collect());
            prop_assert_eq!(got, s.matches(|c: char| !c.is_ascii()).collect::<Vec<_>>());
            let got: Vec<u16> = p.run(|| s.par_encode_utf16().collect());
            prop_assert_eq!(got, s.encode_utf16().collect::<Vec<_>>());
            // A word count, as users write it.
            let counts = p.run(|| {
                s.par_lines()
                    .fold(HashMap::new, |mut m: HashMap<&str, usize>, line| {
                        for w in line.split_whitespace() {
                            *m.entry(w).or_default() += 1;
                        }
                        m
                    })
                    .reduce(HashMap::new, |mut a, b| {
                        for (w, c) in b {
                            *a.entry(w).or_default() += c;
                        }
                        a
                    })
            });
            let mut want: HashMap<&str, usize> = HashMap::new();
            for w in s.split_whitespace() {
                *want.entry(w).or_default() += 1;
            }
            prop_assert_eq!(counts, want);
        }
    }

    #[test]
    fn char_ranges(a in 0xD000u32..0xD900, len in 0u32..0x1200, k in 0usize..3000) {
        let lo = char::from_u32(a).unwrap_or('a');
        let hi = char::from_u32(a + len).unwrap_or('z');
        for p in pools() {
            let got: Vec<char> = p.run(|| (lo..hi).into_par_iter().collect());
            prop_assert_eq!(got, (lo..hi).collect::<Vec<_>>());
            let got: Vec<char> = p.run(|| (lo..=hi).into_par_iter().skip(k).rev().collect());
            let mut want: Vec<char> = (lo..=hi).skip(k).collect();
            want.reverse();
            prop_assert_eq!(got, want);
        }
    }
}

#[test]
fn untyped_ranges_and_max_ends() {
    // Rust's integer fallback applies: these are i32 ranges.
    let s = (0..100).into_par_iter().map(|x| x * 2).sum::<i32>();
    assert_eq!(s, 9900);
    let v: Vec<_> = (1..=4).into_par_iter().collect();
    assert_eq!(v, [1, 2, 3, 4]);
    assert_eq!((u32::MAX - 5..=u32::MAX).into_par_iter().count(), 6);
    assert_eq!(
        (u64::MAX - 5..=u64::MAX).into_par_iter().max(),
        Some(u64::MAX)
    );
    assert_eq!((i8::MIN..=i8::MAX).into_par_iter().count(), 256);
    #[allow(clippy::reversed_empty_ranges)]
    let empty = (5..=4).into_par_iter().count();
    assert_eq!(empty, 0);
    assert_eq!(('a'..='e').into_par_iter().collect::<String>(), "abcde");
}

/// Generic code: `Item: Send` is implied by the trait, so this needs no extra bound.
fn total<I: ParallelIterator<Item = u64>>(it: I) -> u64 {
    it.reduce(|| 0, |a, b| a + b)
}

/// Generic over a collection iterated by reference, bounded as rayon's docs write it. A
/// call that leaves `C` to inference must not send the trait solver through the impls for
/// references to tuples until it overflows (it did: `&(C,)`, `&((C,),)`, ...).
fn total_of<'a, C>(c: &'a C) -> u32
where
    C: ?Sized,
    &'a C: IntoParallelIterator<Item = &'a u32>,
{
    c.into_par_iter().sum()
}

#[test]
fn generic_code_needs_no_extra_bounds() {
    assert_eq!(total((1..=10u64).into_par_iter()), 55);
    let v = vec![1u32, 2, 3];
    assert_eq!(total_of(&v), 6);
    assert_eq!(total_of(&v[..2]), 3);
    // References to tuples still zip their members.
    let pair = (vec![1u32, 2], vec![10u32, 20]);
    let zipped: Vec<(&u32, &u32)> = (&pair).into_par_iter().collect();
    assert_eq!(zipped, [(&1, &10), (&2, &20)]);
    let mut pair = pair;
    (&mut pair).into_par_iter().for_each(|(a, b)| *a += *b);
    assert_eq!(pair.0, [11, 22]);
    assert_eq!(
        empty::<u8>().count() + once(3).count() + repeat_n(1, 7).count(),
        8
    );
}

/// Counts drops of an owned item.
#[derive(Debug)]
struct Tracked(u32, Arc<AtomicUsize>);

impl Clone for Tracked {
    fn clone(&self) -> Self {
        Tracked(self.0, self.1.clone())
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

impl PartialEq for Tracked {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for Tracked {}
impl std::hash::Hash for Tracked {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}
impl PartialOrd for Tracked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Tracked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

/// `par_drain` of whole collections (`ParallelDrainFull`) and of a `VecDeque`'s range:
/// every element is yielded once, the collection is left empty (or without the range),
/// and elements are dropped exactly once, also when the iterator stops early or is
/// dropped unused.
#[test]
// `Tracked`'s hash and order read only its number, which never changes; the counter it
// shares is what makes clippy call it a mutable key.
#[allow(clippy::mutable_key_type)]
fn drains_of_collections_yield_and_drop_each_element_once() {
    use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
    on_each_pool(|p| {
        for len in [0usize, 1, 7, 1000, 4099] {
            let drops = Arc::new(AtomicUsize::new(0));
            let items = || (0..len as u32).map(|i| Tracked(i, drops.clone()));
            let dropped = || drops.swap(0, Ordering::SeqCst);
            let sum: u64 = (0..len as u64).sum();

            let mut m: HashMap<u32, Tracked> = items().map(|t| (t.0, t)).collect();
            let got: u64 = p.run(|| m.par_drain().map(|(k, t)| k as u64 + t.0 as u64).sum());
            assert_eq!(
                (got, m.len(), dropped()),
                (2 * sum, 0, len),
                "HashMap, len {len}"
            );

            let mut s: HashSet<Tracked> = items().collect();
            let hit = p.run(|| s.par_drain().find_any(|t| t.0 == 3).map(|t| t.0));
            assert_eq!(hit, (len > 3).then_some(3), "HashSet, len {len}");
            assert_eq!((s.len(), dropped()), (0, len), "HashSet, len {len}");

            let mut h: BinaryHeap<Tracked> = items().collect();
            drop(p.run(|| h.par_drain()));
            assert_eq!(
                (h.len(), dropped()),
                (0, len),
                "BinaryHeap unused, len {len}"
            );
            let mut h: BinaryHeap<Tracked> = items().collect();
            let mut got: Vec<u32> = p.run(|| h.par_drain().map(|t| t.0).collect());
            got.sort_unstable();
            assert!(
                got.iter().copied().eq(0..len as u32),
                "BinaryHeap, len {len}"
            );
            assert_eq!(dropped(), len);

            let mut d: VecDeque<Tracked> = items().collect();
            d.rotate_left(len / 2); // a ring buffer that wraps
            let (a, b) = (len / 4, len - len / 4);
            let want: Vec<u32> = d.iter().skip(a).take(b - a).map(|t| t.0).collect();
            let got: Vec<u32> = p.run(|| d.par_drain(a..b).map(|t| t.0).collect());
            assert_eq!(got, want, "VecDeque, len {len}");
            assert_eq!((d.len(), dropped()), (len - (b - a), b - a));
            drop(d);
            assert_eq!(dropped(), len - (b - a));
        }
    });
}

/// A tuple of owning iterators of different lengths: the longer ones' tails are dropped
/// when the tuple is made, every zipped item once, also when the consumer stops early.
#[test]
fn tuples_of_owned_vectors_drop_each_element_once() {
    on_each_pool(|p| {
        for len in [0usize, 1, 7, 1000, 4099] {
            let drops = Arc::new(AtomicUsize::new(0));
            let make = |n: usize| {
                (0..n as u32)
                    .map(|i| Tracked(i, drops.clone()))
                    .collect::<Vec<_>>()
            };
            let got: u64 = p.run(|| {
                (make(len), make(len + 5), make(2 * len))
                    .into_par_iter()
                    .map(|(a, b, c)| (a.0 + b.0 + c.0) as u64)
                    .sum()
            });
            assert_eq!(got, 3 * (0..len as u64).sum::<u64>(), "len {len}");
            assert_eq!(drops.swap(0, Ordering::SeqCst), 4 * len + 5, "len {len}");
            let hit = p.run(|| {
                (make(len), make(len))
                    .into_par_iter()
                    .find_first(|(a, _)| a.0 == 5)
                    .map(|(a, b)| a.0 + b.0)
            });
            assert_eq!(hit, (len > 5).then_some(10), "len {len}");
            assert_eq!(
                drops.swap(0, Ordering::SeqCst),
                2 * len,
                "find_first, len {len}"
            );
        }
    });
}

#[test]
fn owned_items_are_dropped_once_through_every_adaptor() {
    on_each_pool(|p| {
        for len in [0usize, 1, 7, 1000, 4099] {
            let drops = Arc::new(AtomicUsize::new(0));
            let make = || {
                (0..len as u32)
                    .map(|i| Tracked(i, drops.clone()))
                    .collect::<Vec<_>>()
            };
            let check = |what: &str, kept: usize| {
                assert_eq!(
                    drops.swap(0, Ordering::SeqCst),
                    len,
                    "{what}, len {len}, kept {kept}"
                );
            };
            let n = p.run(|| {
                make()
                    .into_par_iter()
                    .skip(3)
                    .take(len / 2)
                    .rev()
                    .step_by(3)
                    .count()
            });
            check("skip/take/rev/step_by", n);
            let n = p.run(|| {
                make()
                    .into_par_iter()
                    .chunks(4)
                    .map(|c| c.len())
                    .sum::<usize>()
            });
            check("chunks", n);
            let n = p.run(|| {
                make()
                    .into_par_iter()
                    .chain(make())
                    .filter(|t| t.0 % 2 == 0)
                    .count()
            });
            drops.fetch_sub(len, Ordering::SeqCst);
            check("chain", n);
            let hit = p.run(|| make().into_par_iter().find_first(|t| t.0 == 5).map(|t| t.0));
            check("find_first", hit.is_some() as usize);
            let hit = p.run(|| make().into_par_iter().position_last(|t| t.0 % 3 == 0));
            check("position_last", hit.unwrap_or(0));
            let r = p.run(|| {
                make()
                    .into_par_iter()
                    .try_for_each(|t| if t.0 == 9 { Err(()) } else { Ok(()) })
            });
            check("try_for_each", r.is_err() as usize);
            let n = p.run(|| make().into_par_iter().take_any(3).count());
            check("take_any", n);
            // The separator's clones count their drops apart.
            let sep = Tracked(u32::MAX, Arc::new(AtomicUsize::new(0)));
            let n = p.run(|| {
                make()
                    .into_par_iter()
                    .intersperse(sep)
                    .skip(3)
                    .take(len)
                    .count()
            });
            check("intersperse", n);
            let got: Vec<u32> = p.run(|| {
                make()
                    .into_par_iter()
                    .flat_map(|t| vec![t])
                    .map(|t| t.0)
                    .collect()
            });
            assert!(got.iter().enumerate().all(|(i, &x)| x == i as u32));
            check("flat_map", got.len());
            let mut out = Vec::new();
            p.run(|| make().into_par_iter().rev().collect_into_vec(&mut out));
            assert!(out.iter().rev().enumerate().all(|(i, t)| t.0 == i as u32));
            drop(out);
            check("collect_into_vec", len);
            let mut v = make();
            let (a, b) = (len / 3, 2 * len / 3);
            let hit = p.run(|| v.par_drain(a..b).find_first(|t| t.0 % 5 == 0).map(|t| t.0));
            assert_eq!(hit, (a as u32..b as u32).find(|i| i % 5 == 0));
            assert_eq!(drops.load(Ordering::SeqCst), b - a, "par_drain, len {len}");
            assert!(v
                .iter()
                .map(|t| t.0)
                .eq((0..a as u32).chain(b as u32..len as u32)));
            drop(v);
            check("par_drain", b - a);
        }
    });
}

/// `find_first` stops the workers past a hit: with the hit near the front of a long
/// range, far fewer than all items are visited (printed for the report).
#[test]
fn find_first_stops_early_and_finds_the_first() {
    on_each_pool(|p| {
        let visited = AtomicUsize::new(0);
        let n = 50_000_000usize;
        let hit = p.run(|| {
            (0..n)
                .into_par_iter()
                .inspect(|_| {
                    visited.fetch_add(1, Ordering::Relaxed);
                })
                .find_first(|x| x % 1_000 == 999)
        });
        assert_eq!(hit, Some(999));
        let seen = visited.load(Ordering::Relaxed);
        println!(
            "find_first on {} workers: {seen} of {n} items visited",
            p.workers()
        );
        assert!(seen < n / 10, "{seen} items visited");
        let m = 2_000_000usize;
        let last = p.run(|| (0..m).into_par_iter().find_last(|x| x % 1_000 == 999));
        assert_eq!(last, Some(m - 1));
    });
}

#[test]
fn map_init_makes_one_value_per_piece() {
    // One worker: nothing is ever split, so one value and one accumulator in all.
    let p = &pools()[0];
    let made = AtomicUsize::new(0);
    let v: Vec<u32> = p.run(|| {
        (0..10_000u32)
            .into_par_iter()
            .map_init(
                || {
                    made.fetch_add(1, Ordering::Relaxed);
                    1u32
                },
                |one, x| x + *one,
            )
            .collect()
    });
    assert_eq!(v.len(), 10_000);
    assert_eq!(made.into_inner(), 1);
    let parts = p.run(|| {
        (0..10_000u32)
            .into_par_iter()
            .fold(|| 0u64, |a, x| a + x as u64)
            .count()
    });
    assert_eq!(parts, 1);
}

#[test]
fn a_panicking_closure_surfaces_once() {
    common::install_panic_hook();
    on_each_pool(|p| {
        let what = format!("iter boom {}", p.workers());
        let msg = common::panic_message(|| {
            p.run(|| {
                (0..100_000u32)
                    .into_par_iter()
                    .map(|x| x * 2)
                    .for_each(|x| {
                        if x == 2 * 77_777 {
                            common::boom(&what)
                        }
                    })
            })
        });
        assert_eq!(msg, common::boom_msg(&what));
        assert_eq!(common::times_raised(&common::boom_msg(&what)), 1);
    });
}

#[test]
fn string_patterns_on_edge_strings() {
    // Empty strings, separators at both ends, runs of separators, multi-byte separators.
    for s in [
        "",
        ",",
        "a,",
        ",a",
        ",,",
        "a,,b,",
        "€",
        "€€a€",
        "a\u{3000}",
        "\u{3000}",
    ] {
        on_each_pool(|p| {
            for sep in [',', '€', '\u{3000}'] {
                let got: Vec<&str> = p.run(|| s.par_split(sep).collect());
                assert_eq!(got, s.split(sep).collect::<Vec<_>>(), "{s:?} {sep:?}");
                let got: Vec<&str> = p.run(|| s.par_split_terminator(sep).collect());
                assert_eq!(got, s.split_terminator(sep).collect::<Vec<_>>(), "{s:?}");
                let got: Vec<&str> = p.run(|| s.par_split_inclusive(sep).collect());
                assert_eq!(got, s.split_inclusive(sep).collect::<Vec<_>>(), "{s:?}");
                let got: Vec<&str> = p.run(|| s.par_matches(sep).collect());
                assert_eq!(got, s.matches(sep).collect::<Vec<_>>(), "{s:?}");
            }
        });
    }
}

/// The `_with` methods take a state that is `Send + Clone` but not `Sync` (a `Cell`, a
/// `RefCell`), as rayon's do: each piece works on a clone of its own.
#[test]
fn with_states_need_not_be_sync() {
    use std::cell::{Cell, RefCell};
    common::bounded(|| {
        on_each_pool(|pool| {
            pool.run(|| {
                let n = 100_000u64;
                let mapped: Vec<u64> = (0..n)
                    .into_par_iter()
                    .map_with(Cell::new(0u64), |c, x| {
                        c.set(c.get() + 1);
                        x * 2
                    })
                    .collect();
                assert_eq!(mapped, (0..n).map(|x| x * 2).collect::<Vec<_>>());
                let seen = AtomicUsize::new(0);
                (0..n)
                    .into_par_iter()
                    .for_each_with(RefCell::new(Vec::new()), |v, x| {
                        v.borrow_mut().push(x);
                        seen.fetch_add(1, Ordering::Relaxed);
                    });
                assert_eq!(seen.into_inner() as u64, n);
                let folded: u64 = (0..n)
                    .into_par_iter()
                    .fold_with(Cell::new(0u64), |c, x| {
                        c.set(c.get() + x);
                        c
                    })
                    .map(|c| c.get())
                    .sum();
                assert_eq!(folded, n * (n - 1) / 2);
                let tried: Result<u64, ()> = (0..n)
                    .into_par_iter()
                    .try_fold_with(Cell::new(0u64), |c, x| {
                        c.set(c.get() + x);
                        Ok(c)
                    })
                    .map(|c| c.map(|c| c.get()))
                    .try_reduce(|| 0, |a, b| Ok(a + b));
                assert_eq!(tried, Ok(n * (n - 1) / 2));
                let each: Result<(), u64> =
                    (0..n)
                        .into_par_iter()
                        .try_for_each_with(RefCell::new(0u64), |c, x| {
                            *c.borrow_mut() += 1;
                            if x == n {
                                Err(x)
                            } else {
                                Ok(())
                            }
                        });
                assert_eq!(each, Ok(()));
                let chunks: Vec<u64> = (0..10u64)
                    .into_par_iter()
                    .fold_chunks_with(4, Cell::new(100u64), |c, x| {
                        c.set(c.get() + x);
                        c
                    })
                    .map(|c| c.get())
                    .collect();
                assert_eq!(chunks, [106, 122, 117]);
            })
        })
    })
}
