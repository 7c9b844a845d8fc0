// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Independent checker of raw interval packings, for tests: every buffer lies inside the arena and
 * no two buffers whose half-open lifetimes {@code [lower, upper)} overlap share a byte. It shares no
 * code with any planner: a sweep over buffers sorted by start, comparing each with the buffers
 * still live.
 */
public final class PackingChecker {
    private PackingChecker() {
    }

    /**
     * Checks a packing of buffers {@code i} live over {@code [lower[i], upper[i])} with
     * {@code sizes[i]} bytes at {@code offsets[i]} in an arena of {@code arenaBytes}.
     *
     * @throws AssertionError naming the first buffers at fault
     */
    public static void check(int[] lower, int[] upper, long[] sizes, long[] offsets, long arenaBytes) {
        int n = sizes.length;
        if (lower.length != n || upper.length != n || offsets.length != n) {
            throw new AssertionError("one lower, upper, size and offset per buffer: " + lower.length + ", "
                    + upper.length + ", " + n + ", " + offsets.length);
        }
        for (int i = 0; i < n; i++) {
            if (offsets[i] < 0 || offsets[i] + sizes[i] > arenaBytes) {
                throw new AssertionError("buffer " + i + " [" + offsets[i] + ", " + (offsets[i] + sizes[i])
                        + ") lies outside the arena of " + arenaBytes + " bytes");
            }
        }
        Integer[] byStart = new Integer[n];
        for (int i = 0; i < n; i++) {
            byStart[i] = i;
        }
        Arrays.sort(byStart, Comparator.comparingInt(i -> lower[i]));
        List<Integer> live = new ArrayList<>();
        for (int b : byStart) {
            live.removeIf(q -> upper[q] <= lower[b]);
            for (int q : live) {
                boolean bytesOverlap = offsets[q] < offsets[b] + sizes[b] && offsets[b] < offsets[q] + sizes[q];
                if (bytesOverlap && sizes[b] > 0 && sizes[q] > 0) {
                    throw new AssertionError("buffers " + q + " and " + b + " are both live at position " + lower[b]
                            + " and share bytes: [" + offsets[q] + ", " + (offsets[q] + sizes[q]) + ") and ["
                            + offsets[b] + ", " + (offsets[b] + sizes[b]) + ")");
                }
            }
            live.add(b);
        }
    }
}
