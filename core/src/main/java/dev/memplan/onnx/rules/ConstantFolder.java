// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.DataType;
import dev.memplan.onnx.read.DenseTensor;
import dev.memplan.onnx.read.TensorDecoder;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Evaluates a node whose inputs are all small known constants, whatever their rank: data movement
 * (Identity, Reshape, Flatten, (Un)Squeeze, Transpose, Slice with any steps, Concat on any axis,
 * Gather, Expand, Tile), Cast, elementwise arithmetic and comparisons with numpy broadcasting,
 * Where and ConstantOfShape. Shape inference alone tracks values of rank 0 and 1 only; this is what
 * lets chains such as PyTorch's {@code F.pad} export ({@code Concat -> Reshape(-1, 2) ->
 * Slice(step -1) -> Transpose -> Reshape(-1)}) reach the op that reads them as known numbers.
 *
 * <p>Which op folds how is its {@link OpRegistry} entry's {@link FoldRule}, one of the constants
 * below. Returns null when an input is not fully known, an op is not covered, or the result would
 * exceed {@link TensorInfo#MAX_TRACKED_ELEMENTS}: the caller then keeps what inference said.
 */
public final class ConstantFolder {
    private ConstantFolder() {
    }

    // The folds the registry gives ops (OpInference.registerAll); each needs input 0 fully known
    // except ConstantOfShape's, whose input is a shape.

    /** Identity, Reshape, Flatten, (Un)Squeeze: the same elements under the inferred shape. */
    static final FoldRule SAME_DATA = FoldRule.ofInput((c, x, inferred) -> reshaped(x, inferred));
    /** Arithmetic and comparisons of two inputs with numpy broadcasting ({@link Elementwise#binary}). */
    static final FoldRule BINARY = FoldRule.ofInput((c, x, inferred) ->
            Elementwise.binary(c.opType(), x, DenseTensor.of(c.input(1))));
    static final FoldRule TRANSPOSE = FoldRule.ofInput((c, x, inferred) -> transpose(x, c.attrs().getInts("perm")));
    static final FoldRule SLICE = FoldRule.ofInput((c, x, inferred) -> slice(c, x));
    static final FoldRule CONCAT = FoldRule.ofInput((c, x, inferred) -> concat(c));
    static final FoldRule GATHER = FoldRule.ofInput((c, x, inferred) ->
            gather(x, DenseTensor.of(c.input(1)), c.attrs().getInt("axis", 0)));
    static final FoldRule CAST = FoldRule.ofInput((c, x, inferred) ->
            Elementwise.cast(x, InferenceSupport.dtype(c.attrs().getInt("to", 0))));
    static final FoldRule WHERE = FoldRule.ofInput((c, x, inferred) ->
            Elementwise.where(x, DenseTensor.of(c.input(1)), DenseTensor.of(c.input(2))));
    static final FoldRule EXPAND = FoldRule.ofInput((c, x, inferred) -> expand(x, DenseTensor.of(c.input(1))));
    static final FoldRule TILE = FoldRule.ofInput((c, x, inferred) -> tile(x, DenseTensor.of(c.input(1))));
    static final FoldRule CONSTANT_OF_SHAPE = (c, inferred) -> constantOfShape(c);

    /**
     * Output 0 of the node in {@code c} with its values, or null: the fold the op's registry entry
     * gives it, if any.
     *
     * @param inferred what shape inference made of output 0 (gives the shape of pure reshapes)
     */
    public static TensorInfo fold(InferenceContext c, TensorInfo inferred) {
        OpRegistry.Entry entry = OpRegistry.DEFAULT.entry(c.domain(), c.opType());
        return entry == null || entry.fold() == null ? null : entry.fold().fold(c, inferred);
    }

    /** A pure reshape: the same elements under the static shape inference found, if any. */
    private static DenseTensor reshaped(DenseTensor x, TensorInfo inferred) {
        if (inferred == null || !inferred.isStaticShape()) {
            return null;
        }
        long[] shape = new long[inferred.rank()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = InferenceSupport.staticOr(inferred.shape.get(i), -1);
        }
        return DenseTensor.count(shape) == x.size() ? x.withShape(shape) : null;
    }

    private static TensorInfo constantOfShape(InferenceContext c) {
        TensorInfo s = c.input(0);
        long[] dims = s == null ? null : s.constInts();
        if (dims == null) {
            return null;
        }
        int n = DenseTensor.count(dims);
        if (n < 0) {
            return null;
        }
        var valueTensor = c.attrs().getTensor("value");
        DenseTensor fill = valueTensor == null
                ? new DenseTensor(DataType.FLOAT32, new long[]{1}, null, new double[]{0})
                : DenseTensor.of(TensorDecoder.decode(valueTensor, "the value attribute of ConstantOfShape"));
        if (fill == null || fill.size() != 1) {
            return null;
        }
        return fill.pick(dims, new int[n]).toInfo();
    }

    static DenseTensor transpose(DenseTensor x, long[] perm) {
        int r = x.rank();
        int[] p = new int[r];
        for (int i = 0; i < r; i++) {
            p[i] = perm == null ? r - 1 - i : i < perm.length ? InferenceSupport.axis(perm[i], r) : -1;
            if (p[i] < 0) {
                return null;
            }
        }
        long[] shape = new long[r];
        for (int i = 0; i < r; i++) {
            shape[i] = x.shape()[p[i]];
        }
        int[] inStrides = DenseTensor.strides(x.shape());
        int[] src = new int[x.size()];
        int[] coords = new int[r];
        for (int o = 0; o < src.length; o++) {
            DenseTensor.coordinates(o, shape, coords);
            int s = 0;
            for (int i = 0; i < r; i++) {
                s += coords[i] * inStrides[p[i]];
            }
            src[o] = s;
        }
        return x.pick(shape, src);
    }

    private static DenseTensor slice(InferenceContext c, DenseTensor x) {
        long[] starts = ShapeOps.intsInputOrAttr(c, 1, "starts");
        long[] ends = ShapeOps.intsInputOrAttr(c, 2, "ends");
        long[] axes = ShapeOps.intsInputOrAttr(c, 3, "axes");
        long[] steps = c.opset() < 10 || c.input(4) == null ? null : c.input(4).constInts();
        if (starts == null || ends == null || starts.length != ends.length
                || (c.opset() >= 10 && c.input(4) != null && steps == null)) {
            return null;
        }
        int r = x.rank();
        // per axis, the source positions the slice keeps
        List<long[]> picks = new ArrayList<>();
        for (int a = 0; a < r; a++) {
            long[] all = new long[(int) x.shape()[a]];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            picks.add(all);
        }
        for (int i = 0; i < starts.length; i++) {
            int ax = axes == null ? i : i < axes.length ? InferenceSupport.axis(axes[i], r) : -1;
            long step = steps == null || i >= steps.length ? 1 : steps[i];
            if (ax < 0 || step == 0) {
                return null;
            }
            long n = x.shape()[ax];
            long s = ShapeOps.clampStart(starts[i], n, step);
            long e = ShapeOps.clampEnd(ends[i], n, step);
            List<Long> kept = new ArrayList<>();
            for (long j = s; n > 0 && (step > 0 ? j < e : j > e); j += step) {
                kept.add(j);
            }
            picks.set(ax, kept.stream().mapToLong(Long::longValue).toArray());
        }
        long[] shape = new long[r];
        for (int a = 0; a < r; a++) {
            shape[a] = picks.get(a).length;
        }
        int[] inStrides = DenseTensor.strides(x.shape());
        int[] src = new int[DenseTensor.count(shape)];
        int[] coords = new int[r];
        for (int o = 0; o < src.length; o++) {
            DenseTensor.coordinates(o, shape, coords);
            long s = 0;
            for (int a = 0; a < r; a++) {
                s += picks.get(a)[coords[a]] * inStrides[a];
            }
            src[o] = (int) s;
        }
        return x.pick(shape, src);
    }

    private static DenseTensor concat(InferenceContext c) {
        List<DenseTensor> parts = new ArrayList<>();
        for (int i = 0; i < c.inputCount(); i++) {
            DenseTensor t = DenseTensor.of(c.input(i));
            if (t == null) {
                return null;
            }
            parts.add(t);
        }
        DenseTensor first = parts.get(0);
        int r = first.rank();
        int ax = InferenceSupport.axis(c.attrs().getInt("axis", 0), r);
        if (ax < 0) {
            return null;
        }
        long[] shape = first.shape().clone();
        shape[ax] = 0;
        boolean allInts = true;
        for (DenseTensor t : parts) {
            if (t.rank() != r) {
                return null;
            }
            for (int i = 0; i < r; i++) {
                if (i != ax && t.shape()[i] != first.shape()[i]) {
                    return null;
                }
            }
            shape[ax] += t.shape()[ax];
            allInts &= t.ints() != null;
        }
        int n = DenseTensor.count(shape);
        if (n < 0) {
            return null;
        }
        SymInt[] ints = allInts ? new SymInt[n] : null;
        double[] floats = allInts ? null : new double[n];
        int[] coords = new int[r];
        for (int o = 0; o < n; o++) {
            DenseTensor.coordinates(o, shape, coords);
            int along = coords[ax];
            DenseTensor part = null;
            for (DenseTensor t : parts) {
                if (along < t.shape()[ax]) {
                    part = t;
                    break;
                }
                along -= (int) t.shape()[ax];
            }
            int[] strides = DenseTensor.strides(part.shape());
            int s = 0;
            for (int i = 0; i < r; i++) {
                s += (i == ax ? along : coords[i]) * strides[i];
            }
            if (allInts) {
                ints[o] = part.ints()[s];
            } else {
                double[] v = part.numbers();
                if (v == null) {
                    return null;
                }
                floats[o] = v[s];
            }
        }
        return new DenseTensor(first.type(), shape, ints, floats);
    }

    static DenseTensor gather(DenseTensor x, DenseTensor indices, long axis) {
        long[] idx = indices == null ? null : indices.constInts();
        int r = x.rank();
        int ax = InferenceSupport.axis(axis, r);
        if (idx == null || ax < 0) {
            return null;
        }
        long extent = x.shape()[ax];
        long[] shape = new long[r - 1 + indices.rank()];
        System.arraycopy(x.shape(), 0, shape, 0, ax);
        System.arraycopy(indices.shape(), 0, shape, ax, indices.rank());
        System.arraycopy(x.shape(), ax + 1, shape, ax + indices.rank(), r - ax - 1);
        int n = DenseTensor.count(shape);
        if (n < 0) {
            return null;
        }
        int[] inStrides = DenseTensor.strides(x.shape());
        int[] idxStrides = DenseTensor.strides(indices.shape());
        int[] coords = new int[shape.length];
        int[] src = new int[n];
        for (int o = 0; o < n; o++) {
            DenseTensor.coordinates(o, shape, coords);
            int k = 0;
            for (int i = 0; i < indices.rank(); i++) {
                k += coords[ax + i] * idxStrides[i];
            }
            long j = idx[k] < 0 ? idx[k] + extent : idx[k];
            if (j < 0 || j >= extent) {
                return null; // out of range: ORT fails the run; leave it to inference
            }
            int s = (int) j * inStrides[ax];
            for (int i = 0; i < ax; i++) {
                s += coords[i] * inStrides[i];
            }
            for (int i = ax + 1; i < r; i++) {
                s += coords[i - 1 + indices.rank()] * inStrides[i];
            }
            src[o] = s;
        }
        return x.pick(shape, src);
    }

    private static DenseTensor expand(DenseTensor x, DenseTensor shapeTensor) {
        long[] target = shapeTensor == null ? null : shapeTensor.constInts();
        if (target == null) {
            return null;
        }
        long[] shape = Elementwise.broadcastShape(List.of(x.shape(), target));
        return shape == null ? null : Elementwise.broadcastTo(x, shape);
    }

    private static DenseTensor tile(DenseTensor x, DenseTensor repeats) {
        long[] rep = repeats == null ? null : repeats.constInts();
        int r = x.rank();
        if (rep == null || rep.length != r) {
            return null;
        }
        long[] shape = new long[r];
        for (int i = 0; i < r; i++) {
            if (rep[i] < 0) {
                return null;
            }
            shape[i] = Math.multiplyExact(x.shape()[i], rep[i]);
        }
        int n = DenseTensor.count(shape);
        if (n < 0) {
            return null;
        }
        int[] inStrides = DenseTensor.strides(x.shape());
        int[] coords = new int[r];
        int[] src = new int[n];
        for (int o = 0; o < n; o++) {
            DenseTensor.coordinates(o, shape, coords);
            int s = 0;
            for (int i = 0; i < r; i++) {
                s += (int) (coords[i] % x.shape()[i]) * inStrides[i];
            }
            src[o] = s;
        }
        return x.pick(shape, src);
    }
}
