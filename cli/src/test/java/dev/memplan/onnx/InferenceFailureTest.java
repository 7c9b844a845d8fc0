// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.InferenceFailure;
import dev.memplan.onnx.imports.OnnxImporter;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memplan.PlanOptions;
import dev.memplan.cli.MemplanCli;
import dev.memplan.cli.OnnxPlanJson;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.validate.PlanValidator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A shape rule that throws leaves its node's outputs uninferred, and the import says which node,
 * which op and why, instead of passing the failure off as an unsupported op.
 */
class InferenceFailureTest {

    /** DepthToSpace with a block size whose square overflows a long: its rule cannot compute the shape. */
    private static ImportedGraph absurdBlockSize() {
        OnnxModel model = OnnxWriter.graph().input("x", type(FLOAT, 1, 8, 2, 3))
                .node("DepthToSpace", in("x"), out("y"), intAttr("blocksize", 3_037_000_500L))
                .node("Relu", in("y"), out("z")).outputNoShape("z").model(17);
        return OnnxImporter.importModel(model, ImportOptions.defaults());
    }

    @Test
    void aThrowingRuleIsRecordedWithItsCause() {
        ImportedGraph imp = absurdBlockSize();
        assertEquals(1, imp.inferenceFailures().size(), imp.inferenceFailures().toString());
        InferenceFailure f = imp.inferenceFailures().get(0);
        assertEquals("node 0 'y_node' (DepthToSpace)", f.node());
        assertEquals("", f.domain());
        assertEquals("DepthToSpace", f.opType());
        assertEquals("shape", f.stage());
        assertTrue(!f.message().isBlank(), "the rule's message is kept");
        assertTrue(f.message().contains("attribute 'blocksize'"), "says what it could not use: " + f.message());
        assertNoCodeNames(f.message());
        // the output stays uninferred (and so does its type, which Relu passes on), and its fresh symbol says why
        assertEquals(List.of("y", "z"), imp.uninferred());
        String origin = imp.freshSymbols().get("y_numel");
        assertTrue(origin != null && origin.contains("inference failed") && origin.contains(f.message()),
                String.valueOf(imp.freshSymbols()));
    }

    @Test
    void theReportListsTheFailure() {
        ImportedGraph imp = absurdBlockSize();
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of("y_numel", 48L), PlanOptions.defaults());
        // the element type is unknown too, so the plan waits for sizes: deferred, never guessed
        assertTrue(!plan.isComplete(), "a value of unknown type has no size");
        JsonNode failures = OnnxPlanJson.toJson(plan).get("inferenceFailures");
        assertEquals(1, failures.size(), failures.toString());
        assertEquals("DepthToSpace", failures.get(0).get("opType").asText());
        assertEquals("node 0 'y_node' (DepthToSpace)", failures.get(0).get("node").asText());
    }

    @Test
    void theTextReportNamesTheFailure(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("absurd.onnx");
        Files.write(file, OnnxWriter.graph().input("x", type(FLOAT, 1, 8, 2, 3))
                .node("DepthToSpace", in("x"), out("y"), intAttr("blocksize", 3_037_000_500L))
                .node("Relu", in("y"), out("z")).outputNoShape("z").bytes(17));
        StringWriter out = new StringWriter();
        CommandLine cli = MemplanCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        int exit = cli.execute("plan", file.toString());
        String line = out.toString().lines().filter(l -> l.startsWith("inference")).findFirst().orElse("");
        assertTrue(line.contains("failed (shape) at node 0 'y_node' (DepthToSpace): "), out.toString());
        assertEquals(0, exit, "a deferred plan without --require-complete is not a failure: " + out);
    }

    /** A rule whose own code fails (an index past a too-short input) names the input, not the failure's class. */
    @Test
    void aRuleThatFailsOnATooShortInputNamesItWithoutCodeNames() {
        // Resize of a rank-1 tensor (what an unknown NCHWc output became) with four scales
        OnnxModel model = OnnxWriter.graph().input("x", type(FLOAT, 48))
                .initializer(OnnxWriter.floats("roi", 0))
                .initializer(OnnxWriter.floatValues("scales", 1f, 1f, 2f, 2f))
                .node("Resize", in("x", "roi", "scales"), out("y"))
                .outputNoShape("y").model(17);
        ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
        assertEquals(1, imp.inferenceFailures().size(), imp.inferenceFailures().toString());
        for (InferenceFailure f : imp.inferenceFailures()) {
            assertNoCodeNames(f.message());
            assertTrue(f.message().contains("'scales'") || f.message().contains("'x'"), f.message());
        }
        imp.freshSymbols().values().forEach(InferenceFailureTest::assertNoCodeNames);
    }

    static void assertNoCodeNames(String text) {
        for (String bad : List.of("Exception", "java.", "dev.memplan", "com.google", "Error:")) {
            assertTrue(!text.contains(bad), "'" + bad + "' in a user message: " + text);
        }
    }

    @Test
    void aModelThatInfersCleanlyRecordsNothing() {
        OnnxModel model = OnnxWriter.graph().input("x", type(FLOAT, "n", 8, 2, 3))
                .node("DepthToSpace", in("x"), out("y"), intAttr("blocksize", 2))
                .outputNoShape("y").model(17);
        ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
        assertEquals(List.of(), imp.inferenceFailures());
        assertEquals(List.of(), imp.uninferred());
        PlanValidator.validate(OnnxPlanner.plan(imp, Map.of("n", 2L), PlanOptions.defaults()).plan());
    }
}
