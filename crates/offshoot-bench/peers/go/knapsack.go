// The `knapsack` kernel of the Go peer (see main.go).
package main

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"
)

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

func init() {
	register("knapsack", 2, versionsKnapsack)
}

// versionsKnapsack builds the input of `knapsack` (untimed) and its serial and parallel versions.
func versionsKnapsack(args []string) (serial, par version) {
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
	return
}
