// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.ort.OrtModel;
import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ort runtime on public models from outside the shared set, which no rule was tuned on:
 * sentence encoders (fp32 and int8) from langchain4j's jars and PaddleOCR's detection, recognition
 * and direction models, at two bindings each. Through the default path, as a server compiles them
 * ({@link OrtModel#compile(Path)}: a kernel without a rule is refused, never given an allowance),
 * the prediction must equal ORT 1.30's figure (src/test/resources/ort/nchwc&lt;block&gt;/
 * public-level-all.tsv, remeasured by {@code benchmarks/ort/figures.sh}). The models are fetched
 * into target/public-models by {@code scripts/public-models.sh}, which CI runs first; without them
 * the test skips, and fails in CI.
 */
@EngineIndependent
class OrtPublicModelsTest {
    private static final Path MODELS = Path.of("target", "public-models");
    private static final String CI_HINT = "CI must run the public-model tests: .ci/run fetches them with"
            + " scripts/public-models.sh before mvn verify";

    /** The last model compiled: the table lists each model's bindings together, so one compile serves them. */
    private static String compiledName;
    private static OrtModel compiled;

    static Stream<Arguments> measured() {
        return OrtFigures.rows(OrtFigures.levelAll("public-level-all.tsv")).stream()
                .map(r -> Arguments.of(r.model(), r.bindings(), r.activation(), r.sha256()));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("measured")
    void predictionEqualsOrtsFigureThroughTheDefaultPath(String model, String dims, long ort, String sha256)
            throws Exception {
        Path file = MODELS.resolve(model);
        Ci.require(Files.isRegularFile(file), "no public model at " + file.toAbsolutePath()
                + " (run scripts/public-models.sh)", CI_HINT);
        OrtFigures.assumeTheTableHolds(file, OrtModel.Level.ALL);
        OrtModel.Plan plan = compiled(model, file, sha256).plan(OrtFigures.bindings(dims));
        PlanValidator.validate(plan.plan().plan());
        System.out.printf("info: ORT level all, public %s %s: predicted %,d, ORT %,d%n", model, dims,
                plan.predictedBytes().orElseThrow(), ort);
        assertEquals(java.util.Set.of(), plan.unmodelledOps(), model + " " + dims);
        assertEquals(ort, plan.predictedBytes().orElseThrow(), model + " " + dims + ": not ORT's figure");
    }

    private static synchronized OrtModel compiled(String model, Path file, String sha256) throws IOException {
        if (!model.equals(compiledName)) {
            assertEquals(sha256, OrtFigures.sha256(file), file + " is not the file the figure was measured on;"
                    + " fetch it again with scripts/public-models.sh");
            compiled = null; // the previous model's weights may go before this one is read
            compiled = OrtModel.compile(file);
            compiledName = model;
        }
        return compiled;
    }
}
