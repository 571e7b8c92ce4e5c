//! Sources made by recursion on the user's data: [`split`] (pieces made by a splitting
//! function) and [`walk_tree_prefix`], [`walk_tree_postfix`], [`walk_tree`] (the nodes of
//! a tree given by a children function), under rayon's names.
//!
//! The recursion runs first, in parallel on [`join`](crate::join) (a split's two halves, a
//! node's children in halves), and gathers the items in order into one list of `Vec`s;
//! the items are then an owning source like a `Vec` (`IntoIter`, inside rayon's types
//! [`Split`], [`WalkTreePrefix`], ...), split on request. So the
//! user's splitting and children functions run in parallel, and the items are held in
//! memory between the two phases (rayon interleaves them; it holds a stack per split
//! instead).
//!
//! Invariants:
//! * Order: `split` yields the pieces left to right; `walk_tree_prefix` a node before its
//!   children's subtrees, those in the children's order; `walk_tree_postfix` the
//!   children's subtrees in order, then the node.
//! * Bounded depth: the parallel recursion stops after [`PAR_DEPTH`] levels of the tree
//!   (or of nested splits); below, a subtree is walked by a loop with an explicit stack,
//!   so a degenerate tree (a long chain) or a splitter that peels one item at a time
//!   cannot overflow the stack.
//! * Every item is yielded once; a panic in the user's function drops what was gathered
//!   and resumes in the caller.

use std::collections::LinkedList;

use super::{IntoIter, IntoParallelIterator, Split, WalkTree, WalkTreePostfix, WalkTreePrefix};

/// How many levels of the recursion run in parallel (each level a `join`, or a few for a
/// node's children); deeper parts are walked sequentially by their worker.
const PAR_DEPTH: usize = 48;

/// Gathered items, in order, a `Vec` per sequential part.
type Parts<T> = LinkedList<Vec<T>>;

fn concat<T>(mut a: Parts<T>, mut b: Parts<T>) -> Parts<T> {
    a.append(&mut b);
    a
}

fn flatten<T: Send>(parts: Parts<T>) -> IntoIter<T> {
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for mut v in parts {
        all.append(&mut v);
    }
    all.into_par_iter()
}

/// The pieces of `data`: `splitter(d)` returns `(left, Some(right))` to split `d` in two,
/// or `(d, None)` when `d` is a piece. Pieces come in order, left to right (rayon's
/// `iter::split`; rayon may stop splitting early, this one splits until `splitter` says
/// stop, so make it stop at a useful size).
///
/// ```
/// use offshoot::iter::*;
/// // Halve a range until it has at most 100 numbers, then sum each piece.
/// let pieces = split(0..1000u64, |r| {
///     if r.end - r.start <= 100 {
///         (r, None)
///     } else {
///         let mid = r.start + (r.end - r.start) / 2;
///         (r.start..mid, Some(mid..r.end))
///     }
/// });
/// let sums: Vec<u64> = pieces.map(|r| r.sum::<u64>()).collect();
/// assert_eq!(sums.len(), 16);
/// assert_eq!(sums.iter().sum::<u64>(), 999 * 1000 / 2);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    fn go<D: Send, S: Fn(D) -> (D, Option<D>) + Sync>(d: D, s: &S, depth: usize) -> Parts<D> {
        if depth >= PAR_DEPTH {
            return LinkedList::from([sequential(d, s)]);
        }
        match s(d) {
            (left, Some(right)) => {
                let (a, b) = crate::join(|| go(left, s, depth + 1), || go(right, s, depth + 1));
                concat(a, b)
            }
            (piece, None) => LinkedList::from([vec![piece]]),
        }
    }
    /// Splits `d` to the end with an explicit stack of right halves, in order.
    fn sequential<D, S: Fn(D) -> (D, Option<D>)>(d: D, s: &S) -> Vec<D> {
        let (mut out, mut rights) = (Vec::new(), vec![d]);
        while let Some(mut d) = rights.pop() {
            loop {
                match s(d) {
                    (left, Some(right)) => {
                        rights.push(right);
                        d = left;
                    }
                    (piece, None) => {
                        out.push(piece);
                        break;
                    }
                }
            }
        }
        out
    }
    Split::new(flatten(go(data, &splitter, 0)))
}

/// The children of `node`, gathered (each subtree walked by `walk`) in order, in parallel
/// halves.
fn children_in_parallel<S, W>(children: Vec<S>, walk: &W) -> Parts<S>
where
    S: Send,
    W: Fn(S) -> Parts<S> + Sync,
{
    fn halves<S: Send, W: Fn(S) -> Parts<S> + Sync>(mut v: Vec<S>, walk: &W) -> Parts<S> {
        match v.len() {
            0 => LinkedList::new(),
            1 => walk(v.pop().expect("one child")),
            n => {
                let right = v.split_off(n / 2);
                let (a, b) = crate::join(|| halves(v, walk), || halves(right, walk));
                concat(a, b)
            }
        }
    }
    halves(children, walk)
}

/// The nodes of the tree under `root` in prefix order: a node, then the subtrees of its
/// children (`children_of(&node)`), in order (rayon's `iter::walk_tree_prefix`).
///
/// ```
/// use offshoot::iter::*;
/// // The binary tree of the numbers 1..16 (node n has children 2n and 2n + 1).
/// let nodes: Vec<u32> = walk_tree_prefix(1u32, |&n| {
///     if 2 * n < 16 { vec![2 * n, 2 * n + 1] } else { vec![] }
/// })
/// .collect();
/// assert_eq!(nodes, [1, 2, 4, 8, 9, 5, 10, 11, 3, 6, 12, 13, 7, 14, 15]);
/// ```
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePrefix::new(flatten(walk_prefix(root, &children_of, 0)))
}

fn walk_prefix<S, B, I>(node: S, children_of: &B, depth: usize) -> Parts<S>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    if depth >= PAR_DEPTH {
        // Iterative: a stack of the children iterators still being walked.
        let mut out = Vec::new();
        let mut stack = vec![children_of(&node).into_iter()];
        out.push(node);
        while let Some(top) = stack.last_mut() {
            match top.next() {
                Some(c) => {
                    stack.push(children_of(&c).into_iter());
                    out.push(c);
                }
                None => {
                    stack.pop();
                }
            }
        }
        return LinkedList::from([out]);
    }
    let children: Vec<S> = children_of(&node).into_iter().collect();
    let head = LinkedList::from([vec![node]]);
    let walk = |c: S| walk_prefix(c, children_of, depth + 1);
    concat(head, children_in_parallel(children, &walk))
}

/// The nodes of the tree under `root` in postfix order: the subtrees of a node's children
/// (`children_of(&node)`), in order, then the node (rayon's `iter::walk_tree_postfix`).
///
/// ```
/// use offshoot::iter::*;
/// let nodes: Vec<u32> = walk_tree_postfix(1u32, |&n| {
///     if 2 * n < 8 { vec![2 * n, 2 * n + 1] } else { vec![] }
/// })
/// .collect();
/// assert_eq!(nodes, [4, 5, 2, 6, 7, 3, 1]);
/// ```
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTreePostfix::new(flatten(walk_postfix(root, &children_of, 0)))
}

fn walk_postfix<S, B, I>(node: S, children_of: &B, depth: usize) -> Parts<S>
where
    S: Send,
    B: Fn(&S) -> I + Sync,
    I: IntoIterator<Item = S>,
{
    if depth >= PAR_DEPTH {
        // Iterative: each node waits on the stack with the iterator of its children.
        let mut out = Vec::new();
        let children = children_of(&node).into_iter();
        let mut stack = vec![(node, children)];
        while let Some((_, top)) = stack.last_mut() {
            match top.next() {
                Some(c) => {
                    let cs = children_of(&c).into_iter();
                    stack.push((c, cs));
                }
                None => {
                    let (n, _) = stack.pop().expect("the stack is not empty");
                    out.push(n);
                }
            }
        }
        return LinkedList::from([out]);
    }
    let children: Vec<S> = children_of(&node).into_iter().collect();
    let walk = |c: S| walk_postfix(c, children_of, depth + 1);
    let mut parts = children_in_parallel(children, &walk);
    parts.push_back(vec![node]);
    parts
}

/// The nodes of the tree under `root`, in an order this crate chooses (rayon's
/// `iter::walk_tree`): today prefix order, as [`walk_tree_prefix`]; do not rely on it.
///
/// ```
/// use offshoot::iter::*;
/// let count = walk_tree(1u32, |&n| if n < 1000 { vec![2 * n, 2 * n + 1] } else { vec![] })
///     .count();
/// assert_eq!(count, 1999); // every n up to 1999 has its parent n / 2 below 1000
/// ```
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    WalkTree::new(flatten(walk_prefix(root, &children_of, 0)))
}
