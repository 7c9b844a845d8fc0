package dev.memplan.onnx;

import static dev.memplan.onnx.InferenceSupport.*;

import dev.memplan.DataType;
import dev.memplan.DerivedDim;
import dev.memplan.Dim;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Symbolic shape inference, one op at a time: given what is known of a node's inputs, what its
 * outputs are (type, shape, and for small integer tensors the values, so that
 * {@code Shape -> Gather -> Concat -> Reshape} keeps batch and sequence symbolic). Returns null for
 * an output it cannot infer; the importer then uses value_info or a fresh symbol.
 *
 * <p>This class dispatches by op type and handles elementwise ops, Cast and Where; the op families
 * live in {@link ShapeOps}, {@link SpatialOps}, {@link NnOps} and {@link ContribOps}.
 */
final class OpInference {
    private OpInference() {
    }

    /** Ops whose output 0 has input 0's type and shape. */
    private static final Set<String> SAME_AS_INPUT = Set.of(
            "Relu", "Sigmoid", "Tanh", "Sqrt", "Erf", "Exp", "Log", "Neg", "Abs", "Reciprocal", "Floor", "Ceil",
            "Round", "LeakyRelu", "Elu", "Selu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Gelu",
            "FastGelu", "BiasGelu", "QuickGelu", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh",
            "Asinh", "Acosh", "Atanh", "Clip", "Identity", "Softmax", "LogSoftmax", "Hardmax", "LRN",
            "InstanceNormalization", "Sign", "Mish", "Shrink", "ThresholdedRelu", "Celu", "Trilu", "CumSum",
            "ReverseSequence", "MeanVarianceNormalization", "LpNormalization", "BitwiseNot", "Not",
            "GroupNormalization", "RotaryEmbedding", "BiasSoftmax", "SimplifiedLayerNormalization",
            "SkipSimplifiedLayerNormalization");

    private static final Set<String> BROADCAST = Set.of(
            "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "And", "Or", "Xor", "Equal", "Less",
            "Greater", "LessOrEqual", "GreaterOrEqual", "BitShift", "Sum", "Mean", "PRelu", "BitwiseAnd",
            "BitwiseOr", "BitwiseXor", "BiasAdd");

    private static final Set<String> COMPARISONS = Set.of(
            "And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual");

    static List<TensorInfo> infer(InferenceContext c) {
        TensorInfo[] out = new TensorInfo[c.outputCount()];
        String op = c.opType();
        TensorInfo x = c.input(0);
        if (SAME_AS_INPUT.contains(op)) {
            if (x != null) {
                out[0] = TensorInfo.of(x.type, x.shape);
            }
            if (op.equals("Identity") && x != null) {
                out[0] = x;
            }
            if (op.equals("SkipSimplifiedLayerNormalization") && x != null) {
                fill(out, 3, TensorInfo.of(x.type, x.shape));
            }
            return List.of(out);
        }
        if (BROADCAST.contains(op)) {
            out[0] = broadcastOp(c, op);
            return List.of(out);
        }
        switch (op) {
            case "Cast", "CastLike" -> out[0] = cast(c);
            case "Dropout" -> {
                if (x != null) {
                    out[0] = x.withShape(x.shape);
                    // the mask is bool from opset 10 on, the input's type before
                    fill(out, 1, TensorInfo.of(c.opset() < 10 ? x.type : DataType.BOOL, x.shape));
                }
            }
            case "IsNaN", "IsInf" -> out[0] = x == null ? null : TensorInfo.of(DataType.BOOL, x.shape);
            case "BatchNormalization" -> {
                if (x != null) {
                    out[0] = TensorInfo.of(x.type, x.shape);
                    TensorInfo scale = c.input(1);
                    for (int i = 1; i < out.length; i++) {
                        out[i] = scale == null ? null : TensorInfo.of(x.type, scale.shape);
                    }
                }
            }
            case "LayerNormalization", "SkipLayerNormalization" -> NnOps.layerNorm(c, out);
            case "Where" -> out[0] = where(c);
            case "Shape" -> out[0] = ShapeOps.shapeOp(c);
            case "Size" -> {
                if (x != null && x.hasShape()) {
                    SymInt n = SymInt.of(DerivedDim.product(x.shape));
                    out[0] = new TensorInfo(DataType.INT64, List.of(), new SymInt[]{n}, null);
                } else {
                    out[0] = TensorInfo.of(DataType.INT64, List.of());
                }
            }
            case "Gather" -> out[0] = ShapeOps.gather(c);
            case "GatherElements" -> out[0] = x == null || c.input(1) == null ? null
                    : TensorInfo.of(x.type, c.input(1).shape);
            case "GatherND" -> out[0] = ShapeOps.gatherNd(c);
            case "ScatterND", "ScatterElements", "Scatter" -> out[0] = x == null ? null : TensorInfo.of(x.type, x.shape);
            case "Unsqueeze" -> out[0] = ShapeOps.unsqueeze(c);
            case "Squeeze" -> out[0] = ShapeOps.squeeze(c);
            case "Concat" -> out[0] = ShapeOps.concat(c);
            case "Reshape" -> out[0] = ShapeOps.reshape(c);
            case "Flatten" -> out[0] = ShapeOps.flatten(c);
            case "Transpose" -> out[0] = ShapeOps.transpose(c);
            case "Slice" -> out[0] = ShapeOps.slice(c);
            case "Split" -> ShapeOps.split(c, out);
            case "Expand" -> out[0] = ShapeOps.expand(c);
            case "Tile" -> out[0] = ShapeOps.tile(c);
            case "ConstantOfShape" -> out[0] = ShapeOps.constantOfShape(c);
            case "Range" -> out[0] = ShapeOps.range(c);
            case "Pad" -> out[0] = ShapeOps.pad(c);
            case "MatMul", "MatMulInteger", "FusedMatMul" -> out[0] = NnOps.matmul(c, op.equals("MatMulInteger")
                    ? DataType.INT32 : null);
            case "Gemm" -> out[0] = NnOps.gemm(c);
            case "Conv", "ConvInteger", "FusedConv" -> out[0] = SpatialOps.conv(c, op.equals("ConvInteger") ? DataType.INT32 : null);
            case "ConvTranspose" -> out[0] = SpatialOps.convTranspose(c);
            case "MaxPool", "AveragePool", "LpPool" -> SpatialOps.pool(c, out);
            case "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool" -> out[0] = SpatialOps.globalPool(c);
            case "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                    "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare" -> out[0] = NnOps.reduce(c);
            case "ArgMax", "ArgMin" -> out[0] = NnOps.argReduce(c);
            case "Resize", "Upsample" -> out[0] = SpatialOps.resize(c);
            case "DepthToSpace", "SpaceToDepth" -> out[0] = SpatialOps.depthSpace(c, op.equals("DepthToSpace"));
            case "TopK" -> NnOps.topK(c, out);
            case "NonZero" -> out[0] = x == null || !x.hasShape() ? null
                    : TensorInfo.of(DataType.INT64, List.of(Dim.of(x.rank()), c.fresh("nonzero_count")));
            case "Unique" -> NnOps.unique(c, out);
            case "NonMaxSuppression" -> out[0] = TensorInfo.of(DataType.INT64,
                    List.of(c.fresh("selected_boxes"), Dim.of(3)));
            case "Compress" -> out[0] = x == null ? null : TensorInfo.of(x.type, List.of(c.fresh("compressed")));
            case "OneHot" -> out[0] = NnOps.oneHot(c);
            case "EyeLike" -> out[0] = x == null ? null : TensorInfo.of(
                    c.attrs().has("dtype") ? dtype(c.attrs().getInt("dtype", 1)) : x.type, x.shape);
            case "QuantizeLinear" -> {
                TensorInfo zp = c.input(2);
                DataType t = c.attrs().has("output_dtype") ? dtype(c.attrs().getInt("output_dtype", 2))
                        : zp != null ? zp.type : DataType.UINT8;
                out[0] = x == null ? null : TensorInfo.of(t, x.shape);
            }
            case "DequantizeLinear" -> {
                TensorInfo scale = c.input(1);
                out[0] = x == null ? null : TensorInfo.of(scale == null ? DataType.FLOAT32 : scale.type, x.shape);
            }
            case "DynamicQuantizeLinear" -> {
                if (x != null) {
                    out[0] = TensorInfo.of(DataType.UINT8, x.shape);
                }
                fill(out, 1, TensorInfo.of(DataType.FLOAT32, List.of()));
                fill(out, 2, TensorInfo.of(DataType.UINT8, List.of()));
            }
            case "LSTM", "GRU", "RNN" -> NnOps.recurrent(c, out);
            case "Attention" -> ContribOps.attention(c, out);
            case "EmbedLayerNormalization" -> ContribOps.embedLayerNorm(c, out);
            case "GroupQueryAttention" -> ContribOps.groupQueryAttention(c, out);
            case "Einsum" -> out[0] = null;
            default -> {
                // unknown op: nothing inferred
            }
        }
        return List.of(out);
    }

    private static SymInt[] elementwise(SymInt[] a, SymInt[] b, java.util.function.BinaryOperator<SymInt> f) {
        if (a == null || b == null) {
            return null;
        }
        int n = Math.max(a.length, b.length);
        if ((a.length != n && a.length != 1) || (b.length != n && b.length != 1)) {
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
            data = switch (op) {
                case "Add" -> elementwise(a.ints, b.ints, SymInt::add);
                case "Sub" -> elementwise(a.ints, b.ints, SymInt::sub);
                case "Mul" -> elementwise(a.ints, b.ints, SymInt::mul);
                case "Div" -> elementwise(a.ints, b.ints, SymInt::div);
                case "Max" -> elementwise(a.ints, b.ints, SymInt::max);
                case "Min" -> elementwise(a.ints, b.ints, SymInt::min);
                case "Equal" -> elementwise(a.ints, b.ints, (p, q) -> p.isConst() && q.isConst()
                        ? SymInt.of(p.constant() == q.constant() ? 1 : 0) : p.equals(q) ? SymInt.of(1) : null);
                default -> null;
            };
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
        int n = Math.max(a.length, b.length);
        if ((a.length != n && a.length != 1) || (b.length != n && b.length != 1)) {
            return null;
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            double p = a[a.length == 1 ? 0 : i];
            double q = b[b.length == 1 ? 0 : i];
            switch (op) {
                case "Add" -> out[i] = p + q;
                case "Sub" -> out[i] = p - q;
                case "Mul" -> out[i] = p * q;
                case "Div" -> out[i] = p / q;
                default -> {
                    return null;
                }
            }
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
        boolean toInt = switch (to) {
            case INT64, INT32, INT16, INT8, UINT8, UINT16, UINT32, UINT64 -> true;
            default -> false;
        };
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
