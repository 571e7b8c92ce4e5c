// The `nqueens` kernel of the Go peer (see main.go).
package main

import "sync"

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

func init() {
	register("nqueens", 1, versionsNqueens)
}

// versionsNqueens builds the input of `nqueens` (untimed) and its serial and parallel versions.
func versionsNqueens(args []string) (serial, par version) {
	all := nqMask(argU64(args[0]))
	serial = returning(func() uint64 { return nqSerialRec(all, 0, 0, 0) })
	par = returning(func() uint64 { return nqPar(all, 0, 0, 0) })
	return
}
