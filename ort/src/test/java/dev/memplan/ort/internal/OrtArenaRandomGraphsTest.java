// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Java replay against ONNX Runtime itself on seeded random graphs: {@code replay-check.py}'s
 * Pad / Slice / Concat graphs (seed 7) and with in-place Relu and same-shape Exp (seed 11), each
 * measured with ORT 1.30's arena statistics at {@code ort-arena.py}'s settings, level none.
 * The ONNX files and figures are checked in (src/test/resources/ort/random); regenerate them with
 * {@code benchmarks/ort/expected-figures.py}. No engine is involved: the replay is plain Java.
 */
@EngineIndependent
class OrtArenaRandomGraphsTest {

    static Stream<Arguments> measuredGraphs() throws IOException, URISyntaxException {
        Path dir = Path.of(OrtArenaRandomGraphsTest.class.getResource("/ort/random/expected.tsv").toURI()).getParent();
        List<String> rows = Files.readAllLines(dir.resolve("expected.tsv")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertTrue(rows.size() >= 40, "expected.tsv lists " + rows.size() + " graphs; regenerate it");
        return rows.stream().map(l -> l.split("\t"))
                .map(f -> Arguments.of(f[0], dir.resolve(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("measuredGraphs")
    void javaReplayEqualsOrtAndThePythonReplay(String name, Path file, long ort, long python) {
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file),
                ImportOptions.defaults().withFoldConstants(false));
        OrtArenaPredictor predictor = OrtArenaPredictor.of(imported.graph(), NodeAttributes.none());

        OrtArenaPrediction prediction = predictor.predict(Map.of());

        assertEquals(python, prediction.activationBytes(), name + ": the Java replay differs from replay-check.py's");
        assertEquals(ort, prediction.activationBytes(), name + ": the Java replay differs from ORT's measured figure");
        assertTrue(prediction.isReplay(), name + " has unmodelled ops " + prediction.unmodelledOps());
        // The parts add up: the second run's peak holds the pattern block and the held outputs.
        assertTrue(prediction.patternBlockBytes() + prediction.outputsHeldBytes() <= prediction.activationBytes());
        assertTrue(prediction.arenaRoundingBytes() >= 0 && prediction.reservedBytes() >= prediction.activationBytes());
    }
}
