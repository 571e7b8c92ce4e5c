//! `uts-goal`: find a goal node in an unbalanced tree (Imam's thesis, Fig. 4.14
//! "UTS-Goal"): the `uts` kernel's T1 tree (SHA-1 node states, the reference generator),
//! where a node is a *goal* when its random value is a multiple of `GOAL_EVERY`; any goal
//! will do, and the search should stop once one is found.
//!
//! Contenders (a `join` over halves of each child range, as in `uts`):
//! * serial: depth-first, stopping at the first goal;
//! * offshoot (EU): `eureka::finish` with a [`Search`](offshoot::eureka::Search); a `check` per node, an `offer`
//!   at the goal;
//! * offshoot-ct: a hand-threaded `AtomicBool`, tested per node;
//! * offshoot-af: no termination: the whole tree is searched, the first goal seen kept;
//! * rayon: `rayon::join` with the same token.
//!
//! Inputs: test the default tree (1,732 nodes), quick T1 cut at depth 8, full T1
//! (4,130,071 nodes); goals one node in `GOAL_EVERY` = 20,000 (about 200 in full T1).
//! Check: the answer is a goal (its state's value), and one exists iff serial found one.
//! The input line reports nodes visited per search, and those started after the first
//! goal was offered (see `visits`).

use std::sync::Arc;

use super::first;
use super::uts::{Node, Tree};
use super::visits::{self, Counted, Tally};
use super::{About, Kernel, KernelInfo, Size, Work};
use crate::par::{Fork, Offshoot, Rayon};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "uts-goal",
    about: "find any goal node of the UTS T1 tree: a Search eureka vs a token, no termination, rayon::join with a token",
    cutoff: "none",
    source: "Imam's thesis Fig. 4.14 `UTS-Goal` on UTS T1 (Olivier et al. 2006)",
};

/// One node in this many is a goal.
pub const GOAL_EVERY: u32 = 20_000;

fn is_goal(n: &Node) -> bool {
    n.rand() % GOAL_EVERY == GOAL_EVERY / 2
}

fn serial(tree: &Tree, count: Option<&Tally>) -> Option<Node> {
    fn visit(tree: &Tree, node: &Node, count: Option<&Tally>) -> Option<Node> {
        Tally::visit(count);
        if is_goal(node) {
            return Some(*node);
        }
        (0..tree.num_children(node)).find_map(|i| visit(tree, &tree.child(node, i), count))
    }
    visit(tree, &tree.root(), count)
}

/// The parallel search: `go()` per node (false: stop this branch), `hit(node)` per goal.
fn search<J: Fork>(tree: &Tree, go: &(dyn Fn() -> bool + Sync), hit: &(dyn Fn(Node) + Sync)) {
    fn visit<J: Fork>(
        tree: &Tree,
        node: &Node,
        go: &(dyn Fn() -> bool + Sync),
        hit: &(dyn Fn(Node) + Sync),
    ) {
        if !go() {
            return;
        }
        if is_goal(node) {
            hit(*node);
            return;
        }
        let n = tree.num_children(node);
        if n > 0 {
            children::<J>(tree, node, 0, n, go, hit);
        }
    }
    fn children<J: Fork>(
        tree: &Tree,
        parent: &Node,
        lo: u32,
        hi: u32,
        go: &(dyn Fn() -> bool + Sync),
        hit: &(dyn Fn(Node) + Sync),
    ) {
        if hi - lo == 1 {
            return visit::<J>(tree, &tree.child(parent, lo), go, hit);
        }
        let mid = lo + (hi - lo) / 2;
        J::join(
            || children::<J>(tree, parent, lo, mid, go, hit),
            || children::<J>(tree, parent, mid, hi, go, hit),
        );
    }
    visit::<J>(tree, &tree.root(), go, hit);
}

fn eureka_goal(tree: &Tree, count: Option<&Tally>) -> Option<Node> {
    first::eureka(count, |go, hit| search::<Offshoot>(tree, go, hit))
}

fn token_goal<J: Fork>(tree: &Tree, stop: bool, count: Option<&Tally>) -> Option<Node> {
    first::token(stop, count, |go, hit| search::<J>(tree, go, hit))
}

struct UtsGoal {
    tree: Tree,
    last: Option<Option<Node>>,
    exists: Option<bool>,
    tally: Option<Arc<Tally>>,
    visits: String,
}

impl Counted for UtsGoal {
    fn tally(&mut self) -> &mut Option<Arc<Tally>> {
        &mut self.tally
    }
}

impl Work for UtsGoal {
    fn input(&self) -> String {
        format!(
            "{} ({}), a goal in {GOAL_EVERY} nodes; {}",
            self.tree.name,
            self.tree.flags(),
            self.visits
        )
    }
    fn reset(&mut self) {
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        // The oracle: whether any node of the tree is a goal, by a full count.
        let mut any = false;
        token_goal_serial_all(&self.tree, &mut any);
        self.exists = Some(any);
        self.check()
    }
    fn check(&self) -> Result<(), String> {
        let exists = self.exists.ok_or("no reference")?;
        match self.last {
            None => Err("no answer".into()),
            Some(Some(n)) if is_goal(&n) => Ok(()),
            Some(Some(n)) => Err(format!("node at depth {} is not a goal", n.height)),
            Some(None) if !exists => Ok(()),
            Some(None) => Err("a goal exists but none was found".into()),
        }
    }
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new_with(ABOUT, prepare, |k| {
        k.last = Some(serial(&k.tree, visits::one_query(&k.tally)))
    })
    .offshoot(|k| k.last = Some(eureka_goal(&k.tree, visits::one_query(&k.tally))))
    .offshoot_ct(|k| {
        k.last = Some(token_goal::<Offshoot>(
            &k.tree,
            true,
            visits::one_query(&k.tally),
        ));
    })
    .offshoot_af(|k| {
        k.last = Some(token_goal::<Offshoot>(
            &k.tree,
            false,
            visits::one_query(&k.tally),
        ));
    })
    .rayon(|k| {
        k.last = Some(token_goal::<Rayon>(
            &k.tree,
            true,
            visits::one_query(&k.tally),
        ));
    })
    .build()
}

/// Whether any node is a goal, visiting the whole tree (the oracle).
fn token_goal_serial_all(tree: &Tree, any: &mut bool) {
    fn visit(tree: &Tree, node: &Node, any: &mut bool) {
        *any |= is_goal(node);
        for i in 0..tree.num_children(node) {
            visit(tree, &tree.child(node, i), any);
        }
    }
    visit(tree, &tree.root(), any);
}

fn prepare(size: Size, kernel: &Kernel<UtsGoal>) -> UtsGoal {
    let mut uts = UtsGoal {
        tree: match size {
            Size::Test => Tree::DEFAULT,
            Size::Quick => Tree::T1_DEPTH8,
            Size::Full => Tree::T1,
        },
        last: None,
        exists: None,
        tally: None,
        visits: String::new(),
    };
    uts.visits = visits::line(kernel, &mut uts, "nodes visited");
    uts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contender_finds_a_goal_or_none() {
        super::super::verify(&info());
    }
}
