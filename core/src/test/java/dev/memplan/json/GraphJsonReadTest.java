// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import dev.memplan.SizeOracle;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.PlanChecks;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

@EngineIndependent
class GraphJsonReadTest {

    static List<Path> examples() {
        List<Path> all = Examples.all();
        assertTrue(all.size() >= 3, "examples/ keeps at least three graphs, found " + all);
        return all;
    }

    /** Every example reads into exactly what an independent tree parse of the file says. */
    @ParameterizedTest
    @MethodSource("examples")
    void exampleReadsAsWritten(Path file) throws IOException {
        JsonNode doc = new ObjectMapper().readTree(file.toFile());
        GraphJson.GraphFile gf = GraphJson.read(file);
        Graph g = gf.graph();

        JsonNode values = doc.get("values");
        assertEquals(values.size(), g.valueCount());
        for (int v = 0; v < values.size(); v++) {
            JsonNode jv = values.get(v);
            Value value = g.value(v);
            assertEquals(jv.get("name").asText(), value.name());
            assertEquals(DataType.fromName(jv.get("dtype").asText()), value.dataType());
            List<Dim> dims = value.shape().dims();
            assertEquals(jv.get("shape").size(), dims.size(), value.describe());
            for (int d = 0; d < dims.size(); d++) {
                JsonNode jd = jv.get("shape").get(d);
                assertEquals(jd.isTextual() ? Dim.symbol(jd.asText()) : Dim.of(jd.asLong()), dims.get(d));
            }
        }
        JsonNode nodes = doc.get("nodes");
        assertEquals(nodes.size(), g.nodeCount());
        for (int n = 0; n < nodes.size(); n++) {
            JsonNode jn = nodes.get(n);
            Node node = g.node(n);
            assertEquals(jn.path("name").asText(""), node.name());
            assertEquals(jn.get("op").asText(), node.opType());
            assertEquals(jn.path("domain").asText(""), node.domain());
            assertArrayEquals(ids(g, jn.get("inputs")), node.inputs(), node.describe());
            assertArrayEquals(ids(g, jn.get("outputs")), node.outputs(), node.describe());
        }
        assertArrayEquals(ids(g, doc.get("inputs")), g.inputs());
        assertArrayEquals(ids(g, doc.get("outputs")), g.outputs());
        assertArrayEquals(java.util.Arrays.stream(ids(g, doc.get("initializers"))).sorted().toArray(), g.initializers());
        JsonNode views = doc.path("views");
        assertEquals(views.size(), gf.views().size());
        for (Iterator<Map.Entry<String, JsonNode>> it = views.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int view = g.valueId(e.getKey()).orElseThrow();
            assertEquals(g.valueId(e.getValue().asText()).orElseThrow(), gf.views().edges().get(view));
        }
    }

    /** Every example plans (bound where symbolic) with either strategy and its plan validates. */
    @ParameterizedTest
    @MethodSource("examples")
    void examplePlansAndValidates(Path file) throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(file);
        for (Strategy strategy : Strategy.values()) {
            Schedule s = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults().withStrategy(strategy));
            ActivationPlan plan = PlanChecks.validate(s.plan(Examples.BINDINGS).orElseThrow());
            assertTrue(plan.peakBytes() > 0, plan.toString());
            // Slots reuse memory on every example; how much offsets save is the quality tests' business.
            assertTrue(strategy == Strategy.SLOTS ? plan.peakBytes() < plan.naiveBytes()
                    : plan.peakBytes() <= plan.naiveBytes(), plan.toString());
        }
        Schedule s = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults());
        PlanResult unbound = s.plan(SizeOracle.staticShapes());
        assertEquals(gf.graph().symbols().isEmpty(), unbound.isComplete(), file + ": deferred exactly when symbolic");
    }

    @Test
    void theExamplesCoverViewsSymbolsAndDeferral() throws IOException {
        GraphJson.GraphFile views = GraphJson.read(Examples.get("views.json"));
        assertTrue(views.views().size() >= 4, "views.json has reshape/transpose views");
        assertTrue(views.graph().symbols().isEmpty());

        GraphJson.GraphFile block = GraphJson.read(Examples.get("transformer_block.json"));
        assertEquals(List.of("batch", "seq"), List.copyOf(block.graph().symbols().keySet()));
        Schedule s = MemPlan.compile(block.graph(), block.views(), PlanOptions.defaults());
        PlanResult deferred = s.plan(SizeOracle.staticShapes());
        assertInstanceOf(PlanResult.Deferred.class, deferred);
        assertEquals(s.numOwners(), ((PlanResult.Deferred) deferred).unknownSizes().size());
        PlanChecks.validate(s.plan(Examples.BINDINGS).orElseThrow());
    }

    /** The snippet of the format's documentation, against the same graph built in code. */
    @Test
    void documentedSnippetMatchesTheBuilder() {
        String json = """
                {"values":[{"name":"x","dtype":"float32","shape":[1,"seq",768]},
                           {"name":"w","dtype":"float32","shape":[768,768]},
                           {"name":"h","dtype":"float32","shape":[1,"seq",768]},
                           {"name":"h_view","dtype":"float32","shape":["seq",768]},
                           {"name":"y","dtype":"float16","shape":["seq",768]}],
                 "inputs":["x"], "outputs":["y"], "initializers":["w"],
                 "nodes":[{"name":"n0","op":"MatMul","inputs":["x","w"],"outputs":["h"]},
                          {"name":"n1","op":"Squeeze","inputs":["h",""],"outputs":["h_view"]},
                          {"name":"n2","op":"Cast","domain":"ai.onnx","inputs":["h_view"],"outputs":["y"]}],
                 "views":{"h_view":"h"}}
                """;
        GraphJson.GraphFile gf = GraphJson.parse(json);

        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(1, "seq", 768));
        int w = b.value("w", DataType.FLOAT32, Shape.of(768, 768));
        int h = b.value("h", DataType.FLOAT32, Shape.of(1, "seq", 768));
        int hv = b.value("h_view", DataType.FLOAT32, Shape.of("seq", 768));
        int y = b.value("y", DataType.FLOAT16, Shape.of("seq", 768));
        b.input(x).initializer(w).output(y);
        b.node("n0", "MatMul", new int[] {x, w}, new int[] {h});
        b.node("n1", "Squeeze", new int[] {h, Graph.ABSENT}, new int[] {hv});
        b.node("n2", "ai.onnx", "Cast", new int[] {hv}, new int[] {y});
        Graph expected = b.build();
        ViewMap expectedViews = ViewMap.builder().put(hv, h).build();

        assertEquals(Graph.ABSENT, gf.graph().node(1).input(1));
        assertEquals("ai.onnx", gf.graph().node(2).domain());
        assertEquals(expectedViews.edges(), gf.views().edges());
        PlanOptions options = PlanOptions.defaults();
        Schedule fromFile = MemPlan.compile(gf.graph(), gf.views(), options);
        Schedule fromCode = MemPlan.compile(expected, expectedViews, options);
        Map<String, Long> seq = Map.of("seq", 7L);
        assertEquals(PlanJson.toJson(fromCode, fromCode.plan(seq)), PlanJson.toJson(fromFile, fromFile.plan(seq)));
        PlanChecks.validate(fromFile.plan(seq).orElseThrow());
        assertEquals(GraphJson.toJson(expected, expectedViews), GraphJson.toJson(gf.graph(), gf.views()));
    }

    @Test
    void fieldsMayComeInAnyOrder() {
        GraphJson.GraphFile gf = GraphJson.parse("""
                {"views":{"b":"a"},
                 "nodes":[{"outputs":["a"],"inputs":["x"],"op":"Relu"},{"op":"Reshape","inputs":["a"],"outputs":["b"]}],
                 "outputs":["b"], "inputs":["x"],
                 "values":[{"shape":[4],"dtype":"int8","name":"x"},{"dtype":"int8","name":"a","shape":[4]},
                           {"name":"b","shape":[2,2],"dtype":"int8"}]}
                """);
        assertEquals(3, gf.graph().valueCount());
        assertEquals(Map.of(2, 1), gf.views().edges());
        assertEquals("", gf.graph().node(0).name());
        assertEquals("Relu#0", gf.graph().node(0).displayName());
        PlanChecks.validate(MemPlan.plan(gf.graph(), gf.views(), SizeOracle.staticShapes(), PlanOptions.defaults())
                .orElseThrow());
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void everyDtypeReadsByItsName(DataType type) {
        String json = "{\"values\":[{\"name\":\"x\",\"dtype\":\"" + type.jsonName() + "\",\"shape\":[3]}],\"nodes\":[]}";
        assertEquals(type, GraphJson.parse(json).graph().value(0).dataType());
    }

    @Test
    void onnxSpellingsAreAliases() {
        String json = "{\"values\":[{\"name\":\"a\",\"dtype\":\"float\",\"shape\":[]},"
                + "{\"name\":\"b\",\"dtype\":\"double\",\"shape\":[]}],\"nodes\":[]}";
        Graph g = GraphJson.parse(json).graph();
        assertEquals(DataType.FLOAT32, g.value(0).dataType());
        assertEquals(DataType.FLOAT64, g.value(1).dataType());
        assertTrue(g.value(0).shape().dims().isEmpty());
    }

    @Test
    void largeDimsReadExactly() {
        Graph g = GraphJson.parse("{\"values\":[{\"name\":\"a\",\"dtype\":\"uint4\",\"shape\":[" + Long.MAX_VALUE
                + ",0]}],\"nodes\":[]}").graph();
        assertEquals(List.of(Dim.of(Long.MAX_VALUE), Dim.of(0)), g.value(0).shape().dims());
    }

    /** A million-node chain file loads (no recursion, no document tree) and plans. */
    @Test
    void millionNodeChainLoadsAndPlans(@TempDir Path dir) throws IOException {
        int n = 1_000_000;
        Path file = dir.resolve("chain.json");
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("{\"values\":[");
            for (int i = 0; i <= n; i++) {
                out.write((i == 0 ? "" : ",") + "{\"name\":\"v" + i + "\",\"dtype\":\"float32\",\"shape\":[\"batch\",64]}");
            }
            out.write("],\n\"inputs\":[\"v0\"],\"outputs\":[\"v" + n + "\"],\n\"nodes\":[");
            for (int i = 0; i < n; i++) {
                out.write((i == 0 ? "" : ",\n") + "{\"name\":\"n" + i + "\",\"op\":\"Relu\",\"inputs\":[\"v" + i
                        + "\"],\"outputs\":[\"v" + (i + 1) + "\"]}");
            }
            out.write("]}\n");
        }
        GraphJson.GraphFile gf = GraphJson.read(file);
        assertEquals(n, gf.graph().nodeCount());
        assertEquals(n + 1, gf.graph().valueCount());
        Schedule s = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults().withStrategy(Strategy.SLOTS));
        ActivationPlan plan = PlanChecks.validate(s.plan(Map.of("batch", 1L)).orElseThrow());
        assertEquals(2, plan.numSlots());
        assertEquals(2 * 256, plan.peakBytes());
        assertEquals((long) n * 256, plan.naiveBytes());
        assertFalse(s.plan(SizeOracle.staticShapes()).isComplete());
    }

    private static int[] ids(Graph g, JsonNode names) {
        List<Integer> out = new ArrayList<>();
        if (names != null) {
            for (JsonNode name : names) {
                out.add(name.asText().isEmpty() ? Graph.ABSENT : g.valueId(name.asText()).orElseThrow());
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
