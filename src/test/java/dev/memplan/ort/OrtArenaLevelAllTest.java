// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ImportedGraph;
import dev.memplan.onnx.OnnxImporter;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@EngineIndependent
class OrtArenaLevelAllTest {
    @TempDir
    static Path dir;
    private static final Map<String, Path> SAVED = new HashMap<>();

    static Stream<Arguments> measured() throws IOException, URISyntaxException {
        Path tsv = Path.of(OrtArenaLevelAllTest.class.getResource("/ort/shared-level-all.tsv").toURI());
        List<String> rows = Files.readAllLines(tsv).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        return rows.stream().map(l -> l.split("\t", -1)).map(f -> Arguments.of(f[0], f[1], Long.parseLong(f[2])));
    }

    static synchronized Path saved(String model) throws Exception {
        String py = System.getProperty("memplan.ort.saved.dir");
        if (py != null) {
            return Path.of(py, model.replace('/', '_') + ".py130.onnx");
        }
        Path p = SAVED.get(model);
        if (p == null) {
            p = dir.resolve(model.replace('/', '_') + ".all.onnx");
            try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
                o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
                o.setIntraOpNumThreads(1);
                o.setOptimizedModelFilePath(p.toString());
                try (OrtSession s = OrtEnvironment.getEnvironment().createSession(SharedModels.path(model).toString(), o)) {
                    // saved when the session is made
                }
            }
            SAVED.put(model, p);
        }
        return p;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("measured")
    void levelAll(String model, String dims, long ort) throws Exception {
        SharedModels.require(model);
        Path file = saved(model);
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(file),
                ImportOptions.defaults().withNchwcBlockSize(16));
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(file));
        Map<String, Long> bindings = imported.completeBindings(Arrays.stream(dims.split(","))
                .filter(d -> !d.isEmpty()).map(d -> d.split("="))
                .collect(Collectors.toMap(d -> d[0], d -> Long.parseLong(d[1]))));
        imported = imported.forBindings(bindings);
        ImportedGraph imp = imported;
        OrtArenaPredictor predictor = OrtArenaPredictor.ofSaved(imp.graph(), proto);
        OrtArenaPrediction prediction = predictor.predict(bindings);
        double ratio = (double) prediction.activationBytes() / ort;
        System.out.printf("info: LEVELALL %s %s: predicted %,d, ORT %,d (%.3f), %d in place, %d freelist, first %,d"
                        + " block %,d outputs %,d unmodelled %s%n", model, dims, prediction.activationBytes(), ort,
                ratio, predictor.sharedInPlace(), predictor.sharedFromFreelist(), prediction.firstRunPeakBytes(),
                prediction.patternBlockBytes(), prediction.outputsHeldBytes(), prediction.unmodelledOps());
        assertTrue(ratio >= 1.0 && ratio <= 1.15, model + " " + dims + " ratio " + ratio);
    }
}
