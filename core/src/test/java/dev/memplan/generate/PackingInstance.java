// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import java.util.Arrays;

/**
 * An interval packing problem: buffers, each live over a half-open range of positions
 * {@code [lower, upper)} and needing {@code size} bytes, to be placed at byte offsets in one arena so
 * that two buffers live at the same position never share a byte. A generated instance also carries
 * a known packing (the witness) that shows how small the arena can be.
 *
 * <p>The engines take inclusive intervals: {@link #defs()} is {@code lower} and {@link #useEnds()}
 * is {@code upper - 1}, ready for {@code PlanningEngine.packOffsets}. Immutable; every array
 * accessor returns a fresh copy.
 */
public final class PackingInstance {
    private final String description;
    private final int numPositions;
    private final int[] lower;
    private final int[] upper;
    private final long[] sizes;
    private final long[] witnessOffsets;
    private final long witnessArenaBytes;

    /**
     * An instance over positions {@code [0, numPositions)}.
     *
     * @param description       what was generated, e.g. {@code hard-packing(seed=3, buffers=236)}
     * @param numPositions      positions, >= 1
     * @param lower             first live position of each buffer (inclusive)
     * @param upper             end of each buffer's life (exclusive), {@code lower < upper <= numPositions}
     * @param sizes             bytes of each buffer, >= 0
     * @param witnessOffsets    a valid offset for each buffer in an arena of {@code witnessArenaBytes}
     * @param witnessArenaBytes the arena size of the witness packing
     * @throws IllegalArgumentException when the arrays disagree in length or a range or size is out of bounds
     */
    public PackingInstance(String description, int numPositions, int[] lower, int[] upper, long[] sizes,
                           long[] witnessOffsets, long witnessArenaBytes) {
        int n = sizes.length;
        if (lower.length != n || upper.length != n || witnessOffsets.length != n) {
            throw new IllegalArgumentException("lower, upper, sizes and witness offsets must have one entry per buffer;"
                    + " got " + lower.length + ", " + upper.length + ", " + n + ", " + witnessOffsets.length);
        }
        if (numPositions < 1) {
            throw new IllegalArgumentException("numPositions must be >= 1, got " + numPositions);
        }
        for (int i = 0; i < n; i++) {
            if (lower[i] < 0 || lower[i] >= upper[i] || upper[i] > numPositions) {
                throw new IllegalArgumentException("buffer " + i + " lives over [" + lower[i] + ", " + upper[i]
                        + "), which is empty or outside [0, " + numPositions + ")");
            }
            if (sizes[i] < 0 || witnessOffsets[i] < 0 || witnessOffsets[i] + sizes[i] > witnessArenaBytes) {
                throw new IllegalArgumentException("buffer " + i + " of " + sizes[i] + " bytes at witness offset "
                        + witnessOffsets[i] + " does not fit the witness arena of " + witnessArenaBytes + " bytes");
            }
        }
        this.description = description;
        this.numPositions = numPositions;
        this.lower = lower.clone();
        this.upper = upper.clone();
        this.sizes = sizes.clone();
        this.witnessOffsets = witnessOffsets.clone();
        this.witnessArenaBytes = witnessArenaBytes;
    }

    /** {@return what was generated and with which parameters} */
    public String description() {
        return description;
    }

    /** {@return the number of buffers} */
    public int size() {
        return sizes.length;
    }

    /** {@return the number of positions: every buffer lives inside {@code [0, numPositions)}} */
    public int numPositions() {
        return numPositions;
    }

    /** {@return the first live position of each buffer (inclusive), by buffer id} */
    public int[] lower() {
        return lower.clone();
    }

    /** {@return the end of each buffer's life (exclusive), by buffer id} */
    public int[] upper() {
        return upper.clone();
    }

    /** {@return the first live position of each buffer: the engines' inclusive {@code def}, equal to {@link #lower()}} */
    public int[] defs() {
        return lower.clone();
    }

    /** {@return the last live position of each buffer: the engines' inclusive {@code useEnd}, {@code upper - 1}} */
    public int[] useEnds() {
        int[] end = new int[upper.length];
        for (int i = 0; i < end.length; i++) {
            end[i] = upper[i] - 1;
        }
        return end;
    }

    /** {@return the bytes of each buffer, by buffer id} */
    public long[] sizes() {
        return sizes.clone();
    }

    /** {@return the offsets of the known packing, by buffer id} */
    public long[] witnessOffsets() {
        return witnessOffsets.clone();
    }

    /** {@return the arena bytes of the known packing: an upper bound on the optimum} */
    public long witnessArenaBytes() {
        return witnessArenaBytes;
    }

    /** {@return the most bytes live at any one position: no packing uses a smaller arena} */
    public long lowerBoundBytes() {
        long[] delta = new long[numPositions + 1];
        for (int i = 0; i < sizes.length; i++) {
            delta[lower[i]] += sizes[i];
            delta[upper[i]] -= sizes[i];
        }
        long live = 0;
        long most = 0;
        for (int p = 0; p < numPositions; p++) {
            live += delta[p];
            most = Math.max(most, live);
        }
        return most;
    }

    @Override
    public String toString() {
        return description + ": " + sizes.length + " buffers over " + numPositions + " positions, bound "
                + lowerBoundBytes() + " bytes, witness arena " + witnessArenaBytes + " bytes";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PackingInstance p && numPositions == p.numPositions
                && witnessArenaBytes == p.witnessArenaBytes && description.equals(p.description)
                && Arrays.equals(lower, p.lower) && Arrays.equals(upper, p.upper) && Arrays.equals(sizes, p.sizes)
                && Arrays.equals(witnessOffsets, p.witnessOffsets);
    }

    @Override
    public int hashCode() {
        return 31 * description.hashCode() + Arrays.hashCode(sizes);
    }
}
