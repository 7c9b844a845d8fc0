// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * Offsets planning (DESIGN 5b) in pure Java. PLACEHOLDER: stacks every owner on the previous one,
 * a valid but naive arena; the real planner replaces it.
 */
final class OffsetPlanner {
    private OffsetPlanner() {
    }

    /** Plans {@code size.length} intervals; writes offsets and returns {peak, naive, lowerBound}. */
    static long[] plan(int numPositions, int[] def, int[] useEnd, long[] size, int effort, long[] offset) {
        int n = size.length;
        long[] liveDelta = new long[numPositions + 1];
        long naive = 0;
        for (int i = 0; i < n; i++) {
            offset[i] = naive;
            naive += size[i];
            liveDelta[def[i]] += size[i];
            liveDelta[useEnd[i] + 1] -= size[i];
        }
        long live = 0;
        long lower = 0;
        for (int p = 0; p < numPositions; p++) {
            live += liveDelta[p];
            lower = Math.max(lower, live);
        }
        return new long[] {naive, naive, lower};
    }
}
