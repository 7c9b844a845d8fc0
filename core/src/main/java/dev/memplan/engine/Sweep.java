// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * The sweep best fit (docs/design.md §5b, step 2). Mirrored by {@code sweep.h}.
 *
 * <p>Walks positions in order: at each, places the buffers that start there (ascending index) in
 * the smallest free gap that holds them, else at the top of the arena; then frees the buffers
 * that end there, merging their room with free neighbours. It can pause: {@link #run} stops as
 * soon as the arena passes a limit, and the next call carries on from there.
 */
final class Sweep {
    /** {@link #run}'s limit when it should run to the end, and its result when it paused. */
    static final long NO_LIMIT = Long.MAX_VALUE;
    static final long STOPPED = -1;

    private final int numPositions;
    private final long[] size;
    private final long[] offset;
    private final int[] startOffsets;
    private final int[] starts;
    private final int[] endOffsets;
    private final int[] ends;
    private final GapArena arena;
    /** The position to carry on at, and whether its buffers are already placed. */
    private int position;
    private boolean startsPlaced;
    private long peak;

    Sweep(int numPositions, int[] def, int[] useEnd, long[] size, long[] offset) {
        int n = size.length;
        this.numPositions = numPositions;
        this.size = size;
        this.offset = offset;
        startOffsets = new int[numPositions + 1];
        starts = bucket(numPositions, def, n, startOffsets);
        endOffsets = new int[numPositions + 1];
        ends = bucket(numPositions, useEnd, n, endOffsets);
        long liveSum = 0; // positions each buffer with a size is live, summed
        for (int i = 0; i < n; i++) {
            if (size[i] != 0) {
                liveSum += (long) useEnd[i] - def[i] + 1;
            }
        }
        arena = new GapArena(n, liveSum >= GapArena.CLASSED_AVERAGE_LIVE * numPositions);
    }

    /** The arena, so a test can hold a plan with and without size classes equal. */
    GapArena arena() {
        return arena;
    }

    /**
     * Sweeps on; returns the arena size once every position is done, or {@link #STOPPED} as soon
     * as it exceeds {@code stopAbove} (the offsets are then incomplete).
     */
    long run(long stopAbove) {
        for (; position < numPositions; position++) {
            int p = position;
            if (!startsPlaced) {
                for (int k = startOffsets[p]; k < startOffsets[p + 1]; k++) {
                    int i = starts[k];
                    offset[i] = size[i] == 0 ? 0 : arena.allocate(i, size[i]);
                }
                startsPlaced = true;
                if (arena.top() > peak) {
                    peak = arena.top();
                    if (peak > stopAbove) {
                        return STOPPED;
                    }
                }
            }
            for (int k = endOffsets[p]; k < endOffsets[p + 1]; k++) {
                int i = ends[k];
                if (size[i] != 0) {
                    arena.release(i);
                }
            }
            startsPlaced = false;
        }
        return peak;
    }

    /** Buffers grouped by {@code key[i]} (a position), ascending index within a group: CSR. */
    static int[] bucket(int numPositions, int[] key, int n, int[] offsets) {
        for (int i = 0; i < n; i++) {
            offsets[key[i] + 1]++;
        }
        for (int p = 0; p < numPositions; p++) {
            offsets[p + 1] += offsets[p];
        }
        int[] cursor = Arrays.copyOf(offsets, numPositions);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[cursor[key[i]]++] = i;
        }
        return out;
    }
}
