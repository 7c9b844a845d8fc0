// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.InvalidSizeException;

/**
 * Sums of weight bytes. A total that does not fit a long is an error, never a saturated or
 * wrapped number and never a silently dropped tensor: a model whose weights overflow 2^63 - 1
 * bytes cannot be loaded anywhere, and saying so beats a wrong total.
 */
final class WeightTotals {
    private WeightTotals() {
    }

    /**
     * {@code total + bytes}.
     *
     * @throws InvalidSizeException naming {@code where} when the sum overflows a long
     */
    static long add(long total, long bytes, String where) {
        try {
            return Math.addExact(total, bytes);
        } catch (ArithmeticException e) {
            throw new InvalidSizeException("the weights of " + where + " total more than " + Long.MAX_VALUE
                    + " bytes; the model cannot be loaded (check its initializers and constant shapes)");
        }
    }
}
