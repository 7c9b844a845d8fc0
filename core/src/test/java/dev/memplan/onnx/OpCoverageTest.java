// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.BOOL;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.INT64;
import static dev.memplan.onnx.OnnxWriter.UINT8;
import static dev.memplan.onnx.OnnxWriter.stringAttr;
import static dev.memplan.onnx.OnnxWriter.uint8s;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.int64s;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.ints;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.scalar;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
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
 * Shape inference op by op, against ONNX Runtime: small models with a symbolic batch {@code n}
 * (bound to 2), one case per op and attribute combination, each output's size must equal ORT's.
 */
class OpCoverageTest {

    private static TensorProto floatTensor(String name, float[] values, long... dims) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(FLOAT)
                .setRawData(ByteString.copyFrom(b.array()));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    private static AttributeProto floatsAttr(String name, float... v) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(6);
        for (float x : v) {
            a.addFloats(x);
        }
        return a.build();
    }

    private static OnnxWriter x(Object... dims) {
        return OnnxWriter.graph().input("x", type(FLOAT, dims));
    }

    private static Arguments c(String name, long opset, Supplier<OnnxWriter> model) {
        return Arguments.of(name, opset, model);
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        all.add(c("Conv SAME_UPPER stride 2", 17, () -> x("n", 3, 17, 17).initializer(OnnxWriter.floats("w", 8, 3, 3, 3))
                .node("Conv", in("x", "w"), out("y"), stringAttr("auto_pad", "SAME_UPPER"), ints("strides", 2, 2)).outputNoShape("y")));
        all.add(c("Conv dilation 2 pads 1", 17, () -> x("n", 3, 15, 16).initializer(OnnxWriter.floats("w", 4, 3, 3, 3))
                .node("Conv", in("x", "w"), out("y"), ints("dilations", 2, 2), ints("pads", 1, 1, 1, 1)).outputNoShape("y")));
        all.add(c("Conv grouped VALID", 17, () -> x("n", 4, 9, 9).initializer(OnnxWriter.floats("w", 8, 2, 3, 3))
                .node("Conv", in("x", "w"), out("y"), intAttr("group", 2), stringAttr("auto_pad", "VALID")).outputNoShape("y")));
        all.add(c("ConvTranspose stride 2 output_padding", 17, () -> x("n", 4, 7, 7).initializer(OnnxWriter.floats("w", 4, 6, 3, 3))
                .node("ConvTranspose", in("x", "w"), out("y"), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1),
                        ints("output_padding", 1, 1)).outputNoShape("y")));
        all.add(c("MaxPool ceil_mode with indices", 17, () -> x("n", 8, 16, 16)
                .node("MaxPool", in("x"), out("y", "idx"), ints("kernel_shape", 3, 3), ints("strides", 2, 2),
                        intAttr("ceil_mode", 1)).outputNoShape("y").outputNoShape("idx")));
        all.add(c("AveragePool pads", 17, () -> x("n", 8, 15, 15)
                .node("AveragePool", in("x"), out("y"), ints("kernel_shape", 2, 2), ints("strides", 2, 2),
                        ints("pads", 0, 0, 1, 1)).outputNoShape("y")));
        all.add(c("GlobalAveragePool", 17, () -> x("n", 8, 5, 7).node("GlobalAveragePool", in("x"), out("y")).outputNoShape("y")));
        all.add(c("Gemm transB", 17, () -> x("n", 16).initializer(OnnxWriter.floats("b", 8, 16))
                .node("Gemm", in("x", "b"), out("y"), intAttr("transB", 1)).outputNoShape("y")));
        all.add(c("MatMul batched broadcast", 17, () -> x("n", 3, 4, 5).initializer(OnnxWriter.floats("b", 5, 6))
                .node("MatMul", in("x", "b"), out("y")).outputNoShape("y")));
        all.add(c("MatMul vector", 17, () -> x(5).initializer(OnnxWriter.floats("b", 2, 5, 6))
                .node("MatMul", in("x", "b"), out("y")).outputNoShape("y")));
        all.add(c("Concat and Split by sizes", 17, () -> x("n", 3, 4)
                .node("Concat", in("x", "x"), out("c"), intAttr("axis", 1))
                .initializer(int64s("sizes", 2, 4))
                .node("Split", in("c", "sizes"), out("s0", "s1"), intAttr("axis", 1)).outputNoShape("s0").outputNoShape("s1")));
        all.add(c("Split num_outputs uneven", 18, () -> x("n", 7)
                .node("Split", in("x"), out("s0", "s1", "s2"), intAttr("axis", 1), intAttr("num_outputs", 3))
                .outputNoShape("s0").outputNoShape("s1").outputNoShape("s2")));
        all.add(c("Transpose default perm", 17, () -> x("n", 3, 5).node("Transpose", in("x"), out("y")).outputNoShape("y")));
        all.add(c("Reshape 0 and -1", 17, () -> x("n", 4, 6).initializer(int64s("shape", 0, -1))
                .node("Reshape", in("x", "shape"), out("y")).node("Relu", in("y"), out("z")).outputNoShape("z")));
        all.add(c("Flatten axis 2", 17, () -> x("n", 3, 4, 5).node("Flatten", in("x"), out("y"), intAttr("axis", 2))
                .node("Relu", in("y"), out("z")).outputNoShape("z")));
        all.add(c("Slice negative start, step 2", 17, () -> x("n", 10, 8).initializer(int64s("st", -7))
                .initializer(int64s("en", 100)).initializer(int64s("ax", 1)).initializer(int64s("sp", 2))
                .node("Slice", in("x", "st", "en", "ax", "sp"), out("y")).outputNoShape("y")));
        all.add(c("Slice backwards", 17, () -> x("n", 10).initializer(int64s("st", -1))
                .initializer(int64s("en", -100)).initializer(int64s("ax", 1)).initializer(int64s("sp", -3))
                .node("Slice", in("x", "st", "en", "ax", "sp"), out("y")).outputNoShape("y")));
        all.add(c("Gather 2-D indices", 17, () -> x("n", 5, 3).initializer(int64s("idx", 0, 1, 2, 3).toBuilder()
                        .clearDims().addDims(2).addDims(2).build())
                .node("Gather", in("x", "idx"), out("y"), intAttr("axis", 1)).outputNoShape("y")));
        all.add(c("GatherElements", 17, () -> x("n", 5).initializer(int64s("idx", 0, 1, 0, 1, 0, 1).toBuilder()
                        .clearDims().addDims(2).addDims(3).build())
                .node("GatherElements", in("x", "idx"), out("y"), intAttr("axis", 1)).outputNoShape("y")));
        all.add(c("Softmax and LayerNormalization", 17, () -> x("n", 4, 6).initializer(OnnxWriter.floats("g", 6))
                .node("Softmax", in("x"), out("s"), intAttr("axis", -1))
                .node("LayerNormalization", in("s", "g"), out("y"), intAttr("axis", -1)).outputNoShape("y")));
        all.add(c("ReduceMean keepdims 0", 17, () -> x("n", 4, 6)
                .node("ReduceMean", in("x"), out("y"), ints("axes", 1), intAttr("keepdims", 0)).outputNoShape("y")));
        all.add(c("ReduceSum axes input", 13, () -> x("n", 4, 6).initializer(int64s("axes", -1))
                .node("ReduceSum", in("x", "axes"), out("y")).outputNoShape("y")));
        all.add(c("ArgMax", 17, () -> x("n", 4, 6).node("ArgMax", in("x"), out("y"), intAttr("axis", 2),
                intAttr("keepdims", 0)).outputNoShape("y")));
        all.add(c("Resize scales", 13, () -> x("n", 3, 5, 5)
                .initializer(floatTensor("scales", new float[]{1, 1, 2, 2.5f}, 4))
                .node("Resize", in("x", "", "scales"), out("y")).outputNoShape("y")));
        all.add(c("Resize sizes", 13, () -> x("n", 3, 5, 5).initializer(int64s("sizes", 2, 3, 7, 9))
                .node("Resize", in("x", "", "", "sizes"), out("y")).outputNoShape("y")));
        all.add(c("Upsample opset 9", 9, () -> x("n", 3, 4, 4)
                .initializer(floatTensor("scales", new float[]{1, 1, 2, 3}, 4))
                .node("Upsample", in("x", "scales"), out("y")).outputNoShape("y")));
        all.add(c("Pad", 17, () -> x("n", 3, 4).initializer(int64s("pads", 0, 1, 2, 0, 3, 4))
                .node("Pad", in("x", "pads"), out("y")).outputNoShape("y")));
        all.add(c("Tile", 17, () -> x("n", 3, 4).initializer(int64s("rep", 1, 2, 3))
                .node("Tile", in("x", "rep"), out("y")).outputNoShape("y")));
        all.add(c("Expand", 17, () -> x(1, 3, 1).initializer(int64s("shape", 2, 1, 4))
                .node("Expand", in("x", "shape"), out("y")).outputNoShape("y")));
        all.add(c("Where broadcast", 17, () -> OnnxWriter.graph().input("cond", type(BOOL, "n", 1))
                .input("a", type(FLOAT, 1, 4)).input("b", type(FLOAT, "n", 4))
                .node("Where", in("cond", "a", "b"), out("y")).outputNoShape("y")));
        all.add(c("Cast and comparison", 17, () -> x("n", 3).node("Cast", in("x"), out("i"), intAttr("to", INT64))
                .node("Greater", in("x", "x"), out("g")).outputNoShape("i").outputNoShape("g")));
        all.add(c("QuantizeLinear and DequantizeLinear", 17, () -> x("n", 6)
                .initializer(floatTensor("s", new float[]{0.1f})).initializer(uint8s("zp"))
                .node("QuantizeLinear", in("x", "s", "zp"), out("q"))
                .node("DequantizeLinear", in("q", "s", "zp"), out("d")).outputNoShape("d")));
        all.add(c("DynamicQuantizeLinear and MatMulInteger", 17, () -> x("n", 6).initializer(uint8s("w", 6, 5))
                .initializer(uint8s("wzp"))
                .node("DynamicQuantizeLinear", in("x"), out("q", "qs", "qz"))
                .node("MatMulInteger", in("q", "w", "qz", "wzp"), out("y")).outputNoShape("y").outputNoShape("qs")));
        all.add(c("ConvInteger", 17, () -> OnnxWriter.graph().input("x", type(UINT8, "n", 2, 6, 6))
                .initializer(uint8s("w", 3, 2, 3, 3)).node("ConvInteger", in("x", "w"), out("y")).outputNoShape("y")));
        all.add(c("LSTM", 17, () -> x(5, "n", 4).initializer(OnnxWriter.floats("W", 1, 32, 4))
                .initializer(OnnxWriter.floats("R", 1, 32, 8))
                .node("LSTM", in("x", "W", "R"), out("Y", "Yh", "Yc"), intAttr("hidden_size", 8))
                .outputNoShape("Y").outputNoShape("Yh").outputNoShape("Yc")));
        all.add(c("GRU bidirectional", 17, () -> x(5, "n", 4).initializer(OnnxWriter.floats("W", 2, 24, 4))
                .initializer(OnnxWriter.floats("R", 2, 24, 8))
                .node("GRU", in("x", "W", "R"), out("Y", "Yh"), intAttr("hidden_size", 8),
                        stringAttr("direction", "bidirectional")).outputNoShape("Y").outputNoShape("Yh")));
        all.add(c("TopK", 17, () -> x("n", 10).initializer(int64s("k", 3))
                .node("TopK", in("x", "k"), out("v", "i")).outputNoShape("v").outputNoShape("i")));
        all.add(c("DepthToSpace and SpaceToDepth", 17, () -> x("n", 8, 3, 5)
                .node("DepthToSpace", in("x"), out("d"), intAttr("blocksize", 2))
                .node("SpaceToDepth", in("d"), out("s"), intAttr("blocksize", 2)).outputNoShape("s")));
        all.add(c("OneHot", 17, () -> OnnxWriter.graph().input("i", type(INT64, "n", 3))
                .initializer(scalar("depth", 5)).initializer(floatTensor("vals", new float[]{0, 1}, 2))
                .node("OneHot", in("i", "depth", "vals"), out("y"), intAttr("axis", 1)).outputNoShape("y")));
        all.add(c("Unsqueeze and Squeeze", 17, () -> x("n", 3).initializer(int64s("a", 0, 3))
                .node("Unsqueeze", in("x", "a"), out("u")).node("Relu", in("u"), out("r"))
                .node("Squeeze", in("r", "a"), out("s")).outputNoShape("s")));
        all.add(c("CumSum, Erf, InstanceNormalization", 17, () -> x("n", 3, 4).initializer(scalar("ax", 1))
                .initializer(OnnxWriter.floats("sc", 3)).initializer(OnnxWriter.floats("bi", 3))
                .node("CumSum", in("x", "ax"), out("c")).node("Erf", in("c"), out("e"))
                .node("InstanceNormalization", in("e", "sc", "bi"), out("y")).outputNoShape("y")));
        all.add(c("Shape arithmetic into Reshape", 17, () -> x("n", 4, 6)
                .initializer(scalar("zero", 0)).initializer(int64s("axes0", 0)).initializer(int64s("tail", 2, 12))
                .node("Shape", in("x"), out("sh")).node("Gather", in("sh", "zero"), out("b"))
                .node("Unsqueeze", in("b", "axes0"), out("b1"))
                .node("Concat", in("b1", "tail"), out("ns"), intAttr("axis", 0))
                .node("Reshape", in("x", "ns"), out("y")).node("Relu", in("y"), out("z")).outputNoShape("z")));
        all.add(c("Range and ConstantOfShape (folded)", 17, () -> x("n", 4)
                .initializer(scalar("s0", 2)).initializer(scalar("lim", 11)).initializer(scalar("d", 3))
                .node("Range", in("s0", "lim", "d"), out("r"))
                .initializer(int64s("cs", 2, 3)).node("ConstantOfShape", in("cs"), out("k"))
                .node("Relu", in("x"), out("y")).outputNoShape("y").outputNoShape("r").outputNoShape("k")));
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void sizesEqualOnnxRuntime(String name, long opset, Supplier<OnnxWriter> writer, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("case.onnx");
        Files.write(file, writer.get().bytes(opset));
        OrtComparisonTest.assertSizesEqualOrt(name, file);
    }
}
