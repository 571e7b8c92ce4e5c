//! `tree-sum`: the sum of the values of a balanced binary tree of heap nodes
//! (`Box<Node>`), the benchmark the heartbeat schedulers publish (Spice,
//! chili): almost no work per node, so it measures what a fork costs when
//! the tree gives plenty of parallelism.
//!
//! The tree is built once, outside the timed region, depth-first (so nodes
//! lie in memory roughly in visiting order); node i in heap numbering (root
//! 1, children 2i and 2i+1) holds the value i. The parallel versions fork
//! (join) on the two subtrees of every node that has two children.
//!
//! Inputs: depth (levels) test 12, quick 21 (2.1 M nodes), full 26 (67 M
//! nodes, about 2.1 GB).
//! Cutoff: none.
//! Source: the binary-tree sum of Spice and chili's benchmarks; heartbeat
//! scheduling (Acar, Charguéraud, Guatto, Rainey, Sieczkowski, PLDI 2018).
//! Check: the serial sum must equal N(N+1)/2 with N = 2^depth - 1.
//!
//! Visiting order matters more than the fork here. `Box::new(Node { left: rec(..), right:
//! rec(..), .. })` allocates a node after both its subtrees, so the heap holds the tree in
//! post-order, and a walk that takes the right subtree first reads memory in one descending
//! sweep: in a user's crate (depth 23, Cargo's defaults, 1 worker) the plain recursion with
//! the right child first ran at 0.70× the left-first one's time. chili's `join(a, b)` runs
//! `b` first, so a chili port written `join(|s| sum(s, left), |s| sum(s, right))` walks
//! right-first and beats the left-first serial program (0.75–0.80×) for that reason, not
//! for a cheaper fork. Every version here visits left first, as the serial one does.

use super::plain::{self, by_ref, scoped_ref, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::harness::Contender;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "tree-sum",
    about: "sum over a balanced binary tree of heap-allocated nodes, a fork per inner node",
    cutoff: "none",
    source: "Spice / chili binary-tree sum; heartbeat scheduling (Acar et al. 2018)",
};

/// A heap-allocated tree node.
#[derive(Debug)]
pub struct Node {
    /// The node's value.
    pub value: u64,
    /// Left subtree.
    pub left: Option<Box<Node>>,
    /// Right subtree.
    pub right: Option<Box<Node>>,
}

/// A balanced tree with `depth` levels (depth >= 1) in heap numbering.
pub fn build(depth: u32) -> Box<Node> {
    fn rec(levels: u32, index: u64) -> Box<Node> {
        Box::new(Node {
            value: index,
            left: (levels > 1).then(|| rec(levels - 1, 2 * index)),
            right: (levels > 1).then(|| rec(levels - 1, 2 * index + 1)),
        })
    }
    assert!((1..=40).contains(&depth));
    rec(depth, 1)
}

/// The oracle: 1 + 2 + ... + (2^depth - 1).
pub fn expected(depth: u32) -> u64 {
    let n = (1u64 << depth) - 1;
    n * (n + 1) / 2
}

/// Plain recursion.
pub fn serial(node: &Node) -> u64 {
    let mut sum = node.value;
    if let Some(left) = &node.left {
        sum += serial(left);
    }
    if let Some(right) = &node.right {
        sum += serial(right);
    }
    sum
}

// Each runtime's version is its own plain function, as a user writes it (see `fib.rs`).

/// Forks on the two subtrees with `offshoot::join`.
pub fn offshoot(node: &Node) -> u64 {
    match (&node.left, &node.right) {
        (Some(left), Some(right)) => {
            let (a, b) = offshoot::join(|| offshoot(left), || offshoot(right));
            node.value + a + b
        }
        (Some(child), None) | (None, Some(child)) => node.value + offshoot(child),
        (None, None) => node.value,
    }
}

/// Forks on the two subtrees with `rayon::join`.
pub fn rayon(node: &Node) -> u64 {
    match (&node.left, &node.right) {
        (Some(left), Some(right)) => {
            let (a, b) = rayon::join(|| rayon(left), || rayon(right));
            node.value + a + b
        }
        (Some(child), None) | (None, Some(child)) => node.value + rayon(child),
        (None, None) => node.value,
    }
}

/// How many joins the parallel versions make on `node`'s tree (`forkcost`): one per node
/// with two children.
pub fn forks(node: &Node) -> u64 {
    match (&node.left, &node.right) {
        (Some(left), Some(right)) => 1 + forks(left) + forks(right),
        (Some(child), None) | (None, Some(child)) => forks(child),
        (None, None) => 0,
    }
}

/// Forks on the two subtrees with chili's `Scope::join`.
pub fn chili(s: &mut chili::Scope<'_>, node: &Node) -> u64 {
    match (&node.left, &node.right) {
        (Some(left), Some(right)) => {
            // chili runs its second closure first: keep serial's order.
            let (b, a) = s.join(|s| chili(s, right), |s| chili(s, left));
            node.value + a + b
        }
        (Some(child), None) | (None, Some(child)) => node.value + chili(s, child),
        (None, None) => node.value,
    }
}

/// The depth of a balanced tree (its leftmost path's length): the peers build the same tree
/// from it.
fn depth_of(t: &Node) -> u32 {
    let mut depth = 1;
    let mut node = t;
    while let Some(left) = &node.left {
        depth += 1;
        node = left;
    }
    depth
}

fn prepare(size: Size) -> Plain<Node, u64> {
    let depth = match size {
        Size::Test => 12,
        Size::Quick => 20,
        Size::Full => 26,
    };
    let label = format!("depth {depth} ({} nodes)", (1u64 << depth) - 1);
    Plain::new(*build(depth), label, expected(depth), "sum")
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, by_ref(serial))
        .offshoot(by_ref(offshoot))
        .rayon(by_ref(rayon))
        .chili(scoped_ref(chili))
        .peers(
            Contender::PEERS,
            plain::peer_args(|t: &Node| vec![depth_of(t).to_string()]),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_matches_closed_form() {
        for depth in 1..=12 {
            assert_eq!(serial(&build(depth)), expected(depth), "depth {depth}");
        }
        assert_eq!(expected(3), 28);
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
    }
}
