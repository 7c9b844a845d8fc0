// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.DataType;

/**
 * The element values {@link TensorInfo} and {@code DenseTensor} carry, read one way in one place:
 * integers (possibly symbolic) or floating-point numbers.
 */
public final class ElementValues {
    private ElementValues() {
    }

    /** The integers as constants, or null when {@code ints} is null or one of them is symbolic. */
    public static long[] constants(SymInt[] ints) {
        if (ints == null) {
            return null;
        }
        long[] out = new long[ints.length];
        for (int i = 0; i < ints.length; i++) {
            if (!ints[i].isConst()) {
                return null;
            }
            out[i] = ints[i].constant();
        }
        return out;
    }

    /** The elements as doubles: {@code floats} when set, else the constant integers, else null. */
    public static double[] numbers(SymInt[] ints, double[] floats) {
        if (floats != null) {
            return floats;
        }
        long[] c = constants(ints);
        if (c == null) {
            return null;
        }
        double[] out = new double[c.length];
        for (int i = 0; i < c.length; i++) {
            out[i] = c[i];
        }
        return out;
    }

    /** Whether {@code type} is an integer type (not bool): what Cast turns values into integers for. */
    public static boolean isInteger(DataType type) {
        return switch (type) {
            case INT64, INT32, INT16, INT8, UINT8, UINT16, UINT32, UINT64 -> true;
            default -> false;
        };
    }
}
