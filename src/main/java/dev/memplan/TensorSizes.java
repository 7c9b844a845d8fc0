// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Graph.Value;
import java.util.Map;
import java.util.OptionalLong;

/** Byte sizes of tensors from their type and shape. */
final class TensorSizes {
    private TensorSizes() {
    }

    /**
     * The bytes of {@code value} with its symbols replaced by {@code bindings}: empty when a symbol
     * is unbound or the type has no fixed width (strings).
     *
     * @param value the value
     * @param bindings symbol name to value
     * @return the size in bytes, or empty
     * @throws InvalidSizeException naming the value when the size overflows a long or a dim
     *                              evaluates negative
     */
    static OptionalLong bytes(Value value, Map<String, Long> bindings) {
        if (!value.dataType().hasFixedWidth()) {
            return OptionalLong.empty();
        }
        OptionalLong count;
        try {
            count = value.shape().elementCount(bindings);
        } catch (ArithmeticException e) {
            throw new InvalidSizeException("the size of " + value.describe() + " with shape " + value.shape()
                    + " cannot be computed (" + e.getMessage() + "); check its dims and the symbol bindings");
        }
        if (count.isEmpty()) {
            return count;
        }
        return OptionalLong.of(packedBytes(count.getAsLong(), value.dataType().bits(), value));
    }

    /** {@code ceil(count * bits / 8)} without intermediate overflow. */
    static long packedBytes(long count, int bits, Value value) {
        try {
            if (bits % 8 == 0) {
                return Math.multiplyExact(count, bits / 8);
            }
            // Sub-byte types pack: whole groups of 8 elements take `bits` bytes.
            long whole = Math.multiplyExact(count / 8, bits);
            long rest = ((count % 8) * bits + 7) / 8;
            return Math.addExact(whole, rest);
        } catch (ArithmeticException e) {
            throw overflow(value, count + " elements of " + value.dataType());
        }
    }

    /** {@code bytes} rounded up to a multiple of {@code alignment}. */
    static long align(long bytes, long alignment, Value value) {
        if (alignment == 1) {
            return bytes;
        }
        long rem = bytes % alignment;
        if (rem == 0) {
            return bytes;
        }
        try {
            return Math.addExact(bytes, alignment - rem);
        } catch (ArithmeticException e) {
            throw overflow(value, bytes + " bytes aligned to " + alignment);
        }
    }

    static InvalidSizeException overflow(Value value, String what) {
        return new InvalidSizeException("the size of " + value.describe() + " overflows a 64-bit byte count ("
                + what + "); check its shape " + value.shape() + " and the symbol bindings");
    }
}
