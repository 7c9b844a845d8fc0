// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Admission;
import dev.memplan.ExecutionRuntime;
import dev.memplan.ExecutionRuntime.OrtOptimization;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.OnnxPlan;
import dev.memplan.ort.OrtTestModels;
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

/**
 * The ort runtime wired end to end (issue 19): a model compiled with it carries, in every plan's
 * {@code runtimeBytes}, the predictor's figure on the graph ONNX Runtime saves, obtained here by an
 * independent path ({@link OrtTestModels}); the memplan runtime's figure is the peak; admission and
 * budgets answer from the prediction. Every plan goes through the validator.
 */
class OrtRuntimeTest {
    private static final String SQUEEZENET = "onnx-light/light_squeezenet.onnx";
    private static final String SUPER_RESOLUTION = "ort-ext/pytorch_super_resolution.onnx";

    @TempDir
    static Path dir;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(SQUEEZENET, OrtOptimization.ALL, Map.of()),
                Arguments.of(SQUEEZENET, OrtOptimization.NONE, Map.of()),
                Arguments.of(SUPER_RESOLUTION, OrtOptimization.ALL, Map.of("batch_size", 2L)),
                Arguments.of(SUPER_RESOLUTION, OrtOptimization.NONE, Map.of("batch_size", 4L)),
                Arguments.of(SharedModels.MINILM, OrtOptimization.ALL,
                        Map.of("batch_size", 1L, "sequence_length", 128L)));
    }

    private static CompiledModel compile(String model, ExecutionRuntime runtime) {
        return CompiledModel.compile(SharedModels.require(model), ImportOptions.defaults(),
                PlanOptions.defaults().withRuntime(runtime));
    }

    @ParameterizedTest(name = "{0} at level {1} {2}")
    @MethodSource("cases")
    void ortRuntimeBytesAreThePredictionOnTheGraphOrtSaves(String model, OrtOptimization level,
                                                           Map<String, Long> bindings) throws Exception {
        SharedModels.requirePresent();
        ExecutionRuntime runtime = ExecutionRuntime.ort(level);
        CompiledModel ort = compile(model, runtime);
        assertEquals(runtime, ort.runtime());

        OnnxPlan plan = ort.plan(bindings);
        ActivationPlan p = plan.plan();
        PlanValidator.validate(p);
        long expected = OrtTestModels.independentPrediction(SharedModels.require(model), level, bindings, dir);
        System.out.printf("info: ort runtime %s level %s %s: predicted %,d, memplan peak %,d%n", model, level,
                bindings, p.runtimeBytes(), p.peakBytes());
        assertEquals(expected, p.runtimeBytes(), model + " " + bindings);
        assertEquals(runtime, p.runtime());
        assertEquals(OptionalLong.of(expected), ort.reservationBytes(bindings), "admission reads the prediction");

        // memplan's own plan is unchanged by the runtime: same peak, same offsets
        CompiledModel memplan = compile(model, ExecutionRuntime.memplan());
        ActivationPlan own = memplan.plan(bindings).plan();
        PlanValidator.validate(own);
        assertEquals(own.peakBytes(), p.peakBytes());
        assertEquals(own.offsetsByOwner(), p.offsetsByOwner());
        assertEquals(own.peakBytes(), own.runtimeBytes(), "the memplan runtime's figure is the peak");
        assertFalse(own.runtime().isOrt());
        assertEquals(memplan.plan(bindings).admissionBytes(), memplan.reservationBytes(bindings));
    }

    @Test
    void admissionWithTheOrtRuntimeAnswersTheLargestBatchWhosePredictionFits() throws Exception {
        SharedModels.requirePresent();
        CompiledModel ort = compile(SUPER_RESOLUTION, ExecutionRuntime.ort(OrtOptimization.NONE));
        CompiledModel memplan = compile(SUPER_RESOLUTION, ExecutionRuntime.memplan());
        Path file = SharedModels.require(SUPER_RESOLUTION);
        long budget = OrtTestModels.independentPrediction(file, OrtOptimization.NONE, Map.of("batch_size", 3L), dir)
                + 1_000;

        long answer = Admission.largestFitting(ort, "batch_size", Map.of(), budget, 16).orElseThrow();

        PlanValidator.validate(ort.plan(Map.of("batch_size", answer)).plan());
        long at = OrtTestModels.independentPrediction(file, OrtOptimization.NONE, Map.of("batch_size", answer), dir);
        long next = OrtTestModels.independentPrediction(file, OrtOptimization.NONE,
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
        CompiledModel ort = compile(SUPER_RESOLUTION, ExecutionRuntime.ort(OrtOptimization.NONE));
        OnnxPlan plan = ort.plan(Map.of("batch_size", 1L));
        PlanValidator.validate(plan.plan());
        MemoryBudget budget = MemoryBudget.of("ort", 1L << 30, 0);
        try (Lease lease = budget.acquire(plan)) {
            assertEquals(plan.plan().runtimeBytes(), budget.stats().inUseBytes());
            assertNotEquals(plan.plan().peakBytes(), budget.stats().inUseBytes());
        }
        // a plan cache over the model carries the prediction too
        PlanCache cache = PlanCache.of(ort, 10, Bucketing.none());
        OnnxPlan cached = cache.plan(new HashMap<>(Map.of("batch_size", 1L)));
        assertEquals(plan.plan().runtimeBytes(), cached.plan().runtimeBytes());
    }

    @Test
    void theOrtRuntimeNeedsTheModelsFileAndALoadableModel() throws Exception {
        SharedModels.requirePresent();
        PlanOptions ort = PlanOptions.defaults().withRuntime(ExecutionRuntime.ort());
        OnnxModel read = OnnxModel.read(SharedModels.require(SQUEEZENET));
        IllegalArgumentException noFile = assertThrows(IllegalArgumentException.class,
                () -> CompiledModel.compile(read, ImportOptions.defaults(), ort));
        assertTrue(noFile.getMessage().contains("CompiledModel.compile(Path"), noFile.getMessage());

        Path unloadable = OrtTestModels.unloadableModel(dir);
        CompiledModel.compile(unloadable, ImportOptions.defaults(), PlanOptions.defaults()); // memplan plans it
        MemplanException e = assertThrows(MemplanException.class,
                () -> CompiledModel.compile(unloadable, ImportOptions.defaults(), ort));
        assertTrue(e.getMessage().startsWith("ONNX Runtime cannot load the model: "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("Mystery"), e.getMessage());
    }

    @Test
    void aModelWithALoopIsRefusedNamingTheNode() { // If is predicted (OrtRuntimeIfTest); Loop and Scan are not
        SharedModels.requirePresent();
        MemplanException e = assertThrows(MemplanException.class, () -> compile("onnx-node/test_loop11/model.onnx",
                ExecutionRuntime.ort(OrtOptimization.NONE)));
        assertTrue(e.getMessage().contains("is a Loop"), e.getMessage());
        assertTrue(e.getMessage().endsWith("use the memplan runtime for this model"), e.getMessage());
    }
}
