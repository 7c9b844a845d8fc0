// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * MiniMalloc's canonical decoder: places buffers in non-decreasing offset, each at the highest
 * top of the placed buffers over its interval. A min-heap of ranks keyed by each buffer's last
 * known lowest offset picks the next one; a popped key that went stale is refreshed and pushed
 * back (tops only rise, so stale keys are lower bounds). Each heap entry keeps its key beside
 * it ({@code heapKey[i]} belongs to {@code heapRank[i]}), so a sift reads neighbouring slots
 * rather than a key per rank somewhere else. Mirrored by {@code canonical_decoder.h}
 * (docs/design.md §5b, step 4).
 */
final class CanonicalDecoder {
    /**
     * Ranked buffers from which a rank decode first forecasts its pops from a sample
     * ({@link #sampleFits}), and about how many buffers the sample holds: a decode that would run
     * out of its pops is then skipped rather than spent to find out, which at a million random
     * buffers cost most of a default plan (docs/design.md §5b, step 4).
     */
    static final int SAMPLE_MIN_BUFFERS = 1 << 18;
    static final int SAMPLE_BUFFERS = 1 << 14;

    private final int[] def;
    private final int[] useEnd;
    private final long[] size;
    private final SkylineTree skyline;
    private final int[] heapRank;
    private final long[] heapKey;
    private long pops;

    /** A decoder of these buffers over {@code skyline}, which the phase driver sized and made flat or not. */
    CanonicalDecoder(int[] def, int[] useEnd, long[] size, SkylineTree skyline) {
        this.def = def;
        this.useEnd = useEnd;
        this.size = size;
        this.skyline = skyline;
        this.heapRank = new int[size.length];
        this.heapKey = new long[size.length];
    }

    /** The sizes it decodes, for the rank swaps' critical rank. */
    long[] size() {
        return size;
    }

    /** Places the buffers of {@code byRank}; returns the arena size, or -1 past {@code budget} pops. */
    long decode(int[] byRank, long budget, long[] offset) {
        int m = byRank.length;
        skyline.reset();
        Arrays.fill(offset, 0);
        pops = 0;
        long peak = 0;
        // Level 0 in rank order: what the heap would pop while every key is still 0. Buffers
        // whose interval already holds a top wait in the heap under their lowest offset.
        int heapSize = 0;
        for (int r = 0; r < m; r++) {
            if (++pops > budget) {
                return -1;
            }
            int b = byRank[r];
            long lowest = skyline.max(def[b], useEnd[b]);
            if (lowest != 0) {
                siftUp(lowest, r, heapSize++);
                continue;
            }
            skyline.raise(def[b], useEnd[b], size[b]);
            peak = Math.max(peak, size[b]);
        }
        while (heapSize > 0) {
            if (++pops > budget) {
                return -1;
            }
            int r = heapRank[0];
            int b = byRank[r];
            long lowest = skyline.max(def[b], useEnd[b]);
            if (lowest != heapKey[0]) {
                siftDown(lowest, r, heapSize);
                continue;
            }
            heapSize--;
            if (heapSize > 0) {
                siftDown(heapKey[heapSize], heapRank[heapSize], heapSize);
            }
            offset[b] = lowest;
            long topOfB = lowest + size[b];
            skyline.raise(def[b], useEnd[b], topOfB);
            if (topOfB > peak) {
                peak = topOfB;
            }
        }
        return peak;
    }

    /**
     * Whether a decode of {@code byRank} is forecast to stay within {@code budget} pops, from a
     * sample: the ranked buffers that end before the first position by which
     * {@link #SAMPLE_BUFFERS} of them have ended, decoded alone in the same rank order, must fit
     * their share of the budget. On a time slice the decoder meets the same density of buffers
     * live together as on the whole, so it pops about as often per buffer. Below
     * {@link #SAMPLE_MIN_BUFFERS} ranked buffers, or when the slice holds more than a quarter of
     * them, there is no sample and the decode runs.
     */
    static boolean sampleFits(int numPositions, int[] def, int[] useEnd, long[] size, boolean flat, int[] byRank,
                              long budget) {
        int m = byRank.length;
        if (m < SAMPLE_MIN_BUFFERS) {
            return true;
        }
        int[] endsAt = new int[numPositions];
        for (int r = 0; r < m; r++) {
            endsAt[useEnd[byRank[r]]]++;
        }
        int w = 0;
        long k = 0;
        while (k < SAMPLE_BUFFERS && w < numPositions) {
            k += endsAt[w++];
        }
        if (k * 4 > m) {
            return true;
        }
        // The slice's buffers, indexed by their place in the rank order, so its rank order is 0, 1, 2...
        int[] sliceDef = new int[(int) k];
        int[] sliceUseEnd = new int[(int) k];
        long[] sliceSize = new long[(int) k];
        int[] sliceRank = new int[(int) k];
        int j = 0;
        for (int r = 0; r < m; r++) {
            int b = byRank[r];
            if (useEnd[b] < w) {
                sliceDef[j] = def[b];
                sliceUseEnd[j] = useEnd[b];
                sliceSize[j] = size[b];
                sliceRank[j] = j;
                j++;
            }
        }
        long share = budget / m * k + budget % m * k / m; // budget * k / m without overflow
        CanonicalDecoder slice = new CanonicalDecoder(sliceDef, sliceUseEnd, sliceSize, new SkylineTree(w, flat));
        return slice.decode(sliceRank, share, new long[(int) k]) >= 0;
    }

    /** Puts rank {@code r} with key {@code k} at hole {@code i} (the heap's end) and sifts it up. */
    private void siftUp(long k, int r, int i) {
        while (i > 0) {
            int parent = (i - 1) >> 1;
            if (!entryLess(k, r, heapKey[parent], heapRank[parent])) {
                break;
            }
            heapRank[i] = heapRank[parent];
            heapKey[i] = heapKey[parent];
            i = parent;
        }
        heapRank[i] = r;
        heapKey[i] = k;
    }

    /** Heap pops the last decode spent. */
    long pops() {
        return pops;
    }

    /** Heap order: key, then rank. A total order, so both engines pop the same sequence. */
    private static boolean entryLess(long keyA, int rankA, long keyB, int rankB) {
        return keyA < keyB || (keyA == keyB && rankA < rankB);
    }

    /** Puts rank {@code r} with key {@code k} at the root and sifts it down a heap of {@code heapSize}. */
    private void siftDown(long k, int r, int heapSize) {
        // Floyd's bottom-up sift: walk the hole down to a leaf along the smaller children (one
        // comparison a level), then bring r up from there. A refreshed key only rose, so r
        // usually belongs deep, and this halves the comparisons of the textbook sift. The heap
        // holds the same set either way and its order is total, so pops come out the same.
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= heapSize) {
                break;
            }
            if (c + 1 < heapSize && entryLess(heapKey[c + 1], heapRank[c + 1], heapKey[c], heapRank[c])) {
                c++;
            }
            heapRank[i] = heapRank[c];
            heapKey[i] = heapKey[c];
            i = c;
        }
        siftUp(k, r, i);
    }
}
