// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.ort.OrtModel;
import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ONNX's own backend test models of the recurrent kernels (GRU, LSTM, RNN) and of Scan, from
 * Debian's libonnx-testdata (which CI installs), through the default path: the prediction equals
 * ORT 1.30's figure (src/test/resources/ort/nchwc&lt;block&gt;/onnx-testdata-level-all.tsv). Several leave
 * the output {@code Y} out and give only {@code Y_h}: memplan's node then lists {@code Y_h} first,
 * and the node is matched, and the LSTM rule reads its outputs, by the ONNX node's own. A Scan runs
 * its body inside its compute: the compile measures the whole node in ORT, as a kernel without a rule.
 * The expanded Range models run a Loop whose trip count is computed from the inputs' values, and
 * test_loop11 one whose trip count is an input: their rows name the values ORT was fed, and the
 * prediction is made at that trip count, bound to the Loop's trip-count symbol. A row may also
 * bind a symbol of the body whose size follows data (test_loop11's Slice takes one element a step).
 */
@EngineIndependent
class OrtOnnxTestdataTest {
    private static final Path TESTDATA = Path.of("/usr/share/libonnx-testdata/data/node");
    @TempDir
    Path tmp;

    static Stream<Arguments> measured() {
        return rows().filter(r -> r.bindings().isEmpty()).map(r -> Arguments.of(r.model(), r.activation(), r.sha256()));
    }

    /** The rows measured at input values: a Loop whose trip count the values decide. */
    static Stream<Arguments> loops() {
        return rows().filter(r -> !r.bindings().isEmpty())
                .map(r -> Arguments.of(r.model(), r.bindings(), r.activation(), r.sha256()));
    }

    private static Stream<OrtFigures.Row> rows() {
        return OrtFigures.rows(OrtFigures.levelAll("onnx-testdata-level-all.tsv")).stream();
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

    /**
     * A Range expanded into a Loop: the file as it is declares its output at the test data's trip
     * count, which pins memplan's shape; the same graph with its output shapes left undeclared has
     * the Loop's trip-count symbol, bound here at the trip count of the row's values.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("loops")
    void loopPredictionIsOrtsFigureAtItsTripCount(String model, String values, long ort, String sha256) throws Exception {
        Path file = require(model, sha256);
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(file));
        Map<String, Double> fed = parse(values);
        Map<String, Long> body = new HashMap<>(); // the row's entries that are no graph input: symbols of the body
        fed.forEach((name, v) -> {
            if (proto.getGraph().getInputList().stream().noneMatch(i -> i.getName().equals(name))) {
                body.put(name, v.longValue());
            }
        });
        long trips = trips(proto, fed);
        // the last output is the Loop's scan output, whose length is the trip count
        long declared = proto.getGraph().getOutput(proto.getGraph().getOutputCount() - 1).getType().getTensorType()
                .getShape().getDim(0).getDimValue();
        if (declared == trips) {
            assertEquals(ort, predicted(OrtModel.compile(file), body), model + " as declared: not ORT's figure");
        }
        OrtModel undeclared = OrtModel.compile(undeclared(proto));
        String symbol = tripCountSymbol(proto);
        assertTrue(undeclared.symbolNames().contains(symbol), symbol + " not among " + undeclared.symbolNames());
        Map<String, Long> bindings = new HashMap<>(body);
        bindings.put(symbol, trips);
        long predicted = predicted(undeclared, bindings);
        System.out.printf("info: ORT level all, ONNX test data %s at %s (%d trips): predicted %,d, ORT %,d%n", model,
                values, trips, predicted, ort);
        assertEquals(ort, predicted, model + " at " + values + ": not ORT's figure");
    }

    /** A request that leaves the trip count unbound has no prediction, and is refused naming the symbol. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("loops")
    void anUnboundTripCountIsNamed(String model, String values, long ort, String sha256) throws Exception {
        ModelProto proto = ModelProto.parseFrom(Files.readAllBytes(require(model, sha256)));
        OrtModel.Plan plan = OrtModel.compile(undeclared(proto)).plan(Map.of());
        assertTrue(plan.predictedBytes().isEmpty(), "predicted without a trip count: " + plan.predictedBytes());
        String why = assertThrows(IllegalArgumentException.class, plan::neededBytes).getMessage();
        assertTrue(why.contains(tripCountSymbol(proto)) && why.contains("bind") && !why.contains("\n"), why);
    }

    /**
     * A Loop that carries a sequence, fed from the graph's own sequence input: ORT Java has no way to
     * make a sequence (its inputs are tensors), so no JVM runs these models, and the compile says
     * so, naming the input, rather than that a size is unknown.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"test_loop13_seq, seq_empty", "test_loop16_seq_none, opt_seq"})
    void aModelWithAnInputOrtJavaCannotFeedIsRefusedSayingSo(String model, String input) throws Exception {
        Path file = TESTDATA.resolve(model).resolve("model.onnx");
        Ci.require(Files.isRegularFile(file), "no ONNX backend test model at " + file
                + " (apt-get install libonnx-testdata)", "CI must install libonnx-testdata: .ci/run does");
        try (OrtSession session = OrtTestModels.environment().createSession(file.toString())) {
            boolean tensor;
            try {
                tensor = session.getInputInfo().get(input).getInfo() instanceof TensorInfo;
            } catch (OrtException e) { // ORT Java cannot even describe an optional input
                tensor = false;
            }
            assertFalse(tensor, "ORT Java sees " + input + " as a tensor");
        }
        String why = assertThrows(MemplanException.class, () -> OrtModel.compile(file)).getMessage();
        assertTrue(why.startsWith("input '" + input + "' is ") && why.contains("ONNX Runtime Java cannot feed"), why);
        assertFalse(why.contains("\n"), why);
    }

    private static Path require(String model, String sha256) throws Exception {
        Path file = TESTDATA.resolve(model);
        Ci.require(Files.isRegularFile(file), "no ONNX backend test model at " + file
                + " (apt-get install libonnx-testdata)", "CI must install libonnx-testdata: .ci/run does");
        assertEquals(sha256, OrtFigures.sha256(file), file + " is not the file the figure was measured on");
        return file;
    }

    private static long predicted(OrtModel model, Map<String, Long> bindings) {
        OrtModel.Plan plan = model.plan(bindings);
        PlanValidator.validate(plan.plan().plan());
        assertEquals(Set.of(), plan.unmodelledOps());
        return plan.predictedBytes().orElseThrow();
    }

    private static Map<String, Double> parse(String values) {
        return Arrays.stream(values.split(",")).map(kv -> kv.split("="))
                .collect(Collectors.toMap(kv -> kv[0], kv -> Double.parseDouble(kv[1])));
    }

    /**
     * The Loop's trip count at the row's values: the value fed to its trip-count input where that is
     * a graph input, else ONNX Range's length, ceil((limit - start) / delta), at least 0.
     */
    private static long trips(ModelProto proto, Map<String, Double> v) {
        Double fed = v.get(loop(proto).getInput(0));
        if (fed != null) {
            return fed.longValue();
        }
        return Math.max(0, (long) Math.ceil((v.get("limit") - v.get("start")) / v.get("delta")));
    }

    /**
     * The importer's name for the Loop's trip count: the graph input that feeds it, else the Loop
     * node's name, else its first output's, and _trip_count.
     */
    private static String tripCountSymbol(ModelProto proto) {
        NodeProto loop = loop(proto);
        if (proto.getGraph().getInputList().stream().anyMatch(i -> i.getName().equals(loop.getInput(0)))) {
            return loop.getInput(0);
        }
        return (loop.getName().isEmpty() ? loop.getOutput(0) : loop.getName()) + "_trip_count";
    }

    private static NodeProto loop(ModelProto proto) {
        return proto.getGraph().getNodeList().stream().filter(n -> n.getOpType().equals("Loop")).findFirst()
                .orElseThrow();
    }

    /** The model with its graph outputs' shapes left undeclared, so its Loop's trip count stays a symbol. */
    private Path undeclared(ModelProto proto) throws Exception {
        ModelProto.Builder b = proto.toBuilder();
        for (ValueInfoProto.Builder out : b.getGraphBuilder().getOutputBuilderList()) {
            out.getTypeBuilder().getTensorTypeBuilder().clearShape();
        }
        Path file = Files.createTempFile(tmp, "undeclared", ".onnx");
        Files.write(file, b.build().toByteArray());
        return file;
    }
}
