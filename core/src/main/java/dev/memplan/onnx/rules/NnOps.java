// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.symbols.TensorInfo;
import static dev.memplan.onnx.rules.InferenceSupport.*;

import dev.memplan.DataType;
import dev.memplan.Dim;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Inference for MatMul/Gemm, reductions, TopK, Unique, OneHot, LSTM/GRU/RNN and LayerNormalization. */
final class NnOps {
    private NnOps() {
    }

    static void layerNorm(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null) {
            return;
        }
        out[0] = TensorInfo.of(x.type, x.shape);
        if (!x.hasShape()) {
            return;
        }
        List<Dim> stats = new ArrayList<>(x.shape);
        if (c.opType().equals("LayerNormalization")) {
            int axis = axis(c.attrs().getInt("axis", -1), x.rank());
            for (int i = Math.max(axis, 0); i < stats.size(); i++) {
                stats.set(i, Dim.of(1));
            }
            fill(out, 1, TensorInfo.of(DataType.FLOAT32, stats));
            fill(out, 2, TensorInfo.of(DataType.FLOAT32, stats));
        } else {
            // SkipLayerNormalization: mean, inv_std_var, input_skip_bias_sum; the skip input
            // matches the input (or broadcasts to it)
            TensorInfo skip = c.input(1);
            if (skip != null && skip.hasShape() && skip.rank() <= x.rank()) {
                broadcast(List.of(x.shape, skip.shape), c);
            }
            if (!stats.isEmpty()) {
                stats.set(stats.size() - 1, Dim.of(1));
            }
            fill(out, 1, TensorInfo.of(DataType.FLOAT32, stats));
            fill(out, 2, TensorInfo.of(DataType.FLOAT32, stats));
            fill(out, 3, TensorInfo.of(x.type, x.shape));
        }
    }

    static TensorInfo matmul(InferenceContext c, DataType forced) {
        TensorInfo a = c.input(0);
        TensorInfo b = c.input(1);
        if (a == null || b == null || !a.hasShape() || !b.hasShape() || a.rank() == 0 || b.rank() == 0) {
            return null;
        }
        DataType type = forced != null ? forced : a.type;
        List<Dim> as = new ArrayList<>(a.shape);
        List<Dim> bs = new ArrayList<>(b.shape);
        boolean aVec = as.size() == 1;
        boolean bVec = bs.size() == 1;
        if (aVec) {
            as.add(0, Dim.of(1));
        }
        if (bVec) {
            bs.add(Dim.of(1));
        }
        c.relate(as.get(as.size() - 1), bs.get(bs.size() - 2), c.opType() + " inner dims", false);
        List<Dim> batch = broadcast(Arrays.asList(as.subList(0, as.size() - 2), bs.subList(0, bs.size() - 2)), c);
        List<Dim> shape = new ArrayList<>(batch);
        if (!aVec) {
            shape.add(as.get(as.size() - 2));
        }
        if (!bVec) {
            shape.add(bs.get(bs.size() - 1));
        }
        return TensorInfo.of(type, shape);
    }

    /**
     * com.microsoft FusedMatMul: MatMul with {@code transA}/{@code transB} swapping the last two
     * dims of an input first ({@code alpha} only scales). The batch transposes
     * ({@code transBatchA}/{@code transBatchB}) are not inferred: the output is left to value_info.
     */
    static TensorInfo fusedMatmul(InferenceContext c) {
        if (c.attrs().getInt("transBatchA", 0) != 0 || c.attrs().getInt("transBatchB", 0) != 0) {
            return null;
        }
        TensorInfo a = transposedLast(c.input(0), c.attrs().getInt("transA", 0) != 0);
        TensorInfo b = transposedLast(c.input(1), c.attrs().getInt("transB", 0) != 0);
        InferenceContext swapped = RemappedContext.of(c, a, b);
        return matmul(swapped, null);
    }

    /** {@code t} with its last two dims swapped when {@code transpose} (a rank-1 tensor is left as is). */
    private static TensorInfo transposedLast(TensorInfo t, boolean transpose) {
        if (t == null || !transpose || !t.hasShape() || t.rank() < 2) {
            return t;
        }
        List<Dim> s = new ArrayList<>(t.shape);
        Collections.swap(s, s.size() - 1, s.size() - 2);
        return TensorInfo.of(t.type, s);
    }

    static TensorInfo gemm(InferenceContext c) {
        TensorInfo a = c.input(0);
        TensorInfo b = c.input(1);
        if (a == null || b == null || a.rank() != 2 || b.rank() != 2) {
            return null;
        }
        Dim m = c.attrs().getInt("transA", 0) != 0 ? a.shape.get(1) : a.shape.get(0);
        Dim n = c.attrs().getInt("transB", 0) != 0 ? b.shape.get(0) : b.shape.get(1);
        c.relate(c.attrs().getInt("transA", 0) != 0 ? a.shape.get(0) : a.shape.get(1),
                c.attrs().getInt("transB", 0) != 0 ? b.shape.get(1) : b.shape.get(0), "Gemm inner dims", false);
        return TensorInfo.of(a.type, List.of(m, n));
    }

    static List<Dim> reduced(List<Dim> shape, long[] axes, boolean keep) {
        int r = shape.size();
        boolean[] red = new boolean[r];
        if (axes == null || axes.length == 0) {
            Arrays.fill(red, true);
        } else {
            for (long a : axes) {
                int n = axis(a, r);
                if (n < 0) {
                    return null;
                }
                red[n] = true;
            }
        }
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < r; i++) {
            if (!red[i]) {
                out.add(shape.get(i));
            } else if (keep) {
                out.add(Dim.of(1));
            }
        }
        return out;
    }

    static TensorInfo reduce(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        boolean keep = c.attrs().getInt("keepdims", 1) != 0;
        long[] axes = c.attrs().getInts("axes");
        if (axes == null && c.input(1) != null) {
            axes = c.input(1).constInts();
            if (axes == null) {
                return TensorInfo.of(x.type, null);
            }
        }
        if ((axes == null || axes.length == 0) && c.attrs().getInt("noop_with_empty_axes", 0) != 0) {
            return TensorInfo.of(x.type, x.shape);
        }
        return TensorInfo.of(x.type, reduced(x.shape, axes, keep));
    }

    static TensorInfo argReduce(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        return TensorInfo.of(DataType.INT64, reduced(x.shape, new long[]{c.attrs().getInt("axis", 0)},
                c.attrs().getInt("keepdims", 1) != 0));
    }

    static void topK(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return;
        }
        int ax = axis(c.attrs().getInt("axis", -1), x.rank());
        if (ax < 0) {
            return;
        }
        Dim k;
        TensorInfo kIn = c.input(1);
        if (c.opset() < 10) {
            k = Dim.of(Math.max(0, c.attrs().getInt("k", 0)));
        } else if (kIn != null && kIn.ints != null && kIn.ints.length == 1 && kIn.ints[0].toDim() != null) {
            k = kIn.ints[0].toDim();
        } else {
            k = c.fresh("topk_k");
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        shape.set(ax, k);
        out[0] = TensorInfo.of(x.type, shape);
        fill(out, 1, TensorInfo.of(DataType.INT64, shape));
    }

    static void unique(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null) {
            return;
        }
        Dim n = c.fresh("unique_count");
        if (c.attrs().has("axis") && x.hasShape()) {
            int ax = axis(c.attrs().getInt("axis", 0), x.rank());
            if (ax < 0) {
                return;
            }
            List<Dim> s = new ArrayList<>(x.shape);
            s.set(ax, n);
            out[0] = TensorInfo.of(x.type, s);
        } else {
            out[0] = TensorInfo.of(x.type, List.of(n));
        }
        fill(out, 1, TensorInfo.of(DataType.INT64, List.of(n)));
        fill(out, 2, x.hasShape() ? TensorInfo.of(DataType.INT64, List.of(Dim.Derived.product(x.shape))) : null);
        fill(out, 3, TensorInfo.of(DataType.INT64, List.of(n)));
    }

    static TensorInfo oneHot(InferenceContext c) {
        TensorInfo idx = c.input(0);
        TensorInfo depth = c.input(1);
        TensorInfo values = c.input(2);
        if (idx == null || !idx.hasShape() || values == null) {
            return null;
        }
        Dim d = depth != null && depth.ints != null && depth.ints.length == 1 && depth.ints[0].toDim() != null
                ? depth.ints[0].toDim() : depth != null && depth.floats != null && depth.floats.length == 1
                ? Dim.of((long) Math.max(0, depth.floats[0])) : c.fresh("onehot_depth");
        int r = idx.rank() + 1;
        int ax = axis(c.attrs().getInt("axis", -1), r);
        if (ax < 0) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(idx.shape);
        shape.add(ax, d);
        return TensorInfo.of(values.type, shape);
    }

    static void recurrent(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || x.rank() != 3) {
            return;
        }
        long hidden = c.attrs().getInt("hidden_size", -1);
        Dim h;
        if (hidden > 0) {
            h = Dim.of(hidden);
        } else if (c.input(2) != null && c.input(2).rank() == 3) {
            h = c.input(2).shape.get(2); // R is [dirs, gates*hidden, hidden]
        } else {
            return;
        }
        Dim dirs = Dim.of(c.attrs().getString("direction", "forward").equals("bidirectional") ? 2 : 1);
        boolean batchFirst = c.attrs().getInt("layout", 0) != 0;
        Dim seq = x.shape.get(batchFirst ? 1 : 0);
        Dim batch = x.shape.get(batchFirst ? 0 : 1);
        out[0] = TensorInfo.of(x.type, batchFirst ? List.of(batch, seq, dirs, h) : List.of(seq, dirs, batch, h));
        TensorInfo state = TensorInfo.of(x.type, batchFirst ? List.of(batch, dirs, h) : List.of(dirs, batch, h));
        fill(out, 1, state);
        fill(out, 2, state);
    }
}
