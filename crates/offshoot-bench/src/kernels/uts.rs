//! `uts` and `uts-bin`: Unbalanced Tree Search, counting the nodes of an
//! implicitly defined random tree whose shape cannot be predicted, the
//! standard stress test for load balancing.
//!
//! The tree is generated exactly as by the UTS reference implementation
//! (Olivier et al., "UTS: An Unbalanced Tree Search Benchmark", LCPC 2006;
//! files `uts.c`, `rng/brg_sha1.c`): each node carries a 20-byte SHA-1
//! digest; the root's is SHA-1 of 16 zero bytes followed by the root seed as
//! 4 big-endian bytes; child i's is SHA-1 of its parent's digest followed by
//! i as 4 big-endian bytes; a node's random number is the big-endian u32 of
//! the digest's last 4 bytes masked with 0x7fffffff, read as a probability by
//! dividing by 2^31. The number of children follows the reference's
//! binomial, geometric (four shape functions) and hybrid rules, including its
//! limit of 100 children. So the node counts of the published sample trees
//! come out exactly.
//!
//! The parallel versions fork over the children of a node by splitting the
//! child index range in halves with a join, down to single children; the
//! serial version loops over the children.
//!
//! Inputs (`uts`, geometric trees):
//! - test: the reference's default tree (`-t 1 -a 0 -d 6 -b 4 -r 0`, linear
//!   shape), published: 1,732 nodes, 1,050 leaves;
//! - quick: T1's shape at depth 8 (`-t 1 -a 3 -d 8 -b 4 -r 19`), not
//!   published: checked as serial = parallel;
//! - full: T1 (`-t 1 -a 3 -d 10 -b 4 -r 19`), published: 4,130,071 nodes,
//!   3,305,118 leaves, depth 10.
//!
//! Inputs (`uts-bin`, binomial trees):
//! - test: `-t 0 -b 40 -q 0.1 -m 8 -r 42`, not published;
//! - quick: T3 with 60 root children (`-t 0 -b 60 -q 0.124875 -m 8 -r 42`),
//!   not published;
//! - full: T3 (`-t 0 -b 2000 -q 0.124875 -m 8 -r 42`), published: 4,112,897
//!   nodes, 3,599,034 leaves, depth 1572.
//!
//! Cutoff: none.
//! Check: node count, leaf count and depth of the serial search against the
//! published statistics where the tree is published; every run against the
//! serial answer.

use sha1::{Digest, Sha1};

use super::plain::{self, by_ref, scoped_ref, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::harness::Contender;

/// What the kernel is for the geometric trees.
pub const ABOUT: About = About {
    name: "uts",
    about: "Unbalanced Tree Search, geometric tree (T1 in full mode), SHA-1 splittable RNG",
    cutoff: "none",
    source: "UTS (Olivier et al., LCPC 2006), sample tree T1",
};

/// What the kernel is for the binomial trees.
pub const ABOUT_BINOMIAL: About = About {
    name: "uts-bin",
    about: "Unbalanced Tree Search, binomial tree (T3 in full mode), SHA-1 splittable RNG",
    cutoff: "none",
    source: "UTS (Olivier et al., LCPC 2006), sample tree T3",
};

/// The reference's limit on the number of children (but a binomial root).
pub const MAX_NUM_CHILDREN: u32 = 100;

/// How the number of children is drawn (`-t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeType {
    /// `-t 0`: the root has b0 children, every other node m children with
    /// probability q, else none.
    Binomial,
    /// `-t 1`: geometric number of children with a depth-dependent mean.
    Geometric,
    /// `-t 2`: geometric above depth `shift_depth * gen_mx`, binomial below.
    Hybrid,
    /// `-t 3`: exactly b0 children down to depth gen_mx.
    Balanced,
}

/// Shape function of geometric trees (`-a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `-a 0`: mean decreases linearly with depth.
    Linear,
    /// `-a 1`: mean decreases polynomially with depth.
    ExpDec,
    /// `-a 2`: mean cycles with depth.
    Cyclic,
    /// `-a 3`: mean b0 down to depth gen_mx, then no children.
    Fixed,
}

/// Statistics of a tree search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counts {
    /// Nodes, root included.
    pub nodes: u64,
    /// Nodes without children.
    pub leaves: u64,
    /// Greatest depth (the root has depth 0).
    pub depth: u64,
}

impl Counts {
    fn leaf(height: u32) -> Self {
        Self {
            nodes: 1,
            leaves: 1,
            depth: height as u64,
        }
    }

    fn merge(self, other: Self) -> Self {
        Self {
            nodes: self.nodes + other.nodes,
            leaves: self.leaves + other.leaves,
            depth: self.depth.max(other.depth),
        }
    }
}

/// A tree's parameters, named as the reference's command-line flags.
#[derive(Clone, Copy, Debug)]
pub struct Tree {
    /// Short name, e.g. "T1".
    pub name: &'static str,
    /// `-t`.
    pub tree_type: TreeType,
    /// `-a`.
    pub shape: Shape,
    /// `-d`: gen_mx.
    pub gen_mx: u32,
    /// `-b`: b0.
    pub b0: f64,
    /// `-r`: root seed.
    pub root_seed: i32,
    /// `-m`: children of a binomial non-leaf.
    pub non_leaf_bf: u32,
    /// `-q`: probability that a binomial node has children.
    pub non_leaf_prob: f64,
    /// `-f`: hybrid switch depth as a fraction of gen_mx.
    pub shift_depth: f64,
    /// Published statistics (nodes, leaves, depth if published).
    pub published: Option<(u64, u64, Option<u64>)>,
}

impl Tree {
    /// The reference's defaults (`uts` with no flags).
    pub const DEFAULT: Tree = Tree {
        name: "default",
        tree_type: TreeType::Geometric,
        shape: Shape::Linear,
        gen_mx: 6,
        b0: 4.0,
        root_seed: 0,
        non_leaf_bf: 4,
        non_leaf_prob: 15.0 / 64.0,
        shift_depth: 0.5,
        published: Some((1732, 1050, None)),
    };

    /// T1: geometric, fixed shape (`-t 1 -a 3 -d 10 -b 4 -r 19`).
    pub const T1: Tree = Tree {
        name: "T1",
        shape: Shape::Fixed,
        gen_mx: 10,
        root_seed: 19,
        published: Some((4_130_071, 3_305_118, Some(10))),
        ..Tree::DEFAULT
    };

    /// T5: geometric, linear shape (`-t 1 -a 0 -d 20 -b 4 -r 34`).
    pub const T5: Tree = Tree {
        name: "T5",
        shape: Shape::Linear,
        gen_mx: 20,
        root_seed: 34,
        published: Some((4_147_582, 2_181_318, Some(20))),
        ..Tree::DEFAULT
    };

    /// T2: geometric, cyclic shape (`-t 1 -a 2 -d 16 -b 6 -r 502`).
    pub const T2: Tree = Tree {
        name: "T2",
        shape: Shape::Cyclic,
        gen_mx: 16,
        b0: 6.0,
        root_seed: 502,
        published: Some((4_117_769, 2_342_762, Some(81))),
        ..Tree::DEFAULT
    };

    /// T3: binomial (`-t 0 -b 2000 -q 0.124875 -m 8 -r 42`).
    pub const T3: Tree = Tree {
        name: "T3",
        tree_type: TreeType::Binomial,
        b0: 2000.0,
        non_leaf_prob: 0.124875,
        non_leaf_bf: 8,
        root_seed: 42,
        published: Some((4_112_897, 3_599_034, Some(1572))),
        ..Tree::DEFAULT
    };

    /// T4: hybrid (`-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4`).
    pub const T4: Tree = Tree {
        name: "T4",
        tree_type: TreeType::Hybrid,
        shape: Shape::Linear,
        gen_mx: 16,
        b0: 6.0,
        root_seed: 1,
        non_leaf_prob: 0.234375,
        non_leaf_bf: 4,
        published: Some((4_132_453, 3_108_986, Some(134))),
        ..Tree::DEFAULT
    };

    /// Quick-mode geometric tree: T1's shape at depth 8 (not published).
    pub const T1_DEPTH8: Tree = Tree {
        name: "T1 at depth 8",
        gen_mx: 8,
        published: None,
        ..Tree::T1
    };

    /// Quick-mode binomial tree: T3 with 60 root children (not published).
    pub const T3_ROOT60: Tree = Tree {
        name: "T3 with 60 root children",
        b0: 60.0,
        published: None,
        ..Tree::T3
    };

    /// Test-size binomial tree (not published).
    pub const SMALL_BINOMIAL: Tree = Tree {
        name: "small binomial",
        b0: 40.0,
        non_leaf_prob: 0.1,
        published: None,
        ..Tree::T3
    };

    /// The reference's command-line flags for this tree.
    pub fn flags(&self) -> String {
        match self.tree_type {
            TreeType::Binomial => format!(
                "-t 0 -b {} -q {} -m {} -r {}",
                self.b0, self.non_leaf_prob, self.non_leaf_bf, self.root_seed
            ),
            TreeType::Geometric => format!(
                "-t 1 -a {} -d {} -b {} -r {}",
                self.shape as u32, self.gen_mx, self.b0, self.root_seed
            ),
            TreeType::Hybrid => format!(
                "-t 2 -a {} -d {} -b {} -r {} -q {} -m {}",
                self.shape as u32,
                self.gen_mx,
                self.b0,
                self.root_seed,
                self.non_leaf_prob,
                self.non_leaf_bf
            ),
            TreeType::Balanced => format!("-t 3 -d {} -b {}", self.gen_mx, self.b0),
        }
    }

    /// The root node.
    pub fn root(&self) -> Node {
        let mut seed = [0u8; 20];
        seed[16..].copy_from_slice(&self.root_seed.to_be_bytes());
        Node {
            state: Sha1::digest(seed).into(),
            height: 0,
        }
    }

    /// Child `i` of `parent`.
    #[inline]
    pub fn child(&self, parent: &Node, i: u32) -> Node {
        let mut h = Sha1::new();
        h.update(parent.state);
        h.update((i as i32).to_be_bytes());
        Node {
            state: h.finalize().into(),
            height: parent.height + 1,
        }
    }

    /// Number of children of `node`, as the reference's `uts_numChildren`.
    pub fn num_children(&self, node: &Node) -> u32 {
        let n = match self.tree_type {
            TreeType::Binomial if node.height == 0 => self.b0.floor() as i64,
            TreeType::Binomial => self.binomial(node),
            TreeType::Geometric => self.geometric(node),
            TreeType::Hybrid if (node.height as f64) < self.shift_depth * self.gen_mx as f64 => {
                self.geometric(node)
            }
            TreeType::Hybrid => self.binomial(node),
            TreeType::Balanced if node.height < self.gen_mx => self.b0 as i64,
            TreeType::Balanced => 0,
        };
        let limit = if node.height == 0 && self.tree_type == TreeType::Binomial {
            self.b0.ceil() as i64
        } else if self.tree_type != TreeType::Balanced {
            MAX_NUM_CHILDREN as i64
        } else {
            i64::MAX
        };
        n.clamp(0, limit) as u32
    }

    fn binomial(&self, node: &Node) -> i64 {
        if node.probability() < self.non_leaf_prob {
            self.non_leaf_bf as i64
        } else {
            0
        }
    }

    fn geometric(&self, node: &Node) -> i64 {
        let depth = node.height as f64;
        let gen_mx = self.gen_mx as f64;
        let b0 = self.b0;
        let b_i = if node.height == 0 {
            b0
        } else {
            match self.shape {
                Shape::ExpDec => b0 * depth.powf(-b0.ln() / gen_mx.ln()),
                Shape::Cyclic if node.height > 5 * self.gen_mx => 0.0,
                Shape::Cyclic => b0.powf((2.0 * std::f64::consts::PI * depth / gen_mx).sin()),
                Shape::Fixed if node.height < self.gen_mx => b0,
                Shape::Fixed => 0.0,
                Shape::Linear => b0 * (1.0 - depth / gen_mx),
            }
        };
        let p = 1.0 / (1.0 + b_i);
        let u = node.probability();
        // Inverse CDF of the geometric distribution; a NaN (b_i < 0) is a leaf.
        ((1.0 - u).ln() / (1.0 - p).ln()).floor() as i64
    }
}

/// A tree node: its random state and depth.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// SHA-1 digest.
    pub state: [u8; 20],
    /// Depth (root = 0).
    pub height: u32,
}

impl Node {
    /// The reference's `rng_rand`: big-endian u32 of the last 4 bytes, as a
    /// non-negative i32.
    pub fn rand(&self) -> u32 {
        u32::from_be_bytes([
            self.state[16],
            self.state[17],
            self.state[18],
            self.state[19],
        ]) & 0x7fff_ffff
    }

    /// The reference's `rng_toProb(rng_rand(..))`: uniform in [0, 1).
    pub fn probability(&self) -> f64 {
        self.rand() as f64 / 2_147_483_648.0
    }
}

/// Serial search: a loop over each node's children.
pub fn serial(tree: &Tree) -> Counts {
    fn visit(tree: &Tree, node: &Node) -> Counts {
        let n = tree.num_children(node);
        if n == 0 {
            return Counts::leaf(node.height);
        }
        let mut c = Counts {
            nodes: 1,
            leaves: 0,
            depth: node.height as u64,
        };
        for i in 0..n {
            c = c.merge(visit(tree, &tree.child(node, i)));
        }
        c
    }
    visit(tree, &tree.root())
}

/// Parallel search with `offshoot::join` over halves of each child range.
pub fn offshoot(tree: &Tree) -> Counts {
    fn visit(tree: &Tree, node: &Node) -> Counts {
        let n = tree.num_children(node);
        if n == 0 {
            return Counts::leaf(node.height);
        }
        let c = children(tree, node, 0, n);
        Counts {
            nodes: c.nodes + 1,
            leaves: c.leaves,
            depth: c.depth.max(node.height as u64),
        }
    }
    fn children(tree: &Tree, parent: &Node, lo: u32, hi: u32) -> Counts {
        if hi - lo == 1 {
            return visit(tree, &tree.child(parent, lo));
        }
        let mid = lo + (hi - lo) / 2;
        let (a, b) = offshoot::join(
            || children(tree, parent, lo, mid),
            || children(tree, parent, mid, hi),
        );
        a.merge(b)
    }
    visit(tree, &tree.root())
}

/// Parallel search with `rayon::join` over halves of each child range.
pub fn rayon(tree: &Tree) -> Counts {
    fn visit(tree: &Tree, node: &Node) -> Counts {
        let n = tree.num_children(node);
        if n == 0 {
            return Counts::leaf(node.height);
        }
        let c = children(tree, node, 0, n);
        Counts {
            nodes: c.nodes + 1,
            leaves: c.leaves,
            depth: c.depth.max(node.height as u64),
        }
    }
    fn children(tree: &Tree, parent: &Node, lo: u32, hi: u32) -> Counts {
        if hi - lo == 1 {
            return visit(tree, &tree.child(parent, lo));
        }
        let mid = lo + (hi - lo) / 2;
        let (a, b) = rayon::join(
            || children(tree, parent, lo, mid),
            || children(tree, parent, mid, hi),
        );
        a.merge(b)
    }
    visit(tree, &tree.root())
}

/// Parallel search with chili's `Scope::join` over halves of each child range.
pub fn chili(s: &mut chili::Scope<'_>, tree: &Tree) -> Counts {
    fn visit(s: &mut chili::Scope<'_>, tree: &Tree, node: &Node) -> Counts {
        let n = tree.num_children(node);
        if n == 0 {
            return Counts::leaf(node.height);
        }
        let c = children(s, tree, node, 0, n);
        Counts {
            nodes: c.nodes + 1,
            leaves: c.leaves,
            depth: c.depth.max(node.height as u64),
        }
    }
    fn children(s: &mut chili::Scope<'_>, tree: &Tree, parent: &Node, lo: u32, hi: u32) -> Counts {
        if hi - lo == 1 {
            return visit(s, tree, &tree.child(parent, lo));
        }
        let mid = lo + (hi - lo) / 2;
        // chili runs its second closure first: keep serial's order.
        let (b, a) = s.join(
            |s| children(s, tree, parent, mid, hi),
            |s| children(s, tree, parent, lo, mid),
        );
        a.merge(b)
    }
    visit(s, tree, &tree.root())
}

/// Compares a serial search with the tree's published statistics, if any.
pub fn check_published(tree: &Tree, got: Counts) -> Result<(), String> {
    let Some((nodes, leaves, depth)) = tree.published else {
        return Ok(());
    };
    let depth_ok = depth.is_none_or(|d| d == got.depth);
    if got.nodes == nodes && got.leaves == leaves && depth_ok {
        Ok(())
    } else {
        Err(format!(
            "{} ({}): {} nodes, {} leaves, depth {}; published: {nodes} nodes, {leaves} leaves{}",
            tree.name,
            tree.flags(),
            got.nodes,
            got.leaves,
            got.depth,
            depth.map(|d| format!(", depth {d}")).unwrap_or_default()
        ))
    }
}

fn prepare_geometric(size: Size) -> Plain<Tree, Counts> {
    prepare_tree(match size {
        Size::Test => Tree::DEFAULT,
        Size::Quick => Tree::T1_DEPTH8,
        Size::Full => Tree::T1,
    })
}

fn prepare_binomial(size: Size) -> Plain<Tree, Counts> {
    prepare_tree(match size {
        Size::Test => Tree::SMALL_BINOMIAL,
        Size::Quick => Tree::T3_ROOT60,
        Size::Full => Tree::T3,
    })
}

fn prepare_tree(tree: Tree) -> Plain<Tree, Counts> {
    let published = if tree.published.is_some() {
        "published"
    } else {
        "unpublished"
    };
    let label = format!("{} ({}; {published})", tree.name, tree.flags());
    Plain::checked(tree, label, check_published)
}

/// The registry entry of the geometric tree.
pub fn info() -> KernelInfo {
    declare(ABOUT, prepare_geometric)
}

/// The registry entry of the binomial tree.
pub fn info_binomial() -> KernelInfo {
    declare(ABOUT_BINOMIAL, prepare_binomial)
}

/// Both trees' kernel: every contender walks the tree; the peers answer
/// `nodes/leaves/depth`.
fn declare(about: About, prepare: fn(Size) -> Plain<Tree, Counts>) -> KernelInfo {
    Kernel::new(about, prepare, by_ref(serial))
        .offshoot(by_ref(offshoot))
        .rayon(by_ref(rayon))
        .chili(scoped_ref(chili))
        .peers(
            Contender::PEERS,
            plain::peer_args_answer(peer_args, |c: &Counts| {
                format!("{}/{}/{}", c.nodes, c.leaves, c.depth)
            }),
        )
        .build()
}

/// The peers' arguments: the tree's parameters in the order `-t -a -d -b -r -m -q -f`
/// (type and shape as their numbers in the reference's flags); they answer
/// `nodes/leaves/depth`.
fn peer_args(tree: &Tree) -> Vec<String> {
    vec![
        (tree.tree_type as u32).to_string(),
        (tree.shape as u32).to_string(),
        tree.gen_mx.to_string(),
        tree.b0.to_string(),
        tree.root_seed.to_string(),
        tree.non_leaf_bf.to_string(),
        tree.non_leaf_prob.to_string(),
        tree.shift_depth.to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_tree_matches_published_counts() {
        let got = serial(&Tree::DEFAULT);
        assert_eq!((got.nodes, got.leaves), (1732, 1050));
        check_published(&Tree::DEFAULT, got).unwrap();
    }

    #[test]
    fn root_state_and_rand_follow_the_reference() {
        // rng_init(0): SHA-1 of 20 zero bytes.
        let root = Tree::DEFAULT.root();
        let expected: [u8; 20] = Sha1::digest([0u8; 20]).into();
        assert_eq!(root.state, expected);
        assert!(root.rand() <= 0x7fff_ffff);
    }

    /// The published sample trees (about 4 million nodes each): seconds in
    /// release, minutes in debug. Run with
    /// `cargo test --release -p offshoot-bench -- --ignored`.
    #[test]
    #[ignore = "slow in debug builds; run with --release -- --ignored"]
    fn published_sample_trees() {
        for tree in [Tree::T1, Tree::T3, Tree::T5, Tree::T2, Tree::T4] {
            check_published(&tree, serial(&tree)).unwrap();
        }
    }

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
        super::super::verify(&info_binomial());
    }
}
