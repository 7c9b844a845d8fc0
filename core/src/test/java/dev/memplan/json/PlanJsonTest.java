// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.ActivationPlan;
import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Shape;
import dev.memplan.SizeOracle;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.PlanChecks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The plan JSON, field by field, against the Java API on the same plan. */
@EngineIndependent
class PlanJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> SLOTS_FIELDS = List.of("engine", "status", "strategy", "order", "owners", "slots",
            "peakBytes", "naiveBytes", "numSlots", "savingsRatio", "lowerBoundBytes");
    private static final List<String> OFFSETS_FIELDS = List.of("engine", "status", "strategy", "order", "owners",
            "peakBytes", "naiveBytes", "savingsRatio", "lowerBoundBytes",
            "lowerBoundWithoutInPlaceBytes", "inPlace");
    /** An offsets plan with in-place reuse off reads as before in-place reuse existed. */
    private static final List<String> OFFSETS_FIELDS_WITHOUT_IN_PLACE = OFFSETS_FIELDS.subList(0, 9);

    static Stream<Arguments> examplesAndStrategies() {
        List<Arguments> out = new ArrayList<>();
        for (Path file : Examples.all()) {
            for (Strategy strategy : Strategy.values()) {
                out.add(Arguments.of(file, strategy));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("examplesAndStrategies")
    void completePlanOfEachExample(Path file, Strategy strategy) throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(file);
        Schedule s = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults().withStrategy(strategy));
        PlanResult r = s.plan(Examples.BINDINGS);
        checkComplete(s, PlanChecks.validate(r.orElseThrow()), PlanJson.toJson(s, r));
    }

    static Stream<Arguments> seeds() {
        return LongStream.range(0, 200).map(i -> 0x9a1a0000L + i).boxed()
                .flatMap(seed -> Stream.of(Strategy.values()).map(strategy -> Arguments.of(seed, strategy)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("seeds")
    void randomGraphs(long seed, Strategy strategy) throws IOException {
        FormatGraphs.Generated g = FormatGraphs.generate(seed);
        PlanOptions options = PlanOptions.defaults().withIncludeGraphInputs(seed % 2 == 1).withAlignment(1 + seed % 3)
                .withStrategy(strategy);
        Schedule s = MemPlan.compile(g.graph(), g.views(), options);
        PlanResult r = s.plan(Map.of("batch", 2L, "seq", 3L, "heads", 4L));
        String json = PlanJson.toJson(s, r);
        if (r instanceof PlanResult.Complete c) {
            checkComplete(s, PlanChecks.validate(c.plan()), json);
        } else {
            checkDeferred(s, (PlanResult.Deferred) r, json);
        }
    }

    @Test
    void deferredExample() throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(Examples.get("transformer_block.json"));
        Schedule s = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults());
        PlanResult r = s.plan(Map.of("batch", 1L));
        checkDeferred(s, (PlanResult.Deferred) r, PlanJson.toJson(s, r));
    }

    /**
     * Owners come out in ascending (def, value id) even where allocation order differs: a node
     * whose outputs are listed in descending id order, and an included graph input whose id is
     * above the first node's output.
     */
    @Test
    void ownersAreSortedByDefThenValueId() throws IOException {
        Graph.Builder b = Graph.builder();
        int h0 = b.value("h0", DataType.FLOAT32, Shape.of(4));
        int x = b.value("x", DataType.FLOAT32, Shape.of(8));
        int lo = b.value("lo", DataType.FLOAT32, Shape.of(2));
        int hi = b.value("hi", DataType.FLOAT32, Shape.of(2));
        int y = b.value("y", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("n0", "Relu", new int[] {x}, new int[] {h0});
        b.node("n1", "Split", new int[] {h0}, new int[] {hi, lo});
        b.node("n2", "Concat", new int[] {lo, hi}, new int[] {y});
        b.output(y);
        Schedule s = MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults().withIncludeGraphInputs(true));
        assertEquals(List.of(x, h0, hi, lo, y), boxed(s.owners()), "allocation order differs from the JSON order");
        PlanResult r = s.plan(SizeOracle.staticShapes());
        String json = PlanJson.toJson(s, r);
        checkComplete(s, PlanChecks.validate(r.orElseThrow()), json);
        List<String> names = new ArrayList<>();
        MAPPER.readTree(json).get("owners").forEach(o -> names.add(o.get("value").asText()));
        assertEquals(List.of("h0", "x", "lo", "hi", "y"), names);
    }

    @Test
    void unnamedValuesAndNodesUseDisplayNames() throws IOException {
        Graph.Builder b = Graph.builder();
        int x = b.value("", DataType.INT8, Shape.of(16));
        int h = b.value("", DataType.INT8, Shape.of(16));
        b.input(x);
        b.node("", "Relu", new int[] {x}, new int[] {h});
        b.output(h);
        Schedule s = MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults());
        JsonNode doc = MAPPER.readTree(PlanJson.toJson(s, s.plan(SizeOracle.staticShapes())));
        assertEquals("Relu#0", doc.get("order").get(0).asText());
        assertEquals("%1", doc.get("owners").get(0).get("value").asText());
    }

    @Test
    void fileLabelComesFirstAndTheLineIsCompact() throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(Examples.get("views.json"));
        Schedule s = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults());
        String json = PlanJson.toJson("examples/views.json", s, s.plan(SizeOracle.staticShapes()));
        assertFalse(json.contains("\n"));
        JsonNode doc = MAPPER.readTree(json);
        List<String> fields = fieldNames(doc);
        assertEquals("file", fields.get(0));
        assertEquals(OFFSETS_FIELDS, fields.subList(1, fields.size()), "the default strategy is offsets");
        assertEquals("examples/views.json", doc.get("file").asText());
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void emptyGraph(Strategy strategy) throws IOException {
        Schedule s = MemPlan.compile(Graph.builder().build(), ViewMap.empty(),
                PlanOptions.defaults().withStrategy(strategy));
        PlanResult r = s.plan(SizeOracle.staticShapes());
        JsonNode doc = MAPPER.readTree(PlanJson.toJson(s, r));
        checkComplete(s, r.orElseThrow(), PlanJson.toJson(s, r));
        assertEquals(0.0, doc.get("savingsRatio").asDouble());
        assertEquals(0, doc.get("owners").size());
    }

    @Test
    void aPlanFromAnotherScheduleIsRejected() throws IOException {
        GraphJson.GraphFile gf = GraphJson.read(Examples.get("views.json"));
        Schedule a = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults());
        Schedule b = MemPlan.compile(gf.graph(), gf.views(), PlanOptions.defaults());
        PlanResult r = a.plan(SizeOracle.staticShapes());
        assertThrows(IllegalArgumentException.class, () -> PlanJson.toJson(b, r));
    }

    /** The in-place fields say what the schedule says: every linked value once, its buffer and the input it took. */
    private static void checkInPlace(Schedule s, ActivationPlan plan, JsonNode doc) {
        Graph g = s.graph();
        assertEquals(plan.lowerBoundWithoutInPlaceBytes(), doc.get("lowerBoundWithoutInPlaceBytes").asLong());
        assertTrue(plan.lowerBoundWithoutInPlaceBytes() >= plan.lowerBoundBytes());
        assertEquals(s.numInPlace(), doc.get("inPlace").size());
        for (JsonNode link : doc.get("inPlace")) {
            int v = idOf(g, link.get("value").asText());
            assertEquals(g.value(s.bufferOf(v)).displayName(), link.get("buffer").asText());
            assertEquals(g.value(s.inPlaceSource(v)).displayName(), link.get("over").asText());
            assertEquals(-1, s.ownerIndexOf(v), "a value placed in place owns nothing");
        }
    }

    private static void checkComplete(Schedule s, ActivationPlan plan, String json) throws IOException {
        assertFalse(json.contains("\n"));
        JsonNode doc = MAPPER.readTree(json);
        boolean slotsPlan = plan.strategy() == Strategy.SLOTS;
        boolean inPlace = s.options().inPlaceEnabled();
        List<String> expected = new ArrayList<>(slotsPlan ? SLOTS_FIELDS : OFFSETS_FIELDS_WITHOUT_IN_PLACE);
        if (inPlace) {
            expected.addAll(List.of("lowerBoundWithoutInPlaceBytes", "inPlace"));
        }
        assertEquals(expected, fieldNames(doc));
        if (inPlace) {
            checkInPlace(s, plan, doc);
        }
        assertEquals(plan.strategy().toString(), doc.get("strategy").asText());
        assertEquals(plan.engine(), doc.get("engine").asText());
        assertEquals(s.engine(), plan.engine());
        assertEquals("complete", doc.get("status").asText());
        Graph g = s.graph();
        int[] order = s.order();
        assertEquals(order.length, doc.get("order").size());
        for (int i = 0; i < order.length; i++) {
            assertEquals(g.node(order[i]).displayName(), doc.get("order").get(i).asText());
        }
        JsonNode owners = doc.get("owners");
        assertEquals(s.numOwners(), owners.size());
        Set<Integer> seen = new HashSet<>();
        long previousKey = -1;
        for (JsonNode o : owners) {
            assertEquals(slotsPlan ? List.of("value", "bytes", "def", "useEnd", "offset", "slot")
                    : List.of("value", "bytes", "def", "useEnd", "offset"), fieldNames(o));
            int v = idOf(g, o.get("value").asText());
            int idx = s.ownerIndexOf(v);
            assertTrue(idx >= 0, o + " is an owner");
            assertTrue(seen.add(v), o + " listed once");
            assertEquals(plan.sizeOf(v), o.get("bytes").asLong());
            assertEquals(s.def(idx), o.get("def").asInt());
            assertEquals(s.useEnd(idx), o.get("useEnd").asInt());
            assertEquals(plan.offsetOf(v), o.get("offset").asLong());
            if (slotsPlan) {
                assertEquals(plan.slotOf(v), o.get("slot").asInt());
            }
            long key = ((long) s.def(idx) << 32) | v;
            assertTrue(key > previousKey, "owners ascend by (def, value id): " + o);
            previousKey = key;
        }
        assertEquals(plan.peakBytes(), doc.get("peakBytes").asLong());
        assertEquals(plan.naiveBytes(), doc.get("naiveBytes").asLong());
        assertEquals(plan.savingsRatio(), doc.get("savingsRatio").asDouble());
        assertEquals(plan.lowerBoundBytes(), doc.get("lowerBoundBytes").asLong());
        if (!slotsPlan) {
            return;
        }
        JsonNode slots = doc.get("slots");
        assertEquals(plan.numSlots(), slots.size());
        for (int i = 0; i < slots.size(); i++) {
            assertEquals(List.of("id", "capacityBytes"), fieldNames(slots.get(i)));
            assertEquals(plan.slots().get(i).id(), slots.get(i).get("id").asInt());
            assertEquals(plan.slots().get(i).capacityBytes(), slots.get(i).get("capacityBytes").asLong());
        }
        assertEquals(plan.peakBytes(), doc.get("peakBytes").asLong());
        assertEquals(plan.naiveBytes(), doc.get("naiveBytes").asLong());
        assertEquals(plan.numSlots(), doc.get("numSlots").asInt());
        assertEquals(plan.savingsRatio(), doc.get("savingsRatio").asDouble());
        assertEquals(plan.lowerBoundBytes(), doc.get("lowerBoundBytes").asLong());
    }

    private static void checkDeferred(Schedule s, PlanResult.Deferred r, String json) throws IOException {
        assertFalse(json.contains("\n"));
        JsonNode doc = MAPPER.readTree(json);
        assertEquals(List.of("engine", "status", "unknownSizes"), fieldNames(doc));
        assertEquals(s.engine(), doc.get("engine").asText());
        assertEquals("deferred", doc.get("status").asText());
        List<String> expected = new ArrayList<>();
        for (int v : r.unknownSizes()) {
            expected.add(s.graph().value(v).displayName());
        }
        List<String> actual = new ArrayList<>();
        doc.get("unknownSizes").forEach(n -> actual.add(n.asText()));
        assertEquals(expected, actual);
        assertFalse(actual.isEmpty());
    }

    private static int idOf(Graph g, String displayName) {
        if (displayName.startsWith("%") && g.valueId(displayName).isEmpty()) {
            return Integer.parseInt(displayName.substring(1));
        }
        return g.valueId(displayName).orElseThrow();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    private static List<Integer> boxed(int[] a) {
        List<Integer> out = new ArrayList<>();
        for (int v : a) {
            out.add(v);
        }
        return out;
    }
}
