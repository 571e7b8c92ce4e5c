// The `tree-sum` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.concurrent.RecursiveTask;

final class TreeSumKernels {
    private TreeSumKernels() {}

    // ---- tree-sum: the Spice / chili binary-tree sum, heap nodes built depth-first, node i in
    // heap numbering holds i; a task per inner node's left subtree, no cutoff. ----

    static final class Node {
        final long value;
        final Node left, right;

        Node(long value, Node left, Node right) {
            this.value = value;
            this.left = left;
            this.right = right;
        }
    }

    static Node tsBuild(long levels, long index) {
        if (levels <= 1) {
            return new Node(index, null, null);
        }
        Node left = tsBuild(levels - 1, 2 * index);
        Node right = tsBuild(levels - 1, 2 * index + 1);
        return new Node(index, left, right);
    }

    static long tsSerial(Node n) {
        long s = n.value;
        if (n.left != null) {
            s += tsSerial(n.left);
        }
        if (n.right != null) {
            s += tsSerial(n.right);
        }
        return s;
    }

    static final class TreeSum extends RecursiveTask<Long> {
        final Node n;

        TreeSum(Node n) {
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (n.left != null && n.right != null) {
                TreeSum left = new TreeSum(n.left);
                left.fork();
                long b = new TreeSum(n.right).compute();
                return n.value + left.join() + b;
            }
            Node only = n.left != null ? n.left : n.right;
            return only == null ? n.value : n.value + new TreeSum(only).compute();
        }
    }
}
