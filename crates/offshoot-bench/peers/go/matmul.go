// The `matmul` kernel of the Go peer (see main.go).
package main

import (
	"math"
	"sync"
)

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

func init() {
	register("matmul", 2, versionsMatmul)
}

// versionsMatmul builds the input of `matmul` (untimed) and its serial and parallel versions.
func versionsMatmul(args []string) (serial, par version) {
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
	return
}
