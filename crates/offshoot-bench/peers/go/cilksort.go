// The `cilksort` kernel of the Go peer (see main.go).
package main

import (
	"sort"
	"sync"
)

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

func init() {
	register("cilksort", 2, versionsCilksort)
}

// versionsCilksort builds the input of `cilksort` (untimed) and its serial and parallel versions.
func versionsCilksort(args []string) (serial, par version) {
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
	return
}
