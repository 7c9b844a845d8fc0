// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.Graph.Value;
import dev.memplan.testing.PlanChecks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Every generator at every unit-test size: owner counts near the target, and plans that validate. */
@EngineIndependent
class GeneratorsTest {
    /** For the tests about slot ids and counts. */
    private static final PlanOptions SLOTS = PlanOptions.defaults().withStrategy(Strategy.SLOTS);

    static Stream<Arguments> kindsAndSizes() {
        List<Arguments> out = new ArrayList<>();
        for (GraphKind kind : GraphKind.values()) {
            for (int size : new int[] {100, 1_000, 10_000}) {
                for (Strategy strategy : Strategy.values()) {
                    out.add(Arguments.of(kind, size, strategy));
                }
            }
        }
        return out.stream();
    }

    static Stream<Arguments> kindsAndStrategies() {
        List<Arguments> out = new ArrayList<>();
        for (GraphKind kind : GraphKind.values()) {
            for (Strategy strategy : Strategy.values()) {
                out.add(Arguments.of(kind, strategy));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} at {1} owners, {2}")
    @MethodSource("kindsAndSizes")
    void ownerCountIsNearTheTargetAndThePlanValidates(GraphKind kind, int target, Strategy strategy) {
        checkAtScale(kind, target, strategy);
    }

    /** 100k owners, once per kind and strategy. */
    @ParameterizedTest(name = "{0} at 100k owners, {1}")
    @MethodSource("kindsAndStrategies")
    void scalesTo100kOwners(GraphKind kind, Strategy strategy) {
        checkAtScale(kind, 100_000, strategy);
    }

    /** 1M owners: only with -Dmemplan.test.scale=10 or more (it takes a few seconds and ~2 GB per graph). */
    @ParameterizedTest(name = "{0} at 1M owners, {1}")
    @MethodSource("kindsAndStrategies")
    void scalesTo1mOwners(GraphKind kind, Strategy strategy) {
        assumeTrue(Integer.getInteger("memplan.test.scale", 1) >= 10, "set -Dmemplan.test.scale=10 to build 1M owners");
        checkAtScale(kind, 1_000_000, strategy);
    }

    private static void checkAtScale(GraphKind kind, int target, Strategy strategy) {
        GeneratedGraph g = kind.ofOwners(target);
        Schedule s = g.compile(PlanOptions.defaults().withStrategy(strategy));
        assertEquals(g.ownerCount(), s.numOwners(), "GeneratedGraph.ownerCount agrees with the schedule");
        int tolerance = kind == GraphKind.RANDOM_DAG || kind == GraphKind.CHAIN ? 0 : Math.max(20, target / 50);
        assertTrue(Math.abs(s.numOwners() - target) <= tolerance,
                () -> g.description() + " has " + s.numOwners() + " owners, want " + target + " +- " + tolerance);
        ActivationPlan viaBindings = s.plan(g.bindings()).orElseThrow();
        PlanChecks.validate(viaBindings);
        ActivationPlan viaSizes = s.plan(g.ownerSizes(s));
        assertArrayEquals(PlanAssertions.longs(viaBindings.offsetsByOwner()),
                PlanAssertions.longs(viaSizes.offsetsByOwner()), "the long[] hot path plans the same");
        assertEquals(viaBindings.peakBytes(), viaSizes.peakBytes());
        if (strategy == Strategy.SLOTS) {
            assertEquals(viaBindings.assignments(), viaSizes.assignments(), "the long[] hot path plans the same");
            assertTrue(viaBindings.peakBytes() < viaBindings.naiveBytes(), "slot reuse saves memory on " + g.description());
        } else {
            // How much offsets save is the quality tests' business; here: never worse than naive.
            assertTrue(viaBindings.peakBytes() <= viaBindings.naiveBytes(), "offsets within naive on " + g.description());
        }
    }

    @Test
    void gpt2SmallHasItsDimensions() {
        GeneratedGraph g = TransformerGenerator.gpt2Small();
        Schedule s = g.compile(PlanOptions.defaults());
        assertEquals(5 + 16 * 12, s.numOwners());
        assertEquals(8 * 12, g.views().size());
        Value logits = g.graph().value(g.graph().outputs()[0]);
        assertEquals("logits", logits.name());
        ActivationPlan p = s.plan(Map.of("batch", 2L, "seq", 64L)).orElseThrow();
        PlanChecks.validate(p);
        assertEquals(2L * 64 * 50257 * 4, p.sizeOf(logits.id()));
        assertEquals(2L * 12 * 64 * 64 * 4, p.sizeOf(id(g, "l3.scores")), "scores are batch x heads x seq x seq");
        assertEquals(2L * 64 * 3072 * 4, p.sizeOf(id(g, "l11.gelu")), "the MLP is 4 x hidden wide");
    }

    @Test
    void transformerSymbolsBindAsExpected() {
        GeneratedGraph g = TransformerGenerator.build(TransformerConfig.gpt2Small().withLayers(3));
        assertEquals(List.of("batch", "seq"), List.copyOf(g.graph().symbols().keySet()));
        Schedule s = g.compile(PlanOptions.defaults());
        // Every owner has a symbolic dim, so with nothing or only one symbol bound all are unknown.
        List<Integer> owners = sortedOwners(s);
        for (Map<String, Long> partial : List.of(Map.<String, Long>of(), Map.of("batch", 1L), Map.of("seq", 9L))) {
            PlanResult r = s.plan(partial);
            assertTrue(r instanceof PlanResult.Deferred, "deferred under " + partial);
            assertEquals(owners, ((PlanResult.Deferred) r).unknownSizes());
        }
        ActivationPlan small = s.plan(Map.of("batch", 1L, "seq", 16L)).orElseThrow();
        ActivationPlan large = s.plan(Map.of("batch", 1L, "seq", 32L)).orElseThrow();
        PlanChecks.validate(small);
        PlanChecks.validate(large);
        assertEquals(4 * small.sizeOf(id(g, "l0.probs")), large.sizeOf(id(g, "l0.probs")), "scores grow with seq^2");
        assertEquals(2 * small.sizeOf(id(g, "l0.q")), large.sizeOf(id(g, "l0.q")), "activations grow with seq");
        assertTrue(large.peakBytes() > small.peakBytes());
    }

    @Test
    void transformerViewsOwnNoSlotAndExtendTheirRoots() {
        GeneratedGraph g = TransformerGenerator.build(TransformerConfig.gpt2Small().withLayers(4));
        Schedule s = g.compile(SLOTS);
        ActivationPlan p = s.plan(g.bindings()).orElseThrow();
        assertEquals(8 * 4, g.views().size());
        for (int view : g.views().edges().keySet()) {
            assertEquals(-1, s.ownerIndexOf(view), g.graph().value(view).describe());
            assertEquals(-1, p.slotOf(view), g.graph().value(view).describe());
        }
        // q.t is a view of q.r, a view of q: all fold to q, which must live until the scores read q.t.
        assertEquals(id(g, "l2.q"), s.root(id(g, "l2.q.t")));
        assertEquals(id(g, "l2.ctx"), s.root(id(g, "l2.ctx.r")));
        int q = s.ownerIndexOf(id(g, "l2.q"));
        assertEquals(positionOf(s, "l2.scores"), s.useEnd(q));
        int ctx = s.ownerIndexOf(id(g, "l2.ctx"));
        assertEquals(positionOf(s, "l2.attn"), s.useEnd(ctx), "the merged heads are read by the output projection");
    }

    @Test
    void resnetAndUnetBindTheirSymbols() {
        GeneratedGraph resnet = ResNetGenerator.resnet18();
        assertEquals(List.of("batch"), List.copyOf(resnet.graph().symbols().keySet()));
        Schedule rs = resnet.compile(SLOTS);
        assertTrue(rs.plan(Map.of()) instanceof PlanResult.Deferred, "an unbound batch defers");
        ActivationPlan rp = rs.plan(Map.of("batch", 2L)).orElseThrow();
        PlanChecks.validate(rp);
        assertEquals(2L * 64 * 112 * 112 * 4, rp.sizeOf(id(resnet, "stem.conv")));
        assertEquals(-1, rp.slotOf(id(resnet, "flatten")), "the flatten is a view");

        GeneratedGraph unet = UNetGenerator.build(4, 2, 2);
        assertEquals(List.of("batch", "height", "width"), List.copyOf(unet.graph().symbols().keySet()));
        Schedule us = unet.compile(PlanOptions.defaults());
        PlanResult partial = us.plan(Map.of("batch", 1L, "height", 64L));
        assertTrue(partial instanceof PlanResult.Deferred, "an unbound width defers");
        ActivationPlan up = us.plan(Map.of("batch", 1L, "height", 100L, "width", 64L)).orElseThrow();
        PlanChecks.validate(up);
        // Level 3 has 256 channels at floor(100 / 8) x floor(64 / 8): a derived dim.
        assertEquals(1L * 256 * 12 * 8 * 4, up.sizeOf(id(unet, "u0.pool2")));
        // The long skip: level 0's encoder output lives until the decoder concatenates it.
        int skip = us.ownerIndexOf(id(unet, "u1.enc0.1.relu"));
        assertEquals(positionOf(us, "u1.cat0"), us.useEnd(skip));
        assertTrue(us.useEnd(skip) - us.def(skip) > 30, "a long skip connection");
    }

    @Test
    void chainIsStaticAndDoubleBuffers() {
        GeneratedGraph g = ChainGenerator.ofOwners(1_000);
        assertTrue(g.graph().symbols().isEmpty());
        ActivationPlan p = g.compile(SLOTS).plan(dev.memplan.SizeOracle.staticShapes()).orElseThrow();
        PlanChecks.validate(p);
        assertEquals(2, p.numSlots());
        assertEquals(2 * 4096, p.peakBytes());
    }

    @Test
    void randomDagKeepsThousandsLive() {
        GeneratedGraph g = RandomDagGenerator.ofOwners(10_000, 7);
        Schedule s = g.compile(SLOTS);
        assertTrue(maxLive(s) >= 1_000, "most owners live at one position: " + maxLive(s));
        assertTrue(g.views().size() > 0, "the random DAG has views");
        ActivationPlan p = s.plan(g.bindings()).orElseThrow();
        PlanChecks.validate(p);
        assertTrue(p.numSlots() > 500, "many slots: " + p.numSlots());
        assertTrue(s.plan(Map.of()) instanceof PlanResult.Deferred, "an unbound batch defers");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(GraphKind.class)
    void sameArgumentsGiveTheSameGraph(GraphKind kind) {
        assertEquals(fingerprint(kind.ofOwners(2_000, 11).graph()), fingerprint(kind.ofOwners(2_000, 11).graph()));
    }

    @Test
    void randomDagSeedsDiffer() {
        assertEquals(fingerprint(RandomDagGenerator.ofOwners(3_000, 5).graph()),
                fingerprint(RandomDagGenerator.ofOwners(3_000, 5).graph()));
        assertNotEquals(fingerprint(RandomDagGenerator.ofOwners(3_000, 5).graph()),
                fingerprint(RandomDagGenerator.ofOwners(3_000, 6).graph()));
    }

    @Test
    void badParametersAreRejectedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TransformerConfig(2, 100, 12, 4, 10));
        assertTrue(e.getMessage().contains("multiple of heads"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ResNetGenerator.build(new int[] {1, 0, 1, 1}));
        assertThrows(IllegalArgumentException.class, () -> UNetGenerator.build(0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> ChainGenerator.ofOwners(0));
        assertEquals(GraphKind.RANDOM_DAG, GraphKind.parse("random-dag"));
        assertThrows(IllegalArgumentException.class, () -> GraphKind.parse("lstm"));
    }

    private static int id(GeneratedGraph g, String name) {
        return g.graph().valueId(name).orElseThrow(() -> new AssertionError("no value named " + name));
    }

    /** The position of the node that produces value {@code name}. */
    private static int positionOf(Schedule s, String name) {
        int node = s.graph().value(s.graph().valueId(name).orElseThrow()).producer();
        int[] order = s.order();
        for (int p = 0; p < order.length; p++) {
            if (order[p] == node) {
                return p;
            }
        }
        throw new AssertionError(name + " is not produced");
    }

    private static List<Integer> sortedOwners(Schedule s) {
        List<Integer> out = new ArrayList<>();
        for (int v : s.owners()) {
            out.add(v);
        }
        out.sort(null);
        return out;
    }

    /** The most owners live at one position, by a sweep over [def, useEnd]. */
    private static int maxLive(Schedule s) {
        int[] delta = new int[s.numPositions() + 1];
        for (int o = 0; o < s.numOwners(); o++) {
            delta[s.def(o)]++;
            delta[s.useEnd(o) + 1]--;
        }
        int live = 0;
        int max = 0;
        for (int d : delta) {
            live += d;
            max = Math.max(max, live);
        }
        return max;
    }

    private static String fingerprint(Graph g) {
        StringBuilder sb = new StringBuilder();
        for (Value v : g.values()) {
            sb.append(v.name()).append(':').append(v.dataType()).append(v.shape()).append(';');
        }
        for (Node n : g.nodes()) {
            sb.append(n).append(';');
        }
        sb.append(java.util.Arrays.toString(g.inputs())).append(java.util.Arrays.toString(g.outputs()));
        return sb.toString();
    }
}
