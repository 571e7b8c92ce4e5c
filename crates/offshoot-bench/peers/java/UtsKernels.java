// The `uts` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RecursiveTask;
import java.util.function.Supplier;

final class UtsKernels {
    private UtsKernels() {}

    // ---- uts: Unbalanced Tree Search (Olivier et al., LCPC 2006; the reference's uts.c), the
    // tree generated as crates/offshoot-bench/src/kernels/uts.rs does: a node's state is a
    // SHA-1 digest (java.security.MessageDigest; the root's: of 16 zero bytes and the root
    // seed, big-endian; child i's: of its parent's digest and i, big-endian), its random number
    // the big-endian u32 of the digest's last 4 bytes masked with 0x7fffffff, over 2^31 as a
    // probability; the number of children by the reference's binomial, geometric (four
    // shapes), hybrid and balanced rules, at most 100 (but a binomial root). A task per child,
    // started with invokeAll; the Rust kernel forks halves of the child range. No cutoff. ----

    static final int UTS_BINOMIAL = 0, UTS_GEOMETRIC = 1, UTS_HYBRID = 2, UTS_BALANCED = 3;
    static final int UTS_LINEAR = 0, UTS_EXPDEC = 1, UTS_CYCLIC = 2, UTS_FIXED = 3;

    /** One SHA-1 per thread (a MessageDigest is not thread-safe). */
    static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(UtsKernels::newSha1);

    static MessageDigest newSha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static final class UtsNode {
        final byte[] state;
        final int height;

        UtsNode(byte[] state, int height) {
            this.state = state;
            this.height = height;
        }

        /** SHA-1 of `bytes` then `i` big-endian. */
        static byte[] digest(MessageDigest sha1, byte[] bytes, int i) {
            sha1.update(bytes);
            sha1.update(new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i});
            return sha1.digest();
        }

        UtsNode child(MessageDigest sha1, int i) {
            return new UtsNode(digest(sha1, state, i), height + 1);
        }

        double probability() {
            int r = ((state[16] & 0xff) << 24) | ((state[17] & 0xff) << 16)
                    | ((state[18] & 0xff) << 8) | (state[19] & 0xff);
            return (r & 0x7fffffff) / 2147483648.0;
        }
    }

    /** Node count, leaf count and depth of a subtree. */
    static final class Counts {
        long nodes, leaves, depth;

        Counts(long nodes, long leaves, long depth) {
            this.nodes = nodes;
            this.leaves = leaves;
            this.depth = depth;
        }

        void add(Counts c) {
            nodes += c.nodes;
            leaves += c.leaves;
            depth = Math.max(depth, c.depth);
        }
    }

    /** The reference's flags -t -a -d -b -r -m -q -f. */
    static final class UtsTree {
        final int type, shape, genMx, rootSeed, nonLeafBf;
        final double b0, nonLeafProb, shiftDepth;

        UtsTree(String[] a) {
            type = (int) argU64(a[0]);
            shape = (int) argU64(a[1]);
            genMx = (int) argU64(a[2]);
            b0 = argF64(a[3]);
            rootSeed = (int) argI64(a[4]);
            nonLeafBf = (int) argU64(a[5]);
            nonLeafProb = argF64(a[6]);
            shiftDepth = argF64(a[7]);
            if (type < 0 || type > UTS_BALANCED || shape < 0 || shape > UTS_FIXED) {
                die("uts: bad tree type or shape");
            }
        }

        UtsNode root() {
            return new UtsNode(UtsNode.digest(newSha1(), new byte[16], rootSeed), 0);
        }

        long binomial(UtsNode n) {
            return n.probability() < nonLeafProb ? Integer.toUnsignedLong(nonLeafBf) : 0;
        }

        long geometric(UtsNode n) {
            double depth = n.height, mx = Integer.toUnsignedLong(genMx);
            double bI = b0;
            if (n.height == 0) {
                // the root: b0
            } else if (shape == UTS_EXPDEC) {
                bI = b0 * Math.pow(depth, -Math.log(b0) / Math.log(mx));
            } else if (shape == UTS_CYCLIC) {
                bI = n.height > 5 * mx ? 0 : Math.pow(b0, Math.sin(2.0 * Math.PI * depth / mx));
            } else if (shape == UTS_FIXED) {
                bI = n.height >= mx ? 0 : b0;
            } else {
                bI = b0 * (1.0 - depth / mx);
            }
            double p = 1.0 / (1.0 + bI);
            double u = n.probability();
            // (long) of a double saturates and maps NaN to 0, as Rust's `as i64`
            return (long) Math.floor(Math.log(1.0 - u) / Math.log(1.0 - p));
        }

        int numChildren(UtsNode n) {
            long k = 0, limit = 100;
            switch (type) {
                case UTS_BINOMIAL:
                    if (n.height == 0) {
                        k = (long) Math.floor(b0);
                        limit = (long) Math.ceil(b0);
                    } else {
                        k = binomial(n);
                    }
                    break;
                case UTS_GEOMETRIC:
                    k = geometric(n);
                    break;
                case UTS_HYBRID:
                    k = n.height < shiftDepth * Integer.toUnsignedLong(genMx) ? geometric(n) : binomial(n);
                    break;
                default:
                    if (n.height < Integer.toUnsignedLong(genMx)) {
                        k = (long) b0;
                    }
                    limit = Long.MAX_VALUE;
            }
            return (int) Math.min(Math.max(k, 0), limit);
        }

        Counts serial(MessageDigest sha1, UtsNode n) {
            int k = numChildren(n);
            if (k == 0) {
                return new Counts(1, 1, n.height);
            }
            Counts c = new Counts(1, 0, n.height);
            for (int i = 0; i < k; i++) {
                c.add(serial(sha1, n.child(sha1, i)));
            }
            return c;
        }
    }

    static final class Uts extends RecursiveTask<Counts> {
        final UtsTree t;
        final UtsNode n;

        Uts(UtsTree t, UtsNode n) {
            this.t = t;
            this.n = n;
        }

        @Override
        protected Counts compute() {
            int k = t.numChildren(n);
            if (k == 0) {
                return new Counts(1, 1, n.height);
            }
            MessageDigest sha1 = SHA1.get();
            List<Uts> children = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                children.add(new Uts(t, n.child(sha1, i)));
            }
            Counts c = new Counts(1, 0, n.height);
            for (Uts child : invokeAll(children)) {
                c.add(child.join());
            }
            return c;
        }
    }


    /** The version that counts a uts tree, answering `nodes/leaves/depth`. */
    static Version utsVersion(Supplier<Counts> f) {
        Counts[] c = new Counts[1];
        return new Version(() -> {}, () -> c[0] = f.get(),
                () -> c[0].nodes + "/" + c[0].leaves + "/" + c[0].depth);
    }
}
