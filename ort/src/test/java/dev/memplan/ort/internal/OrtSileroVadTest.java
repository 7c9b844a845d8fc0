// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.ort.OrtModel;
import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Silero VAD v5 and v6 (npm @ricky0123/vad-web, fetched by scripts/public-models.sh): nine nested
 * Ifs, one on the sample rate, an LSTM inside, and inputs whose dims the export left unnamed. Given
 * their dims and {@code sr}, the prediction equals the figure of the ONNX Runtime Java on the class
 * path ({@link OrtArenaFigure}). ORT's peak there is taken while the session is created (a folded
 * LSTM weight dropped after pre-packing), above any request's: the compile measures it in ORT.
 * Left symbolic, their dims are bound from a request's input shapes. The legacy build (symbolic
 * batch and sequence) goes through the default path at six bindings.
 */
@EngineIndependent
class OrtSileroVadTest {
    private static final Path MODELS = Path.of("target", "public-models");

    static Stream<Arguments> requests() {
        return Stream.of("silero_vad_v5.onnx", "silero_vad_v6.onnx")
                .flatMap(m -> Stream.of(Arguments.of(m, 1L), Arguments.of(m, 2L)));
    }

    @ParameterizedTest(name = "{0} batch {1}")
    @MethodSource("requests")
    void thePredictionIsOrtsFigureWithTheSessionsStart(String name, long batch) throws Exception {
        Path file = MODELS.resolve(name);
        Ci.require(Files.isRegularFile(file), "no public model at " + file.toAbsolutePath()
                + " (run scripts/public-models.sh)", "CI must run scripts/public-models.sh before mvn verify");
        String rows = Long.toString(batch);
        ImportOptions dims = ImportOptions.defaults().withInputDims(Map.of("input", List.of(rows, "512"),
                "state", List.of("2", rows, "128")));
        OrtModel model = OrtModel.compile(file, dims, PlanOptions.defaults(), OrtModel.Level.ALL);
        OrtModel.Plan plan = model.plan(Map.of("sr", 16_000L));
        PlanValidator.validate(plan.plan().plan());
        assertEquals(java.util.Set.of(), plan.unmodelledOps());
        long predicted = plan.predictedBytes().orElseThrow();
        long ort = OrtFigures.ortLoads(name, () -> OrtArenaFigure.measure(file, Map.of("input",
                new long[] {batch, 512}, "state", new long[] {2, batch, 128}, "sr", new long[0])));
        System.out.printf("info: Silero VAD %s batch %d: predicted %,d, ORT Java %,d%n", name, batch, predicted, ort);
        assertTrue(predicted >= ort && predicted <= ort * 1.02, name + " batch " + batch + ": predicted "
                + predicted + ", ORT " + ort);
    }

    /**
     * The same requests with the dims left symbolic, as {@code OrtModel.compile(path)} takes them,
     * bound from the request's input shapes and {@code sr}: the input dims decide the decoder's If
     * (a Squeeze of a dim that is 1) in ORT's graph too, so its LSTM takes its rank-3 input and its
     * rule, and the request is predicted, not refused.
     */
    @ParameterizedTest(name = "{0} batch {1}, dims symbolic")
    @MethodSource("requests")
    void withSymbolicDimsThePredictionIsOrtsFigure(String name, long batch) throws Exception {
        Path file = MODELS.resolve(name);
        Ci.require(Files.isRegularFile(file), "no public model at " + file.toAbsolutePath()
                + " (run scripts/public-models.sh)", "CI must run scripts/public-models.sh before mvn verify");
        Map<String, long[]> inputs = Map.of("input", new long[] {batch, 512}, "state", new long[] {2, batch, 128},
                "sr", new long[0]);
        OrtModel model = OrtModel.compile(file);
        Map<String, Long> bindings = new java.util.HashMap<>(model.model().bindingsFor(inputs));
        bindings.put("sr", 16_000L); // its value picks the branch: a shape does not say it
        OrtModel.Plan plan = model.plan(bindings);
        PlanValidator.validate(plan.plan().plan());
        assertEquals(java.util.Set.of(), plan.unmodelledOps());
        long predicted = plan.predictedBytes().orElseThrow();
        long ort = OrtFigures.ortLoads(name, () -> OrtArenaFigure.measure(file, inputs));
        System.out.printf("info: Silero VAD %s batch %d, dims symbolic: predicted %,d, ORT Java %,d%n", name, batch,
                predicted, ort);
        assertTrue(predicted >= ort && predicted <= ort * 1.02, name + " batch " + batch + " (dims symbolic): predicted "
                + predicted + ", ORT " + ort);
    }

    static Stream<Arguments> legacyRequests() {
        return Stream.of(Arguments.of(1L, 512L), Arguments.of(2L, 512L), Arguments.of(1L, 1536L),
                Arguments.of(1L, 4096L), Arguments.of(4L, 1536L), Arguments.of(3L, 4096L));
    }

    /**
     * Silero VAD's legacy build (symbolic batch and sequence, an LSTM, Ifs on the sample rate)
     * through the default path, to the byte. ORT 1.23.2 keeps 43,776 B of weights in its first region
     * while the session is created; at 3 x 4096 run 2's pattern block takes the rest of that region
     * whole, which the replay sees only by starting from the arena the session left (OrtArenaStart).
     */
    @ParameterizedTest(name = "legacy {0} x {1}")
    @MethodSource("legacyRequests")
    void theLegacyBuildsPredictionIsOrtsFigure(long batch, long sequence) throws Exception {
        Path file = MODELS.resolve("silero_vad_legacy.onnx");
        Ci.require(Files.isRegularFile(file), "no public model at " + file.toAbsolutePath()
                + " (run scripts/public-models.sh)", "CI must run scripts/public-models.sh before mvn verify");
        OrtModel model = OrtModel.compile(file, ImportOptions.defaults(), PlanOptions.defaults(), OrtModel.Level.ALL);
        OrtModel.Plan plan = model.plan(Map.of("batch", batch, "sequence", sequence, "sr", 16_000L));
        PlanValidator.validate(plan.plan().plan());
        long predicted = plan.predictedBytes().orElseThrow();
        long ort = OrtFigures.ortLoads("silero_vad_legacy.onnx", () -> OrtArenaFigure.measure(file, Map.of("input",
                new long[] {batch, sequence}, "h", new long[] {2, batch, 64}, "c", new long[] {2, batch, 64},
                "sr", new long[0])));
        System.out.printf("info: Silero VAD legacy %d x %d: predicted %,d, ORT Java %,d%n", batch, sequence, predicted,
                ort);
        assertEquals(ort, predicted, "legacy " + batch + " x " + sequence);
    }
}
