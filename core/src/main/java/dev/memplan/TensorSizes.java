// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Map;
import java.util.OptionalLong;

/**
 * Byte sizes of tensors from their type and shape: the planner's size rule, behind
 * a value's {@code bytesAt}. It names no value, so the graph can use it without a loop; its
 * callers turn {@link Overflow} into an {@link InvalidSizeException} that names the value.
 */
final class TensorSizes {
    private TensorSizes() {
    }

    /** A byte count past a long; the message says what overflowed, the caller names the value. */
    static final class Overflow extends ArithmeticException {
        private static final long serialVersionUID = 1L;

        Overflow(String what) {
            super(what);
        }
    }

    /**
     * The bytes of a tensor of {@code type} and {@code shape} with its symbols replaced by
     * {@code bindings}: empty when a symbol is unbound or the type has no fixed width (strings).
     *
     * @throws Overflow when the byte count overflows a long
     * @throws ArithmeticException when the element count cannot be computed
     */
    static OptionalLong bytes(DataType type, Shape shape, Map<String, Long> bindings) {
        if (!type.hasFixedWidth()) {
            return OptionalLong.empty();
        }
        OptionalLong count = shape.elementCount(bindings);
        if (count.isEmpty()) {
            return count;
        }
        return OptionalLong.of(packedBytes(count.getAsLong(), type));
    }

    /** {@code ceil(count * bits / 8)} without intermediate overflow. */
    static long packedBytes(long count, DataType type) {
        int bits = type.bits();
        try {
            if (bits % 8 == 0) {
                return Math.multiplyExact(count, bits / 8);
            }
            // Sub-byte types pack: whole groups of 8 elements take `bits` bytes.
            long whole = Math.multiplyExact(count / 8, bits);
            long rest = ((count % 8) * bits + 7) / 8;
            return Math.addExact(whole, rest);
        } catch (ArithmeticException e) {
            throw new Overflow(count + " elements of " + type);
        }
    }

    /**
     * {@code bytes} rounded up to a multiple of {@code alignment}.
     *
     * @throws Overflow when the rounded count overflows a long
     */
    static long align(long bytes, long alignment) {
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
            throw new Overflow(bytes + " bytes aligned to " + alignment);
        }
    }

    /** The error for the value {@code described}, of {@code shape}, whose size overflowed as {@code e} says. */
    static InvalidSizeException overflow(String described, Shape shape, Overflow e) {
        return new InvalidSizeException("the size of " + described + " overflows a 64-bit byte count ("
                + e.getMessage() + "); check its shape " + shape + " and the symbol bindings");
    }
}
