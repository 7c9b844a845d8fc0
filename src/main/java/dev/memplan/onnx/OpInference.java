package dev.memplan.onnx;

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
            case "LayerNormalization", "SkipLayerNormalization" -> layerNorm(c, out);
            case "Where" -> out[0] = where(c);
            case "Shape" -> out[0] = shapeOp(c);
            case "Size" -> {
                if (x != null && x.hasShape()) {
                    SymInt n = SymInt.of(DerivedDim.product(x.shape));
                    out[0] = new TensorInfo(DataType.INT64, List.of(), new SymInt[]{n}, null);
                } else {
                    out[0] = TensorInfo.of(DataType.INT64, List.of());
                }
            }
            case "Gather" -> out[0] = gather(c);
            case "GatherElements" -> out[0] = x == null || c.input(1) == null ? null
                    : TensorInfo.of(x.type, c.input(1).shape);
            case "GatherND" -> out[0] = gatherNd(c);
            case "ScatterND", "ScatterElements", "Scatter" -> out[0] = x == null ? null : TensorInfo.of(x.type, x.shape);
            case "Unsqueeze" -> out[0] = unsqueeze(c);
            case "Squeeze" -> out[0] = squeeze(c);
            case "Concat" -> out[0] = concat(c);
            case "Reshape" -> out[0] = reshape(c);
            case "Flatten" -> out[0] = flatten(c);
            case "Transpose" -> out[0] = transpose(c);
            case "Slice" -> out[0] = slice(c);
            case "Split" -> split(c, out);
            case "Expand" -> out[0] = expand(c);
            case "Tile" -> out[0] = tile(c);
            case "ConstantOfShape" -> out[0] = constantOfShape(c);
            case "Range" -> out[0] = range(c);
            case "Pad" -> out[0] = pad(c);
            case "MatMul", "MatMulInteger", "FusedMatMul" -> out[0] = matmul(c, op.equals("MatMulInteger")
                    ? DataType.INT32 : null);
            case "Gemm" -> out[0] = gemm(c);
            case "Conv", "ConvInteger", "FusedConv" -> out[0] = conv(c, op.equals("ConvInteger") ? DataType.INT32 : null);
            case "ConvTranspose" -> out[0] = convTranspose(c);
            case "MaxPool", "AveragePool", "LpPool" -> pool(c, out);
            case "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool" -> out[0] = globalPool(c);
            case "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                    "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare" -> out[0] = reduce(c);
            case "ArgMax", "ArgMin" -> out[0] = argReduce(c);
            case "Resize", "Upsample" -> out[0] = resize(c);
            case "DepthToSpace", "SpaceToDepth" -> out[0] = depthSpace(c, op.equals("DepthToSpace"));
            case "TopK" -> topK(c, out);
            case "NonZero" -> out[0] = x == null || !x.hasShape() ? null
                    : TensorInfo.of(DataType.INT64, List.of(Dim.of(x.rank()), c.fresh("nonzero_count")));
            case "Unique" -> unique(c, out);
            case "NonMaxSuppression" -> out[0] = TensorInfo.of(DataType.INT64,
                    List.of(c.fresh("selected_boxes"), Dim.of(3)));
            case "Compress" -> out[0] = x == null ? null : TensorInfo.of(x.type, List.of(c.fresh("compressed")));
            case "OneHot" -> out[0] = oneHot(c);
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
            case "LSTM", "GRU", "RNN" -> recurrent(c, out);
            case "Attention" -> attention(c, out);
            case "EmbedLayerNormalization" -> embedLayerNorm(c, out);
            case "GroupQueryAttention" -> groupQueryAttention(c, out);
            case "Einsum" -> out[0] = null;
            default -> {
                // unknown op: nothing inferred
            }
        }
        return List.of(out);
    }

    private static void fill(TensorInfo[] out, int i, TensorInfo t) {
        if (i < out.length) {
            out[i] = t;
        }
    }

    static DataType dtype(long code) {
        return code < 0 || code > 26 ? DataType.UNDEFINED : DataType.fromOnnxCode((int) code);
    }

    // ---- helpers over shapes ----------------------------------------------------------------

    /** Normalizes a possibly negative axis against {@code rank}; -1 when out of range. */
    static int axis(long a, int rank) {
        long n = a < 0 ? a + rank : a;
        return n < 0 || n >= rank ? -1 : (int) n;
    }

    /** numpy broadcasting of two dims. */
    static Dim broadcastDim(Dim a, Dim b) {
        if (a.equals(b)) {
            return a;
        }
        if (a instanceof Dim.Fixed fa && fa.extent() == 1) {
            return b;
        }
        if (b instanceof Dim.Fixed fb && fb.extent() == 1) {
            return a;
        }
        if (a.isStatic() && b.isStatic()) {
            return DerivedDim.max(List.of(a, b)); // incompatible; keep the larger, sizes stay safe
        }
        // min(a, k) broadcast with a is a (equal, or 1 broadcast up); a max already holding b stays
        if (holds(b, DerivedDim.Op.MIN, a) || holds(a, DerivedDim.Op.MAX, b)) {
            return a;
        }
        if (holds(a, DerivedDim.Op.MIN, b) || holds(b, DerivedDim.Op.MAX, a)) {
            return b;
        }
        if (a.isStatic()) {
            return a;
        }
        if (b.isStatic()) {
            return b;
        }
        // flatten nested maxima so repeated broadcasting does not grow the expression
        java.util.LinkedHashSet<Dim> terms = new java.util.LinkedHashSet<>();
        for (Dim d : List.of(a, b)) {
            if (d instanceof DerivedDim dd && dd.op() == DerivedDim.Op.MAX && dd.constant() == Long.MIN_VALUE) {
                terms.addAll(dd.operands());
            } else {
                terms.add(d);
            }
        }
        return DerivedDim.max(new ArrayList<>(terms));
    }

    private static boolean holds(Dim d, DerivedDim.Op op, Dim operand) {
        return d instanceof DerivedDim dd && dd.op() == op && dd.operands().contains(operand);
    }

    static List<Dim> broadcast(List<List<Dim>> shapes) {
        int rank = 0;
        for (List<Dim> s : shapes) {
            if (s == null) {
                return null;
            }
            rank = Math.max(rank, s.size());
        }
        List<Dim> out = new ArrayList<>(rank);
        for (int i = 0; i < rank; i++) {
            Dim d = null;
            for (List<Dim> s : shapes) {
                int j = i - (rank - s.size());
                if (j >= 0) {
                    d = d == null ? s.get(j) : broadcastDim(d, s.get(j));
                }
            }
            out.add(d);
        }
        return out;
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
        List<Dim> shape = shapes.isEmpty() ? null : broadcast(shapes);
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

    private static void layerNorm(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null) {
            return;
        }
        out[0] = TensorInfo.of(x.type, x.shape);
        if (!x.hasShape()) {
            return;
        }
        List<Dim> stats = new ArrayList<>(x.shape);
        if (c.opType().equals("LayerNormalization")) {
            int axis = axis(c.attrs().getInt("axis", -1), x.rank());
            for (int i = Math.max(axis, 0); i < stats.size(); i++) {
                stats.set(i, Dim.of(1));
            }
            fill(out, 1, TensorInfo.of(DataType.FLOAT32, stats));
            fill(out, 2, TensorInfo.of(DataType.FLOAT32, stats));
        } else {
            // SkipLayerNormalization: mean, inv_std_var, input_skip_bias_sum
            if (!stats.isEmpty()) {
                stats.set(stats.size() - 1, Dim.of(1));
            }
            fill(out, 1, TensorInfo.of(DataType.FLOAT32, stats));
            fill(out, 2, TensorInfo.of(DataType.FLOAT32, stats));
            fill(out, 3, TensorInfo.of(x.type, x.shape));
        }
    }

    private static TensorInfo where(InferenceContext c) {
        TensorInfo cond = c.input(0);
        TensorInfo a = c.input(1);
        TensorInfo b = c.input(2);
        if (cond == null || a == null || b == null) {
            return null;
        }
        List<Dim> shape = broadcast(Arrays.asList(nonNull(cond.shape), nonNull(a.shape), nonNull(b.shape)));
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

    private static List<Dim> nonNull(List<Dim> s) {
        return s;
    }

    static long staticOr(Dim d, long dflt) {
        return d instanceof Dim.Fixed f ? f.extent() : dflt;
    }

    private static TensorInfo shapeOp(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        int r = x.rank();
        long start = c.attrs().getInt("start", 0);
        long end = c.attrs().getInt("end", r);
        int s = (int) Math.max(0, Math.min(r, start < 0 ? start + r : start));
        int e = (int) Math.max(0, Math.min(r, end < 0 ? end + r : end));
        int n = Math.max(0, e - s);
        SymInt[] data = new SymInt[n];
        for (int i = 0; i < n; i++) {
            data[i] = SymInt.of(x.shape.get(s + i));
        }
        return new TensorInfo(DataType.INT64, List.of(Dim.of(n)), data, null);
    }

    private static TensorInfo gather(InferenceContext c) {
        TensorInfo data = c.input(0);
        TensorInfo idx = c.input(1);
        if (data == null || idx == null || !data.hasShape() || !idx.hasShape()) {
            return null;
        }
        int ax = axis(c.attrs().getInt("axis", 0), data.rank());
        if (ax < 0) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(data.shape.subList(0, ax));
        shape.addAll(idx.shape);
        shape.addAll(data.shape.subList(ax + 1, data.rank()));
        SymInt[] values = null;
        long[] k = idx.constInts();
        if (data.ints != null && data.rank() == 1 && k != null) {
            values = new SymInt[k.length];
            for (int i = 0; i < k.length; i++) {
                long j = k[i] < 0 ? k[i] + data.ints.length : k[i];
                if (j < 0 || j >= data.ints.length) {
                    values = null;
                    break;
                }
                values[i] = data.ints[(int) j];
            }
        }
        return new TensorInfo(data.type, shape, values, null);
    }

    private static TensorInfo gatherNd(InferenceContext c) {
        TensorInfo data = c.input(0);
        TensorInfo idx = c.input(1);
        if (data == null || idx == null || !data.hasShape() || !idx.hasShape() || idx.rank() == 0) {
            return null;
        }
        long last = staticOr(idx.shape.get(idx.rank() - 1), -1);
        int batch = (int) c.attrs().getInt("batch_dims", 0);
        if (last < 0 || batch < 0 || batch + last > data.rank()) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(idx.shape.subList(0, idx.rank() - 1));
        shape.addAll(data.shape.subList((int) (batch + last), data.rank()));
        return TensorInfo.of(data.type, shape);
    }

    /** Axes from the attribute (older opsets) or from input {@code inputIndex}; null if unknown. */
    private static long[] axesOf(InferenceContext c, int inputIndex) {
        long[] a = c.attrs().getInts("axes");
        if (a != null) {
            return a;
        }
        TensorInfo t = c.input(inputIndex);
        return t == null ? new long[0] : t.constInts();
    }

    private static TensorInfo unsqueeze(InferenceContext c) {
        TensorInfo x = c.input(0);
        long[] axes = axesOf(c, 1);
        if (x == null || !x.hasShape() || axes == null) {
            return null;
        }
        int r = x.rank() + axes.length;
        boolean[] inserted = new boolean[r];
        for (long a : axes) {
            int n = axis(a, r);
            if (n < 0) {
                return null;
            }
            inserted[n] = true;
        }
        List<Dim> shape = new ArrayList<>(r);
        int j = 0;
        for (int i = 0; i < r; i++) {
            if (inserted[i]) {
                shape.add(Dim.of(1));
            } else if (j < x.rank()) {
                shape.add(x.shape.get(j++));
            } else {
                return null;
            }
        }
        return new TensorInfo(x.type, shape, x.ints, x.floats);
    }

    private static TensorInfo squeeze(InferenceContext c) {
        TensorInfo x = c.input(0);
        long[] axes = axesOf(c, 1);
        if (x == null || !x.hasShape() || axes == null) {
            return null;
        }
        boolean[] drop = new boolean[x.rank()];
        if (axes.length == 0) {
            for (int i = 0; i < x.rank(); i++) {
                drop[i] = x.shape.get(i).equals(Dim.of(1));
            }
        }
        for (long a : axes) {
            int n = axis(a, x.rank());
            if (n < 0) {
                return null;
            }
            drop[n] = true;
        }
        List<Dim> shape = new ArrayList<>();
        for (int i = 0; i < x.rank(); i++) {
            if (!drop[i]) {
                shape.add(x.shape.get(i));
            }
        }
        return new TensorInfo(x.type, shape, x.ints, x.floats);
    }

    private static TensorInfo concat(InferenceContext c) {
        TensorInfo first = null;
        List<TensorInfo> parts = new ArrayList<>();
        for (int i = 0; i < c.inputCount(); i++) {
            TensorInfo t = c.input(i);
            if (t == null || !t.hasShape()) {
                return first == null && t != null ? TensorInfo.of(t.type, null) : null;
            }
            first = first == null ? t : first;
            parts.add(t);
        }
        if (first == null) {
            return null;
        }
        int r = first.rank();
        int ax = axis(c.attrs().getInt("axis", 0), r);
        if (ax < 0) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(first.shape);
        List<Dim> along = new ArrayList<>();
        for (TensorInfo t : parts) {
            if (t.rank() != r) {
                return null;
            }
            along.add(t.shape.get(ax));
            for (int i = 0; i < r; i++) {
                if (i != ax && !shape.get(i).isStatic() && t.shape.get(i).isStatic()) {
                    shape.set(i, t.shape.get(i)); // prefer a static extent for the shared dims
                }
            }
        }
        shape.set(ax, DerivedDim.sum(along, 0));
        SymInt[] data = null;
        if (r == 1) {
            List<SymInt> all = new ArrayList<>();
            for (TensorInfo t : parts) {
                if (t.ints == null) {
                    all = null;
                    break;
                }
                all.addAll(Arrays.asList(t.ints));
            }
            data = all == null ? null : all.toArray(new SymInt[0]);
        }
        return new TensorInfo(first.type, shape, data, null);
    }

    /** Flattens a dim into its product factors: static constant and symbolic factors. */
    private static long factors(Dim d, List<Dim> symbolic) {
        if (d instanceof Dim.Fixed f) {
            return f.extent();
        }
        if (d instanceof DerivedDim dd && dd.op() == DerivedDim.Op.PRODUCT) {
            symbolic.addAll(dd.operands());
            return dd.constant();
        }
        symbolic.add(d);
        return 1;
    }

    /**
     * The extent of a Reshape's -1: the input's element count divided by the known output dims,
     * cancelling symbolic factors that appear on both sides.
     */
    private static Dim inferredExtent(List<Dim> input, List<Dim> known, InferenceContext c) {
        List<Dim> num = new ArrayList<>();
        long numConst = 1;
        for (Dim d : input) {
            numConst = Math.multiplyExact(numConst, factors(d, num));
        }
        List<Dim> den = new ArrayList<>();
        long denConst = 1;
        for (Dim d : known) {
            denConst = Math.multiplyExact(denConst, factors(d, den));
        }
        for (Dim d : den) {
            if (!num.remove(d)) {
                return c.fresh("reshape_extent");
            }
        }
        if (denConst == 0) {
            return Dim.of(0);
        }
        List<Dim> all = new ArrayList<>(num);
        if (numConst % denConst == 0) {
            all.add(Dim.of(numConst / denConst));
            return DerivedDim.product(all);
        }
        all.add(Dim.of(numConst));
        return DerivedDim.divide(DerivedDim.product(all), denConst, false);
    }

    private static TensorInfo reshape(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo s = c.input(1);
        SymInt[] target;
        if (s != null) {
            target = s.ints;
        } else if (c.attrs().getInts("shape") != null) {
            long[] a = c.attrs().getInts("shape");
            target = new SymInt[a.length];
            for (int i = 0; i < a.length; i++) {
                target[i] = SymInt.of(a[i]);
            }
        } else {
            target = null;
        }
        if (x == null) {
            return null;
        }
        if (target == null) {
            if (s != null && s.hasShape() && s.rank() == 1 && s.shape.get(0) instanceof Dim.Fixed f
                    && f.extent() <= 64) {
                List<Dim> shape = new ArrayList<>();
                for (int i = 0; i < f.extent(); i++) {
                    shape.add(c.fresh("reshape_d" + i));
                }
                return TensorInfo.of(x.type, shape);
            }
            return TensorInfo.of(x.type, null);
        }
        boolean allowZero = c.attrs().getInt("allowzero", 0) != 0;
        List<Dim> shape = new ArrayList<>();
        int minusOne = -1;
        for (int i = 0; i < target.length; i++) {
            SymInt t = target[i];
            if (t.isConst() && t.constant() == 0 && !allowZero) {
                if (!x.hasShape() || i >= x.rank()) {
                    return TensorInfo.of(x.type, null);
                }
                shape.add(x.shape.get(i));
            } else if (t.isConst() && t.constant() == -1 && minusOne < 0) {
                minusOne = i;
                shape.add(null);
            } else {
                Dim d = t.toDim();
                shape.add(d == null ? c.fresh("reshape_d" + i) : d);
            }
        }
        if (minusOne >= 0) {
            List<Dim> known = new ArrayList<>(shape);
            known.remove(minusOne);
            Dim d = x.hasShape() ? inferredExtent(x.shape, known, c) : c.fresh("reshape_extent");
            shape.set(minusOne, d);
        }
        return new TensorInfo(x.type, shape, x.ints, x.floats);
    }

    private static TensorInfo flatten(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long a = c.attrs().getInt("axis", 1);
        int ax = (int) (a < 0 ? a + x.rank() : a);
        if (ax < 0 || ax > x.rank()) {
            return null;
        }
        return TensorInfo.of(x.type, List.of(DerivedDim.product(x.shape.subList(0, ax)),
                DerivedDim.product(x.shape.subList(ax, x.rank()))));
    }

    private static TensorInfo transpose(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long[] perm = c.attrs().getInts("perm");
        int r = x.rank();
        List<Dim> shape = new ArrayList<>(r);
        for (int i = 0; i < r; i++) {
            int p = perm == null ? r - 1 - i : i < perm.length ? axis(perm[i], r) : -1;
            if (p < 0) {
                return null;
            }
            shape.add(x.shape.get(p));
        }
        return TensorInfo.of(x.type, shape);
    }

    private static long[] intsInputOrAttr(InferenceContext c, int input, String attr) {
        if (c.opset() < 10 || c.attrs().has(attr)) {
            return c.attrs().getInts(attr);
        }
        TensorInfo t = c.input(input);
        return t == null ? null : t.constInts();
    }

    private static TensorInfo slice(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        long[] starts = intsInputOrAttr(c, 1, "starts");
        long[] ends = intsInputOrAttr(c, 2, "ends");
        TensorInfo endsIn = c.opset() < 10 ? null : c.input(2);
        if (starts != null && ends == null && endsIn != null && endsIn.ints != null
                && endsIn.ints.length == starts.length) {
            TensorInfo symbolic = symbolicEndSlice(c, x, starts, endsIn.ints, intsInputOrAttr(c, 3, "axes"));
            if (symbolic != null) {
                return symbolic;
            }
        }
        long[] axes = intsInputOrAttr(c, 3, "axes");
        long[] steps = c.opset() < 10 ? null : c.input(4) == null ? null : c.input(4).constInts();
        if (c.opset() >= 10 && c.input(4) != null && steps == null) {
            return TensorInfo.of(x.type, freshShape(x.rank(), c, "slice_d"));
        }
        if (starts == null || ends == null || starts.length != ends.length) {
            if (c.input(1) != null && c.input(1).hasShape()) {
                // unknown bounds: every sliced axis gets a fresh extent
                return TensorInfo.of(x.type, freshShape(x.rank(), c, "slice_d"));
            }
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        SymInt[] data = x.ints;
        for (int i = 0; i < starts.length; i++) {
            int ax = axes == null ? i : i < axes.length ? axis(axes[i], x.rank()) : -1;
            long step = steps == null ? 1 : i < steps.length ? steps[i] : 1;
            if (ax < 0 || step == 0) {
                return null;
            }
            Dim d = x.shape.get(ax);
            shape.set(ax, slicedExtent(d, starts[i], ends[i], step, c));
            if (data != null && x.rank() == 1 && d instanceof Dim.Fixed f && f.extent() == data.length) {
                data = sliceValues(data, starts[i], ends[i], step);
            } else {
                data = null;
            }
        }
        return new TensorInfo(x.type, shape, data, null);
    }

    /** Slice with constant starts and symbolic ends (a position table cut to the sequence length). */
    private static TensorInfo symbolicEndSlice(InferenceContext c, TensorInfo x, long[] starts, SymInt[] ends,
                                               long[] axes) {
        TensorInfo stepsIn = c.input(4);
        long[] steps = stepsIn == null ? null : stepsIn.constInts();
        if (stepsIn != null && steps == null) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        for (int i = 0; i < starts.length; i++) {
            int ax = axes == null ? i : i < axes.length ? axis(axes[i], x.rank()) : -1;
            long step = steps == null ? 1 : i < steps.length ? steps[i] : 1;
            if (ax < 0 || step == 0) {
                return null;
            }
            Dim d = x.shape.get(ax);
            if (ends[i].isConst()) {
                shape.set(ax, slicedExtent(d, starts[i], ends[i].constant(), step, c));
                continue;
            }
            Dim e = ends[i].toDim();
            if (starts[i] != 0 || step != 1 || e == null) {
                return null;
            }
            shape.set(ax, d.equals(e) ? d : DerivedDim.min(List.of(d, e)));
        }
        return TensorInfo.of(x.type, shape);
    }

    private static List<Dim> freshShape(int rank, InferenceContext c, String hint) {
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < rank; i++) {
            out.add(c.fresh(hint + i));
        }
        return out;
    }

    private static long clampIndex(long v, long n, long step) {
        if (v < 0) {
            v += n;
        }
        return step > 0 ? Math.max(0, Math.min(n, v)) : Math.max(-1, Math.min(n - 1, v));
    }

    private static SymInt[] sliceValues(SymInt[] data, long start, long end, long step) {
        long n = data.length;
        long s = clampIndex(start, n, step);
        long e = clampIndex(end, n, step);
        List<SymInt> out = new ArrayList<>();
        for (long i = s; step > 0 ? i < e : i > e; i += step) {
            out.add(data[(int) i]);
        }
        return out.toArray(new SymInt[0]);
    }

    private static Dim slicedExtent(Dim d, long start, long end, long step, InferenceContext c) {
        if (d instanceof Dim.Fixed f) {
            long n = f.extent();
            long s = clampIndex(start, n, step);
            long e = clampIndex(end, n, step);
            long len = step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
            return Dim.of(Math.max(0, len));
        }
        if (step != 1) {
            return c.fresh("slice_extent");
        }
        boolean toEnd = end >= (1L << 31) - 1;
        if (start >= 0 && toEnd) {
            return DerivedDim.max(List.of(DerivedDim.sum(List.of(d), -start), Dim.of(0)));
        }
        if (start >= 0 && end >= 0) {
            Dim upper = DerivedDim.min(List.of(d, Dim.of(end)));
            return start == 0 ? upper : DerivedDim.max(List.of(DerivedDim.sum(List.of(upper), -start), Dim.of(0)));
        }
        if (start < 0 && toEnd) {
            return DerivedDim.min(List.of(d, Dim.of(-start)));
        }
        if (start == 0 && end < 0) {
            return DerivedDim.max(List.of(DerivedDim.sum(List.of(d), end), Dim.of(0)));
        }
        return c.fresh("slice_extent");
    }

    private static void split(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return;
        }
        int ax = axis(c.attrs().getInt("axis", 0), x.rank());
        if (ax < 0) {
            return;
        }
        long[] sizes = c.attrs().getInts("split");
        if (sizes == null && c.input(1) != null) {
            sizes = c.input(1).constInts();
            if (sizes == null) {
                for (int i = 0; i < out.length; i++) {
                    List<Dim> s = new ArrayList<>(x.shape);
                    s.set(ax, c.fresh("split_extent"));
                    out[i] = TensorInfo.of(x.type, s);
                }
                return;
            }
        }
        Dim d = x.shape.get(ax);
        int n = out.length;
        for (int i = 0; i < n; i++) {
            List<Dim> s = new ArrayList<>(x.shape);
            if (sizes != null) {
                if (i >= sizes.length || sizes[i] < 0) {
                    return;
                }
                s.set(ax, Dim.of(sizes[i]));
            } else if (d instanceof Dim.Fixed f) {
                long chunk = (f.extent() + n - 1) / n;
                s.set(ax, Dim.of(i < n - 1 ? chunk : Math.max(0, f.extent() - chunk * (n - 1))));
            } else {
                s.set(ax, DerivedDim.divide(d, n, true));
            }
            out[i] = TensorInfo.of(x.type, s);
        }
    }

    private static List<Dim> dimsOf(SymInt[] v, InferenceContext c, String hint) {
        List<Dim> out = new ArrayList<>(v.length);
        for (int i = 0; i < v.length; i++) {
            Dim d = v[i].toDim();
            out.add(d == null ? c.fresh(hint + i) : d);
        }
        return out;
    }

    private static TensorInfo expand(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo s = c.input(1);
        if (x == null || s == null) {
            return null;
        }
        if (s.ints == null) {
            return TensorInfo.of(x.type, null);
        }
        return TensorInfo.of(x.type, broadcast(Arrays.asList(x.shape, dimsOf(s.ints, c, "expand_d"))));
    }

    private static TensorInfo tile(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo r = c.input(1);
        if (x == null || !x.hasShape() || r == null || r.ints == null || r.ints.length != x.rank()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        List<Dim> shape = new ArrayList<>();
        for (int i = 0; i < x.rank(); i++) {
            Dim rep = r.ints[i].toDim();
            shape.add(rep == null ? c.fresh("tile_d" + i) : DerivedDim.product(List.of(x.shape.get(i), rep)));
        }
        return TensorInfo.of(x.type, shape);
    }

    private static TensorInfo constantOfShape(InferenceContext c) {
        TensorInfo s = c.input(0);
        var valueTensor = c.attrs().getTensor("value");
        DataType type = valueTensor == null ? DataType.FLOAT32 : TensorDecoder.dataType(valueTensor.getDataType(),
                "the value attribute of ConstantOfShape");
        if (s == null || s.ints == null) {
            return TensorInfo.of(type, null);
        }
        List<Dim> shape = dimsOf(s.ints, c, "constant_d");
        SymInt[] data = null;
        if (valueTensor != null && Dim.of(1).equals(shape.size() == 1 ? shape.get(0) : null)) {
            TensorInfo v = TensorDecoder.decode(valueTensor, "the value attribute of ConstantOfShape");
            data = v.ints;
        }
        return new TensorInfo(type, shape, data, null);
    }

    private static TensorInfo range(InferenceContext c) {
        TensorInfo start = c.input(0);
        TensorInfo limit = c.input(1);
        TensorInfo delta = c.input(2);
        if (start == null || limit == null || delta == null) {
            return null;
        }
        double[] s = start.numbers();
        double[] l = limit.numbers();
        double[] d = delta.numbers();
        if (s != null && l != null && d != null && s.length == 1 && l.length == 1 && d.length == 1 && d[0] != 0) {
            double n = Math.ceil((l[0] - s[0]) / d[0]);
            long len = (long) Math.max(0, Math.min(n, Long.MAX_VALUE / 2));
            SymInt[] data = null;
            if (start.ints != null && len <= TensorInfo.MAX_TRACKED_ELEMENTS) {
                data = new SymInt[(int) len];
                for (int i = 0; i < len; i++) {
                    data[i] = SymInt.of((long) (s[0] + i * d[0]));
                }
            }
            return new TensorInfo(start.type, List.of(Dim.of(len)), data, null);
        }
        long[] sc = start.constInts();
        long[] dc = delta.constInts();
        if (sc != null && dc != null && sc.length == 1 && dc.length == 1 && sc[0] == 0 && dc[0] == 1
                && limit.ints != null && limit.ints.length == 1 && limit.ints[0].toDim() != null) {
            return TensorInfo.of(start.type, List.of(limit.ints[0].toDim()));
        }
        return TensorInfo.of(start.type, List.of(c.fresh("range_length")));
    }

    private static TensorInfo pad(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        long[] pads = c.attrs().getInts(c.opset() < 11 ? "paddings" : "pads");
        if (pads == null && c.opset() < 11) {
            pads = c.attrs().getInts("pads");
        }
        if (pads == null && c.input(1) != null) {
            pads = c.input(1).constInts();
        }
        if (pads == null) {
            return TensorInfo.of(x.type, freshShape(x.rank(), c, "pad_d"));
        }
        long[] axes = c.input(3) == null ? null : c.input(3).constInts();
        int r = x.rank();
        int[] ax;
        if (axes == null) {
            ax = new int[r];
            for (int i = 0; i < r; i++) {
                ax[i] = i;
            }
        } else {
            ax = new int[axes.length];
            for (int i = 0; i < axes.length; i++) {
                ax[i] = axis(axes[i], r);
                if (ax[i] < 0) {
                    return null;
                }
            }
        }
        if (pads.length != 2 * ax.length) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        for (int i = 0; i < ax.length; i++) {
            long add = pads[i] + pads[i + ax.length];
            shape.set(ax[i], padDim(shape.get(ax[i]), add));
        }
        return TensorInfo.of(x.type, shape);
    }

    private static Dim padDim(Dim d, long add) {
        Dim s = DerivedDim.sum(List.of(d), add);
        return s instanceof Dim.Fixed || add >= 0 ? s : DerivedDim.max(List.of(s, Dim.of(0)));
    }

    private static TensorInfo matmul(InferenceContext c, DataType forced) {
        TensorInfo a = c.input(0);
        TensorInfo b = c.input(1);
        if (a == null || b == null || !a.hasShape() || !b.hasShape() || a.rank() == 0 || b.rank() == 0) {
            return null;
        }
        DataType type = forced != null ? forced : a.type;
        List<Dim> as = new ArrayList<>(a.shape);
        List<Dim> bs = new ArrayList<>(b.shape);
        boolean aVec = as.size() == 1;
        boolean bVec = bs.size() == 1;
        if (aVec) {
            as.add(0, Dim.of(1));
        }
        if (bVec) {
            bs.add(Dim.of(1));
        }
        List<Dim> batch = broadcast(Arrays.asList(as.subList(0, as.size() - 2), bs.subList(0, bs.size() - 2)));
        List<Dim> shape = new ArrayList<>(batch);
        if (!aVec) {
            shape.add(as.get(as.size() - 2));
        }
        if (!bVec) {
            shape.add(bs.get(bs.size() - 1));
        }
        return TensorInfo.of(type, shape);
    }

    private static TensorInfo gemm(InferenceContext c) {
        TensorInfo a = c.input(0);
        TensorInfo b = c.input(1);
        if (a == null || b == null || a.rank() != 2 || b.rank() != 2) {
            return null;
        }
        Dim m = c.attrs().getInt("transA", 0) != 0 ? a.shape.get(1) : a.shape.get(0);
        Dim n = c.attrs().getInt("transB", 0) != 0 ? b.shape.get(0) : b.shape.get(1);
        return TensorInfo.of(a.type, List.of(m, n));
    }

    /** Output extent of a sliding window (conv, pool). */
    private static Dim window(Dim in, long kernel, long stride, long dilation, long padBegin, long padEnd,
                              String autoPad, boolean ceilMode) {
        long effective = dilation * (kernel - 1) + 1;
        if (autoPad.equals("SAME_UPPER") || autoPad.equals("SAME_LOWER")) {
            return DerivedDim.divide(in, stride, true);
        }
        if (autoPad.equals("VALID")) {
            padBegin = 0;
            padEnd = 0;
        }
        Dim span = DerivedDim.sum(List.of(in), padBegin + padEnd - effective);
        if (span instanceof Dim.Fixed f && f.extent() < 0) {
            return Dim.of(0);
        }
        Dim steps = DerivedDim.divide(span, stride, ceilMode);
        Dim out = DerivedDim.sum(List.of(steps), 1);
        if (ceilMode && in instanceof Dim.Fixed fin && out instanceof Dim.Fixed fo) {
            // the last window must start inside the padded input (ONNX / PyTorch rule)
            long o = fo.extent();
            if ((o - 1) * stride >= fin.extent() + padBegin) {
                return Dim.of(o - 1);
            }
        }
        return out;
    }

    private static List<Dim> spatial(InferenceContext c, TensorInfo x, long[] kernel, boolean ceilMode) {
        int spatialRank = x.rank() - 2;
        if (kernel == null || kernel.length != spatialRank) {
            return null;
        }
        long[] strides = c.attrs().getInts("strides");
        long[] dil = c.attrs().getInts("dilations");
        long[] pads = c.attrs().getInts("pads");
        String autoPad = c.attrs().getString("auto_pad", "NOTSET");
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < spatialRank; i++) {
            long s = strides != null && i < strides.length ? strides[i] : 1;
            long d = dil != null && i < dil.length ? dil[i] : 1;
            long pb = pads != null && pads.length == 2 * spatialRank ? pads[i] : 0;
            long pe = pads != null && pads.length == 2 * spatialRank ? pads[i + spatialRank] : 0;
            if (s <= 0 || d <= 0 || kernel[i] <= 0) {
                return null;
            }
            out.add(window(x.shape.get(i + 2), kernel[i], s, d, pb, pe, autoPad, ceilMode));
        }
        return out;
    }

    private static TensorInfo conv(InferenceContext c, DataType forced) {
        TensorInfo x = c.input(0);
        TensorInfo w = c.input(1);
        if (x == null || w == null || !x.hasShape() || !w.hasShape() || x.rank() < 3 || w.rank() != x.rank()) {
            return null;
        }
        long[] kernel = c.attrs().getInts("kernel_shape");
        if (kernel == null) {
            kernel = new long[w.rank() - 2];
            for (int i = 0; i < kernel.length; i++) {
                kernel[i] = staticOr(w.shape.get(i + 2), -1);
            }
        }
        List<Dim> sp = spatial(c, x, kernel, false);
        if (sp == null) {
            return null;
        }
        List<Dim> shape = new ArrayList<>();
        shape.add(x.shape.get(0));
        shape.add(w.shape.get(0));
        shape.addAll(sp);
        return TensorInfo.of(forced != null ? forced : x.type, shape);
    }

    private static TensorInfo convTranspose(InferenceContext c) {
        TensorInfo x = c.input(0);
        TensorInfo w = c.input(1);
        if (x == null || w == null || !x.hasShape() || !w.hasShape() || x.rank() < 3 || w.rank() != x.rank()) {
            return null;
        }
        int sr = x.rank() - 2;
        long group = c.attrs().getInt("group", 1);
        List<Dim> shape = new ArrayList<>();
        shape.add(x.shape.get(0));
        shape.add(DerivedDim.product(List.of(w.shape.get(1), Dim.of(Math.max(1, group)))));
        long[] outShape = c.attrs().getInts("output_shape");
        if (outShape != null && outShape.length >= sr) {
            for (int i = 0; i < sr; i++) {
                shape.add(Dim.of(Math.max(0, outShape[outShape.length - sr + i])));
            }
            return TensorInfo.of(x.type, shape);
        }
        long[] kernel = c.attrs().getInts("kernel_shape");
        long[] strides = c.attrs().getInts("strides");
        long[] dil = c.attrs().getInts("dilations");
        long[] pads = c.attrs().getInts("pads");
        long[] outPad = c.attrs().getInts("output_padding");
        String autoPad = c.attrs().getString("auto_pad", "NOTSET");
        for (int i = 0; i < sr; i++) {
            long k = kernel != null && i < kernel.length ? kernel[i] : staticOr(w.shape.get(i + 2), -1);
            long s = strides != null && i < strides.length ? strides[i] : 1;
            long d = dil != null && i < dil.length ? dil[i] : 1;
            long op = outPad != null && i < outPad.length ? outPad[i] : 0;
            long pb = pads != null && pads.length == 2 * sr ? pads[i] : 0;
            long pe = pads != null && pads.length == 2 * sr ? pads[i + sr] : 0;
            if (k < 0 || s <= 0) {
                return null;
            }
            Dim in = x.shape.get(i + 2);
            if (autoPad.startsWith("SAME")) {
                shape.add(DerivedDim.product(List.of(in, Dim.of(s))));
            } else {
                Dim scaled = DerivedDim.product(List.of(in, Dim.of(s)));
                shape.add(padDim(scaled, -s + op + (k - 1) * d + 1 - pb - pe));
            }
        }
        return TensorInfo.of(x.type, shape);
    }

    private static void pool(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape() || x.rank() < 3) {
            return;
        }
        List<Dim> sp = spatial(c, x, c.attrs().getInts("kernel_shape"), c.attrs().getInt("ceil_mode", 0) != 0);
        if (sp == null) {
            return;
        }
        List<Dim> shape = new ArrayList<>(x.shape.subList(0, 2));
        shape.addAll(sp);
        out[0] = TensorInfo.of(x.type, shape);
        fill(out, 1, TensorInfo.of(DataType.INT64, shape));
    }

    private static TensorInfo globalPool(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape() || x.rank() < 2) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(x.shape.subList(0, 2));
        for (int i = 2; i < x.rank(); i++) {
            shape.add(Dim.of(1));
        }
        return TensorInfo.of(x.type, shape);
    }

    private static List<Dim> reduced(List<Dim> shape, long[] axes, boolean keep) {
        int r = shape.size();
        boolean[] red = new boolean[r];
        if (axes == null || axes.length == 0) {
            Arrays.fill(red, true);
        } else {
            for (long a : axes) {
                int n = axis(a, r);
                if (n < 0) {
                    return null;
                }
                red[n] = true;
            }
        }
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < r; i++) {
            if (!red[i]) {
                out.add(shape.get(i));
            } else if (keep) {
                out.add(Dim.of(1));
            }
        }
        return out;
    }

    private static TensorInfo reduce(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        boolean keep = c.attrs().getInt("keepdims", 1) != 0;
        long[] axes = c.attrs().getInts("axes");
        if (axes == null && c.input(1) != null) {
            axes = c.input(1).constInts();
            if (axes == null) {
                return TensorInfo.of(x.type, null);
            }
        }
        if ((axes == null || axes.length == 0) && c.attrs().getInt("noop_with_empty_axes", 0) != 0) {
            return TensorInfo.of(x.type, x.shape);
        }
        return TensorInfo.of(x.type, reduced(x.shape, axes, keep));
    }

    private static TensorInfo argReduce(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return null;
        }
        return TensorInfo.of(DataType.INT64, reduced(x.shape, new long[]{c.attrs().getInt("axis", 0)},
                c.attrs().getInt("keepdims", 1) != 0));
    }

    private static TensorInfo resize(InferenceContext c) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return x == null ? null : TensorInfo.of(x.type, null);
        }
        TensorInfo sizes = c.opType().equals("Resize") && c.opset() >= 11 ? c.input(3) : null;
        if (sizes != null && sizes.ints != null && sizes.ints.length > 0) {
            long[] axes = c.attrs().getInts("axes");
            List<Dim> shape = new ArrayList<>(x.shape);
            for (int i = 0; i < sizes.ints.length; i++) {
                int ax = axes == null ? i : i < axes.length ? axis(axes[i], x.rank()) : -1;
                Dim d = sizes.ints[i].toDim();
                if (ax < 0 || d == null) {
                    return null;
                }
                shape.set(ax, d);
            }
            return TensorInfo.of(x.type, shape);
        }
        double[] scales;
        float[] attrScales = c.attrs().getFloats("scales");
        if (attrScales != null) {
            scales = new double[attrScales.length];
            for (int i = 0; i < scales.length; i++) {
                scales[i] = attrScales[i];
            }
        } else {
            int idx = c.opType().equals("Upsample") || c.opset() < 11 ? 1 : 2;
            TensorInfo s = c.input(idx);
            scales = s == null ? null : s.floats;
        }
        if (scales == null || scales.length == 0) {
            return TensorInfo.of(x.type, freshShape(x.rank(), c, "resize_d"));
        }
        long[] axes = c.attrs().getInts("axes");
        List<Dim> shape = new ArrayList<>(x.shape);
        for (int i = 0; i < scales.length; i++) {
            int ax = axes == null ? i : i < axes.length ? axis(axes[i], x.rank()) : -1;
            if (ax < 0 || !(scales[i] >= 0) || scales[i] > 1e9) {
                return null;
            }
            Dim d = x.shape.get(ax);
            if (d instanceof Dim.Fixed f) {
                shape.set(ax, Dim.of((long) Math.floor(f.extent() * scales[i])));
            } else if (scales[i] == Math.rint(scales[i]) && scales[i] >= 1) {
                shape.set(ax, DerivedDim.product(List.of(d, Dim.of((long) scales[i]))));
            } else {
                shape.set(ax, c.fresh("resize_d" + ax));
            }
        }
        return TensorInfo.of(x.type, shape);
    }

    private static TensorInfo depthSpace(InferenceContext c, boolean toSpace) {
        TensorInfo x = c.input(0);
        long b = c.attrs().getInt("blocksize", 0);
        if (x == null || x.rank() != 4 || b <= 0) {
            return null;
        }
        List<Dim> s = x.shape;
        if (toSpace) {
            return TensorInfo.of(x.type, List.of(s.get(0), DerivedDim.divide(s.get(1), b * b, false),
                    DerivedDim.product(List.of(s.get(2), Dim.of(b))), DerivedDim.product(List.of(s.get(3), Dim.of(b)))));
        }
        return TensorInfo.of(x.type, List.of(s.get(0), DerivedDim.product(List.of(s.get(1), Dim.of(b * b))),
                DerivedDim.divide(s.get(2), b, false), DerivedDim.divide(s.get(3), b, false)));
    }

    private static void topK(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || !x.hasShape()) {
            return;
        }
        int ax = axis(c.attrs().getInt("axis", -1), x.rank());
        if (ax < 0) {
            return;
        }
        Dim k;
        TensorInfo kIn = c.input(1);
        if (c.opset() < 10) {
            k = Dim.of(Math.max(0, c.attrs().getInt("k", 0)));
        } else if (kIn != null && kIn.ints != null && kIn.ints.length == 1 && kIn.ints[0].toDim() != null) {
            k = kIn.ints[0].toDim();
        } else {
            k = c.fresh("topk_k");
        }
        List<Dim> shape = new ArrayList<>(x.shape);
        shape.set(ax, k);
        out[0] = TensorInfo.of(x.type, shape);
        fill(out, 1, TensorInfo.of(DataType.INT64, shape));
    }

    private static void unique(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null) {
            return;
        }
        Dim n = c.fresh("unique_count");
        if (c.attrs().has("axis") && x.hasShape()) {
            int ax = axis(c.attrs().getInt("axis", 0), x.rank());
            if (ax < 0) {
                return;
            }
            List<Dim> s = new ArrayList<>(x.shape);
            s.set(ax, n);
            out[0] = TensorInfo.of(x.type, s);
        } else {
            out[0] = TensorInfo.of(x.type, List.of(n));
        }
        fill(out, 1, TensorInfo.of(DataType.INT64, List.of(n)));
        fill(out, 2, x.hasShape() ? TensorInfo.of(DataType.INT64, List.of(DerivedDim.product(x.shape))) : null);
        fill(out, 3, TensorInfo.of(DataType.INT64, List.of(n)));
    }

    private static TensorInfo oneHot(InferenceContext c) {
        TensorInfo idx = c.input(0);
        TensorInfo depth = c.input(1);
        TensorInfo values = c.input(2);
        if (idx == null || !idx.hasShape() || values == null) {
            return null;
        }
        Dim d = depth != null && depth.ints != null && depth.ints.length == 1 && depth.ints[0].toDim() != null
                ? depth.ints[0].toDim() : depth != null && depth.floats != null && depth.floats.length == 1
                ? Dim.of((long) Math.max(0, depth.floats[0])) : c.fresh("onehot_depth");
        int r = idx.rank() + 1;
        int ax = axis(c.attrs().getInt("axis", -1), r);
        if (ax < 0) {
            return null;
        }
        List<Dim> shape = new ArrayList<>(idx.shape);
        shape.add(ax, d);
        return TensorInfo.of(values.type, shape);
    }

    private static void recurrent(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        if (x == null || x.rank() != 3) {
            return;
        }
        long hidden = c.attrs().getInt("hidden_size", -1);
        Dim h;
        if (hidden > 0) {
            h = Dim.of(hidden);
        } else if (c.input(2) != null && c.input(2).rank() == 3) {
            h = c.input(2).shape.get(2); // R is [dirs, gates*hidden, hidden]
        } else {
            return;
        }
        Dim dirs = Dim.of(c.attrs().getString("direction", "forward").equals("bidirectional") ? 2 : 1);
        boolean batchFirst = c.attrs().getInt("layout", 0) != 0;
        Dim seq = x.shape.get(batchFirst ? 1 : 0);
        Dim batch = x.shape.get(batchFirst ? 0 : 1);
        out[0] = TensorInfo.of(x.type, batchFirst ? List.of(batch, seq, dirs, h) : List.of(seq, dirs, batch, h));
        TensorInfo state = TensorInfo.of(x.type, batchFirst ? List.of(batch, dirs, h) : List.of(dirs, batch, h));
        fill(out, 1, state);
        fill(out, 2, state);
    }

    private static void attention(InferenceContext c, TensorInfo[] out) {
        TensorInfo x = c.input(0);
        TensorInfo w = c.input(1);
        if (x == null || x.rank() != 3) {
            return;
        }
        long heads = c.attrs().getInt("num_heads", 0);
        long[] qkv = c.attrs().getInts("qkv_hidden_sizes");
        Dim vHidden;
        Dim qkHidden;
        if (qkv != null && qkv.length == 3) {
            qkHidden = Dim.of(qkv[0]);
            vHidden = Dim.of(qkv[2]);
        } else if (w != null && w.rank() == 2) {
            vHidden = DerivedDim.divide(w.shape.get(1), 3, false);
            qkHidden = vHidden;
        } else {
            return;
        }
        out[0] = TensorInfo.of(x.type, List.of(x.shape.get(0), x.shape.get(1), vHidden));
        TensorInfo past = c.input(4);
        if (out.length > 1 && heads > 0) {
            Dim headSize = DerivedDim.divide(qkHidden, heads, false);
            Dim pastLen = past != null && past.rank() == 5 ? past.shape.get(3) : Dim.of(0);
            Dim total = DerivedDim.sum(List.of(pastLen, x.shape.get(1)), 0);
            out[1] = TensorInfo.of(x.type, List.of(Dim.of(2), x.shape.get(0), Dim.of(heads), total, headSize));
        }
    }

    private static void embedLayerNorm(InferenceContext c, TensorInfo[] out) {
        TensorInfo ids = c.input(0);
        TensorInfo word = c.input(2);
        if (ids == null || ids.rank() != 2 || word == null || word.rank() != 2) {
            return;
        }
        out[0] = TensorInfo.of(word.type, List.of(ids.shape.get(0), ids.shape.get(1), word.shape.get(1)));
        fill(out, 1, TensorInfo.of(DataType.INT32, List.of(ids.shape.get(0))));
        fill(out, 2, TensorInfo.of(word.type, List.of(ids.shape.get(0), ids.shape.get(1), word.shape.get(1))));
    }

    private static void groupQueryAttention(InferenceContext c, TensorInfo[] out) {
        TensorInfo q = c.input(0);
        TensorInfo pastKey = c.input(3);
        if (q == null || q.rank() != 3) {
            return;
        }
        long heads = c.attrs().getInt("num_heads", 0);
        long kvHeads = c.attrs().getInt("kv_num_heads", 0);
        if (heads <= 0 || kvHeads <= 0) {
            return;
        }
        boolean packed = c.input(1) == null;
        Dim hidden = q.shape.get(2);
        Dim headSize = packed ? DerivedDim.divide(hidden, heads + 2 * kvHeads, false)
                : DerivedDim.divide(hidden, heads, false);
        out[0] = TensorInfo.of(q.type, List.of(q.shape.get(0), q.shape.get(1),
                DerivedDim.product(List.of(headSize, Dim.of(heads)))));
        if (pastKey != null && pastKey.rank() == 4) {
            // present length: the total_sequence_length input's value when it is known (at least
            // the past buffer), else a fresh symbol the caller binds
            TensorInfo totalIn = c.input(6);
            Dim known = totalIn != null && totalIn.ints != null && totalIn.ints.length == 1
                    ? totalIn.ints[0].toDim() : null;
            Dim total = known != null ? DerivedDim.max(List.of(pastKey.shape.get(2), known))
                    : c.fresh("present_length");
            TensorInfo present = TensorInfo.of(q.type, List.of(q.shape.get(0), Dim.of(kvHeads), total, headSize));
            fill(out, 1, present);
            fill(out, 2, present);
        }
    }
}
