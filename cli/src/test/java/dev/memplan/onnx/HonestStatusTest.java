// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.cli.MemplanCli;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import static dev.memplan.onnx.OnnxWriter.BOOL;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A report says {@code complete} only when every figure it promises is known: an outer plan that is
 * complete while a branch's need is sized by data at run time is reported deferred, naming the
 * deferred figure, with the outer plan still in it.
 */
class HonestStatusTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An If whose then-branch counts the non-zeros of {@code x}: its need depends on data; its output does not. */
    private static byte[] modelWithADataSizedBranch() {
        GraphProto thenBranch = OnnxWriter.graph()
                .node("NonZero", in("x"), out("nz"))
                .node("Size", in("nz"), out("count"))
                .node("Cast", in("count"), out("countF"), OnnxWriter.intAttr("to", FLOAT))
                .node("Add", in("x", "countF"), out("t"))
                .output("t", type(FLOAT, 256))
                .buildGraph().toBuilder().setName("then").build();
        GraphProto elseBranch = OnnxWriter.graph()
                .node("Abs", in("x"), out("e"))
                .output("e", type(FLOAT, 256))
                .buildGraph().toBuilder().setName("else").build();
        return OnnxWriter.graph()
                .input("cond", type(BOOL))
                .input("x", type(FLOAT, 256))
                .node("If", in("cond"), out("r"), OnnxWriter.graphAttr("then_branch", thenBranch),
                        OnnxWriter.graphAttr("else_branch", elseBranch))
                .node("Relu", in("r"), out("y"))
                .output("y", type(FLOAT, 256))
                .bytes(13);
    }

    @Test
    void aCompleteOuterPlanWithADeferredBranchNeedIsNotReportedComplete(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("data-sized-branch.onnx");
        Files.write(file, modelWithADataSizedBranch());
        dev.memplan.server.OnnxPlan library = dev.memplan.server.CompiledModel.compile(file).plan(java.util.Map.of());
        assertTrue(library.result() instanceof dev.memplan.PlanResult.Complete, "the outer plan is complete");
        assertTrue(library.admissionBytes().isEmpty(), "the branch's need waits for the count");

        JsonNode json = JSON.readTree(run("plan", file.toString(), "--format", "json"));
        assertEquals("deferred", json.get("status").asText(), json.toString());
        assertEquals("[\"admissionBytes\"]", json.get("deferredFigures").toString());
        assertTrue(json.get("owners").size() > 0, "the outer plan is still reported: " + json);

        JsonNode ort = JSON.readTree(run("plan", file.toString(), "--format", "json", "--runtime", "ort",
                "--ort-unmodelled", "allowance"));
        assertEquals("deferred", ort.get("status").asText(), ort.toString());
        assertEquals("[\"admissionBytes\",\"ort.predictedBytes\"]", ort.get("deferredFigures").toString());
        assertTrue(ort.get("ort").get("predictedBytes").isNull(), ort.toString());

        JsonNode whole = JSON.readTree(run("plan", file.toString(), "--format", "json", "--value", "cond=0"));
        assertFalse(whole.has("deferredFigures"), whole.toString());
    }

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = MemplanCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute(args), out + "\n" + err);
        return out.toString();
    }
}
