// What the Go peer's kernels share: argument parsing, the suite's generator and digest, the
// version type and the kernel registry (see main.go).
package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
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

// SplitMix64, as crates/offshoot-bench/src/rng.rs.
type splitMix64 struct{ state uint64 }

func (s *splitMix64) next() uint64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
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

// A kernel's arguments and how to build its versions from them (see register).
type kernelEntry struct {
	argc     int
	versions func(args []string) (serial, par version)
}

// kernels holds every kernel of the peer, each file registering its own in an init func.
var kernels = map[string]kernelEntry{}

// register adds the kernel `name`, which takes argc arguments.
func register(name string, argc int, versions func(args []string) (serial, par version)) {
	kernels[name] = kernelEntry{argc, versions}
}
