// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.DataType;
import dev.memplan.Shape;
import java.util.Map;

/**
 * A plain chain of ReLUs on a static {@code [1024]} float32 tensor: every value is read only by
 * the next node, so best fit double-buffers it in two slots. Fully static: it plans without
 * bindings.
 */
public final class ChainGenerator {
    private static final DataType F32 = DataType.FLOAT32;

    private ChainGenerator() {
    }

    /**
     * {@return a chain of exactly {@code owners} nodes after the graph input}
     *
     * @param owners the owner count, >= 1
     */
    public static GeneratedGraph ofOwners(int owners) {
        if (owners < 1) {
            throw new IllegalArgumentException("a chain needs at least one owner, got " + owners);
        }
        NetBuilder b = new NetBuilder();
        Shape shape = Shape.fixed(1024);
        int x = b.input("x", F32, shape);
        for (int i = 0; i < owners; i++) {
            x = b.op("v" + i, "Relu", F32, shape, x);
        }
        b.output(x);
        return b.build("chain(owners=" + owners + ")", Map.of());
    }
}
