// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * What the search phases would cost, from one pass over the buffers with a size: the fit's
 * {@code entries} (its per-position lists: the buffers live at each position, summed) and
 * {@code work} (the placed neighbours it would scan: each position's live count squared,
 * summed), and the canonical decoder's heap pops, forecast from {@code entries}
 * (docs/design.md §5b, step 3). Mirrored by {@code search_cost.h}.
 */
record SearchCost(long entries, long work, long sized) {
    /**
     * The fit phase's limits: its per-position lists hold at most this many entries per buffer
     * (an average interval of 8 positions; they are sized once for the schedule), and its scans
     * of placed neighbours cost at most this much per buffer and effort unit.
     */
    static final long FIT_ENTRIES_PER_BUFFER = 8;
    static final long FIT_WORK_PER_BUFFER = 64;

    static SearchCost of(int numPositions, int[] def, int[] useEnd, long[] size) {
        int[] delta = new int[numPositions + 1];
        long sized = 0;
        for (int i = 0; i < size.length; i++) {
            if (size[i] != 0) {
                delta[def[i]]++;
                delta[useEnd[i] + 1]--;
                sized++;
            }
        }
        long live = 0;
        long entries = 0;
        long work = 0;
        for (int p = 0; p < numPositions; p++) {
            live += delta[p];
            entries += live;
            work = Math.min(work + live * live, WORK_CAP); // live * live <= 2^60: no overflow
        }
        return new SearchCost(entries, work, sized);
    }

    /** Where {@code work} saturates: far above any budget, and the sum cannot overflow. */
    static final long WORK_CAP = Long.MAX_VALUE / 2;

    /** Whether the fit phase runs for {@code n} buffers at {@code effort}; its lists must fit an int array. */
    boolean fitRuns(int n, int effort) {
        return entries <= FIT_ENTRIES_PER_BUFFER * n && entries <= Integer.MAX_VALUE
                && work <= effort * FIT_WORK_PER_BUFFER * n;
    }

    /**
     * A cheap forecast of a canonical decode's heap pops: each buffer is popped once, plus once
     * per raise under it before its turn, which grows with how many buffers are live together.
     * Wide graphs (thousands live at once) would re-evaluate keys hundreds of times per buffer;
     * the forecast lets them keep the sweep's plan instead of spending the budget to find out.
     */
    long expectedPops(int numPositions) {
        long averageLive = entries / numPositions;
        return sized * (2 + averageLive / 8);
    }
}
