// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Reference offsets packer for tests: greedy by size with best fit, as TFLite's arena planner and
 * its GPU delegate's GreedyBySizeAssignment do. Buffers go in order of size descending (ties:
 * longer lifetime first, then lower id); each takes the smallest gap between the placed buffers
 * whose lifetimes overlap its own that fits it (ties: lowest offset), or else sits just above the
 * highest of them. O(n^2 log n): a yardstick, not a planner.
 */
public final class GreedyBySizePacker {
    private GreedyBySizePacker() {
    }

    /**
     * Offsets for buffers live over {@code [lower[i], upper[i])} (half-open) of {@code sizes[i]} bytes.
     *
     * @return the offset of each buffer, by id
     */
    public static long[] pack(int[] lower, int[] upper, long[] sizes) {
        int n = sizes.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> -sizes[i])
                .thenComparingInt(i -> -(upper[i] - lower[i])).thenComparingInt(i -> i));
        long[] offset = new long[n];
        List<Integer> placed = new ArrayList<>();
        for (int b : order) {
            List<long[]> taken = new ArrayList<>();
            for (int q : placed) {
                if (lower[q] < upper[b] && lower[b] < upper[q] && sizes[q] > 0) {
                    taken.add(new long[] {offset[q], offset[q] + sizes[q]});
                }
            }
            taken.sort(Comparator.comparingLong(r -> r[0]));
            long top = 0;
            long best = -1;
            long bestGap = Long.MAX_VALUE;
            for (long[] r : taken) {
                long gap = r[0] - top;
                if (gap >= sizes[b] && gap < bestGap) {
                    bestGap = gap;
                    best = top;
                }
                top = Math.max(top, r[1]);
            }
            offset[b] = best >= 0 ? best : top;
            placed.add(b);
        }
        return offset;
    }

    /** The arena a packing needs: the highest {@code offset + size}, 0 for no buffers. */
    public static long arenaBytes(long[] offsets, long[] sizes) {
        long arena = 0;
        for (int i = 0; i < sizes.length; i++) {
            arena = Math.max(arena, offsets[i] + sizes[i]);
        }
        return arena;
    }
}
