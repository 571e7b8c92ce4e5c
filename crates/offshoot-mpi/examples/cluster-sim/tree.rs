//! The trees the model walks: the real UTS trees (SHA-1, the benchmark's generator: exact
//! node counts, about 0.25 µs a node to make), or trees of the same shape parameters made
//! with a cheap mixing function (a few nanoseconds a node), for sizes of billions of nodes
//! that SHA-1 would take hours to walk. Invariant: a node's children depend on the node
//! alone, so every split of the walk visits the same tree.

use crate::uts;

/// A node of either kind: the SHA-1 generator's state, or the cheap one's in its first 8
/// bytes; and its depth.
pub type SNode = uts::Node;

/// How the tree is made.
#[derive(Clone, Copy, Debug)]
pub enum Gen {
    /// The benchmark's own tree.
    Sha1(uts::Tree),
    /// The same shape with the cheap generator, from this seed.
    Fast(uts::Shape, u64),
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fast_state(n: &SNode) -> u64 {
    u64::from_le_bytes(n.state[..8].try_into().expect("8 bytes"))
}

fn fast_node(s: u64, height: u32) -> SNode {
    let mut state = [0u8; 20];
    state[..8].copy_from_slice(&s.to_le_bytes());
    SNode { state, height }
}

impl Gen {
    pub fn root(&self) -> SNode {
        match self {
            Gen::Sha1(t) => uts::root(t),
            Gen::Fast(_, seed) => fast_node(mix(*seed), 0),
        }
    }

    /// Pushes `n`'s children on `stack`.
    #[inline]
    pub fn expand(&self, n: &SNode, stack: &mut Vec<SNode>) {
        match self {
            Gen::Sha1(t) => {
                for i in 0..uts::num_children(&t.shape, n) {
                    stack.push(uts::child(n, i));
                }
            }
            Gen::Fast(shape, _) => {
                let s = fast_state(n);
                let u = (mix(s) >> 11) as f64 / (1u64 << 53) as f64;
                let k = match *shape {
                    uts::Shape::GeoFixed { b0, gen_mx } => {
                        let b = if n.height < gen_mx { b0 } else { 0.0 };
                        let p = 1.0 / (1.0 + b);
                        (((1.0 - u).ln() / (1.0 - p).ln()).floor() as u32).min(100)
                    }
                    uts::Shape::Binomial { b0, q, m } => {
                        if n.height == 0 {
                            b0.floor() as u32
                        } else if u < q {
                            m
                        } else {
                            0
                        }
                    }
                };
                for i in 0..k {
                    stack.push(fast_node(mix(s ^ mix(u64::from(i) + 1)), n.height + 1));
                }
            }
        }
    }

    /// The tree's node count, by a serial walk.
    pub fn count(&self) -> u64 {
        self.count_upto(u64::MAX).expect("no bound")
    }

    /// The tree's node count and its depth (the longest root-to-leaf path, in nodes: no
    /// schedule can beat that many node times).
    pub fn count_and_depth(&self) -> (u64, u32) {
        let mut stack = vec![self.root()];
        let (mut c, mut d) = (0, 0);
        while let Some(n) = stack.pop() {
            c += 1;
            d = d.max(n.height + 1);
            self.expand(&n, &mut stack);
        }
        (c, d)
    }

    /// The node count, or `None` past `max` nodes.
    pub fn count_upto(&self, max: u64) -> Option<u64> {
        let mut stack = vec![self.root()];
        let mut c = 0;
        while let Some(n) = stack.pop() {
            c += 1;
            if c > max {
                return None;
            }
            self.expand(&n, &mut stack);
        }
        Some(c)
    }

    /// The same shape from another seed (the cheap generator's trees only).
    pub fn with_seed(&self, seed: u64) -> Gen {
        match *self {
            Gen::Fast(shape, _) => Gen::Fast(shape, seed),
            Gen::Sha1(_) => panic!("cluster-sim: the SHA-1 trees have their published seeds"),
        }
    }
}
