// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.server.OrtModel;
import dev.memplan.server.OrtPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ort runtime through the public path ({@code OrtModel})
 * gives ONNX Runtime's measured figure, not only the predictor's: at level none against
 * shared-level-none.tsv and at level all against shared-level-all.tsv (both measured with ORT 1.30 by
 * {@code benchmarks/ort/expected-figures.py}), on cases the replay matches to the byte. It caught the
 * wiring predicting SqueezeNet at level none from the saved node order (3.3x ORT's figure): ORT runs a
 * graph it did not optimize in its own order, not the file's.
 */
class OrtRuntimeMeasuredTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("onnx-light/light_squeezenet.onnx", OrtModel.Level.NONE, ""),
                Arguments.of("onnx-light/light_resnet50.onnx", OrtModel.Level.NONE, ""),
                Arguments.of("ort-ext/pytorch_super_resolution.onnx", OrtModel.Level.NONE, "batch_size=4"),
                Arguments.of("onnx-light/light_squeezenet.onnx", OrtModel.Level.ALL, ""),
                Arguments.of("onnx-light/light_resnet50.onnx", OrtModel.Level.ALL, ""),
                Arguments.of(SharedModels.MINILM, OrtModel.Level.ALL, "batch_size=4,sequence_length=512"));
    }

    @ParameterizedTest(name = "{0} at level {1} {2}")
    @MethodSource("cases")
    void theOrtRuntimeGivesOrtsMeasuredFigure(String model, OrtModel.Level level, String dims) throws Exception {
        SharedModels.requirePresent();
        if (level == OrtModel.Level.ALL) {
            OrtArenaLevelAllTest.requireMeasuringMachine(); // the level-all graph depends on the CPU
        }
        Map<String, Long> bindings = Arrays.stream(dims.split(",")).filter(d -> !d.isEmpty()).map(d -> d.split("="))
                .collect(Collectors.toMap(d -> d[0], d -> Long.parseLong(d[1])));
        OrtModel compiled = OrtModel.compile(SharedModels.require(model), ImportOptions.defaults(),
                PlanOptions.defaults(), level);
        OrtPlan plan = compiled.plan(bindings);
        PlanValidator.validate(plan.plan().plan());
        assertEquals(measured(level == OrtModel.Level.NONE ? "shared-level-none.tsv" : "shared-level-all.tsv",
                model, dims), plan.predictedBytes().orElseThrow(), model + " at level " + level + " " + dims);
    }

    /** The figure ORT was measured at, from the checked-in table's row for {@code model} and {@code dims}. */
    private static long measured(String table, String model, String dims) throws IOException, URISyntaxException {
        Path tsv = Path.of(OrtRuntimeMeasuredTest.class.getResource("/ort/" + table).toURI());
        return Files.readAllLines(tsv).stream().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(l -> l.split("\t", -1)).filter(f -> f[0].equals(model) && f[1].equals(dims))
                .mapToLong(f -> Long.parseLong(f[2])).findFirst()
                .orElseThrow(() -> new AssertionError(table + " has no row for " + model + " " + dims));
    }
}
