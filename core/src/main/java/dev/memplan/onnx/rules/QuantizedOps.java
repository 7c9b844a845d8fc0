// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Inference for the quantized and fused ops ONNX Runtime runs on CPU: the QLinear family (each the
 * op it quantizes, over its data inputs, with the output zero point's element type), QGemm,
 * FusedGemm, MatMulNBits, NhwcMaxPool and MultiHeadAttention. Each reuses the rule of the plain op
 * through a {@link RemappedContext}.
 */
final class QuantizedOps {
    private QuantizedOps() {
    }

    private static final String MS = "com.microsoft";

    /** Registers the ops in {@code r}. */
    static void register(OpRegistry r) {
        r.add("", "QLinearMatMul", 10, ShapeRule.firstOutput(c -> retyped(
                NnOps.matmul(RemappedContext.picking(c, 0, 3), null), c.input(7))));
        r.add("", "QLinearConv", 10, ShapeRule.firstOutput(c -> retyped(
                SpatialOps.conv(RemappedContext.picking(c, 0, 3), null), c.input(7))));
        for (String op : List.of("QLinearAdd", "QLinearMul")) {
            r.add(MS, op, 1, ShapeRule.firstOutput(c -> retyped(broadcast(RemappedContext.picking(c, 0, 3)),
                    c.input(0))));
        }
        for (String op : List.of("QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax")) {
            r.add(MS, op, 1, ShapeRule.firstOutput(c -> c.input(0) == null ? null
                    : TensorInfo.of(c.input(0).type, c.input(0).shape)));
        }
        r.add(MS, "QLinearAveragePool", 1, (c, out) -> {
            if (c.attrs().getInt("channels_last", 0) == 0) {
                SpatialOps.pool(c, out);
            } else {
                out[0] = channelsLast(c, SpatialOps::pool);
            }
        });
        r.add(MS, "QLinearGlobalAveragePool", 1, ShapeRule.firstOutput(c -> c.attrs().getInt("channels_last", 0) == 0
                ? SpatialOps.globalPool(c) : channelsLast(c, (cc, o) -> o[0] = SpatialOps.globalPool(cc))));
        r.add(MS, "QLinearConcat", 1, ShapeRule.firstOutput(QuantizedOps::qlinearConcat));
        r.add(MS, "QGemm", 1, ShapeRule.firstOutput(c -> retyped(NnOps.gemm(RemappedContext.picking(c, 0, 3)),
                c.input(8) != null ? c.input(8) : TensorInfo.of(DataType.FLOAT32, List.of()))));
        r.add(MS, "FusedGemm", 1, ShapeRule.firstOutput(NnOps::gemm));
        r.add(MS, "MatMulNBits", 1, ShapeRule.firstOutput(QuantizedOps::matMulNBits));
        r.add(MS, "NhwcMaxPool", 1, ShapeRule.firstOutput(c -> channelsLast(c, SpatialOps::pool)));
        r.add(MS, "QuantizeLinear", 1, ShapeRule.firstOutput(c -> c.input(0) == null ? null : TensorInfo.of(
                c.input(2) != null ? c.input(2).type : DataType.UINT8, c.input(0).shape)));
        r.add(MS, "DequantizeLinear", 1, ShapeRule.firstOutput(c -> c.input(0) == null ? null : TensorInfo.of(
                c.input(1) != null ? c.input(1).type : DataType.FLOAT32, c.input(0).shape)));
        r.add(MS, "MultiHeadAttention", 1, QuantizedOps::multiHeadAttention);
    }

    /** {@code t} with the element type of {@code like}, or null. */
    private static TensorInfo retyped(TensorInfo t, TensorInfo like) {
        return t == null || like == null ? t : TensorInfo.of(like.type, t.shape);
    }

    private static TensorInfo broadcast(InferenceContext c) {
        if (c.input(0) == null || c.input(1) == null || !c.input(0).hasShape() || !c.input(1).hasShape()) {
            return null;
        }
        List<Dim> s = InferenceSupport.broadcast(List.of(c.input(0).shape, c.input(1).shape), c);
        return s == null ? null : TensorInfo.of(c.input(0).type, s);
    }

    /** A pool over an NHWC input: the NCHW rule on the input with its channels moved, moved back. */
    private static TensorInfo channelsLast(InferenceContext c, ShapeRule rule) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape() || x.rank() < 3) {
            return null;
        }
        List<Dim> nchw = new ArrayList<>(x.shape);
        nchw.add(1, nchw.remove(nchw.size() - 1));
        TensorInfo[] out = new TensorInfo[Math.max(1, c.outputCount())];
        rule.infer(RemappedContext.of(c, TensorInfo.of(x.type, nchw)), out);
        if (out[0] == null || !out[0].hasShape()) {
            return null;
        }
        List<Dim> nhwc = new ArrayList<>(out[0].shape);
        nhwc.add(nhwc.remove(1));
        return TensorInfo.of(x.type, nhwc);
    }

    /** Inputs: Y_scale, Y_zero_point, then (tensor, scale, zero point) per input; concatenated on {@code axis}. */
    private static TensorInfo qlinearConcat(InferenceContext c) {
        List<Integer> tensors = new ArrayList<>();
        for (int i = 2; i < c.inputCount(); i += 3) {
            tensors.add(i);
        }
        TensorInfo out = ShapeOps.concat(RemappedContext.picking(c, tensors.stream().mapToInt(Integer::intValue)
                .toArray()));
        return out == null ? null : TensorInfo.of(out.type, out.shape);
    }

    /** A [.., K] times blocked n-bit [N, K] weights: [.., N], the {@code N} attribute. */
    private static TensorInfo matMulNBits(InferenceContext c) {
        TensorInfo a = c.input(0);
        long n = c.attrs().getInt("N", -1);
        if (a == null || !a.hasShape() || a.rank() < 1) {
            return null;
        }
        if (n < 0) {
            throw new IllegalArgumentException("attribute 'N' is missing or negative; MatMulNBits needs the output"
                    + " width");
        }
        List<Dim> s = new ArrayList<>(a.shape);
        s.set(s.size() - 1, Dim.of(n));
        return TensorInfo.of(a.type, s);
    }

    /**
     * MultiHeadAttention with 3-D query [B, S, D]: output [B, S, Dv] (Dv the value's hidden size:
     * its last dim when 3-D, heads times head size when 4-D [B, N, L, H]); present key and value
     * [B, N, past + L, H] when asked for.
     */
    private static void multiHeadAttention(InferenceContext c, TensorInfo[] out) {
        TensorInfo q = c.input(0);
        TensorInfo k = c.input(1);
        TensorInfo v = c.input(2);
        long heads = c.attrs().getInt("num_heads", 0);
        if (q == null || q.rank() != 3 || heads <= 0) {
            return;
        }
        Dim vHidden = v == null || !v.hasShape() ? q.shape.get(2) : v.rank() == 3 ? v.shape.get(2)
                : v.rank() == 4 ? Dim.Derived.product(List.of(Dim.of(heads), v.shape.get(3))) : null;
        if (vHidden == null) {
            return;
        }
        out[0] = TensorInfo.of(q.type, List.of(q.shape.get(0), q.shape.get(1), vHidden));
        if (out.length > 1 && k != null && k.rank() == 3 && v != null && v.rank() == 3) {
            TensorInfo past = c.input(6);
            Dim pastLen = past != null && past.rank() == 4 ? past.shape.get(2) : Dim.of(0);
            Dim total = Dim.Derived.sum(List.of(pastLen, k.shape.get(1)), 0);
            Dim kHead = Dim.Derived.divide(k.shape.get(2), heads, false);
            Dim vHead = Dim.Derived.divide(v.shape.get(2), heads, false);
            InferenceSupport.fill(out, 1, TensorInfo.of(q.type, List.of(q.shape.get(0), Dim.of(heads), total, kHead)));
            InferenceSupport.fill(out, 2, TensorInfo.of(q.type, List.of(q.shape.get(0), Dim.of(heads), total, vHead)));
        }
    }
}
