// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;


/** {@code memplan plan model.onnx} and {@code memplan symbols model.onnx}, on a shared model. */
@EngineIndependent
class OnnxCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path minilm() {
        return SharedModels.require(SharedModels.MINILM);
    }

    @Test
    void symbolsListsWhatToBind() {
        CliRun run = CliRun.of("symbols", minilm().toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals("batch_size\tnamed by the model\nsequence_length\tnamed by the model\n", run.out());
    }

    @Test
    void withoutBindingsTheModelDefersAndNamesItsSymbols() throws IOException {
        CliRun text = CliRun.of("plan", minilm().toString());
        assertEquals(0, text.exit(), text::toString);
        assertTrue(text.out().contains("plan       deferred: bind batch_size, sequence_length"), text::toString);

        CliRun json = CliRun.of("plan", "--format", "json", minilm().toString());
        JsonNode root = JSON.readTree(json.out());
        assertEquals("deferred", root.get("status").asText());
        assertTrue(root.get("onnx").get("admissionBytes").isNull(), "admission is null, never 0, when deferred");
    }

    @Test
    void boundPlanJsonMatchesTheLibraryAndNamesOnnxValues() throws IOException {
        Path model = minilm();
        CliRun run = CliRun.of("plan", "--format", "json", "--bind", "batch_size=2", "--bind", "sequence_length=16",
                model.toString());
        assertEquals(0, run.exit(), run::toString);
        JsonNode root = JSON.readTree(run.out());

        ImportedGraph imported = GraphLoader.importOnnx(model, new ImportOptions(true, ViewPolicy.ORT));
        OnnxPlan expected = OnnxPlanner.plan(imported, Map.of("batch_size", 2L, "sequence_length", 16L),
                PlanOptions.defaults());
        PlanValidator.validate(expected.plan());
        assertEquals("complete", root.get("status").asText());
        assertEquals(MemPlan.engineName(PlanOptions.defaults().engine()), root.get("engine").asText());
        assertEquals(expected.plan().peakBytes(), root.get("peakBytes").asLong());
        assertEquals(expected.plan().naiveBytes(), root.get("naiveBytes").asLong());
        assertEquals(expected.admissionBytes().getAsLong(), root.get("onnx").get("admissionBytes").asLong());
        JsonNode owner = root.get("onnx").get("owners").get(0);
        assertTrue(owner.has("onnxName") && owner.has("shape") && owner.has("boundShape") && owner.has("bytes"),
                owner::toString);
    }

    @Test
    void viewPoliciesChangeWhatOwnsABuffer() throws IOException {
        String model = minilm().toString();
        long none = naive(CliRun.of("plan", "--format", "json", "--views", "none", "--bind", "batch_size=1",
                "--bind", "sequence_length=8", model));
        long ort = naive(CliRun.of("plan", "--format", "json", "--views", "ort", "--bind", "batch_size=1",
                "--bind", "sequence_length=8", model));
        assertTrue(none > ort, "no views must own more bytes than ORT's views: " + none + " vs " + ort);
        CliRun bad = CliRun.of("plan", "--views", "sideways", model);
        assertEquals(2, bad.exit(), bad::toString);
    }

    private static long naive(CliRun run) throws IOException {
        assertEquals(0, run.exit(), run::toString);
        return JSON.readTree(run.out()).get("naiveBytes").asLong();
    }
}
