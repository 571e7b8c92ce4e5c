//! `iter::split`, `walk_tree_prefix`, `walk_tree_postfix` and `walk_tree` against serial
//! oracles, on random trees and random splitters, on pools of 1–4 workers: the same items
//! in the documented order; degenerate shapes (a chain of 200,000 nodes, a splitter that
//! peels one item at a time) do not overflow a stack; a panic in the user's function
//! surfaces once.

mod common;

use offshoot::iter::*;
use std::ops::Range;

/// A random tree of `n` nodes: node `i > 0` has a parent below it; children in order.
fn random_tree(n: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = common::Rng::new(seed);
    let mut children = vec![Vec::new(); n];
    for i in 1..n {
        // Mostly recent parents (deep trees), sometimes any (bushy ones).
        let p = if rng.next_u64().is_multiple_of(3) {
            (rng.next_u64() % i as u64) as usize
        } else {
            i - 1 - (rng.next_u64() % (i as u64).min(4)) as usize
        };
        children[p].push(i);
    }
    children
}

fn prefix_oracle(t: &[Vec<usize>], n: usize, out: &mut Vec<usize>) {
    out.push(n);
    for &c in &t[n] {
        prefix_oracle(t, c, out);
    }
}

fn postfix_oracle(t: &[Vec<usize>], n: usize, out: &mut Vec<usize>) {
    for &c in &t[n] {
        postfix_oracle(t, c, out);
    }
    out.push(n);
}

#[test]
fn walks_match_the_serial_orders() {
    common::bounded(|| {
        for workers in common::POOL_SIZES {
            let p = common::pool(workers);
            for (seed, n) in [(1, 1), (2, 2), (3, 17), (4, 1000), (5, 20_000)] {
                let t = random_tree(n, seed);
                let children = |&i: &usize| t[i].clone();
                let mut want = Vec::new();
                prefix_oracle(&t, 0, &mut want);
                let got: Vec<usize> = p.run(|| walk_tree_prefix(0, children).collect());
                assert_eq!(got, want, "prefix, {n} nodes, {workers} workers");
                let mut want = Vec::new();
                postfix_oracle(&t, 0, &mut want);
                let got: Vec<usize> = p.run(|| walk_tree_postfix(0, children).collect());
                assert_eq!(got, want, "postfix, {n} nodes, {workers} workers");
                let mut got: Vec<usize> = p.run(|| walk_tree(0, children).collect());
                got.sort_unstable();
                assert!(got.iter().copied().eq(0..n), "walk_tree, {n} nodes");
            }
        }
    })
}

#[test]
fn a_long_chain_does_not_overflow_the_stack() {
    common::bounded(|| {
        const N: u32 = 200_000;
        let next = |&i: &u32| (i + 1 < N).then_some(i + 1);
        let p = common::pool(2);
        let got: Vec<u32> = p.run(|| walk_tree_prefix(0, next).collect());
        assert!(got.iter().copied().eq(0..N));
        let got: Vec<u32> = p.run(|| walk_tree_postfix(0, next).collect());
        assert!(got.iter().copied().eq((0..N).rev()));
        // A splitter that peels one item off the front each time.
        let peel = |r: Range<u32>| {
            if r.len() <= 1 {
                (r, None)
            } else {
                (r.start..r.start + 1, Some(r.start + 1..r.end))
            }
        };
        let got: Vec<u32> = p.run(|| split(0..N, peel).map(|r| r.start).collect());
        assert!(got.iter().copied().eq(0..N));
    })
}

#[test]
fn split_pieces_cover_the_data_in_order() {
    common::bounded(|| {
        for workers in common::POOL_SIZES {
            let p = common::pool(workers);
            for (seed, n) in [(1u64, 0u32), (2, 1), (3, 1000), (4, 100_000)] {
                let mut rng = common::Rng::new(seed);
                let min = 1 + rng.next_u64() % 64;
                // Split at a point that depends on the range, not always the middle.
                let splitter = |r: Range<u32>| {
                    let len = r.len() as u64;
                    if len <= min {
                        return (r, None);
                    }
                    let cut = r.start + (1 + (r.start as u64 * 7 + len) % (len - 1)) as u32;
                    (r.start..cut, Some(cut..r.end))
                };
                let pieces: Vec<Range<u32>> = p.run(|| split(0..n, splitter).collect());
                let flat: Vec<u32> = pieces.iter().cloned().flatten().collect();
                assert!(
                    flat.iter().copied().eq(0..n),
                    "{n} items, {workers} workers"
                );
                assert!(pieces.iter().all(|r| r.len() as u64 <= min.max(1)));
                let total: u64 = p.run(|| {
                    split(0..n, splitter)
                        .map(|r| r.map(u64::from).sum::<u64>())
                        .sum()
                });
                assert_eq!(total, (0..n as u64).sum::<u64>());
            }
        }
    })
}

#[test]
fn a_panic_in_children_of_surfaces_once() {
    common::bounded(|| {
        let p = common::pool(3);
        let what = "children_of of node 777";
        let msg = common::panic_message(|| {
            p.run(|| {
                walk_tree_prefix(1u32, |&n| {
                    if n == 777 {
                        common::boom(what);
                    }
                    if n < 2000 {
                        vec![2 * n, 2 * n + 1]
                    } else {
                        vec![]
                    }
                })
                .count()
            })
        });
        assert_eq!(msg, common::boom_msg(what));
        assert_eq!(common::times_raised(&common::boom_msg(what)), 1);
    })
}
