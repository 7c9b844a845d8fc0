// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.symbols.TensorInfo;
import static dev.memplan.onnx.rules.InferenceSupport.*;

import dev.memplan.DataType;
import dev.memplan.Dim;
import java.util.ArrayList;
import java.util.List;

/** Inference for sliding-window and resampling ops: Conv, ConvTranspose, pooling, Resize, DepthToSpace. */
final class SpatialOps {
    private SpatialOps() {
    }

    /** Output extent of a sliding window (conv, pool). */
    static Dim window(Dim in, long kernel, long stride, long dilation, long padBegin, long padEnd,
                              String autoPad, boolean ceilMode) {
        long effective = dilation * (kernel - 1) + 1;
        if (autoPad.equals("SAME_UPPER") || autoPad.equals("SAME_LOWER")) {
            return Dim.Derived.divide(in, stride, true);
        }
        if (autoPad.equals("VALID")) {
            padBegin = 0;
            padEnd = 0;
        }
        Dim span = Dim.Derived.sum(List.of(in), padBegin + padEnd - effective);
        if (span instanceof Dim.Fixed f && f.extent() < 0) {
            return Dim.of(0);
        }
        Dim steps = Dim.Derived.divide(span, stride, ceilMode);
        Dim out = Dim.Derived.sum(List.of(steps), 1);
        if (ceilMode && in instanceof Dim.Fixed fin && out instanceof Dim.Fixed fo) {
            // the last window must start inside the padded input (ONNX / PyTorch rule)
            long o = fo.extent();
            if ((o - 1) * stride >= fin.extent() + padBegin) {
                return Dim.of(o - 1);
            }
        }
        return out;
    }

    static List<Dim> spatial(InferenceContext c, TensorInfo x, long[] kernel, boolean ceilMode) {
        int spatialRank = x.rank() - 2;
        if (kernel == null || kernel.length != spatialRank) {
            return null;
        }
        long[] strides = c.attrs().getInts("strides");
        long[] dil = c.attrs().getInts("dilations");
        long[] pads = c.attrs().getInts("pads");
        String autoPad = c.attrs().getString("auto_pad", "NOTSET");
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < spatialRank; i++) {
            long s = strides != null && i < strides.length ? strides[i] : 1;
            long d = dil != null && i < dil.length ? dil[i] : 1;
            long pb = pads != null && pads.length == 2 * spatialRank ? pads[i] : 0;
            long pe = pads != null && pads.length == 2 * spatialRank ? pads[i + spatialRank] : 0;
            if (s <= 0 || d <= 0 || kernel[i] <= 0) {
                return null;
            }
            out.add(window(x.shape.get(i + 2), kernel[i], s, d, pb, pe, autoPad, ceilMode));
        }
        return out;
    }

    static TensorInfo conv(InferenceContext c, DataType forced) {
        TensorInfo x = c.input(0);
        TensorInfo w = c.input(1);
        if (x == null || w == null || !x.hasShape() || !w.hasShape() || x.rank() < 3 || w.rank() != x.rank()) {
            return null;
        }
        long[] kernel = c.attrs().getInts("kernel_shape");
        if (kernel == null) {
            kernel = new long[w.rank() - 2];
            for (int i = 0; i < kernel.length; i++) {
                kernel[i] = staticOr(w.shape.get(i + 2), -1);
            }
        }
        List<Dim> sp = spatial(c, x, kernel, false);
        if (sp == null) {
            return null;
        }
        List<Dim> shape = new ArrayList<>();
        shape.add(x.shape.get(0));
        shape.add(w.shape.get(0));
        shape.addAll(sp);
        return TensorInfo.of(forced != null ? forced : x.type, shape);
    }

    static TensorInfo convTranspose(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo w = c.input(1);
        if (x == null || w == null || !x.hasShape() || !w.hasShape() || x.rank() < 3 || w.rank() != x.rank()) {
            return null;
        }
        int sr = x.rank() - 2;
        long group = c.attrs().getInt("group", 1);
        List<Dim> shape = new ArrayList<>();
        shape.add(x.shape.get(0));
        shape.add(Dim.Derived.product(List.of(w.shape.get(1), Dim.of(Math.max(1, group)))));
        long[] outShape = c.attrs().getInts("output_shape");
        if (outShape != null && outShape.length >= sr) {
            for (int i = 0; i < sr; i++) {
                shape.add(Dim.of(Math.max(0, outShape[outShape.length - sr + i])));
            }
            return TensorInfo.of(x.type, shape);
        }
        long[] kernel = c.attrs().getInts("kernel_shape");
        long[] strides = c.attrs().getInts("strides");
        long[] dil = c.attrs().getInts("dilations");
        long[] pads = c.attrs().getInts("pads");
        long[] outPad = c.attrs().getInts("output_padding");
        String autoPad = c.attrs().getString("auto_pad", "NOTSET");
        for (int i = 0; i < sr; i++) {
            long k = kernel != null && i < kernel.length ? kernel[i] : staticOr(w.shape.get(i + 2), -1);
            long s = strides != null && i < strides.length ? strides[i] : 1;
            long d = dil != null && i < dil.length ? dil[i] : 1;
            long op = outPad != null && i < outPad.length ? outPad[i] : 0;
            long pb = pads != null && pads.length == 2 * sr ? pads[i] : 0;
            long pe = pads != null && pads.length == 2 * sr ? pads[i + sr] : 0;
            if (k < 0 || s <= 0) {
                return null;
            }
            Dim in = x.shape.get(i + 2);
            if (autoPad.startsWith("SAME")) {
                shape.add(Dim.Derived.product(List.of(in, Dim.of(s))));
            } else {
                Dim scaled = Dim.Derived.product(List.of(in, Dim.of(s)));
                shape.add(padDim(scaled, -s + op + (k - 1) * d + 1 - pb - pe));
            }
        }
        return TensorInfo.of(x.type, shape);
    }

    static void pool(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape() || x.rank() < 3) {
            return;
        }
        List<Dim> sp = spatial(c, x, c.attrs().getInts("kernel_shape"), c.attrs().getInt("ceil_mode", 0) != 0);
        if (sp == null) {
            return;
        }
        List<Dim> shape = new ArrayList<>(x.shape.subList(0, 2));
        shape.addAll(sp);
        out[0] = TensorInfo.of(x.type, shape);
        fill(out, 1, TensorInfo.of(DataType.INT64, shape));
    }

    static TensorInfo globalPool(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape() || x.rank() < 2) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape.subList(0, 2));
        for (int i = 2; i < x.rank(); i++) {
            shape.add(Dim.of(1));
        }
        return TensorInfo.of(x.type, shape);
    }

    static TensorInfo resize(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        TensorInfo sizes = c.opType().equals("Resize") && c.opset() >= 11 ? c.input(3) : null;
        if (sizes != null && sizes.ints != null && sizes.ints.length > 0) {
            long[] axes = c.attrs().getInts("axes");
            if (axes == null && sizes.ints.length != x.rank()) {
                throw new IllegalArgumentException("sizes has " + sizes.ints.length + " numbers for input 0 of rank "
                        + x.rank() + " " + x.shape + "; Resize needs one per dim");
            }
            List<Dim> shape = new ArrayList<>(x.shape);
            for (int i = 0; i < sizes.ints.length; i++) {
                int ax = axes == null ? i : i < axes.length ? axis(axes[i], x.rank()) : -1;
                Dim d = sizes.ints[i].toDim();
                if (ax < 0 || d == null) {
                    return null;
                }
                shape.set(ax, d);
            }
            return TensorInfo.of(x.type, shape);
        }
        double[] scales;
        float[] attrScales = c.attrs().getFloats("scales");
        if (attrScales != null) {
            scales = new double[attrScales.length];
            for (int i = 0; i < scales.length; i++) {
                scales[i] = attrScales[i];
            }
        } else {
            int idx = c.opType().equals("Upsample") || c.opset() < 11 ? 1 : 2;
            TensorInfo s = c.input(idx);
            scales = s == null ? null : s.floats;
        }
        if (scales == null || scales.length == 0) {
            return TensorInfo.of(x.type, freshShape(x.rank(), c, "resize_d"));
        }
        long[] axes = c.attrs().getInts("axes");
        if (axes == null && scales.length != x.rank()) {
            throw new IllegalArgumentException("scales has " + scales.length + " numbers for input 0 of rank "
                    + x.rank() + " " + x.shape + "; Resize needs one per dim");
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        for (int i = 0; i < scales.length; i++) {
            int ax = axes == null ? i : i < axes.length ? axis(axes[i], x.rank()) : -1;
            if (ax < 0 || !(scales[i] >= 0) || scales[i] > 1e9) {
                return null;
            }
            Dim d = x.shape.get(ax);
            if (d instanceof Dim.Fixed f) {
                shape.set(ax, Dim.of((long) Math.floor(f.extent() * scales[i])));
            } else if (scales[i] == Math.rint(scales[i]) && scales[i] >= 1) {
                shape.set(ax, Dim.Derived.product(List.of(d, Dim.of((long) scales[i]))));
            } else {
                shape.set(ax, c.fresh("resize_d" + ax));
            }
        }
        return TensorInfo.of(x.type, shape);
    }

    static TensorInfo depthSpace(InferenceContext c, boolean toSpace) {
        TensorInfo x = c.input(0);
        long b = c.attrs().getInt("blocksize", 0);
        if (x == null || x.rank() != 4 || b <= 0) {
            return null;
        }
        List<Dim> s = x.shape;
        if (toSpace) {
            return TensorInfo.of(x.type, List.of(s.get(0), Dim.Derived.divide(s.get(1), b * b, false),
                    Dim.Derived.product(List.of(s.get(2), Dim.of(b))), Dim.Derived.product(List.of(s.get(3), Dim.of(b)))));
        }
        return TensorInfo.of(x.type, List.of(s.get(0), Dim.Derived.product(List.of(s.get(1), Dim.of(b * b))),
                Dim.Derived.divide(s.get(2), b, false), Dim.Derived.divide(s.get(3), b, false)));
    }
}
