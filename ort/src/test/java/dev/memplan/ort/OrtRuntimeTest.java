// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.ActivationPlan;
import dev.memplan.Admission;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.ort.internal.OrtTestModels;
import dev.memplan.server.Bucketing;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.MemoryBudget;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.PlanCache;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


/**
 * ONNX Runtime's prediction attached to a compiled model, end to end: every {@link OrtModel.Plan} of an
 * {@link OrtModel} carries the predictor's figure on the graph ONNX Runtime saves, obtained here by
 * an independent path ({@link OrtTestModels}); memplan's own plan beside it is unchanged; admission
 * and budgets answer from the prediction. Every plan goes through the validator.
 */
class OrtRuntimeTest {
    private static final String SQUEEZENET = "onnx-light/light_squeezenet.onnx";
    private static final String SUPER_RESOLUTION = "ort-ext/pytorch_super_resolution.onnx";

    @TempDir
    static Path dir;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(SQUEEZENET, OrtModel.Level.ALL, Map.of()),
                Arguments.of(SQUEEZENET, OrtModel.Level.NONE, Map.of()),
                Arguments.of(SUPER_RESOLUTION, OrtModel.Level.ALL, Map.of("batch_size", 2L)),
                Arguments.of(SUPER_RESOLUTION, OrtModel.Level.NONE, Map.of("batch_size", 4L)),
                Arguments.of(SharedModels.MINILM, OrtModel.Level.ALL,
                        Map.of("batch_size", 1L, "sequence_length", 128L)));
    }

    private static OrtModel compileOrt(String model, OrtModel.Level level) {
        return OrtModel.compile(SharedModels.require(model), ImportOptions.defaults(), PlanOptions.defaults(), level);
    }

    private static CompiledModel compile(String model) {
        return CompiledModel.compile(SharedModels.require(model), ImportOptions.defaults(), PlanOptions.defaults());
    }

    @ParameterizedTest(name = "{0} at level {1} {2}")
    @MethodSource("cases")
    void ortRuntimeBytesAreThePredictionOnTheGraphOrtSaves(String model, OrtModel.Level level,
                                                           Map<String, Long> bindings) throws Exception {
        SharedModels.requirePresent();
        // the independent prediction starts from an empty arena, as ORT 1.29 and 1.30 start a request
        dev.memplan.ort.internal.OrtFigures.assumeTheTableHolds(SharedModels.require(model), level);
        OrtModel ort = compileOrt(model, level);
        assertEquals(level, ort.level());

        OrtModel.Plan plan = ort.plan(bindings);
        ActivationPlan p = plan.plan().plan();
        PlanValidator.validate(p);
        long expected = OrtTestModels.independentPrediction(SharedModels.require(model), level, bindings, dir);
        System.out.printf("info: ort runtime %s level %s %s: predicted %,d, memplan peak %,d%n", model, level,
                bindings, plan.predictedBytes().orElseThrow(), p.peakBytes());
        assertEquals(OptionalLong.of(expected), plan.predictedBytes(), model + " " + bindings);
        assertEquals(OptionalLong.of(expected), ort.reservationBytes(bindings), "admission reads the prediction");

        // memplan's own plan is unchanged by the prediction: same peak, same offsets
        CompiledModel memplan = compile(model);
        ActivationPlan own = memplan.plan(bindings).plan();
        PlanValidator.validate(own);
        assertEquals(own.peakBytes(), p.peakBytes());
        assertEquals(own.offsetsByOwner(), p.offsetsByOwner());
        assertEquals(memplan.plan(bindings).admissionBytes(), memplan.reservationBytes(bindings));
        assertEquals(memplan.reservationBytes(bindings), ort.model().reservationBytes(bindings));
    }

    @Test
    void admissionWithTheOrtRuntimeAnswersTheLargestBatchWhosePredictionFits() throws Exception {
        SharedModels.requirePresent();
        OrtModel ort = compileOrt(SUPER_RESOLUTION, OrtModel.Level.NONE);
        CompiledModel memplan = compile(SUPER_RESOLUTION);
        Path file = SharedModels.require(SUPER_RESOLUTION);
        long budget = OrtTestModels.independentPrediction(file, OrtModel.Level.NONE, Map.of("batch_size", 3L), dir)
                + 1_000;

        long answer = Admission.largestFitting(ort, "batch_size", Map.of(), budget, 16).orElseThrow();

        PlanValidator.validate(ort.plan(Map.of("batch_size", answer)).plan().plan());
        long at = OrtTestModels.independentPrediction(file, OrtModel.Level.NONE, Map.of("batch_size", answer), dir);
        long next = OrtTestModels.independentPrediction(file, OrtModel.Level.NONE,
                Map.of("batch_size", answer + 1), dir);
        assertTrue(at <= budget, "the answer's prediction " + at + " fits " + budget);
        assertTrue(next > budget, "the next batch's prediction " + next + " does not fit " + budget);
        assertEquals(3, answer);
        // memplan's own peak is lower here, so answering from it would admit a batch ORT cannot hold
        long memplanAnswer = Admission.largestFitting(memplan, "batch_size", Map.of(), budget, 16).orElseThrow();
        assertNotEquals(answer, memplanAnswer);
    }

    @Test
    void aBudgetHoldsThePredictionForAnOrtPlan() throws Exception {
        SharedModels.requirePresent();
        OrtModel ort = compileOrt(SUPER_RESOLUTION, OrtModel.Level.NONE);
        OrtModel.Plan plan = ort.plan(Map.of("batch_size", 1L));
        PlanValidator.validate(plan.plan().plan());
        MemoryBudget budget = MemoryBudget.of("ort", 1L << 30, 0);
        try (MemoryBudget.Lease lease = budget.acquire(plan)) {
            assertEquals(plan.predictedBytes().orElseThrow(), budget.stats().inUseBytes());
            assertNotEquals(plan.plan().plan().peakBytes(), budget.stats().inUseBytes());
        }
        // a plan cache over memplan's model: its plans take the prediction too
        PlanCache cache = PlanCache.of(ort.model(), 10, Bucketing.none());
        OnnxPlan cached = cache.plan(new HashMap<>(Map.of("batch_size", 1L)));
        assertEquals(plan.predictedBytes(), ort.predict(cached).predictedBytes());
        // a plan of another model is refused, naming it
        CompiledModel other = compile(SQUEEZENET);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ort.predict(other.plan(Map.of())));
        assertTrue(e.getMessage().contains("squeezenet"), e.getMessage());
    }

    @Test
    void theOrtPredictionNeedsALoadableModel() throws Exception {
        SharedModels.requirePresent();
        Path unloadable = OrtTestModels.unloadableModel(dir);
        CompiledModel.compile(unloadable, ImportOptions.defaults(), PlanOptions.defaults()); // memplan plans it
        MemplanException e = assertThrows(MemplanException.class,
                () -> OrtModel.compile(unloadable));
        assertTrue(e.getMessage().startsWith("ONNX Runtime cannot load the model: "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("Mystery"), e.getMessage());
    }

    @Test
    void aLoopWhoseBodyFollowsItsInputsDataIsMeasuredAndItsRequestDeferredNamingTheSymbol() {
        SharedModels.requirePresent();
        // ONNX's test_loop11: its trip count is an input's data, and a Slice in its body sizes by data too
        OrtModel model = compileOrt("onnx-node/test_loop11/model.onnx", OrtModel.Level.NONE);
        OrtModel.Plan plan = model.plan(Map.of());
        assertTrue(plan.predictedBytes().isEmpty(), "no figure while a size inside the body is unknown");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, plan::neededBytes);
        assertTrue(e.getMessage().contains("slice_out_slice_d0"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aKernelWithoutARuleIsMeasuredNotRefused() throws Exception {
        Path model = OrtTestModels.singleOpModel(dir, OrtTestModels.WITHOUT_A_RULE);
        OrtModel compiled = OrtModel.compile(model);
        OrtModel.Plan plan = compiled.plan(Map.of());
        PlanValidator.validate(plan.plan().plan());
        assertEquals(java.util.Set.of(), plan.unmodelledOps());
        assertEquals(java.util.Set.of(OrtTestModels.WITHOUT_A_RULE), compiled.measuredOps());
    }

    @Test
    void aKernelWithoutARuleThatCannotBeMeasuredIsRefusedUnlessAnAllowanceIsAskedFor() throws Exception {
        Path model = OrtTestModels.singleOpModel(dir, OrtTestModels.WITHOUT_A_RULE);
        String mode = System.setProperty("memplan.ort.load", "in-process"); // measuring needs a child JVM
        try {
            MemplanException e = assertThrows(MemplanException.class, () -> OrtModel.compile(model));
            assertTrue(e.getMessage().contains("could not measure (" + OrtTestModels.WITHOUT_A_RULE
                    + ": measuring it needs a child JVM") && e.getMessage().endsWith("OrtModel.UnmodelledKernels.ALLOWANCE"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        } finally {
            restore("memplan.ort.load", mode);
        }
        OrtModel allowed;
        mode = System.setProperty("memplan.ort.load", "in-process");
        try {
            allowed = OrtModel.compile(model, ImportOptions.defaults(), PlanOptions.defaults(), OrtModel.Level.ALL,
                    OrtModel.UnmodelledKernels.ALLOWANCE);
        } finally {
            restore("memplan.ort.load", mode);
        }
        OrtModel.Plan plan = allowed.plan(Map.of());
        PlanValidator.validate(plan.plan().plan());
        assertEquals(java.util.Set.of(OrtTestModels.WITHOUT_A_RULE), plan.unmodelledOps());
        // the allowance: the node's input and output, 256 B each, beside them (a guess, named)
        assertTrue(plan.predictedBytes().orElseThrow() >= 4 * 256, plan.toString());
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
