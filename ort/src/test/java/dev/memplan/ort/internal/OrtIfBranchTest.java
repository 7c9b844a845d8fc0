// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ort.OrtModel;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ONNX Runtime's If, replayed ({@link OrtSubgraphReplay}) against ORT 1.30's figures for the small
 * If models of {@code benchmarks/ort/if-models.py}, which writes them into
 * src/test/resources/ort/if/ ({@code benchmarks/ort/figures.sh} measures their figures into this
 * machine's set, {@link OrtFigures}): ORT feeds {@code sr} = 16000, so a model comparing it with 16000
 * runs its then branch and one comparing it with 8000 its else branch; the branches differ in
 * their tensors, one holds a nested If, one reads a weight ORT pre-packs (no memory pattern for
 * that branch). Each graph is saved by ORT Java at its default level and predicted on the import
 * the request's {@code sr} specializes; every case must be byte-exact. With {@code sr} unbound
 * the prediction is the larger branch's.
 */
@EngineIndependent
class OrtIfBranchTest {
    @TempDir
    static Path dir;
    private static final Map<String, Path> SAVED = new HashMap<>();

    static Path resource(String name) throws URISyntaxException {
        return Path.of(OrtIfBranchTest.class.getResource("/ort/if/" + name).toURI());
    }

    /** This machine's table of the If models' figures (its NCHWc block's: {@link OrtFigures}). */
    static Path figures() {
        return OrtFigures.levelAll("if-figures.tsv");
    }

    static Stream<Arguments> measured() {
        return OrtFigures.rows(figures()).stream().map(r -> Arguments.of(r.model(), r.bindings(), r.activation()));
    }

    /** ORT's figure for {@code file} at {@code dims}, as if-figures.tsv has it. */
    static long ort(String file, String dims) {
        return OrtFigures.figure(figures(), file, dims);
    }

    /** ORT's level-all graph of {@code file} (a resource, or a shared model's path), saved once per test run. */
    static synchronized Path saved(String file) throws Exception {
        Path p = SAVED.get(file);
        if (p == null) {
            p = dir.resolve(file.replace('/', '_').replace(".onnx", ".all.onnx"));
            Path target = p;
            Path model = source(file);
            OrtFigures.ortLoads(file + " at level all", () -> {
                OrtOptimizedGraph.save(model, OrtModel.Level.ALL.ortName(), target);
                return null;
            });
            SAVED.put(file, p);
        }
        return p;
    }

    /** A model of this test's resources, or a shared model (named with its folder). */
    static Path source(String file) throws Exception {
        return file.contains("/") ? SharedModels.require(file) : resource(file);
    }

    /** The prediction for {@code file} at {@code dims}, with {@code sr} bound to 16000 or left open. */
    static OrtArenaPrediction predict(String file, String dims, boolean bindSr) throws Exception {
        return predict(file, dims, bindSr ? 16_000L : null);
    }

    /** The prediction for {@code file} at {@code dims}, with {@code sr} bound to {@code sr}, or left open when null. */
    static OrtArenaPrediction predict(String file, String dims, Long sr) throws Exception {
        boolean bindSr = sr != null;
        Path p = saved(file);
        ImportedGraph imported = OnnxImporter.importModel(OnnxModel.read(p),
                ImportOptions.defaults().withNchwcBlockSize(OrtRuntimeProfile.nchwcBlockSize()));
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(p));
        Map<String, Long> bindings = new HashMap<>();
        for (String d : dims.split(",")) {
            if (!d.isEmpty()) {
                bindings.put(d.split("=")[0], Long.parseLong(d.split("=")[1]));
            }
        }
        bindings = new HashMap<>(imported.completeBindings(bindings));
        assertTrue(imported.valueSymbols().containsKey("sr"), file + ": sr is not a tracked input");
        if (bindSr) {
            bindings.putAll(imported.valueBindings(Map.of("sr", new long[] {sr})));
        }
        ImportedGraph specialized = imported.forBindings(bindings);
        assertEquals(bindSr, specialized != imported, file + ": sr " + (bindSr ? "does not decide" : "decides") + " the If");
        OrtArenaPredictor predictor = OrtArenaPredictor.ofSaved(specialized, proto,
                ModelProto.parseFrom(Files.readAllBytes(source(file))), true);
        OrtArenaPrediction prediction = predictor.predict(bindings);
        assertEquals(prediction, predictor.replay(bindings), file + ": a second replay differs");
        assertFalse(prediction.unmodelledOps().contains("If"), file + ": the If is still an allowance");
        return prediction;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("measured")
    void predictionMatchesOrt(String file, String dims, long ort) throws Exception {
        OrtArenaPrediction p = predict(file, dims, true);
        System.out.printf("info: ORT If %s %s: predicted %,d, ORT %,d (run 1 %,d, pattern block %,d, outputs held %,d)%n",
                file, dims, p.activationBytes(), ort, p.firstRunPeakBytes(), p.patternBlockBytes(), p.outputsHeldBytes());
        assertEquals(ort, p.activationBytes(), file + " " + dims + ": not byte-exact");
    }

    /** With sr unbound either branch may run: the prediction is the larger of ORT's two figures. */
    @ParameterizedTest(name = "{0} n={1}")
    @CsvSource({"out,1000", "out,5000", "mid,5000", "nested,5000", "gemm,1000", "gemm,5000"})
    void openConditionPredictsTheLargerBranch(String kind, int n) throws Exception {
        String dims = "n=" + n;
        long then = ort("if-" + kind + "-16000.onnx", dims); // sr = 16000 takes then here, else in the 8000 model
        long otherwise = ort("if-" + kind + "-8000.onnx", dims);
        assertEquals(Math.max(then, otherwise), predict("if-" + kind + "-16000.onnx", dims, false).activationBytes(),
                kind + " at n = " + n + ": then " + then + ", else " + otherwise);
    }

    /**
     * Silero VAD's else branch (the 8 kHz model) for {@code sr} = 8000, and with {@code sr} left out
     * the larger of its branches: ORT's figures from silero-else.tsv (a copy of the model whose If
     * compares sr with 8000, measured by if-models.py) and shared-level-all.tsv (the then branch).
     */
    @ParameterizedTest(name = "Silero VAD {0}")
    @ValueSource(strings = {"batch=1,sequence=512", "batch=4,sequence=1024", "batch=16,sequence=4096"})
    void sileroElseBranchAndTheOpenCondition(String dims) throws Exception {
        SharedModels.requirePresent();
        String model = "silero/silero_vad_op18_ifless.onnx";
        long otherwise = OrtFigures.figure(OrtFigures.levelAll("silero-else.tsv"), model, dims);
        long then = OrtFigures.figure(OrtArenaLevelAllTest.tsv(), model, dims);
        assertEquals(otherwise, predict(model, dims, 8_000L).activationBytes(), "Silero VAD " + dims + ", sr = 8000");
        assertEquals(then, predict(model, dims, 16_000L).activationBytes(), "Silero VAD " + dims + ", sr = 16000");
        assertEquals(Math.max(then, otherwise), predict(model, dims, (Long) null).activationBytes(),
                "Silero VAD " + dims + ", sr left out");
    }
}
