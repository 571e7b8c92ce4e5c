// offshoot-bench peer: Go with goroutines (written for offshoot, not copied from anywhere).
//
// Usage: peer <kernel> <workers> <warm-ups> <kernel arguments...>
// Protocol (crates/offshoot-bench/src/peers/mod.rs): builds the input (untimed), runs the
// plain serial version <warm-ups> times untimed and once timed, then the goroutine version
// the same way with runtime.GOMAXPROCS(<workers>), and prints
//
//	serial <seconds> <answer>
//	parallel <seconds> <answer>
//
// Every kernel runs the same algorithm, input and cutoffs as the Rust kernel of the same
// name. The parallel versions are written the way Go users write fork-join: where the Rust
// kernel joins two branches, the first runs in a new goroutine and the second in the calling
// one, and a sync.WaitGroup waits for the goroutine (one goroutine per fork, no cutoff where
// the Rust kernel has none); the loop splits the range into one block per worker, a
// goroutine each (Go has no parallel loop in its standard library); knapsack, whose pruning
// depends on the order, forks its second branch instead (see there). Kernels: fib, nqueens,
// par-for, matmul, tree-sum, knapsack, cilksort, uts (and uts-bin); and two whose tasks wait
// on each other, written with channels as Go users write waiting: futures-fib (a goroutine
// per future, the future a channel) and ring (64 goroutines passing a token through
// channels). Only the call is timed: restoring the input (matmul's NaN fill, cilksort's copy)
// and computing the answer token are not.
package main

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func die(msg string) {
	fmt.Fprintln(os.Stderr, "go peer:", msg)
	os.Exit(2)
}

func argU64(s string) uint64 {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		die("bad numeric argument " + s)
	}
	return v
}

func argI64(s string) int64 {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		die("bad numeric argument " + s)
	}
	return v
}

func argF64(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		die("bad numeric argument " + s)
	}
	return v
}

// ---- fib: Cilk-5 `fib`, no cutoff. ----

func fibSerial(n uint64) uint64 {
	if n < 2 {
		return n
	}
	return fibSerial(n-1) + fibSerial(n-2)
}

func fibPar(n uint64) uint64 {
	if n < 2 {
		return n
	}
	var a uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = fibPar(n - 1)
	}()
	b := fibPar(n - 2)
	wg.Wait()
	return a + b
}

// ---- futures-fib: fib with a future per call (002 §3.6.2), no cutoff. The future of
// fib(n-1) is a goroutine that sends it on a channel of capacity 1 (so it never waits for its
// reader); getting it is the receive, after computing fib(n-2). Serial: fibSerial. ----

func futuresFib(n uint64) uint64 {
	if n < 2 {
		return n
	}
	future := make(chan uint64, 1)
	go func() { future <- futuresFib(n - 1) }()
	b := futuresFib(n - 2)
	return <-future + b
}

// ---- ring: 002's Figure 3.1, ringTasks tasks in a ring, each waiting for the token from the
// one before it. Each of R rounds passes the token K laps round the ring, starting it at the
// round's number; the answer is the sum of the tokens that come back. ----

const ringTasks = 64

// ringSerialRound is one round of the plain loop, one increment per hop. gc keeps every
// increment (it does not fold a counted loop into its sum: an INCQ per hop, as the Rust
// loop's black_box keeps one add per hop), so the serial times of the two languages compare.
func ringSerialRound(start, laps uint64) uint64 {
	token := start
	for l := uint64(0); l < laps; l++ {
		for i := 0; i < ringTasks; i++ {
			token++
		}
	}
	return token
}

// ringRound wires ringTasks goroutines into a ring, links[i] (capacity 1) carrying the token
// from task i to task i+1: tasks 1 to 63 are started with go and each, laps times, receives
// the token and sends it on plus one; the calling goroutine is task 0, which laps times sends
// the token on plus one and receives it back from task 63. The WaitGroup ends the round when
// every task has (the Rust kernel's scope).
func ringRound(start, laps uint64) uint64 {
	var links [ringTasks]chan uint64
	for i := range links {
		links[i] = make(chan uint64, 1)
	}
	var wg sync.WaitGroup
	wg.Add(ringTasks - 1)
	for i := 1; i < ringTasks; i++ {
		from, to := links[i-1], links[i]
		go func() {
			defer wg.Done()
			for l := uint64(0); l < laps; l++ {
				to <- <-from + 1
			}
		}()
	}
	token := start
	for l := uint64(0); l < laps; l++ {
		links[0] <- token + 1
		token = <-links[ringTasks-1]
	}
	wg.Wait()
	return token
}

// ringRounds runs rounds rounds of laps laps with round and sums the tokens that come back.
func ringRounds(rounds, laps uint64, round func(start, laps uint64) uint64) uint64 {
	var sum uint64
	for r := uint64(0); r < rounds; r++ {
		sum += round(r, laps)
	}
	return sum
}

// ---- nqueens: Cilk-5 `queens` / BOTS `nqueens` (bitmask form, all solutions), no cutoff:
// a goroutine per candidate placement but the last, which runs in the calling goroutine. ----

func nqSerialRec(all, cols, d1, d2 uint32) uint64 {
	if cols == all {
		return 1
	}
	free := all &^ (cols | d1 | d2)
	var count uint64
	for free != 0 {
		bit := free & -free
		free ^= bit
		count += nqSerialRec(all, cols|bit, (d1|bit)<<1, (d2|bit)>>1)
	}
	return count
}

func nqPar(all, cols, d1, d2 uint32) uint64 {
	if cols == all {
		return 1
	}
	free := all &^ (cols | d1 | d2)
	var counts [32]uint64
	k := 0
	var wg sync.WaitGroup
	for free != 0 {
		bit := free & -free
		free ^= bit
		slot := &counts[k]
		k++
		if free == 0 {
			*slot = nqPar(all, cols|bit, (d1|bit)<<1, (d2|bit)>>1)
		} else {
			wg.Add(1)
			go func() {
				defer wg.Done()
				*slot = nqPar(all, cols|bit, (d1|bit)<<1, (d2|bit)>>1)
			}()
		}
	}
	wg.Wait()
	var count uint64
	for i := 0; i < k; i++ {
		count += counts[i]
	}
	return count
}

func nqMask(n uint64) uint32 {
	if n > 16 {
		die("nqueens supports n <= 16")
	}
	return uint32(1)<<n - 1
}

// ---- par-for: a loop with a trivial body; one block of the range per worker. ----

func pfF(i uint64) uint64 { return (i * 0x9E3779B97F4A7C15) >> 7 }

func pfSerial(n uint64) uint64 {
	var s uint64
	for i := uint64(0); i < n; i++ {
		s += pfF(i)
	}
	return s
}

func pfPar(n uint64) uint64 {
	workers := uint64(runtime.GOMAXPROCS(0))
	partial := make([]uint64, workers)
	var wg sync.WaitGroup
	for w := uint64(0); w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func(w, lo, hi uint64) {
			defer wg.Done()
			var s uint64
			for i := lo; i < hi; i++ {
				s += pfF(i)
			}
			partial[w] = s
		}(w, lo, hi)
	}
	wg.Wait()
	var s uint64
	for _, p := range partial {
		s += p
	}
	return s
}

// ---- matmul: Cilk-5 `notempmul`: quadrants in quadtree layout, 16x16 row-major leaves
// (i-k-j), two phases of four forks each. ----

const mmBlock = 16
const mmLeaf = mmBlock * mmBlock

func mmLeafMul(c, a, b []float64, add bool) {
	if !add {
		for i := range c[:mmLeaf] {
			c[i] = 0
		}
	}
	for i := 0; i < mmBlock; i++ {
		cRow := c[i*mmBlock : (i+1)*mmBlock]
		for k := 0; k < mmBlock; k++ {
			aik := a[i*mmBlock+k]
			bRow := b[k*mmBlock : (k+1)*mmBlock]
			for j := 0; j < mmBlock; j++ {
				// an explicit conversion keeps Go from fusing the multiply-add
				cRow[j] += float64(aik * bRow[j])
			}
		}
	}
}

func mmSerial(c, a, b []float64, add bool) {
	if len(c) == mmLeaf {
		mmLeafMul(c, a, b, add)
		return
	}
	q := len(c) / 4
	mmSerial(c[:q], a[:q], b[:q], add)
	mmSerial(c[q:2*q], a[:q], b[q:2*q], add)
	mmSerial(c[2*q:3*q], a[2*q:3*q], b[:q], add)
	mmSerial(c[3*q:], a[2*q:3*q], b[q:2*q], add)
	mmSerial(c[:q], a[q:2*q], b[2*q:3*q], true)
	mmSerial(c[q:2*q], a[q:2*q], b[3*q:], true)
	mmSerial(c[2*q:3*q], a[3*q:], b[2*q:3*q], true)
	mmSerial(c[3*q:], a[3*q:], b[3*q:], true)
}

// mmPhase runs four products at once: three in goroutines, the last in the caller.
func mmPhase(c0, a0, b0, c1, a1, b1, c2, a2, b2, c3, a3, b3 []float64, add bool) {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); mmPar(c0, a0, b0, add) }()
	go func() { defer wg.Done(); mmPar(c1, a1, b1, add) }()
	go func() { defer wg.Done(); mmPar(c2, a2, b2, add) }()
	mmPar(c3, a3, b3, add)
	wg.Wait()
}

func mmPar(c, a, b []float64, add bool) {
	if len(c) == mmLeaf {
		mmLeafMul(c, a, b, add)
		return
	}
	q := len(c) / 4
	mmPhase(c[:q], a[:q], b[:q], c[q:2*q], a[:q], b[q:2*q],
		c[2*q:3*q], a[2*q:3*q], b[:q], c[3*q:], a[2*q:3*q], b[q:2*q], add)
	mmPhase(c[:q], a[q:2*q], b[2*q:3*q], c[q:2*q], a[q:2*q], b[3*q:],
		c[2*q:3*q], a[3*q:], b[2*q:3*q], c[3*q:], a[3*q:], b[3*q:], true)
}

// SplitMix64, as crates/offshoot-bench/src/rng.rs.
type splitMix64 struct{ state uint64 }

func (s *splitMix64) next() uint64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func mmIndex(n, i, j int) int {
	if n == mmBlock {
		return i*mmBlock + j
	}
	h := n / 2
	quadrant := 0
	if i >= h {
		quadrant += 2
	}
	if j >= h {
		quadrant++
	}
	return quadrant*h*h + mmIndex(h, i%h, j%h)
}

// fnv1aWords is FNV-1a over 64-bit words, as 16 hex digits: the answer of matmul (the
// product's bit patterns in quadtree layout) and cilksort (the sorted keys).
func fnv1aWords(n int, word func(i int) uint64) string {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < n; i++ {
		h ^= word(i)
		h *= 0x100000001b3
	}
	return fmt.Sprintf("%016x", h)
}

// ---- tree-sum: the Spice / chili binary-tree sum, heap nodes built depth-first, node i in
// heap numbering holds i; a goroutine per inner node's left subtree, no cutoff. ----

type node struct {
	value       uint64
	left, right *node
}

func tsBuild(levels uint64, index uint64) *node {
	n := &node{value: index}
	if levels > 1 {
		n.left = tsBuild(levels-1, 2*index)
		n.right = tsBuild(levels-1, 2*index+1)
	}
	return n
}

func tsSerial(n *node) uint64 {
	s := n.value
	if n.left != nil {
		s += tsSerial(n.left)
	}
	if n.right != nil {
		s += tsSerial(n.right)
	}
	return s
}

func tsPar(n *node) uint64 {
	if n.left != nil && n.right != nil {
		var a uint64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			a = tsPar(n.left)
		}()
		b := tsPar(n.right)
		wg.Wait()
		return n.value + a + b
	}
	if n.left != nil {
		return n.value + tsPar(n.left)
	}
	if n.right != nil {
		return n.value + tsPar(n.right)
	}
	return n.value
}

// ---- knapsack: Cilk-5 `knapsack` (also in BOTS): 0/1 knapsack by branch and bound, items
// sorted by value/weight, best first; a node forks "with the item" and "without it" and is
// pruned when v + c*value/weight of its first remaining item (integer division) is below the
// best solution so far, shared by all goroutines. No cutoff. "without" runs in the new
// goroutine and "with" in the caller, as offshoot's and rayon's join run their first closure
// on the caller: the serial order, which decides how much the bound prunes. ----

type ksItem struct{ value, weight int64 }

// rangeI64 is a uniform integer in lo..=hi, as rng.rs's range_i64.
func (s *splitMix64) rangeI64(lo, hi int64) int64 {
	span := uint64(hi-lo) + 1
	return lo + int64(s.next()%span)
}

// ksInput is knapsack.rs's `instance`: n items (weight 90..=110, value = weight*5 + -25..=25),
// stably sorted by value/weight, best first, and capacity 2/5 of the total weight.
func ksInput(n int, seed uint64) ([]ksItem, int64) {
	rng := splitMix64{seed}
	items := make([]ksItem, n)
	var total int64
	for i := range items {
		weight := rng.rangeI64(90, 110)
		items[i] = ksItem{weight*5 + rng.rangeI64(-25, 25), weight}
		total += weight
	}
	sort.SliceStable(items, func(i, j int) bool {
		return items[i].value*items[j].weight > items[j].value*items[i].weight
	})
	return items, total * 2 / 5
}

func ksSerial(items []ksItem, c, v int64, best *int64) int64 {
	if c < 0 {
		return math.MinInt64
	}
	if len(items) == 0 || c == 0 {
		return v
	}
	e := items[0]
	if v+c*e.value/e.weight < *best {
		return math.MinInt64
	}
	with := ksSerial(items[1:], c-e.weight, v+e.value, best)
	without := ksSerial(items[1:], c, v, best)
	b := max(with, without)
	if b > *best {
		*best = b
	}
	return b
}

func ksPar(items []ksItem, c, v int64, best *atomic.Int64) int64 {
	if c < 0 {
		return math.MinInt64
	}
	if len(items) == 0 || c == 0 {
		return v
	}
	e := items[0]
	if v+c*e.value/e.weight < best.Load() {
		return math.MinInt64
	}
	var without int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		without = ksPar(items[1:], c, v, best)
	}()
	with := ksPar(items[1:], c-e.weight, v+e.value, best)
	wg.Wait()
	b := max(with, without)
	// raise the shared best (a load first: most nodes do not improve it)
	for cur := best.Load(); b > cur && !best.CompareAndSwap(cur, b); cur = best.Load() {
	}
	return b
}

// ---- cilksort: Cilk-5 `cilksort` (BOTS `sort`): four quarters sorted in goroutines (the
// last in the caller), two merges the same way, then the final merge; a merge splits the
// larger input at its middle key, finds its rank in the other by binary search and merges
// both sides at once. Serial quicksort (median of three, Hoare partition) below QUICKSIZE
// keys, insertion sort at INSERTIONSIZE, serial merge below MERGESIZE keys in the smaller
// input: Cilk-5's cutoffs, as crates/offshoot-bench/src/kernels/cilksort.rs. ----

const csQuickSize = 2048
const csMergeSize = 2048
const csInsertionSize = 20

func csInsertion(a []uint64) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i
		for j > 0 && a[j-1] > v {
			a[j] = a[j-1]
			j--
		}
		a[j] = v
	}
}

// csPartition returns s with 0 < s < len(a), every key of a[:s] <= every key of a[s:].
func csPartition(a []uint64) int {
	lo, mid, hi := 0, len(a)/2, len(a)-1
	if a[mid] < a[lo] {
		a[mid], a[lo] = a[lo], a[mid]
	}
	if a[hi] < a[lo] {
		a[hi], a[lo] = a[lo], a[hi]
	}
	if a[hi] < a[mid] {
		a[hi], a[mid] = a[mid], a[hi]
	}
	pivot := a[mid]
	i, j := lo, hi
	for {
		for a[i] < pivot {
			i++
		}
		for a[j] > pivot {
			j--
		}
		if i >= j {
			return j + 1
		}
		a[i], a[j] = a[j], a[i]
		i++
		j--
	}
}

func csQuick(a []uint64) {
	for len(a) > csInsertionSize {
		split := csPartition(a)
		csQuick(a[:split])
		a = a[split:]
	}
	csInsertion(a)
}

func csSeqMerge(x, y, dest []uint64) {
	i, j := 0, 0
	for d := range dest {
		if j >= len(y) || (i < len(x) && x[i] <= y[j]) {
			dest[d] = x[i]
			i++
		} else {
			dest[d] = y[j]
			j++
		}
	}
}

// csSplit orders the two inputs of a merge, larger first, and says whether the merge is
// serial; if not, it places the middle key m of x and the k keys of y that are <= it.
func csSplit(x, y, dest []uint64) (xs, ys []uint64, m, k int, serial bool) {
	if len(y) > len(x) {
		x, y = y, x
	}
	if len(y) <= csMergeSize {
		csSeqMerge(x, y, dest)
		return x, y, 0, 0, true
	}
	m = len(x) / 2
	pivot := x[m]
	k = sort.Search(len(y), func(i int) bool { return y[i] > pivot })
	dest[m+k] = x[m]
	return x, y, m, k, false
}

func csMergeSerial(x, y, dest []uint64) {
	x, y, m, k, done := csSplit(x, y, dest)
	if done {
		return
	}
	csMergeSerial(x[:m], y[:k], dest[:m+k])
	csMergeSerial(x[m+1:], y[k:], dest[m+k+1:])
}

func csSerial(a, tmp []uint64) {
	if len(a) < csQuickSize {
		csQuick(a)
		return
	}
	q := len(a) / 4
	csSerial(a[:q], tmp[:q])
	csSerial(a[q:2*q], tmp[q:2*q])
	csSerial(a[2*q:3*q], tmp[2*q:3*q])
	csSerial(a[3*q:], tmp[3*q:])
	csMergeSerial(a[:q], a[q:2*q], tmp[:2*q])
	csMergeSerial(a[2*q:3*q], a[3*q:], tmp[2*q:])
	csMergeSerial(tmp[:2*q], tmp[2*q:], a)
}

func csMergePar(x, y, dest []uint64) {
	x, y, m, k, done := csSplit(x, y, dest)
	if done {
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		csMergePar(x[:m], y[:k], dest[:m+k])
	}()
	csMergePar(x[m+1:], y[k:], dest[m+k+1:])
	wg.Wait()
}

func csPar(a, tmp []uint64) {
	if len(a) < csQuickSize {
		csQuick(a)
		return
	}
	q := len(a) / 4
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); csPar(a[:q], tmp[:q]) }()
	go func() { defer wg.Done(); csPar(a[q:2*q], tmp[q:2*q]) }()
	go func() { defer wg.Done(); csPar(a[2*q:3*q], tmp[2*q:3*q]) }()
	csPar(a[3*q:], tmp[3*q:])
	wg.Wait()
	wg.Add(1)
	go func() { defer wg.Done(); csMergePar(a[:q], a[q:2*q], tmp[:2*q]) }()
	csMergePar(a[2*q:3*q], a[3*q:], tmp[2*q:])
	wg.Wait()
	csMergePar(tmp[:2*q], tmp[2*q:], a)
}

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

// ---- driver ----

// A version of a kernel on its input: reset (untimed, nil where the run leaves the input as
// it was) restores the input before each run, run is the timed call, answer (untimed)
// formats the last run's answer.
type version struct {
	reset  func()
	run    func()
	answer func() string
}

// returning is the version that calls f and answers its result in decimal.
func returning[T uint64 | int64](f func() T) version {
	var out T
	return version{
		run:    func() { out = f() },
		answer: func() string { return fmt.Sprint(out) },
	}
}

// timeRuns runs v warmups times, then once timed, and prints the result line.
func timeRuns(what string, warmups uint64, v version) {
	var seconds float64
	for i := uint64(0); i <= warmups; i++ {
		if v.reset != nil {
			v.reset()
		}
		t0 := time.Now()
		v.run()
		seconds = time.Since(t0).Seconds()
	}
	fmt.Printf("%s %.9f %s\n", what, seconds, v.answer())
}

func main() {
	if len(os.Args) < 5 {
		die("usage: peer <kernel> <workers> <warm-ups> <kernel arguments...>")
	}
	kernel := os.Args[1]
	workers := argU64(os.Args[2])
	if workers < 1 || workers > 4096 {
		die("workers must be in 1..=4096")
	}
	warmups := argU64(os.Args[3])
	if warmups > 100 {
		die("warm-ups must be in 0..=100")
	}
	args := os.Args[4:]
	runtime.GOMAXPROCS(int(workers))

	var serial, par version
	switch {
	case kernel == "fib" && len(args) == 1:
		n := argU64(args[0])
		serial = returning(func() uint64 { return fibSerial(n) })
		par = returning(func() uint64 { return fibPar(n) })
	case kernel == "futures-fib" && len(args) == 1:
		n := argU64(args[0])
		serial = returning(func() uint64 { return fibSerial(n) })
		par = returning(func() uint64 { return futuresFib(n) })
	case kernel == "ring" && len(args) == 2:
		rounds, laps := argU64(args[0]), argU64(args[1])
		serial = returning(func() uint64 { return ringRounds(rounds, laps, ringSerialRound) })
		par = returning(func() uint64 { return ringRounds(rounds, laps, ringRound) })
	case kernel == "nqueens" && len(args) == 1:
		all := nqMask(argU64(args[0]))
		serial = returning(func() uint64 { return nqSerialRec(all, 0, 0, 0) })
		par = returning(func() uint64 { return nqPar(all, 0, 0, 0) })
	case kernel == "par-for" && len(args) == 1:
		n := argU64(args[0])
		serial = returning(func() uint64 { return pfSerial(n) })
		par = returning(func() uint64 { return pfPar(n) })
	case kernel == "tree-sum" && len(args) == 1:
		depth := argU64(args[0])
		if depth < 1 || depth > 40 {
			die("tree-sum depth must be in 1..=40")
		}
		root := tsBuild(depth, 1)
		serial = returning(func() uint64 { return tsSerial(root) })
		par = returning(func() uint64 { return tsPar(root) })
	case kernel == "matmul" && len(args) == 2:
		n := int(argU64(args[0]))
		if n < mmBlock || n&(n-1) != 0 || n > 8192 {
			die("matmul n must be a power of two in 16..=8192")
		}
		rng := splitMix64{argU64(args[1])}
		a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		for _, m := range [][]float64{a, b} {
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					m[mmIndex(n, i, j)] = float64(rng.next()>>11) * (1.0 / 9007199254740992.0)
				}
			}
		}
		run := func(f func(c, a, b []float64, add bool)) version {
			return version{
				reset: func() {
					for i := range c {
						c[i] = math.NaN()
					}
				},
				run: func() { f(c, a, b, false) },
				answer: func() string {
					return fnv1aWords(len(c), func(i int) uint64 { return math.Float64bits(c[i]) })
				},
			}
		}
		serial = run(mmSerial)
		par = run(mmPar)
	case kernel == "knapsack" && len(args) == 2:
		n := argU64(args[0])
		if n < 1 || n > 1000 {
			die("knapsack n must be in 1..=1000")
		}
		items, capacity := ksInput(int(n), argU64(args[1]))
		serial = returning(func() int64 {
			best := int64(math.MinInt64)
			return ksSerial(items, capacity, 0, &best)
		})
		par = returning(func() int64 {
			var best atomic.Int64
			best.Store(math.MinInt64)
			return ksPar(items, capacity, 0, &best)
		})
	case kernel == "cilksort" && len(args) == 2:
		n := argU64(args[0])
		if n > 1<<32 {
			die("cilksort n must be at most 2^32")
		}
		rng := splitMix64{argU64(args[1])}
		input, a, tmp := make([]uint64, n), make([]uint64, n), make([]uint64, n)
		for i := range input {
			input[i] = rng.next()
		}
		run := func(f func(a, tmp []uint64)) version {
			return version{
				reset: func() {
					copy(a, input)
					clear(tmp)
				},
				run:    func() { f(a, tmp) },
				answer: func() string { return fnv1aWords(len(a), func(i int) uint64 { return a[i] }) },
			}
		}
		serial = run(csSerial)
		par = run(csPar)
	case (kernel == "uts" || kernel == "uts-bin") && len(args) == 8:
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
	default:
		fmt.Fprintf(os.Stderr, "go peer: unknown kernel `%s` or wrong argument count\n", kernel)
		os.Exit(2)
	}
	timeRuns("serial", warmups, serial)
	timeRuns("parallel", warmups, par)
}
