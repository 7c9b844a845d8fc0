// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.DataType;
import dev.memplan.Shape;
import java.util.Map;

/**
 * A ResNet-style CNN on a {@code [batch, 3, 224, 224]} image: a stem (7x7 conv, ReLU, max pool),
 * four stages of basic residual blocks (conv, ReLU, conv, add the shortcut, ReLU; the first block
 * of stages 2-4 halves the resolution, doubles the channels and projects its shortcut with a 1x1
 * conv), global average pooling, a flatten (a view) and the classifier.
 */
public final class ResNetGenerator {
    /** Owners outside the blocks: stem (3), downsample projections (3), pooling and classifier (2). */
    static final int FIXED_OWNERS = 8;
    static final int OWNERS_PER_BLOCK = 5;
    static final int STAGES = 4;

    /** Bindings of the typical request. */
    public static final Map<String, Long> DEFAULT_BINDINGS = Map.of("batch", 8L);

    private static final DataType F32 = DataType.FLOAT32;

    private ResNetGenerator() {
    }

    /** {@return resNet-18's layout: two basic blocks per stage} */
    public static GeneratedGraph resnet18() {
        return build(new int[] {2, 2, 2, 2});
    }

    /**
     * As many blocks as it takes to get about {@code targetOwners} owners, spread over the four stages.
     *
     * @param targetOwners the owner count to approach
     * @return the generated graph
     */
    public static GeneratedGraph ofOwners(int targetOwners) {
        int blocks = Math.max(STAGES, Math.round((float) (targetOwners - FIXED_OWNERS) / OWNERS_PER_BLOCK));
        int[] perStage = new int[STAGES];
        for (int s = 0; s < STAGES; s++) {
            perStage[s] = blocks / STAGES + (s < blocks % STAGES ? 1 : 0);
        }
        return build(perStage);
    }

    /**
     * {@return the owner count {@link #build} gives}
     *
     * @param blocksPerStage residual blocks in each of the four stages
     */
    public static int ownerCount(int[] blocksPerStage) {
        int blocks = 0;
        for (int n : blocksPerStage) {
            blocks += n;
        }
        return FIXED_OWNERS + OWNERS_PER_BLOCK * blocks;
    }

    /**
     * {@return a ResNet with {@code blocksPerStage[s]} basic blocks in stage {@code s} (four stages, each >= 1)}
     *
     * @param blocksPerStage residual blocks in each of the four stages
     */
    public static GeneratedGraph build(int[] blocksPerStage) {
        if (blocksPerStage.length != STAGES) {
            throw new IllegalArgumentException("a ResNet has " + STAGES + " stages, got " + blocksPerStage.length);
        }
        NetBuilder b = new NetBuilder();
        int image = b.input("image", F32, Shape.of("batch", 3, 224, 224));
        int x = b.op("stem.conv", "Conv", F32, Shape.of("batch", 64, 112, 112), image,
                b.weight("stem.w", F32, Shape.fixed(64, 3, 7, 7)));
        x = b.op("stem.relu", "Relu", F32, Shape.of("batch", 64, 112, 112), x);
        x = b.op("stem.pool", "MaxPool", F32, Shape.of("batch", 64, 56, 56), x);
        int channels = 64;
        int side = 56;
        for (int s = 0; s < STAGES; s++) {
            if (blocksPerStage[s] < 1) {
                throw new IllegalArgumentException("stage " + s + " needs at least one block, got "
                        + blocksPerStage[s]);
            }
            int inChannels = channels;
            if (s > 0) {
                channels *= 2;
                side /= 2;
            }
            Shape act = Shape.of("batch", channels, side, side);
            Shape kernel = Shape.fixed(channels, channels, 3, 3);
            for (int k = 0; k < blocksPerStage[s]; k++) {
                String p = "s" + s + ".b" + k + ".";
                int shortcut = x;
                int firstIn = k == 0 ? inChannels : channels;
                if (k == 0 && s > 0) {
                    shortcut = b.op(p + "down", "Conv", F32, act, x,
                            b.weight(p + "down.w", F32, Shape.fixed(channels, inChannels, 1, 1)));
                }
                int c1 = b.op(p + "conv1", "Conv", F32, act, x,
                        b.weight(p + "w1", F32, firstIn == channels ? kernel : Shape.fixed(channels, firstIn, 3, 3)));
                int r1 = b.op(p + "relu1", "Relu", F32, act, c1);
                int c2 = b.op(p + "conv2", "Conv", F32, act, r1, b.weight(p + "w2", F32, kernel));
                int sum = b.op(p + "add", "Add", F32, act, c2, shortcut);
                x = b.op(p + "relu2", "Relu", F32, act, sum);
            }
        }
        int pooled = b.op("gap", "GlobalAveragePool", F32, Shape.of("batch", channels, 1, 1), x);
        int flat = b.view("flatten", "Flatten", F32, Shape.of("batch", channels), pooled);
        int logits = b.op("fc", "Gemm", F32, Shape.of("batch", 1000), flat,
                b.weight("fc.w", F32, Shape.fixed(1000, channels)), b.weight("fc.b", F32, Shape.fixed(1000)));
        b.output(logits);
        return b.build("resnet(blocksPerStage=" + java.util.Arrays.toString(blocksPerStage) + ")", DEFAULT_BINDINGS);
    }
}
