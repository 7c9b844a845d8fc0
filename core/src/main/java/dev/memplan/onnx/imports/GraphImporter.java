// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.Graph;
import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Imports one ONNX GraphProto (the main graph or a body) into a {@link Graph} by running the
 * import steps in order: {@link Initializers} and {@link GraphInputs} define what exists before
 * any node runs, {@link DeclaredShapes} reads what the file declares, {@link NodeOrder} sorts the
 * nodes, then per node in that order {@link ConstantNodes}, {@link ControlFlowImporter} (bodies
 * recurse here, once per nesting level, which protobuf's own nesting limit bounds) or
 * {@link NodeInference} with {@link FoldDecision}, each output merged by {@link DeclaredShapes};
 * last {@link GraphAssembly} (with {@link ViewProposals}) builds the graph.
 */
final class GraphImporter {
    private final GraphProto proto;
    private final ImportSession session;
    private final GraphScope scope;

    GraphImporter(GraphProto proto, ImportSession session, GraphScope scope) {
        this.proto = proto;
        this.session = session;
        this.scope = scope;
    }

    /**
     * Runs the steps.
     *
     * @throws OnnxFormatException naming the model element when the graph is malformed
     */
    ImportedGraph run() {
        ValueTable values = new ValueTable(scope);
        Initializers.read(proto, scope.where(), values);
        DeclaredShapes shapes = new DeclaredShapes(proto, scope.where(), session);
        List<String> inputNames = GraphInputs.read(proto, scope, values, shapes, session);
        List<NodeProto> nodes = proto.getNodeList();
        int[] order = NodeOrder.of(nodes, proto.getOutputList(), scope.where(), values);
        NodeInference inference = new NodeInference(session, values, scope);
        Map<Integer, ControlFlowImporter.ControlFlowDraft> drafts = new HashMap<>();
        boolean[] dropped = new boolean[nodes.size()];
        for (int n : order) {
            NodeProto node = nodes.get(n);
            String nodeDesc = Nodes.describe(node, n);
            if (Nodes.isConstant(node)) {
                ConstantNodes.importConstant(node, nodeDesc, session.symbols(), values);
                dropped[n] = true;
                continue;
            }
            List<TensorInfo> outs;
            String why = null;
            boolean fold = false;
            if (Nodes.isControlFlow(node)) {
                ControlFlowImporter.ControlFlowDraft draft =
                        new ControlFlowImporter(session, scope.seenFrom(values)).importNode(node, nodeDesc);
                draft.bodies().forEach(b -> inference.addBodyFailures(b.graph().inferenceFailures()));
                drafts.put(n, draft);
                outs = draft.outputs();
            } else {
                NodeInference.Result inferred = inference.infer(node, nodeDesc);
                outs = inferred.outputs();
                why = inferred.failure();
                fold = session.options().foldConstants() && FoldDecision.foldable(node, outs, values);
            }
            for (int i = 0; i < node.getOutputCount(); i++) {
                String out = node.getOutput(i);
                if (out.isEmpty()) {
                    continue;
                }
                values.put(out, shapes.settle(out, i < outs.size() ? outs.get(i) : null, nodeDesc, why));
                if (fold) {
                    values.markFolded(out);
                }
            }
            dropped[n] = fold;
        }
        return new GraphAssembly(proto, scope, session, values).build(
                new GraphAssembly.NodeLoop(nodes, order, dropped, drafts), inputNames, shapes, inference.failures());
    }
}
