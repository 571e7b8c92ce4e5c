// The `nqueens` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RecursiveTask;

final class NQueensKernels {
    private NQueensKernels() {}

    // ---- nqueens: Cilk-5 `queens` / BOTS `nqueens` (bitmask form, all solutions), no cutoff:
    // a task per candidate placement, all of a row's started with invokeAll (which runs one
    // in the calling thread). ----

    static long nqSerial(int all, int cols, int d1, int d2) {
        if (cols == all) {
            return 1;
        }
        int free = all & ~(cols | d1 | d2);
        long count = 0;
        while (free != 0) {
            int bit = free & -free;
            free ^= bit;
            count += nqSerial(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >>> 1);
        }
        return count;
    }

    static final class Queens extends RecursiveTask<Long> {
        final int all, cols, d1, d2;

        Queens(int all, int cols, int d1, int d2) {
            this.all = all;
            this.cols = cols;
            this.d1 = d1;
            this.d2 = d2;
        }

        @Override
        protected Long compute() {
            if (cols == all) {
                return 1L;
            }
            List<Queens> rows = new ArrayList<>();
            for (int free = all & ~(cols | d1 | d2); free != 0; ) {
                int bit = free & -free;
                free ^= bit;
                rows.add(new Queens(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >>> 1));
            }
            long count = 0;
            for (Queens q : invokeAll(rows)) {
                count += q.join();
            }
            return count;
        }
    }

    static int nqMask(long n) {
        if (n > 16) {
            die("nqueens supports n <= 16");
        }
        return (1 << n) - 1;
    }
}
