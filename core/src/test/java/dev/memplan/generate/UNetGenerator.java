// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Shape;
import java.util.Map;

/**
 * Stacked U-Nets (as in stacked hourglass networks) on a {@code [batch, 3, height, width]} image,
 * all three symbolic; the lower resolutions are derived dims ({@code floor(height / 2^level)}).
 * Each U-Net has an encoder of {@code depth} levels ({@code convsPerLevel} conv + ReLU pairs, then
 * a max pool), a bottleneck, and a decoder that upsamples and concatenates the encoder output of
 * the same level: those long skip connections keep every encoder level's output live until the
 * decoder comes back up to it.
 *
 * @see #ofOwners(int)
 */
public final class UNetGenerator {
    /** Levels of the default U-Net. */
    public static final int DEFAULT_DEPTH = 4;
    static final int BASE_CHANNELS = 32;
    /** Owners outside the stacks: the stem conv and the head conv. */
    static final int FIXED_OWNERS = 2;

    /** Bindings of the typical request. */
    public static final Map<String, Long> DEFAULT_BINDINGS = Map.of("batch", 1L, "height", 256L, "width", 256L);

    private static final DataType F32 = DataType.FLOAT32;

    private UNetGenerator() {
    }

    /**
     * About {@code targetOwners} owners: depth 4, about {@code sqrt(targetOwners) / 20} convolutions
     * per level (so the skip connections grow longer as the graph grows), and as many stacked
     * U-Nets as that takes.
     *
     * @param targetOwners the owner count to approach
     * @return the generated graph
     */
    public static GeneratedGraph ofOwners(int targetOwners) {
        int convs = Math.max(1, Math.round((float) Math.sqrt(Math.max(targetOwners, 1)) / 20f));
        int perStack = ownersPerStack(DEFAULT_DEPTH, convs);
        int stacks = Math.max(1, Math.round((float) (targetOwners - FIXED_OWNERS) / perStack));
        return build(DEFAULT_DEPTH, convs, stacks);
    }

    /** Owners of one U-Net: encoder {@code depth * (2c + 1)}, bottleneck {@code 2c}, decoder {@code depth * (2c + 2)}. */
    static int ownersPerStack(int depth, int convsPerLevel) {
        return depth * (4 * convsPerLevel + 3) + 2 * convsPerLevel;
    }

    /**
     * {@return the owner count {@link #build} gives}
     *
     * @param depth down-sampling levels
     * @param convsPerLevel convolutions per level
     * @param stacks U-Nets chained one after another
     */
    public static int ownerCount(int depth, int convsPerLevel, int stacks) {
        return FIXED_OWNERS + stacks * ownersPerStack(depth, convsPerLevel);
    }

    /**
     * Builds a U-Net of these dimensions.
     *
     * @param depth down-sampling levels
     * @param convsPerLevel convolutions per level
     * @param stacks U-Nets chained one after another
     * @return the generated graph
     */
    public static GeneratedGraph build(int depth, int convsPerLevel, int stacks) {
        if (depth < 1 || depth > 16 || convsPerLevel < 1 || stacks < 1) {
            throw new IllegalArgumentException("a U-Net needs 1 <= depth <= 16, convsPerLevel >= 1 and stacks >= 1,"
                    + " got depth=" + depth + ", convsPerLevel=" + convsPerLevel + ", stacks=" + stacks);
        }
        NetBuilder b = new NetBuilder();
        Dim height = Dim.symbol("height");
        Dim width = Dim.symbol("width");
        // Activation shape and 3x3 kernel at each level; level l has BASE_CHANNELS << l channels.
        Shape[] act = new Shape[depth + 1];
        Shape[] kernel = new Shape[depth + 1];
        Shape[] concat = new Shape[depth];
        for (int l = 0; l <= depth; l++) {
            long ch = (long) BASE_CHANNELS << l;
            Dim hl = Dim.Derived.divide(height, 1L << l, false);
            Dim wl = Dim.Derived.divide(width, 1L << l, false);
            act[l] = Shape.of("batch", ch, hl, wl);
            kernel[l] = Shape.fixed(ch, ch, 3, 3);
            if (l < depth) {
                concat[l] = Shape.of("batch", 3 * ch, hl, wl); // upsampled (2ch) + skip (ch)
            }
        }
        int image = b.input("image", F32, Shape.of("batch", 3, "height", "width"));
        int x = b.op("stem", "Conv", F32, act[0], image,
                b.weight("stem.w", F32, Shape.fixed(BASE_CHANNELS, 3, 3, 3)));
        int[] skip = new int[depth];
        for (int s = 0; s < stacks; s++) {
            String p = "u" + s + ".";
            for (int l = 0; l < depth; l++) {
                x = convs(b, p + "enc" + l, x, convsPerLevel, act[l], kernel[l], kernel[l]);
                skip[l] = x;
                x = b.op(p + "pool" + l, "MaxPool", F32, act[l + 1], x);
            }
            Shape widen = Shape.fixed((long) BASE_CHANNELS << depth, (long) BASE_CHANNELS << (depth - 1), 3, 3);
            x = convs(b, p + "mid", x, convsPerLevel, act[depth], widen, kernel[depth]);
            for (int l = depth - 1; l >= 0; l--) {
                int up = b.op(p + "up" + l, "Resize", F32, Shape.of("batch", (long) BASE_CHANNELS << (l + 1),
                        act[l].dims().get(2), act[l].dims().get(3)), x);
                int cat = b.op(p + "cat" + l, "Concat", F32, concat[l], up, skip[l]);
                long ch = (long) BASE_CHANNELS << l;
                x = convs(b, p + "dec" + l, cat, convsPerLevel, act[l], Shape.fixed(ch, 3 * ch, 3, 3), kernel[l]);
            }
        }
        int head = b.op("head", "Conv", F32, Shape.of("batch", 2, "height", "width"), x,
                b.weight("head.w", F32, Shape.fixed(2, BASE_CHANNELS, 1, 1)));
        b.output(head);
        return b.build("unet(depth=" + depth + ", convsPerLevel=" + convsPerLevel + ", stacks=" + stacks + ")",
                DEFAULT_BINDINGS);
    }

    /** {@code n} conv + ReLU pairs; the first conv takes {@code firstKernel} (it may change the channels). */
    private static int convs(NetBuilder b, String prefix, int x, int n, Shape act, Shape firstKernel, Shape kernel) {
        for (int i = 0; i < n; i++) {
            String p = prefix + "." + i;
            int conv = b.op(p + ".conv", "Conv", F32, act, x, b.weight(p + ".w", F32, i == 0 ? firstKernel : kernel));
            x = b.op(p + ".relu", "Relu", F32, act, conv);
        }
        return x;
    }
}
