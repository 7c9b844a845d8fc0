// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.ort.OrtModel;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
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
 * shared-level-none.tsv and at level all against this machine's shared-level-all.tsv (both measured with
 * ORT 1.30 by {@code benchmarks/ort/figures.sh}; {@link OrtFigures}), on cases the replay matches to the byte. It caught the
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
        Map<String, Long> bindings = Arrays.stream(dims.split(",")).filter(d -> !d.isEmpty()).map(d -> d.split("="))
                .collect(Collectors.toMap(d -> d[0], d -> Long.parseLong(d[1])));
        OrtFigures.assumeTheTableHolds(SharedModels.require(model), level);
        OrtModel compiled = OrtModel.compile(SharedModels.require(model), ImportOptions.defaults(),
                PlanOptions.defaults(), level);
        OrtModel.Plan plan = compiled.plan(bindings);
        PlanValidator.validate(plan.plan().plan());
        Path table = level == OrtModel.Level.NONE ? OrtFigures.levelNone("shared-level-none.tsv")
                : OrtArenaLevelAllTest.tsv(); // the level-all graph depends on the CPU's NCHWc block
        assertEquals(OrtFigures.figure(table, model, dims), plan.predictedBytes().orElseThrow(),
                model + " at level " + level + " " + dims);
    }
}
