// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * Greedy by size with first fit on wide graphs, then window swaps (docs/design.md §5b, steps 3
 * and 6; mirrored by {@code window_fit.h}). {@link FirstFit} finds a buffer's placed neighbours
 * through per-position lists, which cost the live count at every position of its interval; here
 * the sized buffers sit in order of start (ties by index), and a buffer's neighbours are among those
 * that start at most the longest interval before it and no later than its end: a slice of that
 * order, found from a table of where each position's starts begin. The slice's placed overlapping
 * buffers are sorted by offset and the first gap that holds the buffer is taken, as in
 * {@link FirstFit}; the lowest fitting offset does not depend on how ties are ordered.
 *
 * <p>{@link #improve} then works where the arena's top is: the {@link #WINDOW_BUFFERS} buffers
 * around the one with the highest top (in start order) are taken out, the top one's rank is
 * swapped with that of a random other in the window that lives at the same time, and the window is placed again by first fit around
 * the buffers left in place; the swap is kept when the window's highest top does not grow. Random
 * packing problems are time-local: the arena is set by a few windows, and a window holds few
 * buffers. Both phases count the slice entries they visit, never time.
 */
final class WindowFit {
    /** The fit runs while its slices hold at most this many entries per buffer and effort unit. */
    static final long VISITS_PER_BUFFER = 1_024;
    /** The window swaps may visit this many slice entries per buffer and effort unit. */
    static final long SWAP_VISITS_PER_BUFFER = 256;
    /** At most this many window swaps per effort unit. */
    static final long SWAP_STEPS_PER_EFFORT = 512;
    /** Buffers taken out and placed again per window swap. */
    static final int WINDOW_BUFFERS = 2_048;

    /** The sized buffers in order of start (ties by index), and their arrays in that order. */
    private final int[] order;
    private final int[] defO;
    private final int[] endO;
    private final long[] sizeO;
    /** Offsets in start order; {@code placed} says which count as neighbours. */
    private final long[] offsetO;
    private final boolean[] placed;
    /** Where the starts at position p begin in {@code order}: {@code startAt[p]}, for p in [0, P]. */
    private final int[] startAt;
    private final int maxLength;
    /** Each buffer's place in the fit's rank, in start order. */
    private final int[] rankO;
    /** A placement's neighbours: offsets and tops, sorted together. */
    private long[] neighbourOffset;
    private long[] neighbourTop;
    private long visits;

    /** Sets up the start order of the sized buffers of an instance with {@code numPositions} positions. */
    WindowFit(int numPositions, int[] def, int[] useEnd, long[] size) {
        int n = size.length;
        startAt = new int[numPositions + 1];
        int m = 0;
        int longest = 0;
        for (int i = 0; i < n; i++) {
            if (size[i] != 0) {
                startAt[def[i] + 1]++;
                m++;
                longest = Math.max(longest, useEnd[i] - def[i]);
            }
        }
        maxLength = longest;
        for (int p = 0; p < numPositions; p++) {
            startAt[p + 1] += startAt[p];
        }
        order = new int[m];
        int[] cursor = Arrays.copyOf(startAt, numPositions);
        for (int i = 0; i < n; i++) {
            if (size[i] != 0) {
                order[cursor[def[i]]++] = i;
            }
        }
        defO = new int[m];
        endO = new int[m];
        sizeO = new long[m];
        for (int k = 0; k < m; k++) {
            int b = order[k];
            defO[k] = def[b];
            endO[k] = useEnd[b];
            sizeO[k] = size[b];
        }
        offsetO = new long[m];
        placed = new boolean[m];
        rankO = new int[m];
        neighbourOffset = new long[16];
        neighbourTop = new long[16];
    }

    /**
     * The slice entries the fit would visit: for every sized buffer, the buffers that start from
     * the longest interval before it up to its end. Counted from the starts per position alone.
     */
    static long visitsFor(int numPositions, int[] def, int[] useEnd, long[] size) {
        long[] startsBefore = new long[numPositions + 1];
        int longest = 0;
        for (int i = 0; i < size.length; i++) {
            if (size[i] != 0) {
                startsBefore[def[i] + 1]++;
                longest = Math.max(longest, useEnd[i] - def[i]);
            }
        }
        for (int p = 0; p < numPositions; p++) {
            startsBefore[p + 1] += startsBefore[p];
        }
        long total = 0;
        for (int i = 0; i < size.length; i++) {
            if (size[i] != 0) {
                total += startsBefore[useEnd[i] + 1] - startsBefore[Math.max(0, def[i] - longest)];
            }
        }
        return total;
    }

    /** Whether the fit runs for {@code n} buffers at {@code effort}, given {@link #visitsFor}. */
    static boolean runs(long visits, int n, int effort) {
        return effort >= 1 && visits <= effort * VISITS_PER_BUFFER * n;
    }

    /**
     * Places the sized buffers of {@code byRank} (all of them, in rank order) by first fit; writes
     * every offset (0 for the empty buffers) and returns the arena size.
     */
    long place(int[] byRank, long[] offset) {
        int m = order.length;
        int[] inOrder = new int[offset.length];
        for (int k = 0; k < m; k++) {
            inOrder[order[k]] = k;
        }
        Arrays.fill(placed, false);
        long peak = 0;
        for (int r = 0; r < byRank.length; r++) {
            int k = inOrder[byRank[r]];
            rankO[k] = r;
            offsetO[k] = lowestFit(k);
            placed[k] = true;
            peak = Math.max(peak, offsetO[k] + sizeO[k]);
        }
        write(offset);
        return peak;
    }

    /**
     * Window swaps on the fit's plan, while its arena stays above {@code bound}, for at most
     * {@code steps} swaps and {@code budget} slice entries visited. Writes the plan to
     * {@code offset} and returns its arena size.
     */
    long improve(long steps, long budget, long bound, long[] offset) {
        int m = order.length;
        long peak = topOf(m);
        if (m < 2) {
            write(offset);
            return peak;
        }
        int window = Math.min(WINDOW_BUFFERS, m);
        long[] keys = new long[window];
        long[] saved = new long[window];
        long random = 0x9E3779B97F4A7C15L;
        visits = 0;
        for (long step = 0; step < steps && peak > bound && visits <= budget; step++) {
            int top = 0;
            for (int k = 1; k < m; k++) {
                if (offsetO[k] + sizeO[k] > offsetO[top] + sizeO[top]) {
                    top = k;
                }
            }
            int from = Math.max(0, Math.min(top - window / 2, m - window));
            random = RankSwaps.xorshift(random);
            int other = overlapping(top, from, window, random);
            if (other < 0) {
                continue;
            }
            long before = 0;
            for (int j = 0; j < window; j++) {
                int k = from + j;
                before = Math.max(before, offsetO[k] + sizeO[k]);
                saved[j] = offsetO[k];
                placed[k] = false;
            }
            swapRanks(top, other);
            for (int j = 0; j < window; j++) {
                keys[j] = ((long) rankO[from + j] << 32) | j;
            }
            Arrays.sort(keys, 0, window);
            long after = 0;
            for (int j = 0; j < window; j++) {
                int k = from + (int) keys[j];
                offsetO[k] = lowestFit(k);
                placed[k] = true;
                after = Math.max(after, offsetO[k] + sizeO[k]);
            }
            if (after > before) {
                swapRanks(top, other);
                for (int j = 0; j < window; j++) {
                    offsetO[from + j] = saved[j];
                }
            } else if (after < before && before == peak) {
                peak = topOf(m);
            }
        }
        write(offset);
        return peak;
    }

    /**
     * The ({@code random} mod count)-th buffer of the window {@code [from, from + window)} other
     * than {@code top} that lives at the same time as it, or -1 if none does.
     */
    private int overlapping(int top, int from, int window, long random) {
        int count = 0;
        for (int k = from; k < from + window; k++) {
            if (k != top && defO[k] <= endO[top] && endO[k] >= defO[top]) {
                count++;
            }
        }
        if (count == 0) {
            return -1;
        }
        long pick = Long.remainderUnsigned(random, count);
        for (int k = from; k < from + window; k++) {
            if (k != top && defO[k] <= endO[top] && endO[k] >= defO[top] && pick-- == 0) {
                return k;
            }
        }
        return -1;
    }

    private void swapRanks(int a, int b) {
        int t = rankO[a];
        rankO[a] = rankO[b];
        rankO[b] = t;
    }

    private long topOf(int m) {
        long peak = 0;
        for (int k = 0; k < m; k++) {
            peak = Math.max(peak, offsetO[k] + sizeO[k]);
        }
        return peak;
    }

    private void write(long[] offset) {
        Arrays.fill(offset, 0);
        for (int k = 0; k < order.length; k++) {
            offset[order[k]] = offsetO[k];
        }
    }

    /** The lowest offset where buffer {@code k} (start order) overlaps no placed buffer live with it. */
    private long lowestFit(int k) {
        int d = defO[k];
        int from = startAt[Math.max(0, d - maxLength)];
        int to = startAt[endO[k] + 1];
        visits += to - from;
        int count = 0;
        for (int y = from; y < to; y++) {
            if (placed[y] && endO[y] >= d) {
                if (count == neighbourOffset.length) {
                    neighbourOffset = Arrays.copyOf(neighbourOffset, count * 2);
                    neighbourTop = Arrays.copyOf(neighbourTop, count * 2);
                }
                neighbourOffset[count] = offsetO[y];
                neighbourTop[count] = offsetO[y] + sizeO[y];
                count++;
            }
        }
        sortPairs(neighbourOffset, neighbourTop, 0, count);
        long lowest = 0;
        for (int j = 0; j < count; j++) {
            if (neighbourOffset[j] - lowest >= sizeO[k]) {
                break;
            }
            lowest = Math.max(lowest, neighbourTop[j]);
        }
        return lowest;
    }

    /** Sorts {@code key[from, to)} ascending, moving {@code value} along (quicksort, insertion sort below 17). */
    static void sortPairs(long[] key, long[] value, int from, int to) {
        while (to - from > 16) {
            long pivot = key[(from + to) >>> 1];
            int i = from;
            int j = to - 1;
            while (i <= j) {
                while (key[i] < pivot) {
                    i++;
                }
                while (key[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    long t = key[i];
                    key[i] = key[j];
                    key[j] = t;
                    t = value[i];
                    value[i] = value[j];
                    value[j] = t;
                    i++;
                    j--;
                }
            }
            if (j - from < to - i) {
                sortPairs(key, value, from, j + 1);
                from = i;
            } else {
                sortPairs(key, value, i, to);
                to = j + 1;
            }
        }
        for (int i = from + 1; i < to; i++) {
            long k = key[i];
            long v = value[i];
            int j = i - 1;
            while (j >= from && key[j] > k) {
                key[j + 1] = key[j];
                value[j + 1] = value[j];
                j--;
            }
            key[j + 1] = k;
            value[j + 1] = v;
        }
    }
}
