// The `knapsack` kernel of the Java peer (see Peer.java).
package peer;

import static peer.Peer.*;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicLong;

final class KnapsackKernels {
    private KnapsackKernels() {}

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
}
