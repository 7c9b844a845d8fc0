// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Graph.Value;
import dev.memplan.Shape;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Whether the graph ONNX Runtime runs keeps the rows of a batch apart, so that a request can run in
 * pieces along its first dimension and its outputs be joined in order: the same answer as one run.
 *
 * <p>Shown from the graph, not assumed: every input carries one symbol, the batch, as its first dim,
 * and every output too. Every value that carries the batch carries it in its first dim alone, as
 * the batch or as a product with it (a flattened {@code batch*seq}, still whole rows in order). Every
 * node that touches such a value is an op known to work row by row, and one that works along an
 * axis does so on another axis than the first. Anything else (a reduction over the batch, a Concat
 * along it, an op this class does not know, control flow) keeps the request whole.
 *
 * <p>One coupling is let through: dynamic int8 quantization ({@code DynamicQuantizeLinear}, and
 * ORT's fused {@code DynamicQuantizeMatMul}) takes one scale over the whole tensor, so a piece's
 * outputs differ from the whole run's within the model's own quantization error, as they differ
 * between any two batchings of the same rows.
 */
public final class BatchRows {
    /** Ops that map each row of their inputs to the same row of their outputs, whatever their attributes. */
    private static final Set<String> ROW_WISE = Set.of(
            "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BitShift", "Cast", "CastLike",
            "Ceil", "Celu", "Clip", "Cos", "Cosh", "Div", "Elu", "Equal", "Erf", "Exp", "Floor", "Gelu", "Greater",
            "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity", "IsInf", "IsNaN", "LeakyRelu", "Less",
            "LessOrEqual", "Log", "Max", "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu",
            "QuantizeLinear", "DequantizeLinear", "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign",
            "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Where",
            "Xor", "Dropout", "Expand", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Slice", "Pad", "Transpose",
            "MatMul", "MatMulInteger", "QLinearMatMul", "Conv", "ConvInteger", "ConvTranspose", "QLinearConv",
            "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "BatchNormalization",
            "InstanceNormalization", "GroupNormalization", "LRN", "Resize", "Upsample", "DepthToSpace",
            "SpaceToDepth", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
            "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "DynamicQuantizeLinear",
            // ORT's contrib and NCHWc kernels, as it fuses encoders and CNNs
            "Attention", "MultiHeadAttention", "QAttention", "SkipLayerNormalization",
            "SkipSimplifiedLayerNormalization", "SimplifiedLayerNormalization", "EmbedLayerNormalization",
            "BiasGelu", "FastGelu", "QuickGelu", "FusedMatMul", "FusedConv", "DynamicQuantizeMatMul",
            "MatMulIntegerToFloat", "BiasAdd", "QLinearAdd", "QLinearMul", "ReorderInput", "ReorderOutput");
    /** Ops that work along one axis, given by an {@code axis} attribute: row-wise when it is not the first. */
    private static final Set<String> ALONG_AXIS = Set.of("Concat", "Split", "Gather", "GatherElements", "Softmax",
            "LogSoftmax", "Hardmax", "LayerNormalization", "ArgMax", "ArgMin", "TopK");
    /** Ops whose output takes the batch from a shape alone, never from another row's data. */
    private static final Set<String> SHAPED_ONLY = Set.of("ConstantOfShape", "Expand");
    /** Ops that read a value's shape, not its rows. */
    private static final Set<String> SHAPE_READERS = Set.of("Shape", "Size");

    private final String batch;
    private final String why;

    private BatchRows(String batch, String why) {
        this.batch = batch;
        this.why = why;
    }

    /**
     * Examines the graph ORT saved, as memplan imported it.
     *
     * @param imported the graph, with its symbols
     * @param model    the saved model, for the nodes' attributes
     * @return whether, and by which symbol, its rows run apart
     */
    public static BatchRows of(ImportedGraph imported, ModelProto model) {
        Graph graph = imported.graph();
        if (!imported.controlFlow().isEmpty()) {
            return kept("the graph has If, Loop or Scan nodes");
        }
        String batch = null;
        for (int input : graph.inputs()) {
            if (graph.isInitializer(input)) {
                continue;
            }
            Value v = graph.value(input);
            if (v.shape().rank() == 0 || !(v.shape().dims().get(0) instanceof Dim.Symbol s)) {
                if (v.shape().symbols().isEmpty()) {
                    continue; // a fixed input (a sample rate, a flag) goes whole to every piece
                }
                return kept("input " + v.name() + " does not start with a symbol");
            }
            if (batch != null && !batch.equals(s.name())) {
                return kept("inputs start with different symbols (" + batch + ", " + s.name() + ")");
            }
            batch = s.name();
        }
        if (batch == null) {
            return kept("no input starts with a symbol");
        }
        for (int output : graph.outputs()) {
            Shape shape = graph.value(output).shape();
            if (shape.rank() == 0 || !shape.dims().get(0).equals(new Dim.Symbol(batch))) {
                return kept("output " + graph.value(output).name() + " does not start with " + batch);
            }
        }
        Dim.Symbol rows = new Dim.Symbol(batch);
        for (Value v : graph.values()) {
            if (carries(v, batch) && !rowsFirst(v.shape(), batch)) {
                boolean later = v.shape().dims().subList(1, v.shape().rank()).stream()
                        .anyMatch(d -> d.symbols().contains(rows));
                return kept("value " + v.name() + " " + v.shape() + " holds " + batch
                        + (later ? " past its first dim" : " in its first dim other than as whole rows"));
            }
        }
        OnnxNodeAttributes attributes = OnnxNodeAttributes.of(model, graph);
        for (Node node : graph.nodes()) {
            String mixing = mixing(graph, node, batch, attributes);
            if (mixing != null) {
                return kept("node " + node.name() + " (" + node.opType() + ") " + mixing);
            }
        }
        return new BatchRows(batch, null);
    }

    /** Why {@code node} may mix rows of the batch, or null when it keeps them apart. */
    private static String mixing(Graph graph, Node node, String batch, OnnxNodeAttributes attributes) {
        int firstWithRows = -1;
        for (int i = 0; i < node.inputCount(); i++) {
            int in = node.input(i);
            if (in != Graph.ABSENT && carries(graph.value(in), batch)) {
                firstWithRows = firstWithRows < 0 ? i : firstWithRows;
            }
        }
        boolean outputsRows = false;
        for (int out : node.outputs()) {
            outputsRows |= out != Graph.ABSENT && carries(graph.value(out), batch);
        }
        String op = node.opType();
        if (firstWithRows < 0) {
            return outputsRows && !SHAPED_ONLY.contains(op) && !ROW_WISE.contains(op)
                    ? "makes rows from values that have none" : null;
        }
        if (SHAPE_READERS.contains(op)) {
            return null;
        }
        if (!outputsRows) {
            return "reduces the rows";
        }
        if (ROW_WISE.contains(op)) {
            return null;
        }
        if (op.equals("Gemm") || op.equals("FusedGemm")) {
            boolean aRows = firstWithRows == 0;
            boolean bRows = node.inputCount() > 1 && node.input(1) != Graph.ABSENT
                    && carries(graph.value(node.input(1)), batch);
            return !aRows || bRows || attributes.integer(node.id(), "transA").orElse(0) != 0
                    ? "multiplies across the rows" : null;
        }
        if (ALONG_AXIS.contains(op)) {
            if (op.startsWith("Gather") && firstWithRows != 0) {
                return null; // the rows are the indices: each picks from the same table
            }
            if (!attributes.known(node.id())) {
                return "has attributes memplan could not read";
            }
            int rank = graph.value(node.input(firstWithRows)).shape().rank();
            long axis = attributes.integer(node.id(), "axis").orElse(defaultAxis(op, attributes.opset()));
            return (axis < 0 ? axis + rank : axis) == 0 ? "works along the rows" : null;
        }
        return "is not known to keep rows apart";
    }

    /** The ONNX default of an axis-taking op's {@code axis}. */
    private static long defaultAxis(String op, OptionalLong opset) {
        return switch (op) {
            case "Softmax", "LogSoftmax", "Hardmax" -> opset.orElse(13) >= 13 ? -1 : 1;
            case "LayerNormalization", "TopK" -> -1;
            default -> 0; // Concat has none (ORT refuses it without), Split, Gather*, ArgMax, ArgMin: 0
        };
    }

    private static boolean carries(Value v, String batch) {
        return v.shape().symbols().contains(new Dim.Symbol(batch));
    }

    /** Whether the batch sits in the first dim alone, as itself or a factor of a product. */
    private static boolean rowsFirst(Shape shape, String batch) {
        Dim.Symbol b = new Dim.Symbol(batch);
        for (int d = 1; d < shape.rank(); d++) {
            if (shape.dims().get(d).symbols().contains(b)) {
                return false;
            }
        }
        Dim first = shape.dims().get(0);
        return first.equals(b) || first instanceof Dim.Derived p && p.op() == Dim.Derived.Op.PRODUCT
                && p.operands().stream().filter(b::equals).count() == 1
                && p.operands().stream().noneMatch(o -> !o.equals(b) && o.symbols().contains(b));
    }

    private static BatchRows kept(String why) {
        return new BatchRows(null, why);
    }

    /** {@return the batch symbol whose rows run apart, or empty when the graph keeps requests whole} */
    public Optional<String> batch() {
        return Optional.ofNullable(batch);
    }

    /** {@return why requests stay whole (naming the node or value), or null when rows run apart} */
    public String why() {
        return why;
    }
}
