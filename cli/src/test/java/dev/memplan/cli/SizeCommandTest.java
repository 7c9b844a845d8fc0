// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.ort.ServerSize;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memplan size}: bad input is one line naming the value at fault, with the exit codes of the
 * other commands; the JSON and the text carry every part and the totals. The measurement itself is
 * tested once, in the library (ServerSizeTest).
 */
@EngineIndependent
class SizeCommandTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String SUPER_RESOLUTION = "ort-ext/pytorch_super_resolution.onnx";

    @TempDir
    Path dir;

    private static void oneLine(CliRun run, int exit, String... named) {
        assertEquals(exit, run.exit(), run.toString());
        assertEquals(1, run.err().lines().count(), "one line: " + run.err());
        assertTrue(run.out().isEmpty(), run.toString());
        for (String n : named) {
            assertTrue(run.err().contains(n), "names " + n + ": " + run.err());
        }
    }

    @Test
    void usageErrorsNameTheOptionAndValue() {
        oneLine(CliRun.of("size", "x.onnx"), ExitCode.USAGE, "--concurrency");
        oneLine(CliRun.of("size", "x.onnx", "--concurrency", "0"), ExitCode.USAGE, "--concurrency 0", "at least one");
        oneLine(CliRun.of("size", "x.onnx", "--concurrency", "2", "--intra-op-threads", "-1"), ExitCode.USAGE,
                "--intra-op-threads -1");
        oneLine(CliRun.of("size", "x.onnx", "--concurrency", "eight"), ExitCode.USAGE, "eight");
        oneLine(CliRun.of("size", "x.onnx", "--concurrency", "2", "--bind", "seq=-1"), ExitCode.USAGE, "seq=-1");
        oneLine(CliRun.of("size", "x.onnx", "--concurrency", "2", "--bind", "s=1", "--bind", "s=2"), ExitCode.USAGE,
                "--bind s", "once");
        oneLine(CliRun.of("size", "--concurrency", "2"), ExitCode.USAGE, "MODEL");
    }

    @Test
    void aFileThatIsNoModelIsBadInputNamedEscaped() throws Exception {
        CliRun missing = CliRun.of("size", dir.resolve("no\u001b[31msuch.onnx").toString(), "--concurrency", "2");
        oneLine(missing, ExitCode.INPUT, "no such file", "\\x1b[31msuch.onnx");
        assertFalse(missing.err().contains("\u001b"), "escaped: " + missing.err());
        Path graph = Files.writeString(dir.resolve("g.json"), "{}");
        oneLine(CliRun.of("size", graph.toString(), "--concurrency", "2"), ExitCode.INPUT, "g.json", ".onnx");
        Path broken = Files.writeString(dir.resolve("broken.onnx"), "not a model");
        oneLine(CliRun.of("size", broken.toString(), "--concurrency", "2"), ExitCode.INPUT, "broken.onnx");
    }

    @Test
    void bindingsMustMatchAndBindEverySymbol() {
        SharedModels.requirePresent();
        String model = SharedModels.require(SUPER_RESOLUTION).toString();
        oneLine(CliRun.of("size", model, "--concurrency", "2", "--bind", "batch=2"), ExitCode.USAGE,
                "--bind batch", "batch_size");
        oneLine(CliRun.of("size", model, "--concurrency", "2"), ExitCode.USAGE, "batch_size", "--bind");
    }

    /** A seeded size, as two models might add up. */
    private static ServerSize size(Random r) {
        return new ServerSize(1 + r.nextInt(32), 1 + r.nextInt(4), r.nextInt(1 << 26), r.nextInt(1 << 28),
                r.nextInt(1 << 25), r.nextInt(1 << 29), r.nextInt(1 << 23), r.nextInt(1 << 24));
    }

    @Test
    void theJsonCarriesEveryPartAndTheTotals() throws Exception {
        Random r = new Random(314);
        for (int i = 0; i < 20; i++) {
            ServerSize s = size(r);
            Map<String, Long> bindings = new LinkedHashMap<>(Map.of("batch_size", 8L));
            bindings.put("seq\u0007", 512L);
            JsonNode json = MAPPER.readTree(SizeReport.json(List.of(Path.of("a.onnx"), Path.of("b\u001b.onnx")), bindings, s));
            assertEquals(s.residentBytes(), json.get("residentBytes").asLong());
            assertEquals(s.budgetBytes(), json.get("budgetBytes").asLong());
            long parts = json.get("runtimeBytes").asLong() + json.get("sessionBytes").asLong()
                    + json.get("memplanBytes").asLong() + json.get("inFlightBytes").asLong()
                    + json.get("threadBytes").asLong();
            assertEquals(json.get("residentBytes").asLong(), parts, "the parts add up to the total: " + json);
            assertEquals(s.concurrency() * json.get("requestBytes").asLong(), json.get("budgetBytes").asLong());
            assertEquals(s.concurrency(), json.get("concurrency").asInt());
            assertEquals(s.intraOpThreads(), json.get("intraOpThreads").asInt());
            assertEquals("b\u001b.onnx", json.get("models").get(1).asText(), "a JSON string carries it, escaped");
            assertEquals(512, json.get("bindings").get("seq\u0007").asLong());
            assertFalse(SizeReport.json(List.of(Path.of("b\u001b.onnx")), bindings, s).contains("\u001b"));
            StringWriter text = new StringWriter();
            SizeReport.text(List.of(Path.of("b\u001b.onnx")), bindings, s, new PrintWriter(text, true));
            assertFalse(text.toString().contains("\u001b") || text.toString().contains("\u0007"), text.toString());
            assertTrue(text.toString().contains(String.format(java.util.Locale.ROOT, "%,d B", s.residentBytes())));
        }
    }
}
