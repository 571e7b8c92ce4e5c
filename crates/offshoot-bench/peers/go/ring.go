// The `ring` kernel of the Go peer (see main.go).
package main

import "sync"

// ---- ring: Imam's Figure 3.1, ringTasks tasks in a ring, each waiting for the token from the
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

func init() {
	register("ring", 2, versionsRing)
}

// versionsRing builds the input of `ring` (untimed) and its serial and parallel versions.
func versionsRing(args []string) (serial, par version) {
	rounds, laps := argU64(args[0]), argU64(args[1])
	serial = returning(func() uint64 { return ringRounds(rounds, laps, ringSerialRound) })
	par = returning(func() uint64 { return ringRounds(rounds, laps, ringRound) })
	return
}
