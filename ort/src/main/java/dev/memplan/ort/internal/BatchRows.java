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
        Dim.Symbol rows = new Dim.Symbol(batch);
        for (int output : graph.outputs()) {
            Shape shape = graph.value(output).shape();
            if (shape.rank() == 0 || !shape.dims().get(0).equals(rows)) {
                return kept("output " + graph.value(output).name() + " does not start with " + batch);
            }
        }
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
            return outputsRows && !OrtKernels.Rows.fromShapes(op) && !OrtKernels.Rows.rowWise(op)
                    ? "makes rows from values that have none" : null;
        }
        if (OrtKernels.Rows.readsShapes(op)) {
            return null;
        }
        if (!outputsRows) {
            return "reduces the rows";
        }
        if (OrtKernels.Rows.rowWise(op)) {
            return null;
        }
        if (OrtKernels.Rows.isGemm(op)) {
            boolean aRows = firstWithRows == 0;
            boolean bRows = node.inputCount() > 1 && node.input(1) != Graph.ABSENT
                    && carries(graph.value(node.input(1)), batch);
            return !aRows || bRows || attributes.integer(node.id(), "transA").orElse(0) != 0
                    ? "multiplies across the rows" : null;
        }
        if (OrtKernels.Rows.alongAxis(op)) {
            if (OrtKernels.Rows.gathers(op) && firstWithRows != 0) {
                return null; // the rows are the indices: each picks from the same table
            }
            if (!attributes.known(node.id())) {
                return "has attributes memplan could not read";
            }
            int rank = graph.value(node.input(firstWithRows)).shape().rank();
            long axis = attributes.integer(node.id(), "axis").orElse(OrtKernels.Rows.defaultAxis(op, attributes.opset()));
            return (axis < 0 ? axis + rank : axis) == 0 ? "works along the rows" : null;
        }
        return "is not known to keep rows apart";
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
