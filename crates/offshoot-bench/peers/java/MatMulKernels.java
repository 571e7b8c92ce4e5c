// The `matmul` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.function.Supplier;

final class MatMulKernels {
    private MatMulKernels() {}

    // ---- matmul: Cilk-5 `notempmul`: quadrants in quadtree layout, 16x16 row-major leaves
    // (i-k-j), two phases of four forks each (invokeAll). Java never fuses a multiply-add
    // (Math.fma only), so products equal the Rust serial ones bit for bit. ----

    static final int MM_BLOCK = 16;
    static final int MM_LEAF = MM_BLOCK * MM_BLOCK;

    static void mmLeafMul(double[] c, int co, double[] a, int ao, double[] b, int bo, boolean add) {
        if (!add) {
            Arrays.fill(c, co, co + MM_LEAF, 0.0);
        }
        for (int i = 0; i < MM_BLOCK; i++) {
            int cRow = co + i * MM_BLOCK;
            for (int k = 0; k < MM_BLOCK; k++) {
                double aik = a[ao + i * MM_BLOCK + k];
                int bRow = bo + k * MM_BLOCK;
                for (int j = 0; j < MM_BLOCK; j++) {
                    c[cRow + j] += aik * b[bRow + j];
                }
            }
        }
    }

    /** One product C (+)= A·B of quadtree blocks of `len` elements at the given offsets. */
    static final class MatMul extends RecursiveAction {
        final double[] c, a, b;
        final int co, ao, bo, len;
        final boolean add;

        MatMul(double[] c, int co, double[] a, int ao, double[] b, int bo, int len, boolean add) {
            this.c = c;
            this.a = a;
            this.b = b;
            this.co = co;
            this.ao = ao;
            this.bo = bo;
            this.len = len;
            this.add = add;
        }

        MatMul sub(int ci, int ai, int bi, boolean add) {
            int q = len / 4;
            return new MatMul(c, co + ci * q, a, ao + ai * q, b, bo + bi * q, q, add);
        }

        /** The eight quadrant products, the first phase's four then the second's. */
        MatMul[] quadrants() {
            return new MatMul[] {
                sub(0, 0, 0, add), sub(1, 0, 1, add), sub(2, 2, 0, add), sub(3, 2, 1, add),
                sub(0, 1, 2, true), sub(1, 1, 3, true), sub(2, 3, 2, true), sub(3, 3, 3, true),
            };
        }

        void serial() {
            if (len == MM_LEAF) {
                mmLeafMul(c, co, a, ao, b, bo, add);
                return;
            }
            for (MatMul m : quadrants()) {
                m.serial();
            }
        }

        @Override
        protected void compute() {
            if (len == MM_LEAF) {
                mmLeafMul(c, co, a, ao, b, bo, add);
                return;
            }
            MatMul[] q = quadrants();
            invokeAll(q[0], q[1], q[2], q[3]);
            invokeAll(q[4], q[5], q[6], q[7]);
        }
    }

    static int mmIndex(int n, int i, int j) {
        if (n == MM_BLOCK) {
            return i * MM_BLOCK + j;
        }
        int h = n / 2;
        int quadrant = (i >= h ? 2 : 0) + (j >= h ? 1 : 0);
        return quadrant * h * h + mmIndex(h, i % h, j % h);
    }


    static Version[] matmul(String[] args, ForkJoinPool pool) {
        long edge = argU64(args[0]);
        if (edge < MM_BLOCK || (edge & (edge - 1)) != 0 || edge > 8192) {
            die("matmul n must be a power of two in 16..=8192");
        }
        int n = (int) edge;
        SplitMix64 rng = new SplitMix64(argU64(args[1]));
        double[] a = new double[n * n], b = new double[n * n], c = new double[n * n];
        for (double[] m : new double[][] {a, b}) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    m[mmIndex(n, i, j)] = (rng.next() >>> 11) * (1.0 / 9007199254740992.0);
                }
            }
        }
        Runnable reset = () -> Arrays.fill(c, Double.NaN);
        Supplier<String> answer = () -> fnv1aWords(c.length, i -> Double.doubleToRawLongBits(c[i]));
        return new Version[] {
            new Version(reset, () -> new MatMul(c, 0, a, 0, b, 0, n * n, false).serial(), answer),
            new Version(reset, () -> pool.invoke(new MatMul(c, 0, a, 0, b, 0, n * n, false)), answer),
        };
    }
}
