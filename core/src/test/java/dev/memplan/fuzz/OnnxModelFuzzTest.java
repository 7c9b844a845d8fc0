// SPDX-License-Identifier: Apache-2.0
package dev.memplan.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.memplan.EngineMode;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.testing.EngineIndependent;
import java.util.Map;
import java.util.TreeMap;

/**
 * Coverage-guided fuzzing of the ONNX path: any bytes are read as a model, imported and planned on
 * both engines. The promise ({@link Promises}): a refusal is memplan's own exception with one
 * clean line, a plan passes the validator, and the engines agree. Regression inputs (the seeds and
 * every finding) are in {@code src/test/resources/dev/memplan/fuzz/OnnxModelFuzzTestInputs/}.
 * Engine-independent: it runs both engines itself.
 */
@EngineIndependent
class OnnxModelFuzzTest {

    @FuzzTest(maxDuration = "20s")
    void onnxModel(byte[] bytes) {
        // The last byte picks the import options and the bindings, so mutations reach them too.
        int knob = bytes.length == 0 ? 0 : bytes[bytes.length - 1] & 0xff;
        ImportOptions options = new ImportOptions((knob & 1) == 0, ViewPolicy.values()[(knob >> 1) % ViewPolicy.values().length]);
        Promises.Outcome<ImportedGraph> imported = Promises.attempt(
                () -> OnnxImporter.importModel(OnnxModel.read("fuzzed.onnx", bytes), options));
        if (imported.refused()) {
            return;
        }
        Map<String, Long> bindings = new TreeMap<>();
        long value = 1 + (knob >> 4);
        for (String symbol : imported.value().symbols().keySet()) {
            bindings.put(symbol, value);
        }
        PlanOptions plan = PlanOptions.defaults().withInPlace((knob & 0x08) == 0);
        Promises.sameOutcome(plan(imported.value(), bindings, plan.withEngine(EngineMode.JAVA)),
                plan(imported.value(), bindings, plan.withEngine(EngineMode.NATIVE)), "bindings " + bindings);
    }

    private static Promises.Outcome<PlanResult> plan(ImportedGraph g, Map<String, Long> bindings, PlanOptions o) {
        return Promises.attempt(() -> OnnxPlanner.plan(g, bindings, o).result());
    }
}
