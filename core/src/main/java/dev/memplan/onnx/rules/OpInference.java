// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.symbols.ElementValues;
import dev.memplan.onnx.symbols.SymCondition;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
import static dev.memplan.onnx.rules.InferenceSupport.*;
import static dev.memplan.onnx.rules.ShapeRule.firstOutput;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.rules.OpRegistry.ViewKind;
import dev.memplan.onnx.symbols.SymCondition.Comparison;
import dev.memplan.onnx.symbols.SymCondition.Logic;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;

/**
 * Symbolic shape inference, one op at a time: given what is known of a node's inputs, what its
 * outputs are (type, shape, and for small integer tensors the values, so that
 * {@code Shape -> Gather -> Concat -> Reshape} keeps batch and sequence symbolic). An output left
 * null is not inferred; the importer then uses value_info or a fresh symbol.
 *
 * <p>{@link #registerAll} is the table of every op memplan knows: domain, op type, first opset, shape
 * rule, and the op's other facts ({@link OpRegistry.Entry}). The rules of elementwise ops, Cast and
 * Where live here, the op families in {@link ShapeOps}, {@link SpatialOps}, {@link NnOps},
 * {@link ContribOps}, {@link QuantizedOps} and {@link NchwcOps}, the folds in {@link ConstantFolder}
 * and {@link Elementwise}.
 */
public final class OpInference {
    private OpInference() {
    }

    private static final String MS = "com.microsoft";

    private static final Set<String> COMPARISONS = Set.of(
            "And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual");

    /** Ops whose small integer vectors keep their values through inference (Elementwise's arithmetic). */
    private static final Set<String> INTEGER_VALUES = Set.of("Add", "Sub", "Mul", "Div", "Max", "Min", "Equal");
    /** Ops whose small float vectors keep their values through inference. */
    private static final Set<String> FLOAT_VALUES = Set.of("Add", "Sub", "Mul", "Div");

    /** Output 0 has input 0's type and shape. */
    private static final ShapeRule SAME_AS_INPUT = firstOutput(c -> c.input(0) == null ? null
            : TensorInfo.of(c.input(0).type, c.input(0).shape));

    /** Numpy broadcasting of all inputs; small integer or float vectors keep their values. */
    private static final ShapeRule BROADCAST = firstOutput(c -> broadcastOp(c, c.opType()));

    /**
     * The outputs of {@code c}'s node, one per output (null where not inferred).
     *
     * @throws RuntimeException when the rule fails on what it was given (the importer records it)
     */
    public static List<TensorInfo> infer(InferenceContext c) {
        TensorInfo[] out = new TensorInfo[c.outputCount()];
        ShapeRule rule = OpRegistry.DEFAULT.rule(c.domain(), c.opType());
        if (rule != null) {
            rule.infer(c, out);
        }
        return Arrays.asList(out);
    }

    /** Registers every supported op in {@code r}; returns {@code r}. */
    static OpRegistry registerAll(OpRegistry r) {
        // Each op's whole entry is here: shape rule, then what else memplan knows of it (its fold,
        // view kind, in-place inputs, how it carries an If condition). The planning core names no op.

        // ops whose output 0 is input 0's type and shape: (op, first opset of the default domain)
        same(r, InPlaceOps.ACTIVATIONS, "Relu", 1, "Sigmoid", 1, "Tanh", 1, "LeakyRelu", 1, "Elu", 1, "Selu", 1,
                "HardSigmoid", 1, "Softplus", 1, "Softsign", 1, "ThresholdedRelu", 10);
        same(r, InPlaceOps.CLIP, "Clip", 1);
        same(r, InPlaceOps.ELEMENTWISE, "Sqrt", 1, "Erf", 9, "Exp", 1, "Log", 1, "Neg", 1, "Abs", 1, "Reciprocal", 1,
                "Floor", 1, "Ceil", 1);
        same(r, null, "Round", 11, "HardSwish", 14, "Gelu", 20, "Sin", 7, "Cos", 7, "Tan", 7, "Asin", 7, "Acos", 7,
                "Atan", 7, "Sinh", 9, "Cosh", 9, "Asinh", 9, "Acosh", 9, "Atanh", 9, "Softmax", 1, "LogSoftmax", 1,
                "Hardmax", 1, "LRN", 1, "InstanceNormalization", 1, "Sign", 9, "Mish", 18, "Shrink", 9, "Celu", 12,
                "Trilu", 14, "CumSum", 11, "ReverseSequence", 10, "MeanVarianceNormalization", 9, "LpNormalization", 1,
                "BitwiseNot", 18, "GroupNormalization", 18, "RotaryEmbedding", 23,
                // ONNX Runtime registers this one in the default domain
                "SimplifiedLayerNormalization", 1);
        r.add("", "Not", 1, SAME_AS_INPUT).condition(ConditionRule.NEGATES);
        for (String op : List.of("FastGelu", "BiasGelu", "QuickGelu", "Gelu", "RotaryEmbedding", "BiasSoftmax")) {
            r.add(MS, op, 1, SAME_AS_INPUT);
        }
        r.add(MS, "SkipSimplifiedLayerNormalization", 1, (c, out) -> {
            TensorInfo x = c.input(0);
            if (x != null) {
                out[0] = TensorInfo.of(x.type, x.shape);
                fill(out, 3, TensorInfo.of(x.type, x.shape));
            }
        });
        r.add("", "Identity", 1, firstOutput(c -> c.input(0))).fold(ConstantFolder.SAME_DATA)
                .view(ViewKind.ALIAS).condition(ConditionRule.PASSES_THROUGH);

        // numpy broadcasting of all inputs
        String sameBytes = "memplan's rule (elementwise binary, as Add)";
        r.add("", "Add", 1, BROADCAST).fold(ConstantFolder.BINARY).inPlace(InPlaceOps.FUSED_SUM, 0, 1);
        r.add("", "Sub", 1, BROADCAST).fold(ConstantFolder.BINARY).inPlace(sameBytes, 0, 1);
        r.add("", "Mul", 1, BROADCAST).fold(ConstantFolder.BINARY).inPlace(sameBytes, 0, 1);
        r.add("", "Div", 1, BROADCAST).fold(ConstantFolder.BINARY).inPlace(sameBytes, 0, 1);
        r.add("", "Sum", 1, BROADCAST).inPlace(InPlaceOps.FUSED_SUM, 0, 1, 2, 3, 4, 5, 6, 7);
        r.add("", "Max", 1, BROADCAST).fold(ConstantFolder.BINARY);
        r.add("", "Min", 1, BROADCAST).fold(ConstantFolder.BINARY);
        r.add("", "Mod", 10, BROADCAST).fold(ConstantFolder.BINARY);
        compare(r, "Equal", 1, Comparison.EQUAL);
        compare(r, "Less", 1, Comparison.LESS);
        compare(r, "Greater", 1, Comparison.GREATER);
        compare(r, "LessOrEqual", 12, Comparison.LESS_OR_EQUAL);
        compare(r, "GreaterOrEqual", 12, Comparison.GREATER_OR_EQUAL);
        r.add("", "And", 1, BROADCAST).condition(new ConditionRule.Combines(Logic.AND));
        r.add("", "Or", 1, BROADCAST).condition(new ConditionRule.Combines(Logic.OR));
        r.add("", "Xor", 1, BROADCAST).condition(new ConditionRule.Combines(Logic.XOR));
        Object[] broadcast = {"Pow", 1, "BitShift", 11, "Mean", 1, "PRelu", 1, "BitwiseAnd", 18, "BitwiseOr", 18,
            "BitwiseXor", 18};
        for (int i = 0; i < broadcast.length; i += 2) {
            r.add("", (String) broadcast[i], (Integer) broadcast[i + 1], BROADCAST);
        }
        r.add(MS, "BiasAdd", 1, BROADCAST);
        r.add("", "Cast", 1, firstOutput(OpInference::cast)).fold(ConstantFolder.CAST)
                .inPlace("memplan's rule (Cast between equal element widths; rule (d) refuses any other): ORT's"
                        + " cpu/tensor/cast_op.cc declares no MayInplace", 0)
                .condition(ConditionRule.PASSES_THROUGH);
        r.add("", "CastLike", 15, firstOutput(OpInference::cast));
        r.add("", "Dropout", 1, OpInference::dropout).inPlace("ORT removes an inference Dropout"
                + " (optimizer/dropout_elimination.cc): its output is its input", 0);
        r.add("", "IsNaN", 9, firstOutput(OpInference::boolOfInput));
        r.add("", "IsInf", 10, firstOutput(OpInference::boolOfInput));
        r.add("", "BatchNormalization", 1, OpInference::batchNorm).inPlace(InPlaceOps.BATCH_NORM, 0);
        r.add("", "LayerNormalization", 17, NnOps::layerNorm);
        r.add(MS, "SkipLayerNormalization", 1, NnOps::layerNorm);
        r.add("", "Where", 9, firstOutput(OpInference::where)).fold(ConstantFolder.WHERE);
        r.add("", "Shape", 1, firstOutput(ShapeOps::shapeOp)).valueFromShape();
        r.add("", "Size", 1, firstOutput(OpInference::size)).valueFromShape();
        r.add("", "Gather", 1, firstOutput(ShapeOps::gather)).fold(ConstantFolder.GATHER);
        r.add("", "GatherElements", 11, firstOutput(c -> c.input(0) == null || c.input(1) == null ? null
                : TensorInfo.of(c.input(0).type, c.input(1).shape)));
        r.add("", "GatherND", 11, firstOutput(ShapeOps::gatherNd));
        r.add("", "ScatterND", 11, SAME_AS_INPUT);
        r.add("", "ScatterElements", 11, SAME_AS_INPUT);
        r.add("", "Scatter", 9, 10, SAME_AS_INPUT);
        // the same bytes under another shape: ONNX Runtime aliases them
        r.add("", "Unsqueeze", 1, firstOutput(ShapeOps::unsqueeze)).fold(ConstantFolder.SAME_DATA)
                .view(ViewKind.ALIAS).condition(ConditionRule.PASSES_THROUGH);
        r.add("", "Squeeze", 1, firstOutput(ShapeOps::squeeze)).fold(ConstantFolder.SAME_DATA)
                .view(ViewKind.ALIAS).condition(ConditionRule.PASSES_THROUGH);
        r.add("", "Reshape", 1, firstOutput(ShapeOps::reshape)).fold(ConstantFolder.SAME_DATA)
                .view(ViewKind.ALIAS).condition(ConditionRule.PASSES_THROUGH);
        r.add("", "Flatten", 1, firstOutput(ShapeOps::flatten)).fold(ConstantFolder.SAME_DATA)
                .view(ViewKind.ALIAS).condition(ConditionRule.PASSES_THROUGH);
        // strided views of input 0: only an executor with strides aliases them
        r.add("", "Transpose", 1, firstOutput(ShapeOps::transpose)).fold(ConstantFolder.TRANSPOSE)
                .view(ViewKind.STRIDED);
        r.add("", "Slice", 1, firstOutput(ShapeOps::slice)).fold(ConstantFolder.SLICE).view(ViewKind.STRIDED);
        r.add("", "Expand", 8, firstOutput(ShapeOps::expand)).fold(ConstantFolder.EXPAND).view(ViewKind.STRIDED)
                .condition(ConditionRule.PASSES_THROUGH);
        r.add("", "Concat", 1, firstOutput(ShapeOps::concat)).fold(ConstantFolder.CONCAT);
        r.add("", "Split", 1, ShapeOps::split);
        r.add("", "Tile", 1, firstOutput(ShapeOps::tile)).fold(ConstantFolder.TILE);
        r.add("", "ConstantOfShape", 9, firstOutput(ShapeOps::constantOfShape)).fold(ConstantFolder.CONSTANT_OF_SHAPE);
        r.add("", "Range", 11, firstOutput(ShapeOps::range));
        r.add("", "Pad", 1, firstOutput(ShapeOps::pad));
        r.add("", "MatMul", 1, firstOutput(c -> NnOps.matmul(c, null)));
        r.add(MS, "FusedMatMul", 1, firstOutput(NnOps::fusedMatmul));
        r.add(MS, "DynamicQuantizeMatMul", 1, firstOutput(c -> NnOps.matmul(c, DataType.FLOAT32)));
        r.add(MS, "MatMulIntegerToFloat", 1, firstOutput(c -> NnOps.matmul(c,
                c.input(2) != null ? c.input(2).type : DataType.FLOAT32)));
        r.add("", "MatMulInteger", 10, firstOutput(c -> NnOps.matmul(c, DataType.INT32)));
        r.add("", "Gemm", 1, firstOutput(NnOps::gemm));
        r.add("", "Conv", 1, firstOutput(c -> SpatialOps.conv(c, null)));
        r.add(MS, "FusedConv", 1, firstOutput(c -> SpatialOps.conv(c, null)));
        r.add("", "ConvInteger", 10, firstOutput(c -> SpatialOps.conv(c, DataType.INT32)));
        r.add("", "ConvTranspose", 1, firstOutput(SpatialOps::convTranspose));
        for (String op : List.of("MaxPool", "AveragePool", "LpPool")) {
            r.add("", op, 1, SpatialOps::pool);
        }
        for (String op : List.of("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")) {
            r.add("", op, 1, firstOutput(SpatialOps::globalPool));
        }
        for (String op : List.of("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare")) {
            r.add("", op, 1, firstOutput(NnOps::reduce));
        }
        r.add("", "ArgMax", 1, firstOutput(NnOps::argReduce));
        r.add("", "ArgMin", 1, firstOutput(NnOps::argReduce));
        r.add("", "Resize", 10, firstOutput(SpatialOps::resize));
        r.add("", "Upsample", 1, 9, firstOutput(SpatialOps::resize));
        r.add("", "DepthToSpace", 1, firstOutput(c -> SpatialOps.depthSpace(c, true)));
        r.add("", "SpaceToDepth", 1, firstOutput(c -> SpatialOps.depthSpace(c, false)));
        r.add("", "TopK", 1, NnOps::topK);
        r.add("", "NonZero", 9, firstOutput(c -> c.input(0) == null || !c.input(0).hasShape() ? null
                : TensorInfo.of(DataType.INT64, List.of(Dim.of(c.input(0).rank()), c.fresh("nonzero_count")))));
        r.add("", "Unique", 11, NnOps::unique);
        r.add("", "NonMaxSuppression", 10, firstOutput(c -> TensorInfo.of(DataType.INT64,
                List.of(c.fresh("selected_boxes"), Dim.of(3)))));
        r.add("", "Compress", 9, firstOutput(c -> c.input(0) == null ? null
                : TensorInfo.of(c.input(0).type, List.of(c.fresh("compressed")))));
        r.add("", "OneHot", 9, firstOutput(NnOps::oneHot));
        r.add("", "EyeLike", 9, firstOutput(c -> c.input(0) == null ? null : TensorInfo.of(
                c.attrs().has("dtype") ? dtype(c.attrs().getInt("dtype", 1)) : c.input(0).type, c.input(0).shape)));
        r.add("", "QuantizeLinear", 10, firstOutput(OpInference::quantize));
        r.add("", "DequantizeLinear", 10, firstOutput(c -> c.input(0) == null ? null : TensorInfo.of(
                c.input(1) == null ? DataType.FLOAT32 : c.input(1).type, c.input(0).shape)));
        r.add("", "DynamicQuantizeLinear", 11, OpInference::dynamicQuantize);
        for (String op : List.of("LSTM", "GRU", "RNN")) {
            r.add("", op, 1, NnOps::recurrent);
        }
        r.add(MS, "Attention", 1, ContribOps::attention);
        r.add(MS, "EmbedLayerNormalization", 1, ContribOps::embedLayerNorm);
        r.add(MS, "GroupQueryAttention", 1, ContribOps::groupQueryAttention);
        NchwcOps.register(r);
        QuantizedOps.register(r);
        return r;
    }

    /**
     * Registers default-domain ops whose output 0 is input 0's type and shape, from (op, first
     * opset) pairs; with a {@code source}, each may overwrite input 0 in place.
     */
    private static void same(OpRegistry r, String inPlaceSource, Object... opsAndVersions) {
        for (int i = 0; i < opsAndVersions.length; i += 2) {
            OpRegistry.Registration op = r.add("", (String) opsAndVersions[i], (Integer) opsAndVersions[i + 1],
                    SAME_AS_INPUT);
            if (inPlaceSource != null) {
                op.inPlace(inPlaceSource, 0);
            }
        }
    }

    /** Registers a comparison: broadcast to bool, folded, and an If condition when one side is symbolic. */
    private static void compare(OpRegistry r, String op, int since, Comparison comparison) {
        r.add("", op, since, BROADCAST).fold(ConstantFolder.BINARY).condition(new ConditionRule.Compares(comparison));
    }

    // ---- small rules -------------------------------------------------------------------------

    private static void dropout(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x != null && out.length > 0) {
            out[0] = x.withShape(x.shape);
            // the mask is bool from opset 10 on, the input's type before
            fill(out, 1, TensorInfo.of(c.opset() < 10 ? x.type : DataType.BOOL, x.shape));
        }
    }

    private static TensorInfo boolOfInput(InferenceContext c) {
        return c.input(0) == null ? null : TensorInfo.of(DataType.BOOL, c.input(0).shape);
    }

    private static void batchNorm(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x != null && out.length > 0) {
            out[0] = TensorInfo.of(x.type, x.shape);
            TensorInfo scale = c.input(1);
            for (int i = 1; i < out.length; i++) {
                out[i] = scale == null ? null : TensorInfo.of(x.type, scale.shape);
            }
        }
    }

    private static TensorInfo size(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x != null && x.hasShape()) {
            SymInt n = SymInt.of(Dim.Derived.product(x.shape));
            return new TensorInfo(DataType.INT64, List.of(), new SymInt[]{n}, null);
        }
        return TensorInfo.of(DataType.INT64, List.of());
    }

    private static TensorInfo quantize(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo zp = c.input(2);
        DataType t = c.attrs().has("output_dtype") ? dtype(c.attrs().getInt("output_dtype", 2))
                : zp != null ? zp.type : DataType.UINT8;
        return x == null ? null : TensorInfo.of(t, x.shape);
    }

    private static void dynamicQuantize(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x != null && out.length > 0) {
            out[0] = TensorInfo.of(DataType.UINT8, x.shape);
        }
        fill(out, 1, TensorInfo.of(DataType.FLOAT32, List.of()));
        fill(out, 2, TensorInfo.of(DataType.UINT8, List.of()));
    }

    /** The length two vectors broadcast to (one of them may have length 1), or -1 when they do not. */
    private static int broadcastLength(int a, int b) {
        int n = Math.max(a, b);
        return (a != n && a != 1) || (b != n && b != 1) ? -1 : n;
    }

    private static SymInt[] elementwise(SymInt[] a, SymInt[] b, BinaryOperator<SymInt> f) {
        if (a == null || b == null) {
            return null;
        }
        int n = broadcastLength(a.length, b.length);
        if (n < 0) {
            return null;
        }
        SymInt[] out = new SymInt[n];
        for (int i = 0; i < n; i++) {
            SymInt r;
            try {
                r = f.apply(a[a.length == 1 ? 0 : i], b[b.length == 1 ? 0 : i]);
            } catch (ArithmeticException | IllegalArgumentException e) {
                return null;
            }
            if (r == null) {
                return null;
            }
            out[i] = r;
        }
        return out;
    }

    // ---- ops ---------------------------------------------------------------------------------

    private static TensorInfo broadcastOp(InferenceContext c, String op) {
        List<List<Dim>> shapes = new ArrayList<>();
        DataType type = null;
        for (int i = 0; i < c.inputCount(); i++) {
            TensorInfo t = c.input(i);
            if (t == null) {
                continue;
            }
            shapes.add(t.shape);
            if (type == null) {
                type = t.type;
            }
        }
        if (type == null) {
            return null;
        }
        if (COMPARISONS.contains(op)) {
            type = DataType.BOOL;
        }
        List<Dim> shape = shapes.isEmpty() ? null : broadcast(shapes, c);
        SymInt[] data = null;
        TensorInfo a = c.input(0);
        TensorInfo b = c.input(1);
        if (a != null && b != null && shape != null && shape.size() <= 1) {
            data = INTEGER_VALUES.contains(op) ? elementwise(a.ints, b.ints, Elementwise.integerOp(op)) : null;
        }
        double[] floats = null;
        if (data == null && a != null && b != null && shape != null && shape.size() <= 1
                && (a.floats != null || b.floats != null)) {
            floats = floatElementwise(a.numbers(), b.numbers(), op);
        }
        return new TensorInfo(type, shape, data, floats);
    }

    private static double[] floatElementwise(double[] a, double[] b, String op) {
        if (a == null || b == null) {
            return null;
        }
        int n = broadcastLength(a.length, b.length);
        if (n < 0) {
            return null;
        }
        DoubleBinaryOperator f = FLOAT_VALUES.contains(op) ? Elementwise.floatOp(op) : null;
        if (f == null) {
            return null;
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = f.applyAsDouble(a[a.length == 1 ? 0 : i], b[b.length == 1 ? 0 : i]);
        }
        return out;
    }

    private static TensorInfo cast(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null) {
            return null;
        }
        DataType to = c.opType().equals("CastLike")
                ? (c.input(1) == null ? x.type : c.input(1).type) : dtype(c.attrs().getInt("to", 0));
        boolean toInt = ElementValues.isInteger(to);
        SymInt[] ints = null;
        double[] floats = null;
        if (toInt) {
            if (x.ints != null) {
                ints = x.ints;
            } else if (x.floats != null) {
                ints = new SymInt[x.floats.length];
                for (int i = 0; i < ints.length; i++) {
                    ints[i] = SymInt.of((long) x.floats[i]);
                }
            }
        } else if (to == DataType.FLOAT32 || to == DataType.FLOAT64) {
            floats = x.numbers();
        }
        return new TensorInfo(to, x.shape, ints, floats);
    }

    private static TensorInfo where(InferenceContext c) {
        TensorInfo cond = c.input(0);
        TensorInfo a = c.input(1);
        TensorInfo b = c.input(2);
        if (cond == null || a == null || b == null) {
            return null;
        }
        List<Dim> shape = broadcast(Arrays.asList(cond.shape, a.shape, b.shape), c);
        SymInt[] data = null;
        long[] k = cond.constInts();
        if (k != null && a.ints != null && b.ints != null && shape != null && shape.size() <= 1) {
            int n = shape.isEmpty() ? 1 : (int) Math.min(Integer.MAX_VALUE, staticOr(shape.get(0), -1));
            if (n > 0 && n <= TensorInfo.MAX_TRACKED_ELEMENTS) {
                data = new SymInt[n];
                for (int i = 0; i < n; i++) {
                    SymInt[] src = k[k.length == 1 ? 0 : Math.min(i, k.length - 1)] != 0 ? a.ints : b.ints;
                    data[i] = src[src.length == 1 ? 0 : Math.min(i, src.length - 1)];
                }
            }
        }
        return new TensorInfo(a.type, shape, data, null);
    }

}
