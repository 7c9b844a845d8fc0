// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

/**
 * The dimensions of a decoder-only transformer stack.
 *
 * @param layers   decoder layers (blocks)
 * @param hidden   model width; a multiple of {@code heads}
 * @param heads    attention heads
 * @param mlpRatio MLP width as a multiple of {@code hidden} (4 in GPT-2)
 * @param vocab    vocabulary size (rows of the token embedding, width of the logits)
 */
public record TransformerConfig(int layers, int hidden, int heads, int mlpRatio, int vocab) {

    /**
     * Rejects non-positive sizes and a hidden size the heads do not divide.
     *
     * @param layers decoder layers
     * @param hidden hidden size
     * @param heads attention heads (divides {@code hidden})
     * @param mlpRatio MLP width as a multiple of {@code hidden}
     * @param vocab vocabulary size
     */
    public TransformerConfig {
        if (layers < 1 || hidden < 1 || heads < 1 || mlpRatio < 1 || vocab < 1) {
            throw new IllegalArgumentException("every transformer dimension must be >= 1, got " + describe(
                    layers, hidden, heads, mlpRatio, vocab));
        }
        if (hidden % heads != 0) {
            throw new IllegalArgumentException("hidden (" + hidden + ") must be a multiple of heads (" + heads
                    + ") so each head gets hidden / heads channels");
        }
    }

    /** {@return GPT-2 small: 12 layers, hidden 768, 12 heads, MLP ratio 4, vocabulary 50257} */
    public static TransformerConfig gpt2Small() {
        return new TransformerConfig(12, 768, 12, 4, 50257);
    }

    /**
     * {@return the same dimensions with {@code n} layers}
     *
     * @param n the number of layers
     */
    public TransformerConfig withLayers(int n) {
        return new TransformerConfig(n, hidden, heads, mlpRatio, vocab);
    }

    /** {@return hidden size per attention head} */
    public int headDim() {
        return hidden / heads;
    }

    @Override
    public String toString() {
        return describe(layers, hidden, heads, mlpRatio, vocab);
    }

    private static String describe(int layers, int hidden, int heads, int mlpRatio, int vocab) {
        return "layers=" + layers + ", hidden=" + hidden + ", heads=" + heads + ", mlpRatio=" + mlpRatio
                + ", vocab=" + vocab;
    }
}
