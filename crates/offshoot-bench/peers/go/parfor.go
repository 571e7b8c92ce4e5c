// The `par-for` kernel of the Go peer (see main.go).
package main

import (
	"runtime"
	"sync"
)

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

func init() {
	register("par-for", 1, versionsParFor)
}

// versionsParFor builds the input of `par-for` (untimed) and its serial and parallel versions.
func versionsParFor(args []string) (serial, par version) {
	n := argU64(args[0])
	serial = returning(func() uint64 { return pfSerial(n) })
	par = returning(func() uint64 { return pfPar(n) })
	return
}
