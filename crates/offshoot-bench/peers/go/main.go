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
// goroutine each (Go has no parallel loop in its standard library).
package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
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

// ---- par-for: issue 5's par-for loop; one block of the range per worker. ----

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

func mmDigest(c []float64) string {
	h := uint64(0xcbf29ce484222325)
	for _, x := range c {
		h ^= math.Float64bits(x)
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

// ---- driver ----

// timeRuns runs f warmups times, then once timed, and prints the result line.
func timeRuns(what string, warmups uint64, f func() string) {
	for i := uint64(0); i < warmups; i++ {
		f()
	}
	t0 := time.Now()
	answer := f()
	seconds := time.Since(t0).Seconds()
	fmt.Printf("%s %.9f %s\n", what, seconds, answer)
}

func u64s(v uint64) string { return strconv.FormatUint(v, 10) }

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

	var serial, par func() string
	switch {
	case kernel == "fib" && len(args) == 1:
		n := argU64(args[0])
		serial = func() string { return u64s(fibSerial(n)) }
		par = func() string { return u64s(fibPar(n)) }
	case kernel == "nqueens" && len(args) == 1:
		all := nqMask(argU64(args[0]))
		serial = func() string { return u64s(nqSerialRec(all, 0, 0, 0)) }
		par = func() string { return u64s(nqPar(all, 0, 0, 0)) }
	case kernel == "par-for" && len(args) == 1:
		n := argU64(args[0])
		serial = func() string { return u64s(pfSerial(n)) }
		par = func() string { return u64s(pfPar(n)) }
	case kernel == "tree-sum" && len(args) == 1:
		depth := argU64(args[0])
		if depth < 1 || depth > 40 {
			die("tree-sum depth must be in 1..=40")
		}
		root := tsBuild(depth, 1)
		serial = func() string { return u64s(tsSerial(root)) }
		par = func() string { return u64s(tsPar(root)) }
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
		run := func(f func(c, a, b []float64, add bool)) func() string {
			return func() string {
				for i := range c {
					c[i] = math.NaN()
				}
				f(c, a, b, false)
				return mmDigest(c)
			}
		}
		serial = run(mmSerial)
		par = run(mmPar)
	default:
		fmt.Fprintf(os.Stderr, "go peer: unknown kernel `%s` or wrong argument count\n", kernel)
		os.Exit(2)
	}
	timeRuns("serial", warmups, serial)
	timeRuns("parallel", warmups, par)
}
