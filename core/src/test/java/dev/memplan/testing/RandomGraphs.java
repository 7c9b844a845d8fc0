// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.PlanOptions;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Shape;
import dev.memplan.SizeOracle;
import dev.memplan.ViewMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeded random graphs of varied shapes for the property tests: chains, diamonds, wide fan-out,
 * multi-output nodes, view chains (views of views, each source an input of the view's producer),
 * included graph inputs, dead values, graph outputs in the middle, absent optional inputs,
 * initializers, symbolic and derived dims, and sizes with many equal values and zero-byte owners.
 * Node and value ids are often shuffled so that the order's smallest-id tie-break matters.
 *
 * <p>The same seed always gives the same case.
 */
public final class RandomGraphs {

    /**
     * One generated case: what to plan and how to size it; {@code bindings} are the symbols' values
     * when the sizes come from the shapes (the validator then derives them again), else null.
     */
    public record Case(long seed, String description, Graph graph, ViewMap views, PlanOptions options,
                       SizeOracle oracle, Map<String, Long> bindings) {
        /** The same case planned with {@code strategy} (and {@code effort} for offsets). */
        public Case withStrategy(Strategy strategy) {
            return new Case(seed, description + ", " + strategy, graph, views, options.withStrategy(strategy), oracle,
                    bindings);
        }

        @Override
        public String toString() {
            return "seed " + seed + " (" + description + ")";
        }
    }

    private static final DataType[] TYPES = {DataType.FLOAT32, DataType.FLOAT32, DataType.FLOAT16, DataType.INT64,
        DataType.BOOL, DataType.INT4, DataType.UINT2, DataType.BFLOAT16, DataType.COMPLEX128};
    /** Few distinct sizes, zero among them: best fit's tie-breaks get exercised. */
    private static final long[] EQUAL_HEAVY_SIZES = {0, 8, 8, 16, 64, 64, 64, 64, 100, 256, 256, 1000};

    private RandomGraphs() {
    }

    /** The case of {@code seed}. */
    public static Case generate(long seed) {
        return new Generator(seed).generate();
    }

    /**
     * The case of {@code seed}, with in-place hints when {@code inPlaceHints}: about half the nodes
     * hint an input whose type and shape their first output copies (and, when that input is a view,
     * so does every view up to its root), some hint an input whose shape differs, which rule (d)
     * refuses. The hints draw from a random sequence of their own, so without them the case is
     * exactly {@link #generate(long)}'s.
     */
    public static Case generate(long seed, boolean inPlaceHints) {
        Generator g = new Generator(seed);
        g.inPlaceHints = inPlaceHints;
        return g.generate();
    }

    /** A case of the mixed family with {@code nodes} nodes. */
    public static Case generateMixed(long seed, int nodes) {
        return new Generator(seed).generate(Family.MIXED, nodes);
    }

    private enum Family { CHAIN, DIAMONDS, FAN_OUT, MULTI_OUTPUT, VIEW_CHAINS, MIXED, TINY }

    private static final class Generator {
        private final long seed;
        private final Random rnd;
        private final List<DataType> types = new ArrayList<>();
        private final List<Shape> shapes = new ArrayList<>();
        private final List<int[]> nodeInputs = new ArrayList<>();
        private final List<int[]> nodeOutputs = new ArrayList<>();
        private final List<Integer> graphInputs = new ArrayList<>();
        private final List<Integer> initializers = new ArrayList<>();
        private final List<Integer> graphOutputs = new ArrayList<>();
        private final Map<Integer, Integer> views = new TreeMap<>();
        /** Values a node may read: graph inputs, initializers, produced values. */
        private final List<Integer> readable = new ArrayList<>();
        private final List<Integer> produced = new ArrayList<>();
        /** Whether build() adds in-place hints, from {@link #hintRnd}. */
        boolean inPlaceHints;
        private Random hintRnd;

        Generator(long seed) {
            this.seed = seed;
            this.rnd = new Random(seed * 0x9E3779B97F4A7C15L + 17);
            this.hintRnd = new Random(seed * 0xC2B2AE3D27D4EB4FL + 29);
        }

        Case generate() {
            Family family = Family.values()[rnd.nextInt(Family.values().length)];
            int nodes = switch (family) {
                case TINY -> rnd.nextInt(3);
                case MIXED -> rnd.nextInt(10) == 0 ? 100 + rnd.nextInt(200) : 1 + rnd.nextInt(40);
                default -> 1 + rnd.nextInt(30);
            };
            return generate(family, nodes);
        }

        Case generate(Family family, int numNodes) {
            for (int i = rnd.nextInt(family == Family.TINY ? 3 : 4); i > 0; i--) {
                int v = newValue();
                graphInputs.add(v);
                readable.add(v);
            }
            for (int i = rnd.nextInt(3); i > 0; i--) {
                int v = newValue();
                initializers.add(v);
                readable.add(v);
            }
            for (int n = 0; n < numNodes; n++) {
                addNode(family);
            }
            chooseGraphOutputs();
            return build(family);
        }

        private int newValue() {
            types.add(TYPES[rnd.nextInt(TYPES.length)]);
            shapes.add(randomShape());
            return types.size() - 1;
        }

        private Shape randomShape() {
            int rank = rnd.nextInt(4);
            List<Dim> dims = new ArrayList<>();
            for (int i = 0; i < rank; i++) {
                dims.add(switch (rnd.nextInt(8)) {
                    case 0 -> Dim.symbol("batch");
                    case 1 -> Dim.symbol("seq");
                    case 2 -> Dim.Derived.sum(List.of(Dim.symbol("seq"), Dim.of(2)), 0);
                    case 3 -> Dim.Derived.divide(Dim.symbol("seq"), 2, true);
                    default -> Dim.of(new long[] {0, 1, 2, 3, 8, 16, 17}[rnd.nextInt(7)]);
                });
            }
            return new Shape(dims);
        }

        private void addNode(Family family) {
            int maxInputs = family == Family.DIAMONDS ? 2 : family == Family.CHAIN ? 1 : 3;
            int numInputs = readable.isEmpty() ? rnd.nextInt(2) : 1 + rnd.nextInt(maxInputs);
            int[] ins = new int[numInputs];
            for (int i = 0; i < numInputs; i++) {
                ins[i] = pickInput(family, i);
            }
            int maxOutputs = family == Family.MULTI_OUTPUT ? 4 : family == Family.MIXED ? 3 : 1;
            int[] outs = new int[1 + rnd.nextInt(maxOutputs)];
            for (int i = 0; i < outs.length; i++) {
                outs[i] = newValue();
            }
            int viewPercent = family == Family.VIEW_CHAINS ? 60 : family == Family.MIXED ? 20 : 5;
            if (rnd.nextInt(100) < viewPercent) {
                List<Integer> sources = new ArrayList<>();
                for (int u : ins) {
                    if (u != Graph.ABSENT) {
                        sources.add(u);
                    }
                }
                if (!sources.isEmpty()) {
                    views.put(outs[rnd.nextInt(outs.length)], sources.get(rnd.nextInt(sources.size())));
                }
            }
            nodeInputs.add(ins);
            nodeOutputs.add(outs);
            for (int v : outs) {
                // Dead values: some outputs of multi-output nodes are never read.
                if (outs.length == 1 || rnd.nextInt(3) > 0) {
                    readable.add(v);
                }
                produced.add(v);
            }
        }

        private int pickInput(Family family, int index) {
            if (readable.isEmpty() || rnd.nextInt(25) == 0) {
                return Graph.ABSENT; // an omitted optional input
            }
            int last = readable.get(readable.size() - 1);
            return switch (family) {
                case CHAIN, VIEW_CHAINS -> rnd.nextInt(8) > 0 ? last : randomReadable();
                case DIAMONDS -> index == 0 ? last : readable.get(Math.max(0, readable.size() - 2 - rnd.nextInt(3)));
                case FAN_OUT -> rnd.nextInt(3) > 0 ? readable.get(0) : randomReadable();
                default -> rnd.nextBoolean() ? last : randomReadable();
            };
        }

        private int randomReadable() {
            return readable.get(rnd.nextInt(readable.size()));
        }

        private void chooseGraphOutputs() {
            if (!produced.isEmpty()) {
                graphOutputs.add(produced.get(produced.size() - 1));
            }
            for (int v : produced) {
                if (rnd.nextInt(12) == 0 && !graphOutputs.contains(v)) {
                    graphOutputs.add(v); // an output in the middle of the graph
                }
            }
            if (!graphInputs.isEmpty() && rnd.nextInt(15) == 0) {
                graphOutputs.add(graphInputs.get(0)); // a pass-through input
            }
        }

        /**
         * Per node (by generation index), the input positions of its hint (null for none); copies
         * types and shapes so that most hints pass rule (d). Runs before the values are built.
         */
        private int[][] hints() {
            int[][] hint = new int[nodeInputs.size()][];
            for (int n = 0; n < hint.length; n++) {
                int[] ins = nodeInputs.get(n);
                List<Integer> present = new ArrayList<>();
                for (int k = 0; k < ins.length; k++) {
                    if (ins[k] != Graph.ABSENT) {
                        present.add(k);
                    }
                }
                if (present.isEmpty() || hintRnd.nextInt(2) == 0) {
                    continue;
                }
                int k = present.get(hintRnd.nextInt(present.size()));
                int out = nodeOutputs.get(n)[0];
                if (hintRnd.nextInt(6) > 0) { // else a hint whose sizes likely differ
                    types.set(out, types.get(ins[k]));
                    shapes.set(out, shapes.get(ins[k]));
                    for (Integer v = ins[k], src = views.get(v); src != null && hintRnd.nextInt(4) > 0;
                            v = src, src = views.get(src)) {
                        types.set(v, types.get(src));
                        shapes.set(v, shapes.get(src));
                    }
                }
                int other = present.get(hintRnd.nextInt(present.size()));
                hint[n] = hintRnd.nextInt(4) == 0 && other != k ? new int[] {other, k} : new int[] {k};
            }
            return hint;
        }

        private Case build(Family family) {
            int[][] hint = inPlaceHints ? hints() : new int[nodeInputs.size()][];
            int numValues = types.size();
            int numNodes = nodeInputs.size();
            int[] valueId = identityOrShuffled(numValues, rnd.nextInt(3) == 0);
            int[] nodeSlot = identityOrShuffled(numNodes, rnd.nextInt(2) == 0);
            int[] valueAt = inverse(valueId);
            int[] nodeAt = inverse(nodeSlot);

            Graph.Builder b = Graph.builder();
            for (int id = 0; id < numValues; id++) {
                int orig = valueAt[id];
                b.value("v" + id, types.get(orig), shapes.get(orig));
            }
            for (int id = 0; id < numNodes; id++) {
                int orig = nodeAt[id];
                b.node("n" + id, rnd.nextInt(6) == 0 ? "Split" : "Op", remap(nodeInputs.get(orig), valueId),
                        remap(nodeOutputs.get(orig), valueId));
                if (hint[orig] != null) {
                    b.inPlace(id, hint[orig]);
                }
            }
            List<Integer> inputs = new ArrayList<>(graphInputs);
            Collections.shuffle(inputs, rnd);
            inputs.forEach(v -> b.input(valueId[v]));
            initializers.forEach(v -> b.initializer(valueId[v]));
            graphOutputs.forEach(v -> b.output(valueId[v]));
            Map<Integer, Integer> viewEdges = new HashMap<>();
            views.forEach((view, src) -> viewEdges.put(valueId[view], valueId[src]));

            PlanOptions options = PlanOptions.defaults()
                    .withIncludeGraphInputs(rnd.nextInt(5) < 2)
                    .withAlignment(rnd.nextInt(10) < 7 ? 1 : new long[] {4, 8, 64}[rnd.nextInt(3)]);
            int pick = rnd.nextInt(100);
            SizeMode mode = pick < 35 ? SizeMode.EQUAL_HEAVY : pick < 55 ? SizeMode.WIDE : pick < 85
                    ? SizeMode.SHAPES_BOUND : pick < 93 ? SizeMode.SOMETIMES_UNKNOWN : SizeMode.SHAPES_STATIC;
            Map<String, Long> bindings = mode == SizeMode.SHAPES_BOUND
                    ? Map.of("batch", 1L + rnd.nextInt(4), "seq", (long) rnd.nextInt(9))
                    : mode == SizeMode.SHAPES_STATIC ? Map.of() : null;
            SizeOracle oracle = bindings != null ? SizeOracle.bounded(bindings) : oracle(mode, numValues);
            String description = family + ", " + numNodes + " nodes, " + numValues + " values, " + views.size()
                    + " views, " + java.util.Arrays.stream(hint).filter(h -> h != null).count() + " in-place hints, sizes " + mode + ", includeGraphInputs=" + options.includeGraphInputs()
                    + ", alignment=" + options.alignment();
            return new Case(seed, description, b.build(), ViewMap.of(viewEdges), options, oracle, bindings);
        }

        private SizeOracle oracle(SizeMode mode, int numValues) {
            switch (mode) {
                case EQUAL_HEAVY, WIDE, SOMETIMES_UNKNOWN -> {
                    long[] size = new long[numValues];
                    boolean[] unknown = new boolean[numValues];
                    for (int v = 0; v < numValues; v++) {
                        size[v] = mode == SizeMode.WIDE ? (long) rnd.nextInt(1 << 20)
                                : EQUAL_HEAVY_SIZES[rnd.nextInt(EQUAL_HEAVY_SIZES.length)];
                        unknown[v] = mode == SizeMode.SOMETIMES_UNKNOWN && rnd.nextInt(20) == 0;
                    }
                    return value -> unknown[value.id()] ? OptionalLong.empty() : OptionalLong.of(size[value.id()]);
                }
                default -> throw new AssertionError(mode);
            }
        }

        private int[] identityOrShuffled(int n, boolean shuffle) {
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ids.add(i);
            }
            if (shuffle) {
                Collections.shuffle(ids, rnd);
            }
            return ids.stream().mapToInt(Integer::intValue).toArray();
        }

        private static int[] inverse(int[] perm) {
            int[] inv = new int[perm.length];
            for (int i = 0; i < perm.length; i++) {
                inv[perm[i]] = i;
            }
            return inv;
        }

        private static int[] remap(int[] ids, int[] valueId) {
            int[] out = new int[ids.length];
            for (int i = 0; i < ids.length; i++) {
                out[i] = ids[i] == Graph.ABSENT ? Graph.ABSENT : valueId[ids[i]];
            }
            return out;
        }
    }

    /** How a case sizes its owners. */
    private enum SizeMode {
        /** a few distinct sizes, zero among them */
        EQUAL_HEAVY,
        /** uniform in [0, 1 MiB) */
        WIDE,
        /** equal-heavy, but one owner in twenty has no size: the plan is usually deferred */
        SOMETIMES_UNKNOWN,
        /** from the shapes, every symbol bound */
        SHAPES_BOUND,
        /** from the shapes alone: deferred whenever an owner has a symbolic dim or is a string */
        SHAPES_STATIC
    }
}
