// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/**
 * What one request's owner sizes must be, as the schedule that takes them says: each {@code >= 0},
 * rounded up to {@link #alignment()}, their sum a long. The schedule also names the owner at fault
 * in its own words, so either engine's check throws the same error.
 */
public interface SizeRules {

    /** Every size is rounded up to a multiple of this, {@code >= 1}. */
    long alignment();

    /**
     * The size of {@code owner} rounded up to the alignment.
     *
     * @throws RuntimeException naming the owner when {@code bytes} is negative or cannot be rounded
     */
    long checkedSize(int owner, long bytes);

    /** The error for sizes whose sum overflows a long at {@code owner}. */
    RuntimeException totalOverflow(int owner);

    /**
     * The Java check: a copy of {@code ownerSizes} with each size checked and rounded, the sum
     * checked. A size read once, in the copy, so a caller changing its array cannot unsettle it.
     */
    static long[] checkedCopy(long[] ownerSizes, SizeRules rules) {
        long[] sizes = ownerSizes.clone();
        long alignment = rules.alignment();
        long total = 0;
        for (int o = 0; o < sizes.length; o++) {
            long b = sizes[o];
            if (b < 0 || (alignment != 1 && b % alignment != 0)) {
                b = rules.checkedSize(o, b);
                sizes[o] = b;
            }
            total += b; // both >= 0: a negative sum is an overflow
            if (total < 0) {
                throw rules.totalOverflow(o);
            }
        }
        return sizes;
    }
}
