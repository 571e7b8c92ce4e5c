// The `fib`, `futures-fib` kernels of the Go peer (see main.go).
package main

import "sync"

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

// ---- futures-fib: fib with a future per call (Imam's thesis §3.6.2), no cutoff. The future of
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

func init() {
	register("fib", 1, versionsFib)
}

// versionsFib builds the input of `fib` (untimed) and its serial and parallel versions.
func versionsFib(args []string) (serial, par version) {
	n := argU64(args[0])
	serial = returning(func() uint64 { return fibSerial(n) })
	par = returning(func() uint64 { return fibPar(n) })
	return
}

func init() {
	register("futures-fib", 1, versionsFuturesFib)
}

// versionsFuturesFib builds the input of `futures-fib` (untimed) and its serial and parallel versions.
func versionsFuturesFib(args []string) (serial, par version) {
	n := argU64(args[0])
	serial = returning(func() uint64 { return fibSerial(n) })
	par = returning(func() uint64 { return futuresFib(n) })
	return
}
