// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.Arrays;

/**
 * Highest top over positions: range max, and range raise to a value at least the range's max.
 * Either a plain array of heights (short intervals) or a segment tree whose max-tags need no
 * push-down, bottom-up over a power-of-two leaf row (long intervals). Mirrored by
 * {@code skyline_tree.h}.
 */
final class SkylineTree {
    /**
     * Average interval length up to which the skyline is a plain array (a query or raise walks the
     * interval) rather than a segment tree (two root paths): real graphs' intervals are a few
     * positions long, and the walk is several times faster there.
     */
    static final long FLAT_SKYLINE_LENGTH = 64;

    /**
     * Whether the skyline for these buffers is flat: their average interval, over the buffers with
     * a size, is at most {@link #FLAT_SKYLINE_LENGTH}. The phase driver decides it once, before
     * the rank decodes, in both engines.
     */
    static boolean isFlat(int[] def, int[] useEnd, long[] size) {
        long totalLength = 0;
        int sized = 0;
        for (int i = 0; i < size.length; i++) {
            if (size[i] != 0) {
                totalLength += (long) useEnd[i] - def[i] + 1;
                sized++;
            }
        }
        return totalLength <= FLAT_SKYLINE_LENGTH * Math.max(sized, 1);
    }

    private final boolean flat;
    private final int leaves;
    private final long[] max;
    private final long[] tag;

    SkylineTree(int numPositions, boolean flat) {
        this.flat = flat;
        int l = 1;
        while (l < numPositions) {
            l <<= 1;
        }
        leaves = l;
        max = new long[flat ? numPositions : 2 * l];
        tag = flat ? max : new long[2 * l];
    }

    void reset() {
        Arrays.fill(max, 0);
        Arrays.fill(tag, 0);
    }

    /** The highest top over positions {@code [a, b]}. */
    long max(int a, int b) {
        long result = 0;
        if (flat) {
            for (int t = a; t <= b; t++) {
                result = Math.max(result, max[t]);
            }
            return result;
        }
        int lo = a + leaves;
        int hi = b + leaves + 1;
        for (int i = lo >> 1; i >= 1; i >>= 1) { // tags above the range's ends cover it
            result = Math.max(result, tag[i]);
        }
        for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) {
            result = Math.max(result, tag[i]);
        }
        for (; lo < hi; lo >>= 1, hi >>= 1) {
            if ((lo & 1) != 0) {
                result = Math.max(result, max[lo++]);
            }
            if ((hi & 1) != 0) {
                result = Math.max(result, max[--hi]);
            }
        }
        return result;
    }

    /** Raises positions {@code [a, b]} to {@code value}, which is at least their current max. */
    void raise(int a, int b, long value) {
        if (flat) {
            for (int t = a; t <= b; t++) {
                max[t] = value;
            }
            return;
        }
        int lo = a + leaves;
        int hi = b + leaves + 1;
        for (int i = lo >> 1; i >= 1; i >>= 1) {
            max[i] = Math.max(max[i], value);
        }
        for (int i = (hi - 1) >> 1; i >= 1; i >>= 1) {
            max[i] = Math.max(max[i], value);
        }
        for (; lo < hi; lo >>= 1, hi >>= 1) {
            if ((lo & 1) != 0) {
                max[lo] = Math.max(max[lo], value);
                tag[lo] = Math.max(tag[lo], value);
                lo++;
            }
            if ((hi & 1) != 0) {
                --hi;
                max[hi] = Math.max(max[hi], value);
                tag[hi] = Math.max(tag[hi], value);
            }
        }
    }
}
