// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.ort.OrtModel;
import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ONNX's own backend test models of the recurrent kernels (GRU, LSTM, RNN) and of Scan, from
 * Debian's libonnx-testdata (which CI installs), through the default path: the prediction equals
 * ORT 1.30's figure (src/test/resources/ort/nchwc&lt;block&gt;/onnx-testdata-level-all.tsv). Several leave
 * the output {@code Y} out and give only {@code Y_h}: memplan's node then lists {@code Y_h} first,
 * and the node is matched, and the LSTM rule reads its outputs, by the ONNX node's own. A Scan runs
 * its body inside its compute: the compile measures the whole node in ORT, as a kernel without a rule.
 */
@EngineIndependent
class OrtOnnxTestdataTest {
    private static final Path TESTDATA = Path.of("/usr/share/libonnx-testdata/data/node");
    static Stream<Arguments> measured() {
        return OrtFigures.rows(OrtFigures.levelAll("onnx-testdata-level-all.tsv")).stream()
                .map(r -> Arguments.of(r.model(), r.activation(), r.sha256()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("measured")
    void predictionIsOrtsFigureThroughTheDefaultPath(String model, long ort, String sha256) throws Exception {
        Path file = TESTDATA.resolve(model);
        Ci.require(Files.isRegularFile(file), "no ONNX backend test model at " + file
                + " (apt-get install libonnx-testdata)", "CI must install libonnx-testdata: .ci/run does");
        assertEquals(sha256, OrtFigures.sha256(file), file + " is not the file the figure was measured on");
        OrtModel.Plan plan = OrtModel.compile(file).plan(Map.of());
        PlanValidator.validate(plan.plan().plan());
        assertEquals(Set.of(), plan.unmodelledOps(), model);
        long predicted = plan.predictedBytes().orElseThrow();
        System.out.printf("info: ORT level all, ONNX test data %s: predicted %,d, ORT %,d%n", model, predicted, ort);
        assertEquals(ort, predicted, model + ": not ORT's figure");
    }
}
