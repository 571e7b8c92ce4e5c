// The `cilksort` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.function.Supplier;

final class CilksortKernels {
    private CilksortKernels() {}

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
}
