// The `uts` kernel of the Go peer (see main.go).
package main

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
)

// ---- uts: Unbalanced Tree Search (Olivier et al., LCPC 2006; the reference's uts.c), the
// tree generated as crates/offshoot-bench/src/kernels/uts.rs does: a node's state is a SHA-1
// digest (the root's: of 16 zero bytes and the root seed, big-endian; child i's: of its
// parent's digest and i, big-endian), its random number the big-endian u32 of the digest's
// last 4 bytes masked with 0x7fffffff, over 2^31 as a probability; the number of children by
// the reference's binomial, geometric (four shapes), hybrid and balanced rules, at most 100
// (but a binomial root). A goroutine per child but the last, which runs in the caller (as
// nqueens here); the Rust kernel forks halves of the child range. No cutoff. ----

const (
	utsBinomial = iota
	utsGeometric
	utsHybrid
	utsBalanced
)

const (
	utsLinear = iota
	utsExpDec
	utsCyclic
	utsFixed
)

// utsTree holds the reference's flags -t -a -d -b -r -m -q -f.
type utsTree struct {
	treeType, shape         uint64
	genMx                   uint32
	b0                      float64
	rootSeed                int32
	nonLeafBf               uint32
	nonLeafProb, shiftDepth float64
}

type utsNode struct {
	state  [20]byte
	height uint32
}

type utsCounts struct{ nodes, leaves, depth uint64 }

func (a utsCounts) merge(b utsCounts) utsCounts {
	return utsCounts{a.nodes + b.nodes, a.leaves + b.leaves, max(a.depth, b.depth)}
}

func (t *utsTree) root() utsNode {
	var seed [20]byte
	binary.BigEndian.PutUint32(seed[16:], uint32(t.rootSeed))
	return utsNode{sha1.Sum(seed[:]), 0}
}

func (n *utsNode) child(i uint32) utsNode {
	var msg [24]byte
	copy(msg[:], n.state[:])
	binary.BigEndian.PutUint32(msg[20:], i)
	return utsNode{sha1.Sum(msg[:]), n.height + 1}
}

func (n *utsNode) probability() float64 {
	return float64(binary.BigEndian.Uint32(n.state[16:])&0x7fffffff) / 2147483648.0
}

// satI64 converts as Rust's `as i64`: NaN is 0, out of range saturates.
func satI64(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

func (t *utsTree) binomial(n *utsNode) int64 {
	if n.probability() < t.nonLeafProb {
		return int64(t.nonLeafBf)
	}
	return 0
}

func (t *utsTree) geometric(n *utsNode) int64 {
	depth, genMx, b0 := float64(n.height), float64(t.genMx), t.b0
	bI := b0
	switch {
	case n.height == 0:
	case t.shape == utsExpDec:
		bI = b0 * math.Pow(depth, -math.Log(b0)/math.Log(genMx))
	case t.shape == utsCyclic && n.height > 5*t.genMx:
		bI = 0
	case t.shape == utsCyclic:
		bI = math.Pow(b0, math.Sin(2.0*math.Pi*depth/genMx))
	case t.shape == utsFixed && n.height >= t.genMx:
		bI = 0
	case t.shape == utsFixed:
	default:
		bI = b0 * (1.0 - depth/genMx)
	}
	p := 1.0 / (1.0 + bI)
	u := n.probability()
	return satI64(math.Floor(math.Log(1.0-u) / math.Log(1.0-p)))
}

func (t *utsTree) numChildren(n *utsNode) uint32 {
	var k, limit int64 = 0, 100
	switch t.treeType {
	case utsBinomial:
		if n.height == 0 {
			k, limit = satI64(math.Floor(t.b0)), satI64(math.Ceil(t.b0))
		} else {
			k = t.binomial(n)
		}
	case utsGeometric:
		k = t.geometric(n)
	case utsHybrid:
		if float64(n.height) < t.shiftDepth*float64(t.genMx) {
			k = t.geometric(n)
		} else {
			k = t.binomial(n)
		}
	default:
		if n.height < t.genMx {
			k = satI64(t.b0)
		}
		limit = math.MaxInt64
	}
	return uint32(min(max(k, 0), limit))
}

func utsSerial(t *utsTree, n *utsNode) utsCounts {
	k := t.numChildren(n)
	if k == 0 {
		return utsCounts{1, 1, uint64(n.height)}
	}
	c := utsCounts{1, 0, uint64(n.height)}
	for i := uint32(0); i < k; i++ {
		child := n.child(i)
		c = c.merge(utsSerial(t, &child))
	}
	return c
}

func utsPar(t *utsTree, n *utsNode) utsCounts {
	k := t.numChildren(n)
	if k == 0 {
		return utsCounts{1, 1, uint64(n.height)}
	}
	counts := make([]utsCounts, k)
	var wg sync.WaitGroup
	wg.Add(int(k - 1))
	for i := uint32(0); i+1 < k; i++ {
		go func(i uint32) {
			defer wg.Done()
			child := n.child(i)
			counts[i] = utsPar(t, &child)
		}(i)
	}
	last := n.child(k - 1)
	counts[k-1] = utsPar(t, &last)
	wg.Wait()
	c := utsCounts{1, 0, uint64(n.height)}
	for _, ci := range counts {
		c = c.merge(ci)
	}
	return c
}

func init() {
	register("uts", 8, versionsUts)
	register("uts-bin", 8, versionsUts)
}

// versionsUts builds the input of `uts` (untimed) and its serial and parallel versions.
func versionsUts(args []string) (serial, par version) {
	// type shape gen_mx b0 root_seed non_leaf_bf non_leaf_prob shift_depth
	t := &utsTree{argU64(args[0]), argU64(args[1]), uint32(argU64(args[2])), argF64(args[3]),
		int32(argI64(args[4])), uint32(argU64(args[5])), argF64(args[6]), argF64(args[7])}
	if t.treeType > utsBalanced || t.shape > utsFixed {
		die("uts: bad tree type or shape")
	}
	root := t.root()
	run := func(f func(t *utsTree, n *utsNode) utsCounts) version {
		var c utsCounts
		return version{
			run:    func() { c = f(t, &root) },
			answer: func() string { return fmt.Sprintf("%d/%d/%d", c.nodes, c.leaves, c.depth) },
		}
	}
	serial = run(utsSerial)
	par = run(utsPar)
	return
}
