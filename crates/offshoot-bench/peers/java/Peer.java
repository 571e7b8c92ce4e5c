// offshoot-bench peer: Java with a ForkJoinPool (written for offshoot, not copied from anywhere).
//
// Usage: java -cp <classes> Peer <kernel> <workers> <warm-ups> <kernel arguments...>
// Protocol (crates/offshoot-bench/src/peers/mod.rs): builds the input (untimed), runs the
// plain serial version <warm-ups> times untimed and once timed, then the parallel version
// the same way on a `new ForkJoinPool(workers)`, and prints
//
//     serial <seconds> <answer>
//     parallel <seconds> <answer>
//
// JIT warm-up: a JVM first interprets, then compiles the hot methods (C1, then C2) while it
// runs. So when <warm-ups> is above 0 (a timed run), each version gets JIT_EXTRA more untimed
// runs before its timed one, enough for the recursive kernels' methods to reach C2 (ring's
// serial loop, microseconds a run, gets RING_SERIAL_JIT_EXTRA instead); with 0
// warm-ups (the suite's --check-only) it runs once, only the answer matters there. The pool
// is built before the runs (its workers start on the first run, a warm-up when timing).
//
// Every kernel runs the same algorithm, input and cutoffs as the Rust kernel of the same
// name (crates/offshoot-bench/src/kernels/). The parallel versions are written the way Java
// users write fork-join: a RecursiveTask / RecursiveAction per fork, where the Rust kernel
// joins two branches the first is `fork()`ed and the second `compute()`d in place before the
// `join()` (the `Fibonacci` example of RecursiveTask's Javadoc; no cutoff where the Rust
// kernel has none), four-way and n-way forks with `invokeAll`; knapsack, whose pruning
// depends on the order, forks its second branch instead (see there). The loop (par-for) is a
// parallel stream run inside the pool (`pool.submit(() -> stream...).get()`, whose splits
// fork into the pool of the thread that runs the terminal operation). Kernels: fib, nqueens,
// par-for, matmul, tree-sum, knapsack, cilksort, uts (and uts-bin); and two whose tasks wait
// on each other, written as Java users write waiting: futures-fib (a CompletableFuture per
// future, got by composing stages) and ring (64 tasks on the pool passing a token through
// blocking queues). Only the call is timed
// (System.nanoTime): restoring the input (matmul's NaN fill, cilksort's copy) and computing
// the answer token are not.
//
// The suite's integers are unsigned 64-bit; Java's long wraps the same way on + - * and the
// shifts used here are `>>>`; answers print with Long.toUnsignedString. JDK 17, standard
// library only.

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongBinaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.LongStream;

public final class Peer {
    /** Untimed runs added to a positive warm-up count, for the JIT (see the header). */
    static final int JIT_EXTRA = 2;

    static void die(String msg) {
        System.err.println("java peer: " + msg);
        System.exit(2);
    }

    /** A parser of a numeric argument that may throw NumberFormatException. */
    interface Parse<T> {
        T parse(String s);
    }

    /** A numeric argument parsed by `p` (NaN is no number either), or the peer exits. */
    static <T> T arg(String s, Parse<T> p) {
        try {
            T v = p.parse(s);
            if (!(v instanceof Double && ((Double) v).isNaN())) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        die("bad numeric argument " + s);
        return null;
    }

    static long argU64(String s) {
        return arg(s, Long::parseUnsignedLong);
    }

    static long argI64(String s) {
        return arg(s, Long::parseLong);
    }

    static double argF64(String s) {
        return arg(s, Double::parseDouble);
    }

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

    // ---- futures-fib: fib with a future per call (002 §3.6.2), no cutoff, written with
    // CompletableFuture the way Java users compose futures: fib(n) is a future; each call with
    // n >= 2 starts the future of fib(n-1) with supplyAsync on the pool (flattened with
    // thenCompose, as that task itself returns a future), computes fib(n-2) itself, and gets
    // the first with thenCombine, a stage that adds the two once both are done (the await of
    // the Rust kernel's tokio version: the waiting call leaves the thread free). The root is
    // started on the pool too and the caller only joins it, so that only the pool's workers
    // compute. A blocking join() per get instead holds a worker per waiting call, for which
    // the pool starts spare threads (ForkJoinPool.managedBlock): over 2,000 threads at
    // fib(20), 18 s at the quick fib(22) on one worker. Serial: fibSerial. ----

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

    // ---- ring: 002's Figure 3.1, RING_TASKS tasks in a ring, each waiting for the token from
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
     * which the JIT keeps, in order), as the Rust loop's black_box keeps one add per hop: about
     * 0.3 ns a hop once compiled, as Rust's. A round of the quick input is microseconds, too
     * short for the JIT to compile it in JIT_EXTRA runs (interpreted, a hop takes some 80 ns),
     * hence RING_SERIAL_JIT_EXTRA untimed runs when timing.
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
        return inPool(pool, () -> LongStream.range(0, n).parallel().map(Peer::pfF).sum());
    }

    /** Runs `f` on a worker of `pool` (a parallel stream there forks into that pool). */
    static long inPool(ForkJoinPool pool, LongSupplier f) {
        try {
            return pool.submit(f::getAsLong).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

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

    /** SplitMix64, as crates/offshoot-bench/src/rng.rs. */
    static final class SplitMix64 {
        long state;

        SplitMix64(long seed) {
            state = seed;
        }

        long next() {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** A uniform integer in lo..=hi, as rng.rs's range_i64. */
        long rangeI64(long lo, long hi) {
            long span = (hi - lo) + 1;
            return lo + Long.remainderUnsigned(next(), span);
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

    /** A 64-bit word per index, for the digest. */
    interface Words {
        long word(int i);
    }

    /**
     * FNV-1a over 64-bit words, as 16 hex digits: the answer of matmul (the product's bit
     * patterns in quadtree layout) and cilksort (the sorted keys).
     */
    static String fnv1aWords(int n, Words words) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < n; i++) {
            h ^= words.word(i);
            h *= 0x100000001b3L;
        }
        return String.format("%016x", h);
    }

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

    // ---- knapsack: Cilk-5 `knapsack` (also in BOTS): 0/1 knapsack by branch and bound, items
    // sorted by value/weight, best first; a node forks "with the item" and "without it" and is
    // pruned when v + c*value/weight of its first remaining item (integer division) is below
    // the best solution so far, an AtomicLong shared by all tasks. No cutoff. "without" is the
    // forked task and "with" is computed in place, as offshoot's and rayon's join run their
    // first closure on the caller: the serial order, which decides how much the bound prunes.

    static final class Item {
        final long value, weight;

        Item(long value, long weight) {
            this.value = value;
            this.weight = weight;
        }
    }

    /**
     * knapsack.rs's `instance`: n items (weight 90..=110, value = weight*5 + -25..=25), stably
     * sorted by value/weight, best first (List.sort is stable), and capacity 2/5 of the total
     * weight (the last element of the returned array holds the capacity as its weight).
     */
    static Item[] ksInput(int n, long seed) {
        SplitMix64 rng = new SplitMix64(seed);
        List<Item> items = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < n; i++) {
            long weight = rng.rangeI64(90, 110);
            items.add(new Item(weight * 5 + rng.rangeI64(-25, 25), weight));
            total += weight;
        }
        Comparator<Item> bestFirst = (x, y) -> Long.compare(y.value * x.weight, x.value * y.weight);
        items.sort(bestFirst);
        items.add(new Item(0, total * 2 / 5));
        return items.toArray(new Item[0]);
    }

    static long ksSerial(Item[] items, int first, int end, long c, long v, long[] best) {
        if (c < 0) {
            return Long.MIN_VALUE;
        }
        if (first == end || c == 0) {
            return v;
        }
        Item e = items[first];
        if (v + c * e.value / e.weight < best[0]) {
            return Long.MIN_VALUE;
        }
        long with = ksSerial(items, first + 1, end, c - e.weight, v + e.value, best);
        long without = ksSerial(items, first + 1, end, c, v, best);
        long b = Math.max(with, without);
        if (b > best[0]) {
            best[0] = b;
        }
        return b;
    }

    static final class Knapsack extends RecursiveTask<Long> {
        final Item[] items;
        final int first, end;
        final long c, v;
        final AtomicLong best;

        Knapsack(Item[] items, int first, int end, long c, long v, AtomicLong best) {
            this.items = items;
            this.first = first;
            this.end = end;
            this.c = c;
            this.v = v;
            this.best = best;
        }

        @Override
        protected Long compute() {
            if (c < 0) {
                return Long.MIN_VALUE;
            }
            if (first == end || c == 0) {
                return v;
            }
            Item e = items[first];
            if (v + c * e.value / e.weight < best.get()) {
                return Long.MIN_VALUE;
            }
            Knapsack without = new Knapsack(items, first + 1, end, c, v, best);
            without.fork();
            long with = new Knapsack(items, first + 1, end, c - e.weight, v + e.value, best).compute();
            long b = Math.max(with, without.join());
            // raise the shared best (a read first: most nodes do not improve it)
            if (b > best.get()) {
                best.accumulateAndGet(b, Math::max);
            }
            return b;
        }
    }

    // ---- cilksort: Cilk-5 `cilksort` (BOTS `sort`): four quarters sorted in parallel
    // (invokeAll), two merges the same way, then the final merge; a merge splits the larger
    // input at its middle key, finds its rank in the other by binary search and merges both
    // sides at once. Serial quicksort (median of three, Hoare partition) below QUICKSIZE keys,
    // insertion sort at INSERTIONSIZE, serial merge below MERGESIZE keys in the smaller input:
    // Cilk-5's cutoffs, as crates/offshoot-bench/src/kernels/cilksort.rs. The keys are the
    // suite's unsigned 64-bit keys with their top bit flipped, so Java's signed comparisons
    // order them as unsigned ones do (flipped back for the answer). ----

    static final int CS_QUICK_SIZE = 2048;
    static final int CS_MERGE_SIZE = 2048;
    static final int CS_INSERTION_SIZE = 20;

    static void csInsertion(long[] a, int lo, int n) {
        for (int i = lo + 1; i < lo + n; i++) {
            long v = a[i];
            int j = i;
            while (j > lo && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
    }

    static void swap(long[] a, int i, int j) {
        long t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    /** Returns s with 0 < s < n, every key of a[lo, lo+s) <= every key of a[lo+s, lo+n). */
    static int csPartition(long[] a, int lo, int n) {
        int mid = lo + n / 2, hi = lo + n - 1;
        if (a[mid] < a[lo]) {
            swap(a, mid, lo);
        }
        if (a[hi] < a[lo]) {
            swap(a, hi, lo);
        }
        if (a[hi] < a[mid]) {
            swap(a, hi, mid);
        }
        long pivot = a[mid];
        int i = lo, j = hi;
        for (;;) {
            while (a[i] < pivot) {
                i++;
            }
            while (a[j] > pivot) {
                j--;
            }
            if (i >= j) {
                return j + 1 - lo;
            }
            swap(a, i, j);
            i++;
            j--;
        }
    }

    static void csQuick(long[] a, int lo, int n) {
        while (n > CS_INSERTION_SIZE) {
            int split = csPartition(a, lo, n);
            csQuick(a, lo, split);
            lo += split;
            n -= split;
        }
        csInsertion(a, lo, n);
    }

    /** Merges the sorted runs x and y of `src` into `dest` from `d`. */
    static final class Merge extends RecursiveAction {
        final long[] src, dest;
        final int x, xn, y, yn, d;

        Merge(long[] src, int x, int xn, int y, int yn, long[] dest, int d) {
            // the larger input first
            this.src = src;
            this.dest = dest;
            this.x = xn >= yn ? x : y;
            this.xn = Math.max(xn, yn);
            this.y = xn >= yn ? y : x;
            this.yn = Math.min(xn, yn);
            this.d = d;
        }

        /** The two halves around x's middle key (placed here), or null after a serial merge. */
        Merge[] split() {
            if (yn <= CS_MERGE_SIZE) {
                int i = x, j = y;
                for (int k = d; k < d + xn + yn; k++) {
                    if (j >= y + yn || (i < x + xn && src[i] <= src[j])) {
                        dest[k] = src[i++];
                    } else {
                        dest[k] = src[j++];
                    }
                }
                return null;
            }
            int m = xn / 2;
            long pivot = src[x + m];
            // the number of keys of y <= pivot
            int lo = 0, hi = yn;
            while (lo < hi) {
                int h = (lo + hi) >>> 1;
                if (src[y + h] > pivot) {
                    hi = h;
                } else {
                    lo = h + 1;
                }
            }
            int k = lo;
            dest[d + m + k] = pivot;
            return new Merge[] {
                new Merge(src, x, m, y, k, dest, d),
                new Merge(src, x + m + 1, xn - m - 1, y + k, yn - k, dest, d + m + k + 1),
            };
        }

        void serial() {
            Merge[] halves = split();
            if (halves != null) {
                halves[0].serial();
                halves[1].serial();
            }
        }

        @Override
        protected void compute() {
            Merge[] halves = split();
            if (halves != null) {
                invokeAll(halves[0], halves[1]);
            }
        }
    }

    /** Sorts a[lo, lo+n) with tmp[lo, lo+n) as scratch. */
    static final class Sort extends RecursiveAction {
        final long[] a, tmp;
        final int lo, n;

        Sort(long[] a, long[] tmp, int lo, int n) {
            this.a = a;
            this.tmp = tmp;
            this.lo = lo;
            this.n = n;
        }

        /** The four quarters' sorts. */
        Sort[] quarters() {
            int q = n / 4;
            return new Sort[] {
                new Sort(a, tmp, lo, q),
                new Sort(a, tmp, lo + q, q),
                new Sort(a, tmp, lo + 2 * q, q),
                new Sort(a, tmp, lo + 3 * q, n - 3 * q),
            };
        }

        /** The two merges of the quarters' pairs into tmp, then the final merge back. */
        Merge[] merges() {
            int q = n / 4;
            return new Merge[] {
                new Merge(a, lo, q, lo + q, q, tmp, lo),
                new Merge(a, lo + 2 * q, q, lo + 3 * q, n - 3 * q, tmp, lo + 2 * q),
                new Merge(tmp, lo, 2 * q, lo + 2 * q, n - 2 * q, a, lo),
            };
        }

        void serial() {
            if (n < CS_QUICK_SIZE) {
                csQuick(a, lo, n);
                return;
            }
            for (Sort s : quarters()) {
                s.serial();
            }
            for (Merge m : merges()) {
                m.serial();
            }
        }

        @Override
        protected void compute() {
            if (n < CS_QUICK_SIZE) {
                csQuick(a, lo, n);
                return;
            }
            Sort[] s = quarters();
            invokeAll(s[0], s[1], s[2], s[3]);
            Merge[] m = merges();
            invokeAll(m[0], m[1]);
            m[2].compute();
        }
    }

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
    static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(Peer::newSha1);

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

    // ---- driver ----

    /**
     * A version of a kernel on its input: reset (untimed) restores the input before each run,
     * run is the timed call, answer (untimed) formats the last run's answer.
     */
    static final class Version {
        final Runnable reset, run;
        final Supplier<String> answer;
        /** Untimed runs added to a positive warm-up count, for the JIT. */
        final int jitExtra;

        Version(Runnable reset, Runnable run, Supplier<String> answer) {
            this(reset, run, answer, JIT_EXTRA);
        }

        Version(Runnable reset, Runnable run, Supplier<String> answer, int jitExtra) {
            this.reset = reset;
            this.run = run;
            this.answer = answer;
            this.jitExtra = jitExtra;
        }

        /** This version with `extra` JIT warm-up runs instead of JIT_EXTRA. */
        Version withJitExtra(int extra) {
            return new Version(reset, run, answer, extra);
        }
    }

    /** The version that calls f and answers its result in decimal (unsigned or signed). */
    static Version returning(LongSupplier f, boolean unsigned) {
        long[] out = new long[1];
        return new Version(() -> {}, () -> out[0] = f.getAsLong(),
                () -> unsigned ? Long.toUnsignedString(out[0]) : Long.toString(out[0]));
    }

    /** Runs v untimed (warmups, plus v.jitExtra when warmups > 0), then once timed. */
    static void timeRuns(String what, int warmups, Version v) {
        int untimed = warmups > 0 ? warmups + v.jitExtra : 0;
        long nanos = 0;
        for (int i = 0; i <= untimed; i++) {
            v.reset.run();
            long t0 = System.nanoTime();
            v.run.run();
            nanos = System.nanoTime() - t0;
        }
        System.out.println(String.format(Locale.ROOT, "%s %.9f %s", what, nanos / 1e9, v.answer.get()));
    }

    /** The serial and the parallel version of a kernel. */
    static Version[] versions(String kernel, String[] args, ForkJoinPool pool) {
        switch (kernel + "/" + args.length) {
            case "fib/1": {
                long n = argU64(args[0]);
                return new Version[] {
                    returning(() -> fibSerial(n), true), returning(() -> pool.invoke(new Fib(n)), true),
                };
            }
            case "futures-fib/1": {
                long n = argU64(args[0]);
                return new Version[] {
                    returning(() -> fibSerial(n), true), returning(() -> spawnFib(pool, n).join(), true),
                };
            }
            case "ring/2": {
                long rounds = argU64(args[0]), laps = argU64(args[1]);
                return new Version[] {
                    returning(() -> ringRounds(rounds, laps, Peer::ringSerialRound), true)
                            .withJitExtra(RING_SERIAL_JIT_EXTRA),
                    returning(() -> inPool(pool, () -> ringRounds(rounds, laps, (r, k) -> ringRound(pool, r, k))), true),
                };
            }
            case "nqueens/1": {
                int all = nqMask(argU64(args[0]));
                return new Version[] {
                    returning(() -> nqSerial(all, 0, 0, 0), true),
                    returning(() -> pool.invoke(new Queens(all, 0, 0, 0)), true),
                };
            }
            case "par-for/1": {
                long n = argU64(args[0]);
                return new Version[] {returning(() -> pfSerial(n), true), returning(() -> pfPar(pool, n), true)};
            }
            case "tree-sum/1": {
                long depth = argU64(args[0]);
                if (depth < 1 || depth > 40) {
                    die("tree-sum depth must be in 1..=40");
                }
                Node root = tsBuild(depth, 1);
                return new Version[] {
                    returning(() -> tsSerial(root), true), returning(() -> pool.invoke(new TreeSum(root)), true),
                };
            }
            case "matmul/2":
                return matmul(args, pool);
            case "knapsack/2": {
                long n = argU64(args[0]);
                if (n < 1 || n > 1000) {
                    die("knapsack n must be in 1..=1000");
                }
                Item[] items = ksInput((int) n, argU64(args[1]));
                int end = items.length - 1;
                long capacity = items[end].weight;
                return new Version[] {
                    returning(() -> ksSerial(items, 0, end, capacity, 0, new long[] {Long.MIN_VALUE}), false),
                    returning(() -> pool.invoke(
                            new Knapsack(items, 0, end, capacity, 0, new AtomicLong(Long.MIN_VALUE))), false),
                };
            }
            case "cilksort/2":
                return cilksort(args, pool);
            case "uts/8":
            case "uts-bin/8": {
                // type shape gen_mx b0 root_seed non_leaf_bf non_leaf_prob shift_depth
                UtsTree t = new UtsTree(args);
                UtsNode root = t.root();
                return new Version[] {
                    utsVersion(() -> t.serial(newSha1(), root)), utsVersion(() -> pool.invoke(new Uts(t, root))),
                };
            }
            default:
                die("unknown kernel `" + kernel + "` or wrong argument count");
                return null;
        }
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

    static Version[] cilksort(String[] args, ForkJoinPool pool) {
        long count = argU64(args[0]);
        if (count > Integer.MAX_VALUE - 8) {
            die("cilksort n must be below 2^31 - 8 (a Java array)");
        }
        int n = (int) count;
        SplitMix64 rng = new SplitMix64(argU64(args[1]));
        long[] input = new long[n], a = new long[n], tmp = new long[n];
        for (int i = 0; i < n; i++) {
            input[i] = rng.next() ^ Long.MIN_VALUE;
        }
        Runnable reset = () -> {
            System.arraycopy(input, 0, a, 0, n);
            Arrays.fill(tmp, 0);
        };
        Supplier<String> answer = () -> fnv1aWords(n, i -> a[i] ^ Long.MIN_VALUE);
        return new Version[] {
            new Version(reset, () -> new Sort(a, tmp, 0, n).serial(), answer),
            new Version(reset, () -> pool.invoke(new Sort(a, tmp, 0, n)), answer),
        };
    }

    /** The version that counts a uts tree, answering `nodes/leaves/depth`. */
    static Version utsVersion(Supplier<Counts> f) {
        Counts[] c = new Counts[1];
        return new Version(() -> {}, () -> c[0] = f.get(),
                () -> c[0].nodes + "/" + c[0].leaves + "/" + c[0].depth);
    }

    public static void main(String[] argv) {
        if (argv.length < 4) {
            die("usage: Peer <kernel> <workers> <warm-ups> <kernel arguments...>");
        }
        long workers = argU64(argv[1]);
        if (workers < 1 || workers > 4096) {
            die("workers must be in 1..=4096");
        }
        long warmups = argU64(argv[2]);
        if (warmups > 100) {
            die("warm-ups must be in 0..=100");
        }
        ForkJoinPool pool = new ForkJoinPool((int) workers);
        Version[] v = versions(argv[0], Arrays.copyOfRange(argv, 3, argv.length), pool);
        timeRuns("serial", (int) warmups, v[0]);
        timeRuns("parallel", (int) warmups, v[1]);
        pool.shutdown();
    }
}
