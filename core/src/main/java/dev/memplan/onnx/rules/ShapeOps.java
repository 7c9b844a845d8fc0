// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.read.TensorDecoder;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import static dev.memplan.onnx.rules.InferenceSupport.*;

import dev.memplan.DataType;
import dev.memplan.Dim;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Inference for ops that move or compute shapes: Shape, Gather, (Un)Squeeze, Concat, Reshape,
 * Flatten, Transpose, Slice, Split, Expand, Tile, ConstantOfShape, Range, Pad. They propagate the
 * values of small integer tensors, which keeps shape arithmetic symbolic.
 */
final class ShapeOps {
    private ShapeOps() {
    }

    static TensorInfo shapeOp(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        int r = x.rank();
        long start = c.attrs().getInt("start", 0);
        long end = c.attrs().getInt("end", r);
        int s = (int) Math.max(0, Math.min(r, start < 0 ? start + r : start));
        int e = (int) Math.max(0, Math.min(r, end < 0 ? end + r : end));
        int n = Math.max(0, e - s);
        SymInt[] data = new SymInt[n];
        for (int i = 0; i < n; i++) {
            data[i] = SymInt.of(x.shape.get(s + i));
        }
        return new TensorInfo(DataType.INT64, List.of(Dim.of(n)), data, null);
    }

    static TensorInfo gather(InferenceContext c) {
        TensorInfo data = c.input(0);
        TensorInfo idx = c.input(1);
        if (data == null || idx == null || !data.hasShape() || !idx.hasShape()) {
            return null;
        }
        int ax = axis(c.attrs().getInt("axis", 0), data.rank());
        if (ax < 0) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(data.shape.subList(0, ax));
        shape.addAll(idx.shape);
        shape.addAll(data.shape.subList(ax + 1, data.rank()));
        SymInt[] values = null;
        long[] k = idx.constInts();
        if (data.ints != null && data.rank() == 1 && k != null) {
            values = new SymInt[k.length];
            for (int i = 0; i < k.length; i++) {
                long j = k[i] < 0 ? k[i] + data.ints.length : k[i];
                if (j < 0 || j >= data.ints.length) {
                    values = null;
                    break;
                }
                values[i] = data.ints[(int) j];
            }
        }
        return new TensorInfo(data.type, shape, values, null);
    }

    static TensorInfo gatherNd(InferenceContext c) {
        TensorInfo data = c.input(0);
        TensorInfo idx = c.input(1);
        if (data == null || idx == null || !data.hasShape() || !idx.hasShape() || idx.rank() == 0) {
            return null;
        }
        long last = staticOr(idx.shape.get(idx.rank() - 1), -1);
        int batch = (int) c.attrs().getInt("batch_dims", 0);
        if (last < 0 || batch < 0 || batch + last > data.rank()) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(idx.shape.subList(0, idx.rank() - 1));
        shape.addAll(data.shape.subList((int) (batch + last), data.rank()));
        return TensorInfo.of(data.type, shape);
    }

    /** Axes from the attribute (older opsets) or from input {@code inputIndex}; null if unknown. */
    static long[] axesOf(InferenceContext c, int inputIndex) {
        long[] a = c.attrs().getInts("axes");
        if (a != null) {
            return a;
        }
        TensorInfo t = c.input(inputIndex);
        return t == null ? new long[0] : t.constInts();
    }

    static TensorInfo unsqueeze(InferenceContext c) {
        TensorInfo x = c.input(0);
        long[] axes = axesOf(c, 1);
        if (x == null || !x.hasShape() || axes == null) {
            return null;
        }
        int r = x.rank() + axes.length;
        boolean[] inserted = new boolean[r];
        for (long a : axes) {
            int n = axis(a, r);
            if (n < 0) {
                return null;
            }
            inserted[n] = true;
        }
        List<Dim> shape = new ArrayList<>(r);
        int j = 0;
        for (int i = 0; i < r; i++) {
            if (inserted[i]) {
                shape.add(Dim.of(1));
            } else if (j < x.rank()) {
                shape.add(x.shape.get(j++));
            } else {
                return null;
            }
        }
        return new TensorInfo(x.type, shape, x.ints, x.floats);
    }

    static TensorInfo squeeze(InferenceContext c) {
        TensorInfo x = c.input(0);
        long[] axes = axesOf(c, 1);
        if (x == null || !x.hasShape() || axes == null) {
            return null;
        }
        boolean[] drop = new boolean[x.rank()];
        if (axes.length == 0) {
            for (int i = 0; i < x.rank(); i++) {
                drop[i] = x.shape.get(i).equals(Dim.of(1));
            }
        }
        for (long a : axes) {
            int n = axis(a, x.rank());
            if (n < 0) {
                return null;
            }
            drop[n] = true;
        }
        List<Dim> shape = new ArrayList<>();
        for (int i = 0; i < x.rank(); i++) {
            if (!drop[i]) {
                shape.add(x.shape.get(i));
            }
        }
        return new TensorInfo(x.type, shape, x.ints, x.floats);
    }

    static TensorInfo concat(InferenceContext c) {
        TensorInfo first = null;
        List<TensorInfo> parts = new ArrayList<>();
        for (int i = 0; i < c.inputCount(); i++) {
            TensorInfo t = c.input(i);
            if (t == null || !t.hasShape()) {
                return first == null && t != null ? TensorInfo.of(t.type, null) : null;
            }
            first = first == null ? t : first;
            parts.add(t);
        }
        if (first == null) {
            return null;
        }
        int r = first.rank();
        int ax = axis(c.attrs().getInt("axis", 0), r);
        if (ax < 0) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(first.shape);
        List<Dim> along = new ArrayList<>();
        for (TensorInfo t : parts) {
            if (t.rank() != r) {
                return null;
            }
            along.add(t.shape.get(ax));
            for (int i = 0; i < r; i++) {
                if (i != ax) {
                    c.relate(first.shape.get(i), t.shape.get(i), "Concat inputs agree off axis " + ax, false);
                }
                if (i != ax && !shape.get(i).isStatic() && t.shape.get(i).isStatic()) {
                    shape.set(i, t.shape.get(i)); // prefer a static extent for the shared dims
                }
            }
        }
        shape.set(ax, Dim.Derived.sum(along, 0));
        SymInt[] data = null;
        if (r == 1) {
            List<SymInt> all = new ArrayList<>();
            for (TensorInfo t : parts) {
                if (t.ints == null) {
                    all = null;
                    break;
                }
                all.addAll(Arrays.asList(t.ints));
            }
            data = all == null ? null : all.toArray(new SymInt[0]);
        }
        return new TensorInfo(first.type, shape, data, null);
    }

    /** Flattens a dim into its product factors: static constant and symbolic factors. */
    static long factors(Dim d, List<Dim> symbolic) {
        if (d instanceof Dim.Fixed f) {
            return f.extent();
        }
        if (d instanceof Dim.Derived dd && dd.op() == Dim.Derived.Op.PRODUCT) {
            symbolic.addAll(dd.operands());
            return dd.constant();
        }
        symbolic.add(d);
        return 1;
    }

    /**
     * The extent of a Reshape's -1: the input's element count divided by the known output dims,
     * cancelling symbolic factors that appear on both sides.
     */
    static Dim inferredExtent(List<Dim> input, List<Dim> known, InferenceContext c) {
        List<Dim> num = new ArrayList<>();
        long numConst = 1;
        for (Dim d : input) {
            numConst = Math.multiplyExact(numConst, factors(d, num));
        }
        List<Dim> den = new ArrayList<>();
        long denConst = 1;
        for (Dim d : known) {
            denConst = Math.multiplyExact(denConst, factors(d, den));
        }
        for (Dim d : den) {
            if (!num.remove(d)) {
                return c.fresh("reshape_extent");
            }
        }
        if (denConst == 0) {
            return Dim.of(0);
        }
        List<Dim> all = new ArrayList<>(num);
        if (numConst % denConst == 0) {
            all.add(Dim.of(numConst / denConst));
            return Dim.Derived.product(all);
        }
        all.add(Dim.of(numConst));
        return Dim.Derived.divide(Dim.Derived.product(all), denConst, false);
    }

    static TensorInfo reshape(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo s = c.input(1);
        SymInt[] target;
        if (s != null) {
            target = s.ints;
        } else if (c.attrs().getInts("shape") != null) {
            long[] a = c.attrs().getInts("shape");
            target = new SymInt[a.length];
            for (int i = 0; i < a.length; i++) {
                target[i] = SymInt.of(a[i]);
            }
        } else {
            target = null;
        }
        if (x == null) {
            return null;
        }
        if (target == null) {
            if (s != null && s.hasShape() && s.rank() == 1 && s.shape.get(0) instanceof Dim.Fixed f
                    && f.extent() <= 64) {
                List<Dim> shape = new ArrayList<>();
                for (int i = 0; i < f.extent(); i++) {
                    shape.add(c.fresh("reshape_d" + i));
                }
                return TensorInfo.of(x.type, shape);
            }
            return TensorInfo.of(x.type, null);
        }
        boolean allowZero = c.attrs().getInt("allowzero", 0) != 0;
        List<Dim> shape = new ArrayList<>();
        int minusOne = -1;
        for (int i = 0; i < target.length; i++) {
            SymInt t = target[i];
            if (t.isConst() && t.constant() == 0 && !allowZero) {
                if (!x.hasShape() || i >= x.rank()) {
                    return TensorInfo.of(x.type, null);
                }
                shape.add(x.shape.get(i));
            } else if (t.isConst() && t.constant() == -1 && minusOne < 0) {
                minusOne = i;
                shape.add(null);
            } else {
                Dim d = t.toDim();
                shape.add(d == null ? c.fresh("reshape_d" + i) : d);
            }
        }
        if (minusOne >= 0) {
            List<Dim> known = new ArrayList<>(shape);
            known.remove(minusOne);
            Dim d = x.hasShape() ? inferredExtent(x.shape, known, c) : c.fresh("reshape_extent");
            shape.set(minusOne, d);
        }
        return new TensorInfo(x.type, shape, x.ints, x.floats);
    }

    static TensorInfo flatten(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long a = c.attrs().getInt("axis", 1);
        int ax = (int) (a < 0 ? a + x.rank() : a);
        if (ax < 0 || ax > x.rank()) {
            return null;
        }
        return TensorInfo.of(x.type, List.of(Dim.Derived.product(x.shape.subList(0, ax)),
                Dim.Derived.product(x.shape.subList(ax, x.rank()))));
    }

    static TensorInfo transpose(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long[] perm = c.attrs().getInts("perm");
        int r = x.rank();
        List<Dim> shape = new ArrayList<>(r);
        for (int i = 0; i < r; i++) {
            int p = perm == null ? r - 1 - i : i < perm.length ? axis(perm[i], r) : -1;
            if (p < 0) {
                return null;
            }
            shape.add(x.shape.get(p));
        }
        return TensorInfo.of(x.type, shape);
    }

    static long[] intsInputOrAttr(InferenceContext c, int input, String attr) {
        if (c.opset() < 10 || c.attrs().has(attr)) {
            return c.attrs().getInts(attr);
        }
        TensorInfo t = c.input(input);
        return t == null ? null : t.constInts();
    }

    static TensorInfo slice(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long[] starts = intsInputOrAttr(c, 1, "starts");
        long[] ends = intsInputOrAttr(c, 2, "ends");
        TensorInfo endsIn = c.opset() < 10 ? null : c.input(2);
        if (starts != null && ends == null && endsIn != null && endsIn.ints != null
                && endsIn.ints.length == starts.length) {
            TensorInfo symbolic = symbolicEndSlice(c, x, starts, endsIn.ints, intsInputOrAttr(c, 3, "axes"));
            if (symbolic != null) {
                return symbolic;
            }
        }
        long[] axes = intsInputOrAttr(c, 3, "axes");
        long[] steps = c.opset() < 10 ? null : c.input(4) == null ? null : c.input(4).constInts();
        if (c.opset() >= 10 && c.input(4) != null && steps == null) {
            return TensorInfo.of(x.type, freshShape(x.rank(), c, "slice_d"));
        }
        if (starts == null || ends == null || starts.length != ends.length) {
            if (c.input(1) != null && c.input(1).hasShape()) {
                // unknown bounds: every sliced axis gets a fresh extent
                return TensorInfo.of(x.type, freshShape(x.rank(), c, "slice_d"));
            }
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        SymInt[] data = x.ints;
        for (int i = 0; i < starts.length; i++) {
            SliceAxis sa = SliceAxis.of(axes, steps, i, x.rank());
            if (sa == null) {
                return null;
            }
            Dim d = x.shape.get(sa.axis());
            shape.set(sa.axis(), slicedExtent(d, starts[i], ends[i], sa.step(), c));
            if (data != null && x.rank() == 1 && d instanceof Dim.Fixed f && f.extent() == data.length) {
                data = sliceValues(data, starts[i], ends[i], sa.step());
            } else {
                data = null;
            }
        }
        return new TensorInfo(x.type, shape, data, null);
    }

    /** The axis and step the {@code i}-th slice bound applies to. */
    private record SliceAxis(int axis, long step) {
        /** From {@code axes} ({@code i} when absent) and {@code steps} (1 when absent); null when invalid. */
        static SliceAxis of(long[] axes, long[] steps, int i, int rank) {
            int ax = axes == null ? i : i < axes.length ? InferenceSupport.axis(axes[i], rank) : -1;
            long step = steps == null ? 1 : i < steps.length ? steps[i] : 1;
            return ax < 0 || step == 0 ? null : new SliceAxis(ax, step);
        }
    }

    /** Slice with constant starts and symbolic ends (a position table cut to the sequence length). */
    static TensorInfo symbolicEndSlice(InferenceContext c, TensorInfo x, long[] starts, SymInt[] ends,
                                               long[] axes) {
        TensorInfo stepsIn = c.input(4);
        long[] steps = stepsIn == null ? null : stepsIn.constInts();
        if (stepsIn != null && steps == null) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        for (int i = 0; i < starts.length; i++) {
            SliceAxis sa = SliceAxis.of(axes, steps, i, x.rank());
            if (sa == null) {
                return null;
            }
            Dim d = x.shape.get(sa.axis());
            if (ends[i].isConst()) {
                shape.set(sa.axis(), slicedExtent(d, starts[i], ends[i].constant(), sa.step(), c));
                continue;
            }
            Dim e = ends[i].toDim();
            if (starts[i] != 0 || sa.step() != 1 || e == null) {
                return null;
            }
            shape.set(sa.axis(), d.equals(e) ? d : Dim.Derived.min(List.of(d, e)));
        }
        return TensorInfo.of(x.type, shape);
    }

    /** Slice's start along an axis of {@code n} elements, as ONNX and ONNX Runtime clamp it. */
    static long clampStart(long v, long n, long step) {
        if (v < 0) {
            v += n;
        }
        return step > 0 ? Math.max(0, Math.min(n, v)) : Math.max(0, Math.min(n - 1, v));
    }

    /** Slice's end along an axis of {@code n} elements, as ONNX and ONNX Runtime clamp it. */
    static long clampEnd(long v, long n, long step) {
        if (v < 0) {
            v += n;
        }
        return step > 0 ? Math.max(0, Math.min(n, v)) : Math.max(-1, Math.min(n - 1, v));
    }

    static SymInt[] sliceValues(SymInt[] data, long start, long end, long step) {
        long n = data.length;
        if (n == 0) {
            return new SymInt[0];
        }
        long s = clampStart(start, n, step);
        long e = clampEnd(end, n, step);
        List<SymInt> out = new ArrayList<>();
        for (long i = s; step > 0 ? i < e : i > e; i += step) {
            out.add(data[(int) i]);
        }
        return out.toArray(new SymInt[0]);
    }

    static Dim slicedExtent(Dim d, long start, long end, long step, InferenceContext c) {
        if (d instanceof Dim.Fixed f) {
            long n = f.extent();
            if (n == 0) {
                return Dim.of(0);
            }
            long s = clampStart(start, n, step);
            long e = clampEnd(end, n, step);
            long len = step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
            return Dim.of(Math.max(0, len));
        }
        if (step == -1 && end <= -(1L << 31)) { // backwards to the first element: a reversal, or of a head
            if (start == -1 || start >= (1L << 31) - 1) {
                return d;
            }
            // the start is clamped into [0, d - 1]: d + start + 1 elements from the end, at least one
            return start < 0 ? Dim.Derived.min(List.of(d, Dim.Derived.max(List.of(Dim.Derived.sum(List.of(d),
                    start + 1), Dim.of(1))))) : Dim.Derived.min(List.of(d, Dim.of(start + 1)));
        }
        if (step != 1) {
            return c.fresh("slice_extent");
        }
        boolean toEnd = end >= (1L << 31) - 1;
        if (start >= 0 && toEnd) {
            return Dim.Derived.max(List.of(Dim.Derived.sum(List.of(d), -start), Dim.of(0)));
        }
        if (start >= 0 && end >= 0) {
            Dim upper = Dim.Derived.min(List.of(d, Dim.of(end)));
            return start == 0 ? upper : Dim.Derived.max(List.of(Dim.Derived.sum(List.of(upper), -start), Dim.of(0)));
        }
        if (start < 0 && toEnd) {
            return Dim.Derived.min(List.of(d, Dim.of(-start)));
        }
        if (start == 0 && end < 0) {
            return Dim.Derived.max(List.of(Dim.Derived.sum(List.of(d), end), Dim.of(0)));
        }
        if (start < 0 && end < 0) { // both from the end: the last -start elements, less the last -end
            return Dim.Derived.max(List.of(Dim.Derived.sum(List.of(Dim.Derived.min(List.of(d, Dim.of(-start)))), end),
                    Dim.of(0)));
        }
        return c.fresh("slice_extent");
    }

    static void split(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return;
        }
        int ax = axis(c.attrs().getInt("axis", 0), x.rank());
        if (ax < 0) {
            return;
        }
        long[] sizes = c.attrs().getInts("split");
        if (sizes == null && c.input(1) != null) {
            sizes = c.input(1).constInts();
            if (sizes == null) {
                for (int i = 0; i < out.length; i++) {
                    List<Dim> s = new ArrayList<>(x.shape);
                    s.set(ax, c.fresh("split_extent"));
                    out[i] = TensorInfo.of(x.type, s);
                }
                return;
            }
        }
        Dim d = x.shape.get(ax);
        int n = out.length;
        for (int i = 0; i < n; i++) {
            List<Dim> s = new ArrayList<>(x.shape);
            if (sizes != null) {
                if (i >= sizes.length || sizes[i] < 0) {
                    return;
                }
                s.set(ax, Dim.of(sizes[i]));
            } else if (d instanceof Dim.Fixed f) {
                long chunk = (f.extent() + n - 1) / n;
                s.set(ax, Dim.of(i < n - 1 ? chunk : Math.max(0, f.extent() - chunk * (n - 1))));
            } else {
                s.set(ax, Dim.Derived.divide(d, n, true));
            }
            out[i] = TensorInfo.of(x.type, s);
        }
    }

    static TensorInfo expand(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo s = c.input(1);
        if (x == null || s == null) {
            return null;
        }
        if (s.ints == null) {
            return TensorInfo.of(x.type, null);
        }
        return TensorInfo.of(x.type, broadcast(Arrays.asList(x.shape, dimsOf(s.ints, c, "expand_d")), c));
    }

    static TensorInfo tile(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo r = c.input(1);
        if (x == null || !x.hasShape() || r == null || r.ints == null || r.ints.length != x.rank()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        List<Dim> shape = new ArrayList<>();
        for (int i = 0; i < x.rank(); i++) {
            Dim rep = r.ints[i].toDim();
            shape.add(rep == null ? c.fresh("tile_d" + i) : Dim.Derived.product(List.of(x.shape.get(i), rep)));
        }
        return TensorInfo.of(x.type, shape);
    }

    static TensorInfo constantOfShape(InferenceContext c) {
        TensorInfo s = c.input(0);
        var valueTensor = c.attrs().getTensor("value");
        DataType type = valueTensor == null ? DataType.FLOAT32 : TensorDecoder.dataType(valueTensor.getDataType(),
                "the value attribute of ConstantOfShape");
        if (s == null || s.ints == null) {
            return TensorInfo.of(type, null);
        }
        List<Dim> shape = dimsOf(s.ints, c, "constant_d");
        SymInt[] data = null;
        if (valueTensor != null && Dim.of(1).equals(shape.size() == 1 ? shape.get(0) : null)) {
            TensorInfo v = TensorDecoder.decode(valueTensor, "the value attribute of ConstantOfShape");
            data = v.ints;
        }
        return new TensorInfo(type, shape, data, null);
    }

    static TensorInfo range(InferenceContext c) {
        TensorInfo start = c.input(0);
        TensorInfo limit = c.input(1);
        TensorInfo delta = c.input(2);
        if (start == null || limit == null || delta == null) {
            return null;
        }
        double[] s = start.numbers();
        double[] l = limit.numbers();
        double[] d = delta.numbers();
        if (s != null && l != null && d != null && s.length == 1 && l.length == 1 && d.length == 1 && d[0] != 0) {
            double n = Math.ceil((l[0] - s[0]) / d[0]);
            long len = (long) Math.max(0, Math.min(n, Long.MAX_VALUE / 2));
            SymInt[] data = null;
            if (start.ints != null && len <= TensorInfo.MAX_TRACKED_ELEMENTS) {
                data = new SymInt[(int) len];
                for (int i = 0; i < len; i++) {
                    data[i] = SymInt.of((long) (s[0] + i * d[0]));
                }
            }
            return new TensorInfo(start.type, List.of(Dim.of(len)), data, null);
        }
        long[] sc = start.constInts();
        long[] dc = delta.constInts();
        if (sc != null && dc != null && sc.length == 1 && dc.length == 1 && sc[0] == 0 && dc[0] == 1
                && limit.ints != null && limit.ints.length == 1 && limit.ints[0].toDim() != null) {
            return TensorInfo.of(start.type, List.of(limit.ints[0].toDim()));
        }
        return TensorInfo.of(start.type, List.of(c.fresh("range_length")));
    }

    static TensorInfo pad(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        long[] pads = c.attrs().getInts(c.opset() < 11 ? "paddings" : "pads");
        if (pads == null && c.opset() < 11) {
            pads = c.attrs().getInts("pads");
        }
        if (pads == null && c.input(1) != null) {
            pads = c.input(1).constInts();
        }
        if (pads == null) {
            return TensorInfo.of(x.type, freshShape(x.rank(), c, "pad_d"));
        }
        long[] axes = c.input(3) == null ? null : c.input(3).constInts();
        int r = x.rank();
        int[] ax;
        if (axes == null) {
            ax = new int[r];
            for (int i = 0; i < r; i++) {
                ax[i] = i;
            }
        } else {
            ax = new int[axes.length];
            for (int i = 0; i < axes.length; i++) {
                ax[i] = axis(axes[i], r);
                if (ax[i] < 0) {
                    return null;
                }
            }
        }
        if (pads.length != 2 * ax.length) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        for (int i = 0; i < ax.length; i++) {
            long add = pads[i] + pads[i + ax.length];
            shape.set(ax[i], padDim(shape.get(ax[i]), add));
        }
        return TensorInfo.of(x.type, shape);
    }
}
