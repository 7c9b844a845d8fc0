// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.symbols;

import dev.memplan.DataType;
import dev.memplan.Dim;
import java.util.List;

/**
 * What the importer knows about one ONNX value: element type, shape (null when even the rank is
 * unknown), and for small tensors the values themselves: integers (possibly symbolic, for shape
 * arithmetic) or floats (for Resize scales and the like).
 */
public final class TensorInfo {
    /** Tensors up to this many elements keep their values for shape inference. */
    public static final int MAX_TRACKED_ELEMENTS = 1024;

    public final DataType type;
    public final List<Dim> shape;
    public final SymInt[] ints;
    public final double[] floats;
    /** For a one-element bool whose value is an expression of symbols: that expression, else null. */
    public final SymCondition condition;

    public TensorInfo(DataType type, List<Dim> shape, SymInt[] ints, double[] floats) {
        this(type, shape, ints, floats, null);
    }

    public TensorInfo(DataType type, List<Dim> shape, SymInt[] ints, double[] floats, SymCondition condition) {
        this.type = type;
        this.shape = shape == null ? null : List.copyOf(shape);
        this.ints = ints;
        this.floats = floats;
        this.condition = condition;
    }

    /** This tensor, whose value is {@code c}. */
    public TensorInfo withCondition(SymCondition c) {
        return new TensorInfo(type, shape, ints, floats, c);
    }

    public static TensorInfo of(DataType type, List<Dim> shape) {
        return new TensorInfo(type, shape, null, null);
    }

    public TensorInfo withShape(List<Dim> newShape) {
        return new TensorInfo(type, newShape, ints, floats, condition);
    }

    public int rank() {
        return shape == null ? -1 : shape.size();
    }

    public boolean hasShape() {
        return shape != null;
    }

    public boolean isStaticShape() {
        if (shape == null) {
            return false;
        }
        for (Dim d : shape) {
            if (!d.isStatic()) {
                return false;
            }
        }
        return true;
    }

    /** The values as constants, or null when unknown or symbolic. */
    public long[] constInts() {
        return ElementValues.constants(ints);
    }

    /** The values as doubles (from ints or floats), or null. */
    public double[] numbers() {
        return ElementValues.numbers(ints, floats);
    }

    @Override
    public String toString() {
        return type + (shape == null ? "[?]" : shape.toString());
    }
}
