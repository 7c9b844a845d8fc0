// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memplan.onnx.SplitModels;
import dev.memplan.ort.internal.OrtArenaFigure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --input-dims}: an export that names both dims of its inputs {@code batch} plans, with the
 * dims given, as the export with distinct names; dims that do not fit are one-line usage errors.
 */
class InputDimsOptionTest {
    @TempDir
    Path dir;

    private String wrong() throws Exception {
        return Files.write(dir.resolve("batch-batch.onnx"), SplitModels.maskedBytes("batch", "batch")).toString();
    }

    private String right() throws Exception {
        return Files.write(dir.resolve("batch-seq.onnx"), SplitModels.maskedBytes("batch", "seq")).toString();
    }

    private static JsonNode whole(CliRun run) throws Exception {
        assertEquals(0, run.exit(), run.toString());
        return new ObjectMapper().readTree(run.out());
    }

    private static JsonNode onnx(CliRun run) throws Exception {
        assertEquals(0, run.exit(), run.toString());
        return new ObjectMapper().readTree(run.out()).get("onnx");
    }

    private static void assertUsageError(CliRun run, String expected) {
        assertEquals(2, run.exit(), run.toString());
        assertTrue(run.err().contains(expected), run.err());
        assertFalse(run.err().strip().contains("\n"), "one line: " + run.err());
    }

    @Test
    void givenDimsPlanAsTheDistinctExport() throws Exception {
        JsonNode given = onnx(CliRun.of("plan", "--format", "json", "--input-dims", "ids=batch,seq",
                "--input-dims", "mask=batch,seq", "--bind", "batch=3", "--bind", "seq=40", wrong()));
        JsonNode reference = onnx(CliRun.of("plan", "--format", "json", "--bind", "batch=3", "--bind", "seq=40",
                right()));
        assertTrue(given.get("complete").asBoolean(), given.toString());
        assertEquals(reference.get("peakBytes").asLong(), given.get("peakBytes").asLong());
        // without the dims, seq is no symbol of the file: a usage error, as before
        assertEquals(2, CliRun.of("plan", "--bind", "batch=3", "--bind", "seq=40", wrong()).exit());
    }

    @Test
    void drawTakesThemToo() throws Exception {
        Path svg = dir.resolve("p.svg");
        CliRun run = CliRun.of("draw", "-o", svg.toString(), "--input-dims", "ids=batch,seq", "--input-dims",
                "mask=batch,seq", "--bind", "batch=2", "--bind", "seq=5", wrong());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(Files.size(svg) > 0);
        assertUsageError(CliRun.of("draw", "-o", svg.toString(), "--input-dims", "nope=a,b", "--bind", "batch=2",
                wrong()), "has no input 'nope'");
    }

    @Test
    void anUnknownInputOrAWrongRankNamesTheInput() throws Exception {
        assertUsageError(CliRun.of("plan", "--input-dims", "input_ids=batch,seq", "--bind", "batch=2", wrong()),
                "input dims for 'input_ids': " + dir.resolve("batch-batch.onnx") + " has no input 'input_ids'; its"
                        + " inputs are ids, mask: correct the name");
        assertUsageError(CliRun.of("plan", "--input-dims", "ids=batch", "--bind", "batch=2", wrong()),
                "input dims for 'ids' give 1 dim but");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ids=batch,-1", "ids=batch,", "ids=", "=batch,seq", "ids=1,99999999999999999999"})
    void aMalformedValueIsAUsageError(String value) throws Exception {
        CliRun run = CliRun.of("plan", "--input-dims", value, "--bind", "batch=2", wrong());
        assertEquals(2, run.exit(), run.toString());
        assertTrue(run.err().contains("--input-dims"), run.err());
    }

    @Test
    void anInputGivenTwoSetsOfDimsIsAUsageError() throws Exception {
        assertUsageError(CliRun.of("plan", "--input-dims", "ids=batch,seq", "--input-dims", "ids=batch,len",
                "--bind", "batch=2", wrong()), "--input-dims ids is given twice");
    }

    @Test
    void theOrtRuntimePredictsWithThem() throws Exception {
        String model = wrong();
        JsonNode given = whole(CliRun.of("plan", "--runtime", "ort", "--format", "json", "--input-dims",
                "ids=batch,seq", "--input-dims", "mask=batch,seq", "--bind", "batch=3", "--bind", "seq=40", model));
        long predicted = given.get("ort").get("predictedBytes").asLong();
        // ORT runs the file as it is, its planner comparing the names the file gives
        long ort = OrtArenaFigure.measure(Path.of(model), Map.of("ids", new long[] {3, 40}, "mask", new long[] {3, 40}));
        assertTrue(predicted >= ort && predicted <= ort * 1.02, "predicted " + predicted + ", ORT " + ort);
    }

    @Test
    void aNameFromTheCommandLineIsEscapedWhereItIsPrinted() throws Exception {
        CliRun run = CliRun.of("plan", "--input-dims", "n\u001b[31mo=a,b", "--bind", "batch=2", wrong());
        assertEquals(2, run.exit(), run.toString());
        assertFalse(run.err().contains("\u001b"), run.err());
        assertTrue(run.err().contains("has no input 'n\\x1b[31mo'"), run.err());
    }
}
