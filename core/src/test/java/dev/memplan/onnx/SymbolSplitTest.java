// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanOptions;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.ModelLimitException;
import dev.memplan.server.OnnxPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request that gives one declared symbol two sizes on two input dims, which ONNX Runtime runs,
 * is planned with the symbol split: the plan is the one of the same model exported with distinct
 * names, and the split is announced once per model, on one line. Input dims given up front plan
 * the same. A graph that needs the two dims equal refuses the request, naming both dims.
 */
class SymbolSplitTest {
    private final List<String> notices = new ArrayList<>();
    private final Logger logger = Logger.getLogger("dev.memplan");
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (notices) {
                notices.add(record.getLevel() + " " + record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        logger.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(handler);
    }

    private static Map<String, long[]> request(long d0, long d1) {
        return Map.of("ids", new long[] {d0, d1}, "mask", new long[] {d0, d1});
    }

    private List<String> noticesOf(String model) {
        synchronized (notices) {
            return notices.stream().filter(n -> n.contains(model + ":")).toList();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void splitPlansEqualTheDistinctExportAndAreAnnouncedOnce(long seed) {
        String name = "batch-batch-" + seed;
        CompiledModel wrong = CompiledModel.compile(SplitModels.masked(name, "batch", "batch"),
                ImportOptions.defaults(), PlanOptions.defaults());
        CompiledModel right = CompiledModel.compile(SplitModels.masked("batch-seq", "batch", "seq"),
                ImportOptions.defaults(), PlanOptions.defaults());
        Random random = new Random(seed);
        int split = 0;
        for (int i = 0; i < 12; i++) {
            long b = 1 + random.nextInt(6);
            long s = i % 4 == 0 ? b : 1 + random.nextInt(40); // some requests agree with the names
            OnnxPlan plan = wrong.planForInputs(request(b, s));
            OnnxPlan reference = right.plan(Map.of("batch", b, "seq", s));
            assertSamePlan(reference, plan, "batch " + b + ", seq " + s);
            if (b != s) {
                split++;
                assertEquals(Map.of("batch", b, "batch@ids.1", s), new TreeMap<>(plan.bindings()));
            } else {
                assertEquals(Map.of("batch", b), plan.bindings());
            }
        }
        assertTrue(split > 0, "the seed made no request that splits");
        List<String> said = noticesOf(name);
        assertEquals(1, said.size(), "one notice per model: " + said);
        String notice = said.get(0);
        assertTrue(notice.startsWith("WARNING "), notice);
        assertFalse(notice.contains("\n"), notice);
        assertTrue(notice.contains("symbol 'batch'") && notice.contains("batch@ids.1")
                && notice.contains("input 'ids' dim 0") && notice.contains("input 'ids' dim 1"), notice);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {4, 5})
    void inputDimsGivenUpFrontPlanTheSame(long seed) {
        ImportOptions renamed = ImportOptions.defaults().withInputDims(Map.of("ids", List.of("batch", "seq"),
                "mask", List.of("batch", "seq")));
        CompiledModel given = CompiledModel.compile(SplitModels.masked("given", "batch", "batch"), renamed,
                PlanOptions.defaults());
        CompiledModel right = CompiledModel.compile(SplitModels.masked("batch-seq", "batch", "seq"),
                ImportOptions.defaults(), PlanOptions.defaults());
        Random random = new Random(seed);
        for (int i = 0; i < 8; i++) {
            long b = 1 + random.nextInt(6);
            long s = 1 + random.nextInt(40);
            Map<String, Long> bindings = Map.of("batch", b, "seq", s);
            assertSamePlan(right.plan(bindings), given.plan(bindings), "batch " + b + ", seq " + s);
            assertSamePlan(right.plan(bindings), given.planForInputs(request(b, s)), "by shapes");
        }
        assertEquals(List.of(), noticesOf("given"), "dims given up front need no split");
    }

    @Test
    void aGraphThatNeedsTheDimsEqualRefusesNamingBoth() {
        CompiledModel square = CompiledModel.compile(SplitModels.squareOnly("square"), ImportOptions.defaults(),
                PlanOptions.defaults());
        assertSamePlan(square.plan(Map.of("batch", 3L)), square.planForInputs(Map.of("x", new long[] {3, 3})), "3x3");
        BindingConflictException e = assertThrows(BindingConflictException.class,
                () -> square.planForInputs(Map.of("x", new long[] {2, 8})));
        String m = e.getMessage();
        assertFalse(m.contains("\n"), m);
        assertEquals("symbol 'batch' is 2 at input 'x' dim 0 but 8 at input 'x' dim 1; the model needs them equal:"
                + " node 1 'y_node' (Add) needs batch = batch@x.1 (broadcasting); give both dims the same size", m);
        assertThrows(BindingConflictException.class, () -> square.planForInputs(Map.of("x", new long[] {8, 2})),
                "refused again from the cached split");
        assertEquals(List.of(), noticesOf("square"), "a split the graph undoes is not announced");
    }

    /**
     * The field's case: all-MiniLM-L6-v2 with every input named {@code [batch, batch]}, as its fp32
     * export declares them (made here by giving the shared export those dims), plans a request of
     * batch 4 and 128 tokens as the correctly named export does.
     */
    @ParameterizedTest(name = "batch {0}, seq {1}")
    @CsvSource({"4, 128", "1, 7", "3, 512"})
    void miniLmNamedBatchBatchPlansAsTheRightNames(long batch, long seq) {
        Path file = SharedModels.require(SharedModels.MINILM);
        List<String> wrong = List.of("batch", "batch");
        CompiledModel field = CompiledModel.compile(file, ImportOptions.defaults().withInputDims(Map.of(
                "input_ids", wrong, "attention_mask", wrong, "token_type_ids", wrong)), PlanOptions.defaults());
        CompiledModel right = CompiledModel.compile(file);
        Map<String, long[]> shapes = Map.of("input_ids", new long[] {batch, seq},
                "attention_mask", new long[] {batch, seq}, "token_type_ids", new long[] {batch, seq});
        assertSamePlan(right.planForInputs(shapes), field.planForInputs(shapes), "MiniLM");
        assertEquals(1, noticesOf(file.toString()).size(), "announced once");
        ModelLimitException limit = assertThrows(ModelLimitException.class,
                () -> field.planForInputs(Map.of("input_ids", new long[] {batch, 513},
                        "attention_mask", new long[] {batch, 513}, "token_type_ids", new long[] {batch, 513})));
        assertTrue(limit.getMessage().contains("batch@input_ids.1"), limit.getMessage());
    }

    @Test
    void bindingsForStillRefusesAndSaysWhatToDo() {
        CompiledModel wrong = CompiledModel.compile(SplitModels.masked("refuse", "batch", "batch"),
                ImportOptions.defaults(), PlanOptions.defaults());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> wrong.bindingsFor(request(2, 8)));
        assertTrue(e.getMessage().contains("symbol 'batch' is 2") && e.getMessage().contains("withInputDims"),
                e.getMessage());
    }

    /** Same peak, and each value of the same name the same size at the same offset. */
    private static void assertSamePlan(OnnxPlan expected, OnnxPlan actual, String what) {
        assertTrue(expected.isComplete() && actual.isComplete(), what);
        ActivationPlan e = expected.plan();
        ActivationPlan a = actual.plan();
        PlanValidator.validate(e, expected.bindings());
        PlanValidator.validate(a, actual.bindings());
        assertEquals(e.peakBytes(), a.peakBytes(), what);
        Graph ge = expected.schedule().graph();
        Graph ga = actual.schedule().graph();
        assertEquals(ge.valueCount(), ga.valueCount(), what);
        for (int v = 0; v < ge.valueCount(); v++) {
            String name = ge.value(v).name();
            int w = ga.values().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow().id();
            assertEquals(e.sizeOf(v), a.sizeOf(w), what + ": size of " + name);
            assertEquals(e.offsetOf(v), a.offsetOf(w), what + ": offset of " + name);
        }
        assertEquals(expected.admissionBytes(), actual.admissionBytes(), what);
    }
}
