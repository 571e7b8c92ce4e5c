//! The Unbalanced Tree Search benchmark (UTS; Olivier et al., LCPC 2006): trees whose shape
//! is fixed by a seed, made node by node with SHA-1 (the reference `brg_sha1` generator),
//! so every runtime and every split explores exactly the same tree. T1 (geometric) and T3
//! (binomial) and their node counts are those of UTS's `sample_workloads.sh`.

use sha1::{Digest, Sha1};

/// A tree node: its generator state and its depth.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Node {
    pub state: [u8; 20],
    pub height: u32,
}

/// The tree's parameters.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    /// `-t 1 -a 3 -d gen_mx -b b0`: geometric, fixed branching `b0` above depth `gen_mx`.
    GeoFixed { b0: f64, gen_mx: u32 },
    /// `-t 0 -b b0 -q q -m m`: binomial; the root has `b0` children, every other node `m`
    /// with probability `q`, else none.
    Binomial { b0: f64, q: f64, m: u32 },
}

/// A named tree with its published node count.
#[derive(Clone, Copy, Debug)]
pub struct Tree {
    #[allow(dead_code)] // for tests and reports
    pub name: &'static str,
    pub shape: Shape,
    pub seed: u32,
    pub nodes: u64,
}

pub const T1: Tree = Tree {
    name: "T1",
    shape: Shape::GeoFixed {
        b0: 4.0,
        gen_mx: 10,
    },
    seed: 19,
    nodes: 4_130_071,
};
pub const T3: Tree = Tree {
    name: "T3",
    shape: Shape::Binomial {
        b0: 2000.0,
        q: 0.124875,
        m: 8,
    },
    seed: 42,
    nodes: 4_112_897,
};
pub const T1L: Tree = Tree {
    name: "T1L",
    shape: Shape::GeoFixed {
        b0: 4.0,
        gen_mx: 13,
    },
    seed: 29,
    nodes: 102_181_082,
};
const MAX_CHILDREN: u32 = 100;

pub fn root(t: &Tree) -> Node {
    let mut bytes = [0u8; 20];
    bytes[16..].copy_from_slice(&t.seed.to_be_bytes());
    Node {
        state: Sha1::digest(bytes).into(),
        height: 0,
    }
}

fn rand(state: &[u8; 20]) -> i32 {
    (u32::from_be_bytes([state[16], state[17], state[18], state[19]]) & 0x7FFF_FFFF) as i32
}

fn to_prob(n: i32) -> f64 {
    if n < 0 {
        0.0
    } else {
        n as f64 / 2_147_483_648.0
    }
}

pub fn num_children(shape: &Shape, n: &Node) -> u32 {
    match *shape {
        Shape::GeoFixed { b0, gen_mx } => {
            let b = if n.height < gen_mx { b0 } else { 0.0 };
            let p = 1.0 / (1.0 + b);
            let u = to_prob(rand(&n.state));
            let k = ((1.0 - u).ln() / (1.0 - p).ln()).floor() as u32;
            k.min(MAX_CHILDREN)
        }
        Shape::Binomial { b0, q, m } => {
            if n.height == 0 {
                b0.floor() as u32
            } else if to_prob(rand(&n.state)) < q {
                m.min(MAX_CHILDREN)
            } else {
                0
            }
        }
    }
}

pub fn child(n: &Node, i: u32) -> Node {
    let mut h = Sha1::new();
    h.update(n.state);
    h.update(i.to_be_bytes());
    Node {
        state: h.finalize().into(),
        height: n.height + 1,
    }
}

/// Counts the nodes below (and with) `n`, depth first, on this thread.
pub fn count_serial(shape: &Shape, n: Node) -> u64 {
    let mut stack = vec![n];
    let mut count = 0;
    while let Some(n) = stack.pop() {
        count += 1;
        for i in 0..num_children(shape, &n) {
            stack.push(child(&n, i));
        }
    }
    count
}

/// A bag of nodes to explore, as a task another rank can run.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Bag {
    pub shape: Shape,
    pub nodes: Vec<Node>,
}

impl offshoot_mpi::Task for Bag {
    const NAME: &'static str = "uts-bag";
    type Output = u64;
    fn run(self) -> u64 {
        count(&self.shape, self.nodes)
    }
}

/// Counts the nodes below the bag's nodes, depth first on one stack; a thief's request (a
/// worker of this rank, or another rank) takes every other node of the stack.
pub fn count(shape: &Shape, nodes: Vec<Node>) -> u64 {
    use std::cell::RefCell;
    let bag = RefCell::new(nodes);
    let st = offshoot::search::State::new(());
    let take_half = || {
        let mut b = bag.borrow_mut();
        if b.len() < 2 {
            return None;
        }
        // Every other node: half of the nodes at every depth, so the thief gets about half
        // of the *work*. (The older half of the stack by count would be the shallowest
        // nodes, nearly all of the work in a geometric tree: thief and victim would trade
        // the whole tree back and forth instead of sharing it.)
        let mut give = Vec::with_capacity(b.len() / 2);
        let mut keep = Vec::with_capacity(b.len() - b.len() / 2);
        for (i, n) in b.drain(..).enumerate() {
            if i % 2 == 1 {
                give.push(n);
            } else {
                keep.push(n);
            }
        }
        *b = keep;
        Some(give)
    };
    let (mine, local, remote) = offshoot_mpi::handle(
        &st,
        || {
            let mut c = 0u64;
            loop {
                let Some(n) = bag.borrow_mut().pop() else {
                    break;
                };
                c += 1;
                let k = num_children(shape, &n);
                {
                    let mut b = bag.borrow_mut();
                    for i in 0..k {
                        b.push(child(&n, i));
                    }
                }
                offshoot::poll();
            }
            c
        },
        |_, req| match take_half() {
            Some(give) => {
                let shape = *shape;
                req.spawn(move || count(&shape, give))
            }
            None => req.decline(),
        },
        |_| {
            take_half().map(|nodes| Bag {
                shape: *shape,
                nodes,
            })
        },
    );
    mine + local.iter().sum::<u64>() + remote.iter().sum::<u64>()
}
