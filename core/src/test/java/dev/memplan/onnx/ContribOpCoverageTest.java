// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.UINT8;
import static dev.memplan.onnx.OnnxWriter.stringAttr;
import static dev.memplan.onnx.OnnxWriter.uint8s;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.ints;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fused and quantized ops ONNX Runtime runs on CPU, one small model each with a symbolic batch
 * {@code n} (bound to 2): every output's size equals what ORT allocates (optimizations off).
 */
class ContribOpCoverageTest {
    private static final String MS = "com.microsoft";

    private static TensorProto floatScalar(String name, float v) {
        return TensorProto.newBuilder().setName(name).setDataType(FLOAT).setRawData(ByteString.copyFrom(
                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(v).array())).build();
    }

    /** A uint8 quantization pair: scale {@code <p>_s} = 0.1 and zero point {@code <p>_z} = 0. */
    private static OnnxWriter q(OnnxWriter w, String... prefixes) {
        for (String p : prefixes) {
            w.initializer(floatScalar(p + "_s", 0.1f)).initializer(uint8s(p + "_z"));
        }
        return w;
    }

    private static OnnxWriter u8(Object... dims) {
        return OnnxWriter.graph().input("x", type(UINT8, dims));
    }

    private static OnnxWriter f32(Object... dims) {
        return OnnxWriter.graph().input("x", type(FLOAT, dims));
    }

    private static Arguments c(String name, Supplier<OnnxWriter> model) {
        return Arguments.of(name, model);
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        all.add(c("FusedMatMul transB", () -> f32("n", 4, 6).initializer(OnnxWriter.floats("b", 5, 6))
                .node("FusedMatMul", in("x", "b"), out("y"), intAttr("transB", 1)).outputNoShape("y")));
        all.add(c("FusedMatMul transA", () -> f32("n", 6, 4).initializer(OnnxWriter.floats("b", 6, 5))
                .node("FusedMatMul", in("x", "b"), out("y"), intAttr("transA", 1)).outputNoShape("y")));
        all.add(c("DynamicQuantizeMatMul", () -> q(f32("n", 6).initializer(uint8s("b", 6, 5)), "b")
                .node("DynamicQuantizeMatMul", in("x", "b", "b_s", "b_z"), out("y")).outputNoShape("y")));
        all.add(c("MatMulIntegerToFloat", () -> q(u8("n", 6).initializer(uint8s("b", 6, 5)), "a", "b")
                .node("MatMulIntegerToFloat", in("x", "b", "a_s", "b_s", "a_z", "b_z"), out("y")).outputNoShape("y")));
        all.add(c("QLinearMatMul", () -> q(u8("n", 6).initializer(uint8s("b", 6, 5)), "a", "b", "y")
                .node("QLinearMatMul", in("x", "a_s", "a_z", "b", "b_s", "b_z", "y_s", "y_z"), out("y"))
                .outputNoShape("y")));
        all.add(c("QLinearConv", () -> q(u8("n", 2, 6, 6).initializer(uint8s("w", 3, 2, 3, 3)), "a", "w", "y")
                .node("QLinearConv", in("x", "a_s", "a_z", "w", "w_s", "w_z", "y_s", "y_z"), out("y"),
                        ints("pads", 1, 0, 1, 0)).outputNoShape("y")));
        all.add(c("QLinearAdd broadcast", () -> q(u8("n", 3).initializer(uint8s("b", 1, 3)), "a", "b", "y")
                .node("QLinearAdd", in("x", "a_s", "a_z", "b", "b_s", "b_z", "y_s", "y_z"), out("y"))
                .outputNoShape("y")));
        all.add(c("QLinearMul", () -> q(u8("n", 3).initializer(uint8s("b", 2, 3)), "a", "b", "y")
                .node("QLinearMul", in("x", "a_s", "a_z", "b", "b_s", "b_z", "y_s", "y_z"), out("y"))
                .outputNoShape("y")));
        all.add(c("QLinearSigmoid", () -> q(u8("n", 4), "a", "y")
                .node("QLinearSigmoid", in("x", "a_s", "a_z", "y_s", "y_z"), out("y")).outputNoShape("y")));
        all.add(c("QLinearGlobalAveragePool", () -> q(u8("n", 2, 5, 5), "a", "y")
                .node("QLinearGlobalAveragePool", in("x", "a_s", "a_z", "y_s", "y_z"), out("y"),
                        intAttr("channels_last", 0)).outputNoShape("y")));
        all.add(c("QLinearGlobalAveragePool channels_last", () -> q(u8("n", 5, 5, 2), "a", "y")
                .node("QLinearGlobalAveragePool", in("x", "a_s", "a_z", "y_s", "y_z"), out("y"),
                        intAttr("channels_last", 1)).outputNoShape("y")));
        all.add(c("QLinearAveragePool", () -> q(u8("n", 2, 7, 7), "a", "y")
                .node("QLinearAveragePool", in("x", "a_s", "a_z", "y_s", "y_z"), out("y"),
                        ints("kernel_shape", 2, 2), ints("strides", 2, 2)).outputNoShape("y")));
        all.add(c("QLinearConcat", () -> q(u8("n", 3).initializer(uint8s("b", 2, 5)), "a", "b", "y")
                .node("QLinearConcat", in("y_s", "y_z", "x", "a_s", "a_z", "x", "a_s", "a_z"), out("y"),
                        intAttr("axis", 1)).outputNoShape("y")));
        all.add(c("FusedGemm Relu", () -> f32("n", 16).initializer(OnnxWriter.floats("b", 8, 16))
                .node("FusedGemm", in("x", "b"), out("y"), intAttr("transB", 1), stringAttr("activation", "Relu"))
                .outputNoShape("y")));
        all.add(c("MatMulNBits 4-bit", () -> f32("n", 32).initializer(uint8s("b", 8, 1, 16))
                .initializer(OnnxWriter.floats("s", 8))
                .node("MatMulNBits", in("x", "b", "s"), out("y"), intAttr("K", 32), intAttr("N", 8),
                        intAttr("bits", 4), intAttr("block_size", 32)).outputNoShape("y")));
        all.add(c("NhwcMaxPool", () -> u8("n", 6, 6, 2)
                .node("NhwcMaxPool", in("x"), out("y"), ints("kernel_shape", 2, 2)).outputNoShape("y")));
        all.add(c("MultiHeadAttention", () -> f32("n", 4, 8).input("k", type(FLOAT, "n", 5, 8))
                .input("v", type(FLOAT, "n", 5, 8))
                .node("MultiHeadAttention", in("x", "k", "v"), out("y"), intAttr("num_heads", 2)).outputNoShape("y")));
        return all.stream();
    }

    /** The ops of {@code MS_OPS} go to the com.microsoft domain; the model imports both domains. */
    private static byte[] bytes(OnnxWriter w) {
        GraphProto.Builder g = w.buildGraph().toBuilder();
        for (int i = 0; i < g.getNodeCount(); i++) {
            String op = g.getNode(i).getOpType();
            if (!op.equals("QLinearMatMul") && !op.equals("QLinearConv")) {
                g.setNode(i, g.getNode(i).toBuilder().setDomain(MS));
            }
        }
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("memplan-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(MS).setVersion(1))
                .setGraph(g).build().toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void sizesEqualOnnxRuntime(String name, Supplier<OnnxWriter> writer, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("case.onnx");
        Files.write(file, bytes(writer.get()));
        ImportedGraph imp = OrtComparisonTest.assertSizesEqualOrt(name, file);
        assertEquals(List.of(), imp.inferenceFailures(), name);
    }
}
