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
// Each kernel family lives in a file of its own (fib.go, ring.go, ...) that registers its
// kernels (common.go's register); this file is the driver.
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
	"fmt"
	"os"
	"runtime"
	"time"
)

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

	entry, ok := kernels[kernel]
	if !ok || len(args) != entry.argc {
		fmt.Fprintf(os.Stderr, "go peer: unknown kernel `%s` or wrong argument count\n", kernel)
		os.Exit(2)
	}
	serial, par := entry.versions(args)
	timeRuns("serial", warmups, serial)
	timeRuns("parallel", warmups, par)
}
