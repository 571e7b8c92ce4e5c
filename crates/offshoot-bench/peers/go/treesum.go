// The `tree-sum` kernel of the Go peer (see main.go).
package main

import "sync"

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

func init() {
	register("tree-sum", 1, versionsTreeSum)
}

// versionsTreeSum builds the input of `tree-sum` (untimed) and its serial and parallel versions.
func versionsTreeSum(args []string) (serial, par version) {
	depth := argU64(args[0])
	if depth < 1 || depth > 40 {
		die("tree-sum depth must be in 1..=40")
	}
	root := tsBuild(depth, 1)
	serial = returning(func() uint64 { return tsSerial(root) })
	par = returning(func() uint64 { return tsPar(root) })
	return
}
