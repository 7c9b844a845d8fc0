// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.read;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.symbols.ElementValues;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * A small tensor whose shape is static and whose every element is known, row-major: integers
 * (possibly symbolic, as {@link SymInt}) or floating-point numbers. What constant folding computes
 * on; at most {@link TensorInfo#MAX_TRACKED_ELEMENTS} elements.
 *
 * @param type   element type
 * @param shape  static extents
 * @param ints   the elements of an integer or boolean tensor, or null
 * @param floats the elements of a floating-point tensor, or null (exactly one of the two is set)
 */
public record DenseTensor(DataType type, long[] shape, SymInt[] ints, double[] floats) {

    /** {@code t} as a dense tensor, or null when its shape is symbolic or a value is unknown. */
    public static DenseTensor of(TensorInfo t) {
        if (t == null || !t.isStaticShape()) {
            return null;
        }
        long[] shape = new long[t.rank()];
        long n = 1;
        for (int i = 0; i < shape.length; i++) {
            shape[i] = ((Dim.Fixed) t.shape.get(i)).extent();
            n *= Math.min(shape[i], TensorInfo.MAX_TRACKED_ELEMENTS + 1L);
            if (n > TensorInfo.MAX_TRACKED_ELEMENTS) {
                return null;
            }
        }
        if (t.ints != null && t.ints.length == n) {
            return new DenseTensor(t.type, shape, t.ints, null);
        }
        if (t.floats != null && t.floats.length == n) {
            return new DenseTensor(t.type, shape, null, t.floats);
        }
        return null;
    }

    /** Element count, or -1 when it exceeds {@link TensorInfo#MAX_TRACKED_ELEMENTS}. */
    public static int count(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                return -1;
            }
            n *= Math.min(d, TensorInfo.MAX_TRACKED_ELEMENTS + 1L);
            if (n > TensorInfo.MAX_TRACKED_ELEMENTS) {
                return -1;
            }
        }
        return (int) n;
    }

    public int size() {
        return ints != null ? ints.length : floats.length;
    }

    public int rank() {
        return shape.length;
    }

    /** The elements as exact integers, or null when one is symbolic or the tensor is floating. */
    public long[] constInts() {
        return ElementValues.constants(ints);
    }

    /** The values as doubles (from ints or floats), or null. */
    public double[] numbers() {
        return ElementValues.numbers(ints, floats);
    }

    /** A tensor of {@code newShape} whose element {@code i} is this tensor's {@code source[i]}. */
    public DenseTensor pick(long[] newShape, int[] source) {
        if (ints != null) {
            SymInt[] out = new SymInt[source.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = ints[source[i]];
            }
            return new DenseTensor(type, newShape, out, null);
        }
        double[] out = new double[source.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = floats[source[i]];
        }
        return new DenseTensor(type, newShape, null, out);
    }

    public DenseTensor withShape(long[] newShape) {
        return new DenseTensor(type, newShape, ints, floats);
    }

    public TensorInfo toInfo() {
        List<Dim> dims = new ArrayList<>(shape.length);
        for (long d : shape) {
            dims.add(Dim.of(d));
        }
        return new TensorInfo(type, dims, ints, floats);
    }

    /** Row-major strides of {@code shape}, in elements. */
    public static int[] strides(long[] shape) {
        int[] s = new int[shape.length];
        int acc = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= (int) shape[i];
        }
        return s;
    }

    /** The coordinates of flat index {@code flat} in {@code shape}, written into {@code coords}. */
    public static void coordinates(int flat, long[] shape, int[] coords) {
        for (int i = shape.length - 1; i >= 0; i--) {
            coords[i] = (int) (flat % shape[i]);
            flat /= (int) shape[i];
        }
    }
}
