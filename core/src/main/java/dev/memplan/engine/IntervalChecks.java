// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/** Validates raw interval packing input before either engine plans it. */
final class IntervalChecks {
    private IntervalChecks() {
    }

    /**
     * An offsets plan's effort, on both engines and both paths (schedule and plain intervals): in
     * {@code [0, OffsetsPlan.MAX_EFFORT]}, as the native code requires (MEMPLAN_MAX_EFFORT), so
     * that every budget it scales stays inside a long.
     */
    static void requireEffort(int effort) {
        if (effort < 0 || effort > OffsetsPlan.MAX_EFFORT) {
            throw new IllegalArgumentException("effort must be in [0, " + OffsetsPlan.MAX_EFFORT + "], got " + effort);
        }
    }

    static void check(int numPositions, int[] def, int[] useEnd, long[] sizes, int effort) {
        if (numPositions < 1) {
            throw new IllegalArgumentException("numPositions must be >= 1, got " + numPositions);
        }
        if (def.length != sizes.length || useEnd.length != sizes.length) {
            throw new IllegalArgumentException("def, useEnd and sizes must have one entry per buffer: "
                    + def.length + ", " + useEnd.length + ", " + sizes.length);
        }
        requireEffort(effort);
        long total = 0;
        for (int i = 0; i < sizes.length; i++) {
            if (def[i] < 0 || useEnd[i] < def[i] || useEnd[i] >= numPositions) {
                throw new IllegalArgumentException("buffer " + i + " has the interval [" + def[i] + ", " + useEnd[i]
                        + "], outside [0, " + (numPositions - 1) + "] or reversed");
            }
            if (sizes[i] < 0) {
                throw new IllegalArgumentException("buffer " + i + " has a negative size " + sizes[i]);
            }
            total += sizes[i];
            if (total < 0) {
                throw new ArithmeticException("the buffer sizes overflow a 64-bit byte count at buffer " + i);
            }
        }
    }
}
