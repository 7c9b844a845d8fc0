// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.Graph.Node;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Shape;
import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.PlanChecks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@EngineIndependent
class GraphJsonRoundTripTest {

    /**
     * The examples were laid out by a separate script; the writer reproduces them byte for byte,
     * so reading and writing lose nothing the files say.
     */
    @ParameterizedTest
    @MethodSource("dev.memplan.json.GraphJsonReadTest#examples")
    void writerReproducesEachExample(Path file) throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(file);
        assertEquals(Files.readString(file, StandardCharsets.UTF_8), GraphJson.toJson(gf.graph(), gf.views()));
    }

    static LongStream seeds() {
        return LongStream.range(0, 400).map(i -> 0x5eed0000L + i);
    }

    /** write -> read gives the same graph, the same views and the same plan, and writing is a fixed point. */
    @ParameterizedTest
    @MethodSource("seeds")
    void randomGraphsRoundTrip(long seed) {
        FormatGraphs.Generated g = FormatGraphs.generate(seed);
        String json = GraphJson.toJson(g.graph(), g.views());
        GraphJson.GraphFile back = GraphJson.parse(json);
        assertSameGraph(g.graph(), back.graph());
        assertEquals(g.views().edges(), back.views().edges());
        assertEquals(json, GraphJson.toJson(back.graph(), back.views()));

        // Both strategies, each with and without graph inputs, over the 400 seeds.
        PlanOptions options = PlanOptions.defaults().withIncludeGraphInputs(seed % 2 == 0)
                .withStrategy(seed % 4 < 2 ? Strategy.OFFSETS : Strategy.SLOTS);
        Map<String, Long> bindings = Map.of("batch", 3L, "seq", 5L, "heads", 2L);
        Schedule before = MemPlan.compile(g.graph(), g.views(), options);
        Schedule after = MemPlan.compile(back.graph(), back.views(), options);
        PlanResult r1 = before.plan(bindings);
        PlanResult r2 = after.plan(bindings);
        assertEquals(PlanJson.toJson(before, r1), PlanJson.toJson(after, r2));
        if (r2 instanceof PlanResult.Complete c) {
            PlanChecks.validate(c.plan());
            ActivationPlan p1 = ((PlanResult.Complete) r1).plan();
            assertEquals(options.strategy(), c.plan().strategy());
            assertArrayEquals(PlanAssertions.longs(p1.offsetsByOwner()), PlanAssertions.longs(c.plan().offsetsByOwner()));
            if (options.strategy() == Strategy.SLOTS) {
                assertEquals(p1.assignments(), c.plan().assignments());
                assertEquals(p1.slots(), c.plan().slots());
            }
        } else {
            assertEquals(((PlanResult.Deferred) r1).unknownSizes(), ((PlanResult.Deferred) r2).unknownSizes());
        }
    }

    @Test
    void randomGraphsCoverTheFormat() {
        // The generator must actually produce what the round trip claims to cover.
        boolean absent = false;
        boolean views = false;
        boolean unnamed = false;
        boolean domain = false;
        boolean scalar = false;
        boolean symbolic = false;
        for (long seed : seeds().toArray()) {
            FormatGraphs.Generated g = FormatGraphs.generate(seed);
            views |= g.views().size() > 0;
            for (Node n : g.graph().nodes()) {
                absent |= java.util.Arrays.stream(n.inputs()).anyMatch(v -> v == Graph.ABSENT);
                domain |= !n.domain().isEmpty();
            }
            for (Value v : g.graph().values()) {
                unnamed |= v.name().isEmpty();
                scalar |= v.shape().rank() == 0;
                symbolic |= !v.shape().isStatic();
            }
        }
        assertTrue(absent && views && unnamed && domain && scalar && symbolic);
    }

    @Test
    void fileRoundTrip(@TempDir Path dir) throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(Examples.get("transformer_block.json"));
        Path copy = dir.resolve("copy.json");
        GraphJson.write(gf.graph(), gf.views(), copy);
        GraphJson.GraphFile back = GraphJson.read(copy);
        assertSameGraph(gf.graph(), back.graph());
        assertEquals(gf.views().edges(), back.views().edges());
    }

    @Test
    void derivedDimsCannotBeWritten() {
        Graph.Builder b = Graph.builder();
        b.value("x", DataType.FLOAT32, Shape.of(Dim.Derived.sum(java.util.List.of(Dim.symbol("seq")), 1)));
        Graph g = b.build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GraphJson.toJson(g, ViewMap.empty()));
        assertTrue(e.getMessage().startsWith("'x' (value 0) has the derived dim "), e.getMessage());
        assertTrue(e.getMessage().endsWith("the graph file format holds only static dims and named symbols"));
    }

    @Test
    void anUnnamedValueMayNotTakeAnotherValuesName() {
        Graph.Builder b = Graph.builder();
        b.value("%1", DataType.FLOAT32, Shape.of(2));
        b.value("", DataType.FLOAT32, Shape.of(2));
        Graph g = b.build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GraphJson.toJson(g, ViewMap.empty()));
        assertEquals("value 1 would be written as '%1', a name another value already has; name the value",
                e.getMessage());
    }

    static void assertSameGraph(Graph expected, Graph actual) {
        assertEquals(expected.valueCount(), actual.valueCount());
        for (int v = 0; v < expected.valueCount(); v++) {
            Value e = expected.value(v);
            Value a = actual.value(v);
            assertEquals(e.displayName(), a.displayName());
            assertEquals(e.dataType(), a.dataType());
            assertEquals(e.shape(), a.shape());
            assertEquals(e.producer(), a.producer());
        }
        assertEquals(expected.nodeCount(), actual.nodeCount());
        for (int n = 0; n < expected.nodeCount(); n++) {
            Node e = expected.node(n);
            Node a = actual.node(n);
            assertEquals(e.name(), a.name());
            assertEquals(e.opType(), a.opType());
            assertEquals(e.domain(), a.domain());
            assertArrayEquals(e.inputs(), a.inputs());
            assertArrayEquals(e.outputs(), a.outputs());
        }
        assertArrayEquals(expected.inputs(), actual.inputs());
        assertArrayEquals(expected.outputs(), actual.outputs());
        assertArrayEquals(expected.initializers(), actual.initializers());
        assertEquals(expected.symbols().keySet(), actual.symbols().keySet());
    }
}
