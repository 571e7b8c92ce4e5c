// The `par-for` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.concurrent.ForkJoinPool;
import java.util.stream.LongStream;

final class ParForKernels {
    private ParForKernels() {}

    // ---- par-for: a loop with a trivial body; a parallel LongStream in the pool. ----

    static long pfF(long i) {
        return (i * 0x9E3779B97F4A7C15L) >>> 7;
    }

    static long pfSerial(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += pfF(i);
        }
        return s;
    }

    static long pfPar(ForkJoinPool pool, long n) {
        // LongStream.sum adds with `+`, which wraps as the suite's wrapping sum.
        return inPool(pool, () -> LongStream.range(0, n).parallel().map(ParForKernels::pfF).sum());
    }
}
