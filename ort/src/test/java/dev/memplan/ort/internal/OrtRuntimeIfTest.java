// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.ort.OrtModel;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The ort runtime through the public path ({@code OrtModel})
 * on models with an If: a request that gives the input the condition reads ({@code sr}) gets the
 * figure of the branch it takes, one that leaves it out the larger branch's (ORT's figures from
 * {@code benchmarks/ort/if-models.py} and {@code expected-figures.py}); Loop and Scan stay refused.
 */
class OrtRuntimeIfTest {

    /** The plan of {@code file} with the ort runtime at level all, at {@code bindings}, validated. */
    /** The case's dims ("batch=1;sequence=512") with the 16 kHz sample rate, Silero's then branch. */
    private static Map<String, Long> sileroBindings(String dims) {
        Map<String, Long> bindings = new HashMap<>(Map.of("sr", 16_000L));
        for (String d : dims.split(";")) {
            bindings.put(d.split("=")[0], Long.parseLong(d.split("=")[1]));
        }
        return bindings;
    }

    /** ORT's predicted bytes for a request, through the public path; memplan's plan beside it validated. */
    private static long predicted(Path file, Map<String, Long> bindings) {
        return predicted(file, bindings, OrtModel.Level.ALL);
    }

    private static long predicted(Path file, Map<String, Long> bindings, OrtModel.Level level) {
        OrtModel compiled = OrtModel.compile(file, ImportOptions.defaults(), PlanOptions.defaults(), level);
        OrtModel.Plan plan = compiled.plan(bindings);
        PlanValidator.validate(plan.plan().plan());
        return plan.predictedBytes().orElseThrow();
    }

    @ParameterizedTest(name = "{0} n={1}")
    @CsvSource({"mid,5000", "out,1000", "nested,5000", "gemm,5000"})
    void theRequestsBranchAnswersAndAnOpenConditionTheLargerOne(String kind, long n) throws Exception {
        OrtRuntimeProfile.requireOrtJava();
        String dims = "n=" + n;
        Path thenModel = OrtIfBranchTest.resource("if-" + kind + "-16000.onnx");
        Path elseModel = OrtIfBranchTest.resource("if-" + kind + "-8000.onnx");
        OrtFigures.assumeTheTableHolds(thenModel, OrtModel.Level.ALL);
        OrtFigures.assumeTheTableHolds(elseModel, OrtModel.Level.ALL);
        Map<String, Long> bindings = new HashMap<>(Map.of("n", n, "sr", 16_000L));
        assertEquals(OrtIfBranchTest.ort("if-" + kind + "-16000.onnx", dims), predicted(thenModel, bindings),
                kind + ": sr = 16000 takes the then branch");
        assertEquals(OrtIfBranchTest.ort("if-" + kind + "-8000.onnx", dims), predicted(elseModel, bindings),
                kind + ": sr = 16000 takes the else branch of the model comparing it with 8000");
        bindings.put("sr", 8_000L);
        assertEquals(OrtIfBranchTest.ort("if-" + kind + "-8000.onnx", dims), predicted(thenModel, bindings),
                kind + ": sr = 8000 takes the else branch");
        long larger = Math.max(OrtIfBranchTest.ort("if-" + kind + "-16000.onnx", dims),
                OrtIfBranchTest.ort("if-" + kind + "-8000.onnx", dims));
        assertEquals(larger, predicted(thenModel, Map.of("n", n)), kind + ": sr left out: the larger branch");
    }

    @ParameterizedTest(name = "Silero VAD {0}")
    @CsvSource({"batch=1;sequence=512", "batch=16;sequence=4096"})
    void sileroThroughThePublicPath(String dims) throws Exception {
        SharedModels.requirePresent();
        String model = "silero/silero_vad_op18_ifless.onnx";
        Map<String, Long> bindings = sileroBindings(dims);
        OrtFigures.assumeTheTableHolds(SharedModels.require(model), OrtModel.Level.ALL);
        long ort = OrtFigures.figure(OrtArenaLevelAllTest.tsv(), model, dims.replace(';', ','));
        assertEquals(ort, predicted(SharedModels.require(model), bindings), "Silero VAD " + dims);
    }

    /**
     * At level none ORT changes no graph, so it saves Silero's branch as loaded and runs it in its
     * reverse-DFS order (at level all, where it fuses the branch, in the saved order): ORT's figures
     * from silero-level-none.tsv ({@code benchmarks/ort/figures.sh}).
     */
    @ParameterizedTest(name = "Silero VAD at level none {0}")
    @CsvSource({"batch=1;sequence=512", "batch=4;sequence=1024", "batch=16;sequence=4096"})
    void sileroAtLevelNone(String dims) throws Exception {
        SharedModels.requirePresent();
        OrtRuntimeProfile.requireOrtJava();
        String model = "silero/silero_vad_op18_ifless.onnx";
        Map<String, Long> bindings = sileroBindings(dims);
        OrtFigures.assumeTheTableHolds(SharedModels.require(model), OrtModel.Level.NONE);
        long ort = OrtFigures.figure(OrtFigures.levelNone("silero-level-none.tsv"), model, dims.replace(';', ','));
        assertEquals(ort, predicted(SharedModels.require(model), bindings, OrtModel.Level.NONE),
                "Silero VAD at level none " + dims);
    }

    @Test
    void aScanAndALoopOnItsInputsDataAreMeasuredNotRefused() {
        OrtRuntimeProfile.requireOrtJava();
        // Scan's figures are held in OrtOnnxTestdataTest and OrtMeasuredKernelsTest; here, the shared copy
        Path scan = SharedModels.require("onnx-node/test_scan_sum/model.onnx");
        assertTrue(predicted(scan, Map.of()) > 0, "the Scan is measured, not refused");
        Path loop = SharedModels.require("onnx-node/test_loop11/model.onnx"); // its trip count is an input's data
        OrtModel compiled = OrtModel.compile(loop, ImportOptions.defaults(), PlanOptions.defaults(), OrtModel.Level.ALL);
        assertTrue(compiled.plan(Map.of()).predictedBytes().isEmpty(),
                "compiled at level all; a request waits for the size its body's Slice takes from data");
    }
}
