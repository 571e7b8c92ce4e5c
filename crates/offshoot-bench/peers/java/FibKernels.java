// The `fib`, `futures-fib` kernels of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;

final class FibKernels {
    private FibKernels() {}

    // ---- fib: Cilk-5 `fib` / RecursiveTask's Javadoc `Fibonacci`, no cutoff. ----

    static long fibSerial(long n) {
        return n < 2 ? n : fibSerial(n - 1) + fibSerial(n - 2);
    }

    static final class Fib extends RecursiveTask<Long> {
        final long n;

        Fib(long n) {
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (n < 2) {
                return n;
            }
            Fib f1 = new Fib(n - 1);
            f1.fork();
            long b = new Fib(n - 2).compute();
            return f1.join() + b;
        }
    }

    // ---- futures-fib: fib with a future per call (Imam's thesis §3.6.2), no cutoff, written with
    // CompletableFuture the way Java users compose futures: fib(n) is a future; each call with
    // n >= 2 starts the future of fib(n-1) with supplyAsync on the pool (flattened with
    // thenCompose, as that task itself returns a future), computes fib(n-2) itself, and gets
    // the first with thenCombine, a stage that adds the two once both are done (the await of
    // the Rust kernel's tokio version: the waiting call leaves the thread free). The root is
    // started on the pool too and the caller only joins it, so that only the pool's workers
    // compute. A blocking join() per get instead holds a worker per waiting call, for which
    // the pool starts spare threads (ForkJoinPool.managedBlock): thousands of them, and
    // seconds a run (docs/BENCH-MEASUREMENTS.md). Serial: fibSerial. ----

    static CompletableFuture<Long> futuresFib(ForkJoinPool pool, long n) {
        if (n < 2) {
            return CompletableFuture.completedFuture(n);
        }
        CompletableFuture<Long> a = spawnFib(pool, n - 1);
        CompletableFuture<Long> b = futuresFib(pool, n - 2);
        return a.thenCombine(b, Long::sum);
    }

    /** The future of fib(n), computed by a task of `pool`. */
    static CompletableFuture<Long> spawnFib(ForkJoinPool pool, long n) {
        return CompletableFuture.supplyAsync(() -> futuresFib(pool, n), pool).thenCompose(f -> f);
    }
}
