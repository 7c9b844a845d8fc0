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
}
