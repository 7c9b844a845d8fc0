// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Dim.Symbol;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every op of {@link OpRegistry} has a case here: one node built in Java, its inputs given as
 * what the importer would know of them, and the outputs its rule must infer. The op names are
 * written out below, not read from the registry, so an op registered without a case (or a case
 * whose op is no longer registered) fails {@link #everyRegisteredOpHasACase()}.
 */
@EngineIndependent
class OpRegistryTest {
    private static final String MS = "com.microsoft";

    /** The ops whose output 0 is input 0's type and shape, by domain. */
    private static final List<String> SAME_AS_INPUT = List.of("Relu", "Sigmoid", "Tanh", "Sqrt", "Erf", "Exp",
            "Log", "Neg", "Abs", "Reciprocal", "Floor", "Ceil", "Round", "LeakyRelu", "Elu", "Selu", "HardSigmoid",
            "HardSwish", "Softplus", "Softsign", "Gelu", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
            "Asinh", "Acosh", "Atanh", "Clip", "Softmax", "LogSoftmax", "Hardmax", "LRN", "InstanceNormalization",
            "Sign", "Mish", "Shrink", "ThresholdedRelu", "Celu", "Trilu", "CumSum", "ReverseSequence",
            "MeanVarianceNormalization", "LpNormalization", "BitwiseNot", "Not", "GroupNormalization",
            "RotaryEmbedding", "SimplifiedLayerNormalization", "ScatterND", "ScatterElements", "Scatter");
    private static final List<String> MS_SAME_AS_INPUT = List.of("FastGelu", "BiasGelu", "QuickGelu", "Gelu",
            "RotaryEmbedding", "BiasSoftmax");
    private static final List<String> BROADCAST = List.of("Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod",
            "BitShift", "Sum", "Mean", "PRelu", "BitwiseAnd", "BitwiseOr", "BitwiseXor");
    private static final List<String> COMPARISONS = List.of("And", "Or", "Xor", "Equal", "Less", "Greater",
            "LessOrEqual", "GreaterOrEqual");
    private static final List<String> REDUCE = List.of("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
            "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare");

    /** One node and what inference must say of each output ({@code null}: not inferred). */
    record Case(String domain, String op, long opset, List<TensorInfo> inputs, List<AttributeProto> attrs,
                List<String> expected) {
        Case in(String... specs) {
            List<TensorInfo> ins = new ArrayList<>(inputs);
            for (String s : specs) {
                ins.add(tensor(s));
            }
            return new Case(domain, op, opset, ins, attrs, expected);
        }

        Case attr(AttributeProto a) {
            List<AttributeProto> all = new ArrayList<>(attrs);
            all.add(a);
            return new Case(domain, op, opset, inputs, all, expected);
        }

        Case opset(long v) {
            return new Case(domain, op, v, inputs, attrs, expected);
        }

        Case expect(String... outputs) {
            return new Case(domain, op, opset, inputs, attrs, Arrays.asList(outputs));
        }

        @Override
        public String toString() {
            return (domain.isEmpty() ? "" : domain + ":") + op + " " + inputs;
        }
    }

    private static Case c(String domain, String op) {
        return new Case(domain, op, 17, List.of(), List.of(), List.of());
    }

    private static Case c(String op) {
        return c("", op);
    }

    /**
     * {@code f[2,3]} (float32 of shape 2x3), {@code i[2]=4,5} (int64 with values), {@code i32},
     * {@code u8}, {@code b} (bool), {@code f[]=2.5} (a float scalar), {@code -} (absent).
     */
    static TensorInfo tensor(String spec) {
        if (spec.equals("-")) {
            return null;
        }
        int open = spec.indexOf('[');
        int close = spec.indexOf(']');
        DataType type = switch (spec.substring(0, open)) {
            case "f" -> DataType.FLOAT32;
            case "i" -> DataType.INT64;
            case "i32" -> DataType.INT32;
            case "u8" -> DataType.UINT8;
            case "b" -> DataType.BOOL;
            default -> throw new IllegalArgumentException(spec);
        };
        String dims = spec.substring(open + 1, close);
        List<Dim> shape = dims.isEmpty() ? List.of()
                : Arrays.stream(dims.split(",")).map(d -> (Dim) Dim.of(Long.parseLong(d.trim()))).toList();
        if (close + 1 == spec.length()) {
            return TensorInfo.of(type, shape);
        }
        String[] v = spec.substring(close + 2).split(",");
        if (type == DataType.FLOAT32) {
            return new TensorInfo(type, shape, null, Arrays.stream(v).mapToDouble(Double::parseDouble).toArray());
        }
        return new TensorInfo(type, shape, Arrays.stream(v).map(x -> SymInt.of(Long.parseLong(x))).toArray(SymInt[]::new),
                null);
    }

    /** {@code FLOAT32[2, 3]}, with {@code =v,v} for known integer values. */
    static String render(TensorInfo t) {
        if (t == null) {
            return null;
        }
        String values = t.constInts() == null ? "" : "=" + Arrays.stream(t.constInts()).mapToObj(Long::toString)
                .collect(Collectors.joining(","));
        return t + values;
    }

    static AttributeProto i(String name, long v) {
        return AttributeProto.newBuilder().setName(name).setType(2).setI(v).build();
    }

    static AttributeProto is(String name, long... v) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(7);
        Arrays.stream(v).forEach(a::addInts);
        return a.build();
    }

    static AttributeProto s(String name, String v) {
        return AttributeProto.newBuilder().setName(name).setType(3).setS(ByteString.copyFromUtf8(v)).build();
    }

    static Stream<Case> cases() {
        List<Case> all = new ArrayList<>();
        SAME_AS_INPUT.forEach(op -> all.add(c(op).in("f[2,3]").expect("float32[2, 3]")));
        MS_SAME_AS_INPUT.forEach(op -> all.add(c(MS, op).in("f[2,3]").expect("float32[2, 3]")));
        all.add(c("Identity").in("i[2]=5,6").expect("int64[2]=5,6"));
        all.add(c(MS, "SkipSimplifiedLayerNormalization").in("f[2,3]", "f[2,3]", "f[3]")
                .expect("float32[2, 3]", null, null, "float32[2, 3]"));
        BROADCAST.forEach(op -> all.add(c(op).in("f[2,1]", "f[1,3]").expect("float32[2, 3]")));
        COMPARISONS.forEach(op -> all.add(c(op).in("f[2,1]", "f[1,3]").expect("bool[2, 3]")));
        all.add(c("Add").in("i[2]=1,2", "i[2]=3,4").expect("int64[2]=4,6"));
        all.add(c(MS, "BiasAdd").in("f[2,4]", "f[4]", "f[2,4]").expect("float32[2, 4]"));
        all.add(c("Cast").in("f[2]").attr(i("to", 7)).expect("int64[2]"));
        all.add(c("CastLike").in("f[2]", "i32[1]").expect("int32[2]"));
        all.add(c("Dropout").in("f[2,3]").expect("float32[2, 3]", "bool[2, 3]"));
        all.add(c("Dropout").opset(7).in("f[2,3]").expect("float32[2, 3]", "float32[2, 3]"));
        all.add(c("IsNaN").in("f[2]").expect("bool[2]"));
        all.add(c("IsInf").in("f[2]").expect("bool[2]"));
        all.add(c("BatchNormalization").in("f[2,3,4]", "f[3]", "f[3]", "f[3]", "f[3]").expect("float32[2, 3, 4]"));
        all.add(c("LayerNormalization").in("f[2,3,4]", "f[4]").attr(i("axis", -1))
                .expect("float32[2, 3, 4]", "float32[2, 3, 1]", "float32[2, 3, 1]"));
        all.add(c(MS, "SkipLayerNormalization").in("f[2,3,4]", "f[2,3,4]", "f[4]")
                .expect("float32[2, 3, 4]", "float32[2, 3, 1]", "float32[2, 3, 1]", "float32[2, 3, 4]"));
        all.add(c("Where").in("b[2,1]", "f[1,3]", "f[2,3]").expect("float32[2, 3]"));
        all.add(c("Shape").in("f[2,3]").expect("int64[2]=2,3"));
        all.add(c("Size").in("f[2,3]").expect("int64[]=6"));
        all.add(c("Gather").in("f[5,4]", "i[2]").attr(i("axis", 0)).expect("float32[2, 4]"));
        all.add(c("GatherElements").in("f[3,4]", "i[3,2]").attr(i("axis", 1)).expect("float32[3, 2]"));
        all.add(c("GatherND").in("f[2,3,4]", "i[2,1]").expect("float32[2, 3, 4]"));
        all.add(c("Unsqueeze").opset(13).in("f[2,3]", "i[1]=0").expect("float32[1, 2, 3]"));
        all.add(c("Unsqueeze").opset(11).in("f[2,3]").attr(is("axes", 2)).expect("float32[2, 3, 1]"));
        all.add(c("Squeeze").opset(13).in("f[1,3]", "i[1]=0").expect("float32[3]"));
        all.add(c("Concat").in("f[2,3]", "f[2,4]").attr(i("axis", 1)).expect("float32[2, 7]"));
        all.add(c("Reshape").in("f[2,6]", "i[2]=3,-1").expect("float32[3, 4]"));
        all.add(c("Flatten").in("f[2,3,4]").attr(i("axis", 1)).expect("float32[2, 12]"));
        all.add(c("Transpose").in("f[2,3,4]").attr(is("perm", 2, 0, 1)).expect("float32[4, 2, 3]"));
        all.add(c("Slice").in("f[10,4]", "i[1]=1", "i[1]=5").expect("float32[4, 4]"));
        all.add(c("Split").in("f[2,6]", "i[2]=2,4").attr(i("axis", 1)).expect("float32[2, 2]", "float32[2, 4]"));
        all.add(c("Expand").in("f[3,1]", "i[2]=3,4").expect("float32[3, 4]"));
        all.add(c("Tile").in("f[2,3]", "i[2]=2,2").expect("float32[4, 6]"));
        all.add(c("ConstantOfShape").in("i[2]=2,3").expect("float32[2, 3]"));
        all.add(c("Range").in("i[]=0", "i[]=10", "i[]=2").expect("int64[5]=0,2,4,6,8"));
        all.add(c("Pad").in("f[2,3]", "i[4]=0,1,2,0").expect("float32[4, 4]"));
        all.add(c("MatMul").in("f[2,3]", "f[3,4]").expect("float32[2, 4]"));
        all.add(c(MS, "FusedMatMul").in("f[2,3]", "f[3,4]").expect("float32[2, 4]"));
        all.add(c(MS, "DynamicQuantizeMatMul").in("f[2,3]", "u8[3,4]", "f[]", "u8[]").expect("float32[2, 4]"));
        all.add(c(MS, "MatMulIntegerToFloat").in("u8[2,3]", "u8[3,4]", "f[]", "f[]").expect("float32[2, 4]"));
        all.add(c("QLinearMatMul").in("u8[2,3]", "f[]", "u8[]", "u8[3,4]", "f[]", "u8[]", "f[]", "u8[]")
                .expect("uint8[2, 4]"));
        all.add(c("QLinearConv").in("u8[1,3,8,8]", "f[]", "u8[]", "u8[4,3,3,3]", "f[]", "u8[]", "f[]", "u8[]")
                .expect("uint8[1, 4, 6, 6]"));
        for (String op : List.of("QLinearAdd", "QLinearMul")) {
            all.add(c(MS, op).in("u8[2,3]", "f[]", "u8[]", "u8[1,3]", "f[]", "u8[]", "f[]", "u8[]")
                    .expect("uint8[2, 3]"));
        }
        for (String op : List.of("QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax")) {
            all.add(c(MS, op).in("u8[2,3]", "f[]", "u8[]", "f[]", "u8[]").expect("uint8[2, 3]"));
        }
        all.add(c(MS, "QLinearAveragePool").in("u8[1,8,9,7]", "f[]", "u8[]", "f[]", "u8[]")
                .attr(is("kernel_shape", 2, 2)).attr(i("channels_last", 1)).expect("uint8[1, 7, 8, 7]"));
        all.add(c(MS, "QLinearGlobalAveragePool").in("u8[1,3,5,5]", "f[]", "u8[]", "f[]", "u8[]")
                .expect("uint8[1, 3, 1, 1]"));
        all.add(c(MS, "QLinearConcat").in("f[]", "u8[]", "u8[2,3]", "f[]", "u8[]", "u8[2,5]", "f[]", "u8[]")
                .attr(i("axis", 1)).expect("uint8[2, 8]"));
        all.add(c(MS, "QGemm").in("u8[2,3]", "f[]", "u8[]", "u8[3,4]", "f[]", "u8[]", "-", "f[]", "u8[]")
                .expect("uint8[2, 4]"));
        all.add(c(MS, "FusedGemm").in("f[2,3]", "f[4,3]").attr(i("transB", 1)).expect("float32[2, 4]"));
        all.add(c(MS, "MatMulNBits").in("f[2,5,32]", "u8[8,1,16]", "f[8]").attr(i("K", 32)).attr(i("N", 8))
                .expect("float32[2, 5, 8]"));
        all.add(c(MS, "NhwcMaxPool").in("u8[1,6,6,2]").attr(is("kernel_shape", 2, 2)).expect("uint8[1, 5, 5, 2]"));
        all.add(c(MS, "QuantizeLinear").in("f[2,3]", "f[]", "u8[]").expect("uint8[2, 3]"));
        all.add(c(MS, "DequantizeLinear").in("u8[2,3]", "f[]").expect("float32[2, 3]"));
        all.add(c(MS, "MultiHeadAttention").in("f[2,4,8]", "f[2,5,8]", "f[2,5,8]").attr(i("num_heads", 2))
                .expect("float32[2, 4, 8]", "float32[2, 2, 5, 4]", "float32[2, 2, 5, 4]"));
        String nchwc = "com.microsoft.nchwc";
        all.add(c(nchwc, "Conv").in("f[1,16,8,8]", "f[32,16,3,3]").expect("float32[1, 32, 6, 6]"));
        all.add(c(nchwc, "MaxPool").in("f[1,16,8,8]").attr(is("kernel_shape", 2, 2)).expect("float32[1, 16, 7, 7]"));
        all.add(c(nchwc, "AveragePool").in("f[1,16,8,8]").attr(is("kernel_shape", 2, 2)).attr(is("strides", 2, 2))
                .expect("float32[1, 16, 4, 4]"));
        all.add(c(nchwc, "GlobalMaxPool").in("f[1,16,8,8]").expect("float32[1, 16, 1, 1]"));
        all.add(c(nchwc, "GlobalAveragePool").in("f[1,16,8,8]").expect("float32[1, 16, 1, 1]"));
        all.add(c(nchwc, "ReorderInput").in("f[1,24,8,8]").expect("float32[1, 32, 8, 8]"));
        all.add(c(nchwc, "ReorderInput").in("f[1,8,8,24]").attr(i("channels_last", 1)).expect("float32[1, 32, 8, 8]"));
        all.add(c(nchwc, "ReorderOutput").in("f[1,32,8,8]").attr(i("channels", 24)).expect("float32[1, 24, 8, 8]"));
        all.add(c(nchwc, "Upsample").in("f[1,16,4,5]").attr(is("scales", 2, 3)).expect("float32[1, 16, 8, 15]"));
        all.add(c("MatMulInteger").in("u8[2,3]", "u8[3,4]").expect("int32[2, 4]"));
        all.add(c("Gemm").in("f[2,3]", "f[4,3]").attr(i("transB", 1)).expect("float32[2, 4]"));
        all.add(c("Conv").in("f[1,3,8,8]", "f[4,3,3,3]").expect("float32[1, 4, 6, 6]"));
        all.add(c(MS, "FusedConv").in("f[1,3,8,8]", "f[4,3,3,3]").expect("float32[1, 4, 6, 6]"));
        all.add(c("ConvInteger").in("u8[1,3,8,8]", "u8[4,3,3,3]").expect("int32[1, 4, 6, 6]"));
        all.add(c("ConvTranspose").in("f[1,4,5,5]", "f[4,2,3,3]").expect("float32[1, 2, 7, 7]"));
        for (String op : List.of("MaxPool", "AveragePool", "LpPool")) {
            all.add(c(op).in("f[1,2,8,8]").attr(is("kernel_shape", 2, 2)).attr(is("strides", 2, 2))
                    .expect("float32[1, 2, 4, 4]"));
        }
        for (String op : List.of("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")) {
            all.add(c(op).in("f[1,2,8,8]").expect("float32[1, 2, 1, 1]"));
        }
        REDUCE.forEach(op -> all.add(c(op).opset(11).in("f[2,3,4]").attr(is("axes", 1)).attr(i("keepdims", 0))
                .expect("float32[2, 4]")));
        all.add(c("ArgMax").in("f[2,3,4]").attr(i("axis", 1)).attr(i("keepdims", 0)).expect("int64[2, 4]"));
        all.add(c("ArgMin").in("f[2,3,4]").attr(i("axis", 1)).expect("int64[2, 1, 4]"));
        all.add(c("Resize").opset(13).in("f[1,1,2,2]", "-", "f[4]=1,1,2,2").expect("float32[1, 1, 4, 4]"));
        all.add(c("Upsample").opset(9).in("f[1,1,2,2]", "f[4]=1,1,2,3").expect("float32[1, 1, 4, 6]"));
        all.add(c("DepthToSpace").in("f[1,8,2,3]").attr(i("blocksize", 2)).expect("float32[1, 2, 4, 6]"));
        all.add(c("SpaceToDepth").in("f[1,2,4,6]").attr(i("blocksize", 2)).expect("float32[1, 8, 2, 3]"));
        all.add(c("TopK").in("f[2,10]", "i[1]=3").expect("float32[2, 3]", "int64[2, 3]"));
        all.add(c("NonZero").in("f[2,3]").expect("int64[2, nonzero_count]"));
        all.add(c("Unique").in("f[6]").expect("float32[unique_count]", "int64[unique_count]", "int64[6]",
                "int64[unique_count]"));
        all.add(c("NonMaxSuppression").in("f[1,6,4]", "f[1,1,6]").expect("int64[selected_boxes, 3]"));
        all.add(c("Compress").in("f[4,3]", "b[4]").expect("float32[compressed]"));
        all.add(c("OneHot").in("i[2,3]", "i[]=5", "f[2]").attr(i("axis", -1)).expect("float32[2, 3, 5]"));
        all.add(c("EyeLike").in("f[3,3]").attr(i("dtype", 7)).expect("int64[3, 3]"));
        all.add(c("QuantizeLinear").in("f[2,3]", "f[]", "u8[]").expect("uint8[2, 3]"));
        all.add(c("DequantizeLinear").in("u8[2,3]", "f[]").expect("float32[2, 3]"));
        all.add(c("DynamicQuantizeLinear").in("f[2,3]").expect("uint8[2, 3]", "float32[]", "uint8[]"));
        all.add(c("LSTM").in("f[5,2,4]", "f[1,32,4]", "f[1,32,8]").attr(i("hidden_size", 8))
                .expect("float32[5, 1, 2, 8]", "float32[1, 2, 8]", "float32[1, 2, 8]"));
        all.add(c("GRU").in("f[5,2,4]", "f[2,24,4]", "f[2,24,8]").attr(i("hidden_size", 8))
                .attr(s("direction", "bidirectional")).expect("float32[5, 2, 2, 8]", "float32[2, 2, 8]"));
        all.add(c("RNN").in("f[5,2,4]", "f[1,8,4]", "f[1,8,8]").attr(i("hidden_size", 8))
                .expect("float32[5, 1, 2, 8]", "float32[1, 2, 8]"));
        all.add(c(MS, "Attention").in("f[2,5,12]", "f[12,36]", "f[36]").attr(i("num_heads", 3))
                .expect("float32[2, 5, 12]"));
        all.add(c(MS, "EmbedLayerNormalization").in("i32[2,5]", "-", "f[100,8]", "f[16,8]", "-", "f[8]", "f[8]")
                .expect("float32[2, 5, 8]", "int32[2]"));
        all.add(c(MS, "GroupQueryAttention").in("f[2,5,16]", "f[2,5,8]", "f[2,5,8]").attr(i("num_heads", 4))
                .attr(i("kv_num_heads", 2)).expect("float32[2, 5, 16]"));
        return all.stream();
    }

    /** A node as inference sees it, with fresh symbols named by their hint. */
    private static InferenceContext context(Case k) {
        NodeProto.Builder node = NodeProto.newBuilder().setOpType(k.op()).setDomain(k.domain());
        k.attrs().forEach(node::addAttribute);
        Attrs attrs = new Attrs(node.build());
        return new InferenceContext() {
            @Override
            public int inputCount() {
                return k.inputs().size();
            }

            @Override
            public TensorInfo input(int i) {
                return i < k.inputs().size() ? k.inputs().get(i) : null;
            }

            @Override
            public Attrs attrs() {
                return attrs;
            }

            @Override
            public String opType() {
                return k.op();
            }

            @Override
            public String domain() {
                return k.domain();
            }

            @Override
            public int outputCount() {
                return k.expected().size();
            }

            @Override
            public long opset() {
                return k.opset();
            }

            @Override
            public Dim fresh(String hint) {
                return new Symbol(hint);
            }

            @Override
            public void relate(Dim a, Dim b, String why, boolean broadcast) {
                // relations are SymbolRelationsTest's subject
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void ruleInfersTheOutputs(Case k) {
        List<String> got = OpInference.infer(context(k)).stream().map(OpRegistryTest::render).toList();
        assertEquals(k.expected(), got, k.toString());
    }

    @Test
    void everyRegisteredOpHasACase() {
        Set<String> registered = OpRegistry.DEFAULT.entries().stream().map(e -> e.domain() + ":" + e.opType())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> tested = cases().map(k -> k.domain() + ":" + k.op()).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(registered, tested, "registered ops and tested ops differ");
    }

    @Test
    void domainIsPartOfTheKey() {
        assertTrue(OpRegistry.DEFAULT.rule("ai.onnx", "Relu") != null, "ai.onnx is the default domain");
        assertTrue(OpRegistry.DEFAULT.rule(MS, "Attention") != null);
        assertNull(OpRegistry.DEFAULT.rule("", "Attention"), "contrib Attention is not ai.onnx Attention");
        assertNull(OpRegistry.DEFAULT.rule("com.example", "Relu"), "a custom domain's Relu is not inferred");
        Case custom = c("com.example", "Relu").in("f[2,3]").expect((String) null);
        assertEquals(Arrays.asList((String) null),
                OpInference.infer(context(custom)).stream().map(OpRegistryTest::render).toList());
    }

    @Test
    void supportedOpsListsTheRegistry() {
        List<OnnxOp> ops = OnnxOp.supported();
        assertEquals(OpRegistry.DEFAULT.entries().size(), ops.size());
        assertTrue(ops.contains(new OnnxOp("", "Upsample", 1, 9)), "Upsample was removed in opset 10");
        assertEquals("1-9", new OnnxOp("", "Upsample", 1, 9).versions());
        assertFalse(ops.stream().anyMatch(o -> o.domain().equals("ai.onnx")), "the default domain is spelled \"\"");
    }
}
