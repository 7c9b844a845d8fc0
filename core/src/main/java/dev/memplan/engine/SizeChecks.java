// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;

/**
 * Checks one request's owner sizes before either engine allocates: both engines accept only
 * sizes >= 0 whose sum fits in a long, so no caller of the engine classes gets a wrapped total.
 */
final class SizeChecks {
    private SizeChecks() {
    }

    /** At least {@code n} sizes remain in {@code sizes}: the check before any copy of them. */
    static void requireCount(LongBuffer sizes, int n) {
        if (sizes.remaining() < n) {
            throw new IllegalArgumentException("expected " + n + " owner sizes, got " + sizes.remaining());
        }
    }

    /**
     * Checks the first {@code n} sizes of {@code sizes} from its position.
     *
     * @throws IllegalArgumentException when fewer than {@code n} remain, a size is negative, or
     *                                  the buffer faults (a mapped file that shrank)
     * @throws ArithmeticException      when the sum overflows a signed 64-bit byte count
     */
    static void check(LongBuffer sizes, int n) {
        requireCount(sizes, n);
        int base = sizes.position();
        long total = 0;
        for (int o = 0; o < n; o++) {
            long b;
            try {
                b = sizes.get(base + o);
            } catch (InternalError e) {
                throw faulted(e);
            }
            if (b < 0) {
                throw new IllegalArgumentException("owner " + o + " has a negative size " + b + "; sizes are >= 0");
            }
            total += b; // both >= 0: a negative sum is an overflow
            if (total < 0) {
                throw new ArithmeticException("the owner sizes overflow a 64-bit byte count at owner " + o);
            }
        }
    }

    /**
     * The error for a sizes buffer that faulted when read: the JVM reports a lost page of a
     * mapped file (truncated after it was mapped) as an {@code InternalError}.
     */
    static IllegalArgumentException faulted(InternalError e) {
        return new IllegalArgumentException("the owner sizes could not be read: their buffer maps a file that"
                + " shrank after it was mapped (" + e.getMessage() + ")", e);
    }
}
