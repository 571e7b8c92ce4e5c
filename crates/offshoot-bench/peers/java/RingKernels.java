// The `ring` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongBinaryOperator;

final class RingKernels {
    private RingKernels() {}

    // ---- ring: Imam's Figure 3.1, RING_TASKS tasks in a ring, each waiting for the token from
    // the one before it. Each of R rounds passes the token K laps round the ring, starting it
    // at the round's number; the answer is the sum of the tokens that come back. ----

    static final int RING_TASKS = 64;

    /** Opaque accesses to a long[] element: kept, one per hop, yet free of fences. */
    static final VarHandle HOP = MethodHandles.arrayElementVarHandle(long[].class);

    /** The serial loop's token (only the main thread runs the serial version). */
    static final long[] RING_TOKEN = new long[1];

    /** Untimed runs of the serial ring before its timed one (see ringSerialRound). */
    static final int RING_SERIAL_JIT_EXTRA = 50;

    /**
     * One round of the plain loop, one increment per hop. C2 replaces a counted loop of
     * `token++` by its closed form (and scalar-replaces a local cell), so the token lives in a
     * static array cell read and written with opaque accesses (plain loads and stores on x86,
     * which the JIT keeps, in order), as the Rust loop's black_box keeps one add per hop. A
     * round of the quick input is too short for the JIT to compile it in JIT_EXTRA runs, hence
     * RING_SERIAL_JIT_EXTRA untimed runs when timing (the figures are in
     * docs/BENCH-MEASUREMENTS.md).
     */
    static long ringSerialRound(long start, long laps) {
        long[] token = RING_TOKEN;
        HOP.setOpaque(token, 0, start);
        for (long l = 0; l < laps; l++) {
            for (int i = 0; i < RING_TASKS; i++) {
                HOP.setOpaque(token, 0, (long) HOP.getOpaque(token, 0) + 1);
            }
        }
        return (long) HOP.getOpaque(token, 0);
    }

    /**
     * One round on the pool: links[i], an ArrayBlockingQueue of capacity 1, carries the token
     * from task i to task i+1. Tasks 1 to 63 are CompletableFuture.runAsync tasks on the pool,
     * each of which, laps times, takes the token and puts it on plus one; the calling task (a
     * pool worker: the round runs inside the pool) is task 0, which laps times puts the token
     * on plus one and takes it back from task 63. CompletableFuture.allOf(...).join() ends the
     * round when every task has (the Rust kernel's scope). A take or put that waits blocks its
     * worker thread (ForkJoinPool.managedBlock, through the queue's lock condition, which may
     * start spare workers for the waiting ones).
     */
    static long ringRound(ForkJoinPool pool, long start, long laps) {
        List<BlockingQueue<Long>> links = new ArrayList<>(RING_TASKS);
        for (int i = 0; i < RING_TASKS; i++) {
            links.add(new ArrayBlockingQueue<>(1));
        }
        CompletableFuture<?>[] tasks = new CompletableFuture<?>[RING_TASKS - 1];
        for (int i = 1; i < RING_TASKS; i++) {
            BlockingQueue<Long> from = links.get(i - 1), to = links.get(i);
            tasks[i - 1] = CompletableFuture.runAsync(() -> {
                for (long l = 0; l < laps; l++) {
                    pass(to, take(from) + 1);
                }
            }, pool);
        }
        BlockingQueue<Long> toNext = links.get(0), fromLast = links.get(RING_TASKS - 1);
        long token = start;
        for (long l = 0; l < laps; l++) {
            pass(toNext, token + 1);
            token = take(fromLast);
        }
        CompletableFuture.allOf(tasks).join();
        return token;
    }

    /** Hands the token on (put: the link has room, as one token is in the ring). */
    static void pass(BlockingQueue<Long> link, long token) {
        try {
            link.put(token);
        } catch (InterruptedException e) {
            throw new IllegalStateException("ring: interrupted while passing the token", e);
        }
    }

    /** Waits for the token on `link`. */
    static long take(BlockingQueue<Long> link) {
        try {
            return link.take();
        } catch (InterruptedException e) {
            throw new IllegalStateException("ring: interrupted while waiting for the token", e);
        }
    }

    /** Runs `rounds` rounds of `laps` laps with `round` and sums the tokens that come back. */
    static long ringRounds(long rounds, long laps, LongBinaryOperator round) {
        long sum = 0;
        for (long r = 0; r < rounds; r++) {
            sum += round.applyAsLong(r, laps);
        }
        return sum;
    }
}
