// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.Graph.Value;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.rules.InferenceSupport;
import dev.memplan.onnx.rules.OpRegistry;
import dev.memplan.onnx.symbols.SymCondition;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Imports one If, Loop or Scan node for a {@link GraphImporter}: each body becomes its own graph
 * (its inputs typed from what the node passes in where the body does not declare them; outer
 * values it reads become its inputs), and the node's outputs are derived from the bodies' outputs
 * (If: the branches merged by max; Loop: scan outputs get the trip count; Scan: the sequence axis).
 */
final class ControlFlowImporter {
    private final ImportSession session;
    /** What the node sees: the enclosing graph's values so far, an immutable snapshot. */
    private final GraphScope scope;

    ControlFlowImporter(ImportSession session, GraphScope scope) {
        this.session = session;
        this.scope = scope;
    }

    /**
     * What the outer graph needs of an imported control-flow node.
     *
     * @param implicitInputs outer values the bodies read
     * @param bodies         the imported bodies, by attribute
     * @param outputs        what the bodies say of the node's outputs (null where unknown), for
     *                       the enclosing graph to merge with declared shapes
     */
    record ControlFlowDraft(List<String> implicitInputs, List<ControlFlowNode.Body> bodies,
                            List<TensorInfo> outputs) {
    }

    /** Imports the bodies of {@code node} and derives its outputs from theirs. */
    ControlFlowDraft importNode(NodeProto node, String nodeDesc) {
        Attrs attrs = new Attrs(node);
        List<ControlFlowNode.Body> bodies = new ArrayList<>();
        List<ImportedGraph> imported = new ArrayList<>();
        OpRegistry.Structure op = Nodes.structure(node);
        int numScanInputs = (int) attrs.getInt("num_scan_inputs", 0);
        String taken = op == OpRegistry.Structure.IF ? takenBranch(node, nodeDesc) : null;
        for (var entry : Attrs.subgraphs(node)) {
            if (taken != null && !entry.getKey().equals(taken)) {
                continue; // the condition is decided: the other branch never runs
            }
            GraphProto body = entry.getValue();
            List<TensorInfo> hints = new ArrayList<>();
            if (op == OpRegistry.Structure.LOOP) {
                hints.add(TensorInfo.of(DataType.INT64, List.of()));
                hints.add(TensorInfo.of(DataType.BOOL, List.of()));
                for (int i = 2; i < node.getInputCount(); i++) {
                    hints.add(scope.lookup(node.getInput(i)));
                }
            } else if (op == OpRegistry.Structure.SCAN) {
                // opset 8 Scan: input 0 is sequence_lens, and every tensor has a leading batch axis
                boolean v8 = session.opset() < 9;
                int first = v8 ? 1 : 0;
                int states = node.getInputCount() - first - numScanInputs;
                long[] axes = attrs.getInts("scan_input_axes");
                for (int i = first; i < node.getInputCount(); i++) {
                    TensorInfo t = scope.lookup(node.getInput(i));
                    int k = i - first - states;
                    if (t != null && t.hasShape()) {
                        List<Dim> s = new ArrayList<>(t.shape);
                        if (v8 && !s.isEmpty()) {
                            s.remove(0);
                        }
                        if (k >= 0 && !s.isEmpty()) {
                            int ax = InferenceSupport.axis(!v8 && axes != null && k < axes.length ? axes[k] : 0, s.size());
                            s.remove(Math.max(ax, 0));
                        }
                        t = TensorInfo.of(t.type, s);
                    }
                    hints.add(t);
                }
            }
            ImportedGraph g = new GraphImporter(body, session, scope.body(nodeDesc + " " + entry.getKey(), hints)).run();
            imported.add(g);
            bodies.add(new ControlFlowNode.Body(entry.getKey(), g));
        }
        List<String> implicit = new ArrayList<>(Nodes.freeNames(node));
        // outputs
        List<TensorInfo> outs = new ArrayList<>();
        if (!imported.isEmpty()) {
            ImportedGraph first = imported.get(0);
            int[] bodyOuts = first.graph().outputs();
            switch (op) {
                case IF -> {
                    for (int i = 0; i < node.getOutputCount(); i++) {
                        TensorInfo t = i < bodyOuts.length ? infoOf(first, bodyOuts[i]) : null;
                        for (int b = 1; b < imported.size() && t != null; b++) {
                            int[] other = imported.get(b).graph().outputs();
                            t = i < other.length ? mergeBranches(t, infoOf(imported.get(b), other[i])) : t;
                        }
                        outs.add(t);
                    }
                }
                case LOOP -> {
                    int carried = Math.max(0, node.getInputCount() - 2);
                    TensorInfo m = scope.lookup(node.getInputCount() > 0 ? node.getInput(0) : "");
                    Dim trips = m != null && m.ints != null && m.ints.length == 1 && m.ints[0].toDim() != null
                            ? m.ints[0].toDim()
                            : session.symbols().fresh(baseName(node) + "_trip_count",
                                    ControlFlowNode.TRIP_COUNT_ORIGIN + nodeDesc);
                    for (int i = 0; i < node.getOutputCount(); i++) {
                        int b = i + 1;
                        TensorInfo t = b < bodyOuts.length ? infoOf(first, bodyOuts[b]) : null;
                        if (t != null && i >= carried && t.shape != null) {
                            List<Dim> s = new ArrayList<>();
                            s.add(trips);
                            s.addAll(t.shape);
                            t = TensorInfo.of(t.type, s);
                        }
                        outs.add(t);
                    }
                }
                default -> { // Scan
                    boolean v8 = session.opset() < 9;
                    int firstIn = v8 ? 1 : 0;
                    int states = node.getInputCount() - firstIn - numScanInputs;
                    Dim seq = null;
                    Dim batch = null;
                    int firstScan = firstIn + states;
                    if (numScanInputs > 0 && states >= 0 && firstScan < node.getInputCount()) {
                        TensorInfo s0 = scope.lookup(node.getInput(firstScan));
                        long[] axes = attrs.getInts("scan_input_axes");
                        if (s0 != null && s0.hasShape() && s0.rank() > (v8 ? 1 : 0)) {
                            int ax = v8 ? 1 : InferenceSupport.axis(axes != null && axes.length > 0 ? axes[0] : 0, s0.rank());
                            seq = ax < 0 ? null : s0.shape.get(ax);
                            batch = v8 ? s0.shape.get(0) : null;
                        }
                    }
                    long[] outAxes = attrs.getInts("scan_output_axes");
                    for (int i = 0; i < node.getOutputCount(); i++) {
                        TensorInfo t = i < bodyOuts.length ? infoOf(first, bodyOuts[i]) : null;
                        if (t != null && t.shape != null) {
                            List<Dim> s = new ArrayList<>(t.shape);
                            if (i >= states && seq != null) {
                                int k = i - states;
                                int ax = v8 ? 0 : InferenceSupport.axis(outAxes != null && k < outAxes.length ? outAxes[k] : 0,
                                        s.size() + 1);
                                s.add(Math.max(ax, 0), seq);
                            }
                            if (v8 && batch != null) {
                                s.add(0, batch);
                            }
                            t = TensorInfo.of(t.type, s);
                        }
                        outs.add(t);
                    }
                }
            }
        }
        return new ControlFlowDraft(implicit, bodies, outs);
    }

    /**
     * The branch an If takes when its condition is known here (a constant) or was decided by the
     * specialization being imported; null when both may run, and then a symbolic condition is
     * recorded as open, for {@link ImportedGraph#forBindings} to decide per request.
     */
    private String takenBranch(NodeProto node, String nodeDesc) {
        SymCondition cond = SymCondition.of(node.getInputCount() > 0 ? scope.lookup(node.getInput(0)) : null);
        if (cond == null) {
            return null;
        }
        String label = scope.label(nodeDesc);
        Boolean decided = cond.evaluate(Map.of()).orElse(session.decisions().get(label));
        if (decided == null) {
            session.openConditions().put(label, cond);
            return null;
        }
        return decided ? "then_branch" : "else_branch";
    }

    /** A name to build symbols from: the node name, else its first output. */
    private static String baseName(NodeProto node) {
        return node.getName().isEmpty() ? (node.getOutputCount() > 0 ? node.getOutput(0) : "loop") : node.getName();
    }

    private static TensorInfo infoOf(ImportedGraph g, int valueId) {
        Value v = g.graph().value(valueId);
        return TensorInfo.of(v.dataType(), v.shape().dims());
    }

    private static TensorInfo mergeBranches(TensorInfo a, TensorInfo b) {
        if (b == null || a.shape == null) {
            return a;
        }
        if (a.rank() != b.rank()) {
            // no shape bounds both: leave it to value_info, else a fresh symbol (never one branch's guess)
            return b.shape == null ? a : null;
        }
        List<Dim> s = new ArrayList<>();
        for (int i = 0; i < a.rank(); i++) {
            Dim x = a.shape.get(i);
            Dim y = b.shape.get(i);
            s.add(x.equals(y) ? x : Dim.Derived.max(List.of(x, y)));
        }
        return TensorInfo.of(a.type, s);
    }
}
