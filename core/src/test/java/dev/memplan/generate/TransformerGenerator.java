// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.DataType;
import dev.memplan.Shape;
import java.util.Map;

/**
 * A decoder-only transformer stack (GPT-2 style) with symbolic {@code batch} and {@code seq}:
 * token and position embeddings, then per layer a pre-norm attention block (layer norm, Q/K/V
 * projections, head split by reshape and transpose as views, scaled and masked scores, softmax,
 * context, head merge as views, output projection, residual add) and a pre-norm MLP block (layer
 * norm, up projection, GELU, down projection, residual add); a final layer norm and the logits.
 */
public final class TransformerGenerator {
    /** Owners outside the layers: token and position embeddings, their sum, final norm, logits. */
    static final int FIXED_OWNERS = 5;
    /** Owners per layer; each layer also has 8 views (the head split and merge). */
    static final int OWNERS_PER_LAYER = 16;

    /** Bindings of a typical request. */
    public static final Map<String, Long> DEFAULT_BINDINGS = Map.of("batch", 1L, "seq", 128L);

    private static final DataType F32 = DataType.FLOAT32;

    private TransformerGenerator() {
    }

    /** {@return GPT-2 small (12 layers, hidden 768, 12 heads, vocabulary 50257)} */
    public static GeneratedGraph gpt2Small() {
        return build(TransformerConfig.gpt2Small());
    }

    /**
     * {@return GPT-2 small dimensions with as many layers as it takes to get about {@code targetOwners} owners}
     *
     * @param targetOwners the owner count to approach
     */
    public static GeneratedGraph ofOwners(int targetOwners) {
        int layers = Math.max(1, Math.round((float) (targetOwners - FIXED_OWNERS) / OWNERS_PER_LAYER));
        return build(TransformerConfig.gpt2Small().withLayers(layers));
    }

    /**
     * {@return the owner count {@link #build} gives for {@code config}}
     *
     * @param config the model dimensions
     */
    public static int ownerCount(TransformerConfig config) {
        return FIXED_OWNERS + OWNERS_PER_LAYER * config.layers();
    }

    /**
     * Builds a decoder-only transformer with the dimensions of {@code c}.
     *
     * @param c the model dimensions
     * @return the generated graph
     */
    public static GeneratedGraph build(TransformerConfig c) {
        NetBuilder b = new NetBuilder();
        int h = c.hidden();
        int heads = c.heads();
        int d = c.headDim();
        int mlp = Math.multiplyExact(h, c.mlpRatio());
        // Shapes are immutable: one instance each, shared by every layer.
        Shape tokens = Shape.of("batch", "seq");
        Shape act = Shape.of("batch", "seq", h);
        Shape split = Shape.of("batch", "seq", heads, d);
        Shape headsFirst = Shape.of("batch", heads, "seq", d);
        Shape keysT = Shape.of("batch", heads, d, "seq");
        Shape scores = Shape.of("batch", heads, "seq", "seq");
        Shape wide = Shape.of("batch", "seq", mlp);
        Shape square = Shape.fixed(h, h);
        Shape vec = Shape.fixed(h);
        Shape upWeight = Shape.fixed(h, mlp);
        Shape downWeight = Shape.fixed(mlp, h);

        int ids = b.input("input_ids", DataType.INT64, tokens);
        int positions = b.input("position_ids", DataType.INT64, tokens);
        int mask = b.input("attention_mask", F32, Shape.of(1, 1, "seq", "seq"));
        int wte = b.weight("wte", F32, Shape.fixed(c.vocab(), h));
        int wpe = b.weight("wpe", F32, Shape.fixed(1024, h));
        int splitShape = b.weight("split_shape", DataType.INT64, Shape.fixed(4));
        int mergeShape = b.weight("merge_shape", DataType.INT64, Shape.fixed(3));
        int scale = b.weight("attn_scale", F32, Shape.SCALAR);

        int tok = b.op("tok_emb", "Gather", F32, act, wte, ids);
        int pos = b.op("pos_emb", "Gather", F32, act, wpe, positions);
        int x = b.op("emb", "Add", F32, act, tok, pos);

        for (int l = 0; l < c.layers(); l++) {
            String p = "l" + l + ".";
            int ln1 = b.op(p + "ln1", "LayerNormalization", F32, act, x,
                    b.weight(p + "ln1.g", F32, vec), b.weight(p + "ln1.b", F32, vec));
            int q = b.op(p + "q", "MatMul", F32, act, ln1, b.weight(p + "wq", F32, square));
            int k = b.op(p + "k", "MatMul", F32, act, ln1, b.weight(p + "wk", F32, square));
            int v = b.op(p + "v", "MatMul", F32, act, ln1, b.weight(p + "wv", F32, square));
            int qh = b.view(p + "q.t", "Transpose", F32, headsFirst,
                    b.view(p + "q.r", "Reshape", F32, split, q, splitShape));
            int kh = b.view(p + "k.t", "Transpose", F32, keysT,
                    b.view(p + "k.r", "Reshape", F32, split, k, splitShape));
            int vh = b.view(p + "v.t", "Transpose", F32, headsFirst,
                    b.view(p + "v.r", "Reshape", F32, split, v, splitShape));
            int raw = b.op(p + "scores", "MatMul", F32, scores, qh, kh);
            int scaled = b.op(p + "scaled", "Mul", F32, scores, raw, scale);
            int masked = b.op(p + "masked", "Add", F32, scores, scaled, mask);
            int probs = b.op(p + "probs", "Softmax", F32, scores, masked);
            int ctx = b.op(p + "ctx", "MatMul", F32, headsFirst, probs, vh);
            int merged = b.view(p + "ctx.r", "Reshape", F32, act,
                    b.view(p + "ctx.t", "Transpose", F32, split, ctx), mergeShape);
            int attn = b.op(p + "attn", "MatMul", F32, act, merged, b.weight(p + "wo", F32, square));
            int res1 = b.op(p + "res1", "Add", F32, act, x, attn);
            int ln2 = b.op(p + "ln2", "LayerNormalization", F32, act, res1,
                    b.weight(p + "ln2.g", F32, vec), b.weight(p + "ln2.b", F32, vec));
            int up = b.op(p + "fc1", "MatMul", F32, wide, ln2, b.weight(p + "w1", F32, upWeight));
            int gelu = b.op(p + "gelu", "Gelu", F32, wide, up);
            int down = b.op(p + "fc2", "MatMul", F32, act, gelu, b.weight(p + "w2", F32, downWeight));
            x = b.op(p + "res2", "Add", F32, act, res1, down);
        }
        int lnf = b.op("ln_f", "LayerNormalization", F32, act, x,
                b.weight("ln_f.g", F32, vec), b.weight("ln_f.b", F32, vec));
        int logits = b.op("logits", "MatMul", F32, Shape.of("batch", "seq", c.vocab()), lnf,
                b.weight("lm_head", F32, Shape.fixed(h, c.vocab())));
        b.output(logits);
        return b.build("transformer(" + c + ")", DEFAULT_BINDINGS);
    }
}
