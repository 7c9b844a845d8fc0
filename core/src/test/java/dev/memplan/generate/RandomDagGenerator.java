// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.DataType;
import dev.memplan.Shape;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A wide random DAG: each node reads one to three values drawn from a pool of recent values and
 * writes one or two new ones, which replace random pool entries. A value stays live until the last
 * node that drew it, so about as many values are live at once as the pool holds (thousands at
 * 10k owners and up). Sizes are {@code [batch, k]} float32 with {@code k} log-uniform in
 * {@code [16, 65536]}, so the free set holds many distinct capacities. About one node in twelve
 * is a Reshape view of its first input. Seeded: the same arguments give the same graph.
 */
public final class RandomDagGenerator {
    /** The largest pool: how many recent values a node can read. */
    public static final int MAX_WINDOW = 4096;

    /** Bindings of the typical request. */
    public static final Map<String, Long> DEFAULT_BINDINGS = Map.of("batch", 1L);

    private static final DataType F32 = DataType.FLOAT32;
    private static final String[] OPS = {"Add", "Mul", "MatMul", "Concat", "Relu", "Sigmoid"};

    private RandomDagGenerator() {
    }

    /**
     * {@return exactly {@code targetOwners} owners, with a pool of {@code min(4096, targetOwners / 4)} values}
     *
     * @param targetOwners the owner count
     * @param seed the random seed: same seed, same graph
     */
    public static GeneratedGraph ofOwners(int targetOwners, long seed) {
        return build(targetOwners, Math.max(2, Math.min(MAX_WINDOW, targetOwners / 4)), seed);
    }

    /**
     * A DAG of exactly {@code owners} owners whose nodes read from a pool of {@code window}
     * recent values.
     *
     * @param owners the owner count
     * @param window how far back (in nodes) an input may reach
     * @param seed the random seed: same seed, same graph
     * @return the generated graph
     */
    public static GeneratedGraph build(int owners, int window, long seed) {
        if (owners < 1 || window < 1) {
            throw new IllegalArgumentException("a random DAG needs owners >= 1 and window >= 1, got owners="
                    + owners + ", window=" + window);
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        NetBuilder b = new NetBuilder();
        // A small set of shapes, shared: k = 16 * 2^(12 u), rounded to 1/8 of an octave.
        Shape[] shapes = new Shape[97];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = Shape.of("batch", Math.round(16 * Math.pow(2, 12.0 * i / (shapes.length - 1))));
        }
        int[] pool = new int[window];
        Shape[] poolShape = new Shape[window];
        pool[0] = b.input("x", F32, shapes[shapes.length / 2]);
        poolShape[0] = shapes[shapes.length / 2];
        int filled = 1;
        int node = 0;
        int last = pool[0];
        int[][] inputsByArity = {null, new int[1], new int[2], new int[3]};
        while (b.owners() < owners) {
            int arity = 1 + rnd.nextInt(3);
            int[] in = inputsByArity[arity].clone();
            int first = rnd.nextInt(filled);
            in[0] = pool[first];
            for (int i = 1; i < arity; i++) {
                in[i] = pool[rnd.nextInt(filled)];
            }
            String name = "n" + node++;
            int[] produced;
            if (rnd.nextInt(12) == 0) {
                Shape shape = poolShape[first]; // a view has its source's shape
                produced = new int[] {b.view(name, "Reshape", F32, shape, in[0])};
                place(rnd, pool, poolShape, filled, produced[0], shape);
                filled = Math.min(window, filled + 1);
            } else {
                int outs = owners - b.owners() >= 2 && rnd.nextInt(5) == 0 ? 2 : 1;
                Shape[] outShapes = new Shape[outs];
                for (int i = 0; i < outs; i++) {
                    outShapes[i] = shapes[rnd.nextInt(shapes.length)];
                }
                String op = OPS[rnd.nextInt(OPS.length)];
                produced = outs == 1 ? new int[] {b.op(name, op, F32, outShapes[0], in)}
                        : b.multi(name, "Split", F32, outShapes, in);
                for (int i = 0; i < outs; i++) {
                    place(rnd, pool, poolShape, filled, produced[i], outShapes[i]);
                    filled = Math.min(window, filled + 1);
                }
            }
            last = produced[produced.length - 1];
        }
        b.output(last);
        return b.build("randomDag(owners=" + owners + ", window=" + window + ", seed=" + seed + ")",
                DEFAULT_BINDINGS);
    }

    /** Appends while the pool fills, then evicts a random entry. */
    private static void place(SplittableRandom rnd, int[] pool, Shape[] poolShape, int filled, int value, Shape shape) {
        int at = filled < pool.length ? filled : rnd.nextInt(pool.length);
        pool[at] = value;
        poolShape[at] = shape;
    }
}
