// offshoot-bench peer: Java with a ForkJoinPool (written for offshoot, not copied from anywhere).
//
// Usage: java -cp <classes> peer.Peer <kernel> <workers> <warm-ups> <kernel arguments...>
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
// Each kernel family is a class of its own in this package (FibKernels.java,
// RingKernels.java, ...); this file is the driver, with what they share.
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

package peer;

import static peer.FibKernels.*;
import static peer.RingKernels.*;
import static peer.NQueensKernels.*;
import static peer.ParForKernels.*;
import static peer.MatMulKernels.*;
import static peer.TreeSumKernels.*;
import static peer.KnapsackKernels.*;
import static peer.CilksortKernels.*;
import static peer.UtsKernels.*;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

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

    /** Runs `f` on a worker of `pool` (a parallel stream there forks into that pool). */
    static long inPool(ForkJoinPool pool, LongSupplier f) {
        try {
            return pool.submit(f::getAsLong).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
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
                    returning(() -> ringRounds(rounds, laps, RingKernels::ringSerialRound), true)
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
