// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.symbols.TensorInfo;
import static dev.memplan.onnx.rules.InferenceSupport.*;

import dev.memplan.DataType;
import dev.memplan.Dim;
import java.util.List;

/** Inference for the com.microsoft contrib ops of common exports: Attention, EmbedLayerNormalization, GroupQueryAttention. */
final class ContribOps {
    private ContribOps() {
    }

    static void attention(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        TensorInfo w = c.input(1);
        if (x == null || x.rank() != 3) {
            return;
        }
        long heads = c.attrs().getInt("num_heads", 0);
        long[] qkv = c.attrs().getInts("qkv_hidden_sizes");
        Dim vHidden;
        Dim qkHidden;
        if (qkv != null && qkv.length == 3) {
            qkHidden = Dim.of(qkv[0]);
            vHidden = Dim.of(qkv[2]);
        } else if (w != null && w.rank() == 2) {
            vHidden = Dim.Derived.divide(w.shape.get(1), 3, false);
            qkHidden = vHidden;
        } else {
            return;
        }
        out[0] = TensorInfo.of(x.type, List.of(x.shape.get(0), x.shape.get(1), vHidden));
        TensorInfo past = c.input(4);
        if (out.length > 1 && heads > 0) {
            Dim headSize = Dim.Derived.divide(qkHidden, heads, false);
            Dim pastLen = past != null && past.rank() == 5 ? past.shape.get(3) : Dim.of(0);
            Dim total = Dim.Derived.sum(List.of(pastLen, x.shape.get(1)), 0);
            // a 2-D (batch, total) or 3-D (batch, seq, total) mask covers past and current tokens
            TensorInfo mask = c.input(3);
            if (mask != null && (mask.rank() == 2 || mask.rank() == 3)) {
                c.relate(mask.shape.get(mask.rank() - 1), total,
                        "its attention mask's last dim is the past plus the current sequence length", false);
                c.relate(mask.shape.get(0), x.shape.get(0), "its attention mask's first dim is the batch", false);
            }
            out[1] = TensorInfo.of(x.type, List.of(Dim.of(2), x.shape.get(0), Dim.of(heads), total, headSize));
        }
    }

    static void embedLayerNorm(InferenceContext c, TensorInfo[] out) {
        TensorInfo ids = c.input(0);
        TensorInfo word = c.input(2);
        if (ids == null || ids.rank() != 2 || word == null || word.rank() != 2) {
            return;
        }
        out[0] = TensorInfo.of(word.type, List.of(ids.shape.get(0), ids.shape.get(1), word.shape.get(1)));
        fill(out, 1, TensorInfo.of(DataType.INT32, List.of(ids.shape.get(0))));
        fill(out, 2, TensorInfo.of(word.type, List.of(ids.shape.get(0), ids.shape.get(1), word.shape.get(1))));
    }

    static void groupQueryAttention(InferenceContext c, TensorInfo[] out) {
        TensorInfo q = c.input(0);
        TensorInfo pastKey = c.input(3);
        if (q == null || q.rank() != 3) {
            return;
        }
        long heads = c.attrs().getInt("num_heads", 0);
        long kvHeads = c.attrs().getInt("kv_num_heads", 0);
        if (heads <= 0 || kvHeads <= 0) {
            return;
        }
        boolean packed = c.input(1) == null;
        Dim hidden = q.shape.get(2);
        Dim headSize = packed ? Dim.Derived.divide(hidden, heads + 2 * kvHeads, false)
                : Dim.Derived.divide(hidden, heads, false);
        out[0] = TensorInfo.of(q.type, List.of(q.shape.get(0), q.shape.get(1),
                Dim.Derived.product(List.of(headSize, Dim.of(heads)))));
        if (pastKey != null && pastKey.rank() == 4) {
            // present length: the total_sequence_length input's value when it is known (at least
            // the past buffer), else a fresh symbol the caller binds
            TensorInfo totalIn = c.input(6);
            Dim known = totalIn != null && totalIn.ints != null && totalIn.ints.length == 1
                    ? totalIn.ints[0].toDim() : null;
            Dim total = known != null ? Dim.Derived.max(List.of(pastKey.shape.get(2), known))
                    : c.fresh("present_length");
            TensorInfo present = TensorInfo.of(q.type, List.of(q.shape.get(0), Dim.of(kvHeads), total, headSize));
            fill(out, 1, present);
            fill(out, 2, present);
        }
    }
}
