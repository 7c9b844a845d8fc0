// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.onnx.BranchModels;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --value}: input values on plan, draw and symbols, and the upper-bound line without them. */
class ValueOptionTest {
    @TempDir
    Path dir;

    private Path model(boolean range) throws Exception {
        return Files.write(dir.resolve(range ? "sr-range.onnx" : "sr.onnx"), BranchModels.sampleRateSwitch(range));
    }

    private static JsonNode json(CliRun run) throws Exception {
        assertEquals(0, run.exit(), run.toString());
        return new ObjectMapper().readTree(run.out());
    }

    @Test
    void aValueDecidesTheBranchAndSizesWhatReadsIt() throws Exception {
        String file = model(true).toString();
        JsonNode at16k = json(CliRun.of("plan", "--format", "json", "--bind", "batch=1", "--bind", "seq=512",
                "--value", "sr=16000", file)).get("onnx");
        JsonNode at8k = json(CliRun.of("plan", "--format", "json", "--bind", "batch=1", "--bind", "seq=512",
                "--value", "sr=8000", file)).get("onnx");
        assertTrue(at16k.get("complete").asBoolean(), at16k.toString());
        assertEquals("then_branch", at16k.get("controlFlow").get(0).get("bodies").get(0).get("attribute").asText());
        assertEquals("else_branch", at8k.get("controlFlow").get(0).get("bodies").get(0).get("attribute").asText());
        assertFalse(at16k.get("controlFlow").get(0).get("upperBound").asBoolean());
        assertTrue(at16k.get("peakBytes").asLong() > at8k.get("peakBytes").asLong(), "64 more samples padded at 16 kHz");
        // without it the Range's size is unknown: deferred
        CliRun deferred = CliRun.of("plan", "--bind", "batch=1", "--bind", "seq=512", file);
        assertEquals(0, deferred.exit(), deferred.toString());
        assertTrue(deferred.out().contains("deferred: bind sr"), deferred.out());
    }

    @Test
    void anUnknownConditionIsReportedAsAnUpperBound() throws Exception {
        CliRun run = CliRun.of("plan", "--bind", "batch=1", "--bind", "seq=512", model(false).toString());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().contains("upper bnd  padded_node (If): its condition is unknown"), run.out());
        CliRun decided = CliRun.of("plan", "--bind", "batch=1", "--bind", "seq=512", "--value", "sr=8000",
                model(false).toString());
        assertFalse(decided.out().contains("upper bnd"), decided.out());
    }

    @Test
    void drawAndSymbolsTakeValues() throws Exception {
        String file = model(true).toString();
        Path svg = dir.resolve("p.svg");
        CliRun draw = CliRun.of("draw", "--bind", "batch=1", "--bind", "seq=64", "--value", "sr=8000",
                "--output", svg.toString(), file);
        assertEquals(0, draw.exit(), draw.toString());
        assertTrue(Files.size(svg) > 0);
        CliRun symbols = CliRun.of("symbols", file);
        assertEquals(0, symbols.exit(), symbols.toString());
        assertTrue(symbols.out().contains("sr\tvalue of input 'sr': give it with --value sr=N"), symbols.out());
    }

    @Test
    void badValuesAreUsageOrInputErrorsNamingTheInput() throws Exception {
        String file = model(true).toString();
        CliRun negative = CliRun.of("plan", "--value", "sr=-1", file);
        assertEquals(2, negative.exit(), negative.toString());
        assertTrue(negative.err().contains(">= 0"), negative.err());
        CliRun unknown = CliRun.of("plan", "--value", "x=1", file);
        assertTrue(unknown.exit() != 0 && unknown.err().contains("input 'x' has no tracked value"), unknown.toString());
        assertFalse(unknown.err().contains("Exception") || unknown.err().contains("java."), unknown.err());
        assertTrue(CliRun.of("plan", "--help").out().contains("--value"));
    }
}
