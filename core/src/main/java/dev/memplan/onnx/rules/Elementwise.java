// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.DataType;
import dev.memplan.onnx.read.DenseTensor;
import dev.memplan.onnx.symbols.ElementValues;
import dev.memplan.onnx.symbols.SymInt;
import java.util.Arrays;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;

/**
 * Elementwise evaluation of small constant tensors for {@link ConstantFolder}: numpy broadcasting,
 * binary arithmetic and comparisons, Where and Cast.
 */
final class Elementwise {
    private Elementwise() {
    }

    /** numpy broadcasting of static shapes, or null when they are incompatible or too large. */
    static long[] broadcastShape(List<long[]> shapes) {
        int rank = 0;
        for (long[] s : shapes) {
            rank = Math.max(rank, s.length);
        }
        long[] out = new long[rank];
        Arrays.fill(out, 1);
        for (long[] s : shapes) {
            for (int j = 0; j < s.length; j++) {
                int i = rank - s.length + j;
                if (s[j] == out[i] || s[j] == 1) {
                    continue;
                }
                if (out[i] != 1 || s[j] < 0) {
                    return null;
                }
                out[i] = s[j];
            }
        }
        return DenseTensor.count(out) < 0 ? null : out;
    }

    /** For each element of {@code shape}, the element of {@code inShape} broadcasting maps to it. */
    static int[] broadcastSources(long[] inShape, long[] shape) {
        int n = DenseTensor.count(shape);
        int[] src = new int[n];
        int[] inStrides = DenseTensor.strides(inShape);
        int[] coords = new int[shape.length];
        int offset = shape.length - inShape.length;
        for (int o = 0; o < n; o++) {
            DenseTensor.coordinates(o, shape, coords);
            int s = 0;
            for (int j = 0; j < inShape.length; j++) {
                s += (inShape[j] == 1 ? 0 : coords[offset + j]) * inStrides[j];
            }
            src[o] = s;
        }
        return src;
    }

    static DenseTensor broadcastTo(DenseTensor x, long[] shape) {
        return x.pick(shape, broadcastSources(x.shape(), shape));
    }

    static DenseTensor binary(String op, DenseTensor a, DenseTensor b) {
        if (b == null) {
            return null;
        }
        long[] shape = broadcastShape(List.of(a.shape(), b.shape()));
        if (shape == null) {
            return null;
        }
        DenseTensor x = broadcastTo(a, shape);
        DenseTensor y = broadcastTo(b, shape);
        boolean compare = !List.of("Add", "Sub", "Mul", "Div", "Max", "Min", "Mod").contains(op);
        if (x.ints() != null && y.ints() != null) {
            BinaryOperator<SymInt> f = integerOp(op);
            if (f == null) {
                return null;
            }
            SymInt[] out = new SymInt[x.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = f.apply(x.ints()[i], y.ints()[i]);
                if (out[i] == null) {
                    return null;
                }
            }
            return new DenseTensor(compare ? DataType.BOOL : a.type(), shape, out, null);
        }
        double[] p = x.numbers();
        double[] q = y.numbers();
        if (p == null || q == null) {
            return null;
        }
        double[] out = new double[p.length];
        SymInt[] flags = compare ? new SymInt[p.length] : null;
        DoubleBinaryOperator arithmetic = compare ? null : floatOp(op);
        for (int i = 0; i < p.length; i++) {
            double v = compare ? (compare(op, Double.compare(p[i], q[i])) ? 1 : 0) : arithmetic.applyAsDouble(p[i], q[i]);
            out[i] = v;
            if (compare) {
                flags[i] = SymInt.of((long) v);
            }
        }
        return compare ? new DenseTensor(DataType.BOOL, shape, flags, null) : new DenseTensor(a.type(), shape, null, out);
    }

    private static boolean compare(String op, int cmp) {
        return switch (op) {
            case "Equal" -> cmp == 0;
            case "Less" -> cmp < 0;
            case "Greater" -> cmp > 0;
            case "LessOrEqual" -> cmp <= 0;
            default -> cmp >= 0;
        };
    }

    /**
     * The arithmetic of a float {@code op} (Add, Sub, Mul, Div, Max, Min, Mod), shared with shape
     * inference's small-vector values ({@code OpInference}); null for any other op.
     */
    static DoubleBinaryOperator floatOp(String op) {
        return switch (op) {
            case "Add" -> (p, q) -> p + q;
            case "Sub" -> (p, q) -> p - q;
            case "Mul" -> (p, q) -> p * q;
            case "Div" -> (p, q) -> p / q;
            case "Max" -> Math::max;
            case "Min" -> Math::min;
            case "Mod" -> (p, q) -> p % q;
            default -> null;
        };
    }

    /**
     * Integer ops, shared with shape inference's small-vector values ({@code OpInference});
     * symbolic elements go through {@link SymInt}'s monotone arithmetic.
     */
    static BinaryOperator<SymInt> integerOp(String op) {
        return switch (op) {
            case "Add" -> SymInt::add;
            case "Sub" -> SymInt::sub;
            case "Mul" -> SymInt::mul;
            case "Div" -> SymInt::div;
            case "Max" -> SymInt::max;
            case "Min" -> SymInt::min;
            // integer Mod (fmod = 0) takes the divisor's sign, as Math.floorMod does
            case "Mod" -> (p, q) -> p.isConst() && q.isConst() && q.constant() != 0
                    ? SymInt.of(Math.floorMod(p.constant(), q.constant())) : null;
            default -> (p, q) -> {
                if (p.isConst() && q.isConst()) {
                    return SymInt.of(compare(op, Long.compare(p.constant(), q.constant())) ? 1 : 0);
                }
                return op.equals("Equal") && p.equals(q) ? SymInt.of(1) : null;
            };
        };
    }

    static DenseTensor where(DenseTensor cond, DenseTensor a, DenseTensor b) {
        long[] k = cond.constInts();
        if (k == null || a == null || b == null || (a.ints() == null) != (b.ints() == null)) {
            return null;
        }
        long[] shape = broadcastShape(List.of(cond.shape(), a.shape(), b.shape()));
        if (shape == null) {
            return null;
        }
        int[] cs = broadcastSources(cond.shape(), shape);
        DenseTensor x = broadcastTo(a, shape);
        DenseTensor y = broadcastTo(b, shape);
        int n = cs.length;
        if (x.ints() != null) {
            SymInt[] out = new SymInt[n];
            for (int i = 0; i < n; i++) {
                out[i] = k[cs[i]] != 0 ? x.ints()[i] : y.ints()[i];
            }
            return new DenseTensor(a.type(), shape, out, null);
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = k[cs[i]] != 0 ? x.floats()[i] : y.floats()[i];
        }
        return new DenseTensor(a.type(), shape, null, out);
    }

    static DenseTensor cast(DenseTensor x, DataType to) {
        if (ElementValues.isInteger(to)) {
            if (x.ints() != null) {
                return new DenseTensor(to, x.shape(), x.ints(), null);
            }
            SymInt[] out = new SymInt[x.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = SymInt.of((long) x.floats()[i]); // float to integer truncates toward zero
            }
            return new DenseTensor(to, x.shape(), out, null);
        }
        switch (to) {
            case BOOL -> {
                double[] v = x.numbers();
                if (v == null) {
                    return null;
                }
                SymInt[] out = new SymInt[v.length];
                for (int i = 0; i < v.length; i++) {
                    out[i] = SymInt.of(v[i] != 0 ? 1 : 0);
                }
                return new DenseTensor(to, x.shape(), out, null);
            }
            case FLOAT32, FLOAT64 -> {
                double[] v = x.numbers();
                return v == null ? null : new DenseTensor(to, x.shape(), null, v);
            }
            default -> {
                return null;
            }
        }
    }
}
