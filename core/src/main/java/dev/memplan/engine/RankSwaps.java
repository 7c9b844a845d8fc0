// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * The rank-swap improvement (docs/design.md §5b, step 5): {@link #improve} and its critical rank.
 * Mirrored by {@code rank_swaps.h}.
 */
final class RankSwaps {
    /** Improvement iterations per effort unit above 1. */
    static final long IMPROVE_STEPS_PER_EFFORT = 64;

    private RankSwaps() {
    }

    /**
     * Local search on the rank: swap a buffer that ends at the peak with a random earlier-or-later
     * one and decode again; keep the swap when the arena does not grow. A fixed xorshift sequence
     * makes it deterministic.
     */
    static long improve(CanonicalDecoder canonical, int[] startRanks, long steps, long budget, long bound, long peak,
                        long[] offset, long[] trial) {
        int m = startRanks.length;
        int[] byRank = startRanks.clone();
        long[] kept = trial;
        long current = canonical.decode(byRank, budget, kept);
        if (m < 2 || current < 0) {
            return peak;
        }
        long[] candidate = new long[offset.length];
        long random = 0x9E3779B97F4A7C15L;
        for (long step = 0; step < steps && peak > bound; step++) {
            random = xorshift(random);
            int critical = criticalRank(byRank, kept, canonical.size(), current, random);
            random = xorshift(random);
            int other = (int) Long.remainderUnsigned(random, m);
            if (other == critical) {
                continue;
            }
            swap(byRank, critical, other);
            long p = canonical.decode(byRank, budget, candidate);
            if (p < 0 || p > current) {
                swap(byRank, critical, other);
                continue;
            }
            long[] t = kept;
            kept = candidate;
            candidate = t;
            current = p;
            if (p < peak) {
                peak = p;
                System.arraycopy(kept, 0, offset, 0, offset.length);
            }
        }
        return peak;
    }

    /** A rank whose buffer's top is the arena's top: the ({@code random} mod count)-th such rank. */
    private static int criticalRank(int[] byRank, long[] offset, long[] size, long peak, long random) {
        int count = 0;
        for (int r = 0; r < byRank.length; r++) {
            int b = byRank[r];
            if (offset[b] + size[b] == peak) {
                count++;
            }
        }
        long pick = Long.remainderUnsigned(random, Math.max(count, 1));
        for (int r = 0; r < byRank.length; r++) {
            int b = byRank[r];
            if (offset[b] + size[b] == peak && pick-- == 0) {
                return r;
            }
        }
        return 0;
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    /** One step of the fixed xorshift sequence that makes the swaps deterministic. */
    static long xorshift(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }
}
