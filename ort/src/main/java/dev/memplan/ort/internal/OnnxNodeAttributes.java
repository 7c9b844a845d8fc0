// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@link NodeAttributes} read from the ONNX model a graph was imported from. A memplan node is
 * matched to the ONNX node that produces its first output (value names are the ONNX names, and
 * each is produced once), so folded or reordered nodes do not shift the match.
 */
final class OnnxNodeAttributes implements NodeAttributes {
    /** AttributeProto.AttributeType's INT and INTS. */
    private static final int INT = 2;
    private static final int INTS = 7;
    private static final int STRING = 3;

    private final Map<Integer, NodeProto> byNode;
    private final OptionalLong opset;

    private OnnxNodeAttributes(Map<Integer, NodeProto> byNode, OptionalLong opset) {
        this.byNode = byNode;
        this.opset = opset;
    }

    /** {@return the attributes of {@code graph}'s nodes, as {@code model}'s main graph states them} */
    static OnnxNodeAttributes of(ModelProto model, Graph graph) {
        Map<String, NodeProto> byFirstOutput = new HashMap<>();
        for (NodeProto node : model.getGraph().getNodeList()) {
            if (node.getOutputCount() > 0) {
                byFirstOutput.put(node.getOutput(0), node);
            }
        }
        Map<Integer, NodeProto> byNode = new HashMap<>();
        for (Node node : graph.nodes()) {
            if (node.outputCount() > 0 && node.output(0) != Graph.ABSENT) {
                NodeProto proto = byFirstOutput.get(graph.value(node.output(0)).name());
                if (proto != null && proto.getOpType().equals(node.opType())) {
                    byNode.put(node.id(), proto);
                }
            }
        }
        OptionalLong opset = OptionalLong.empty();
        for (OperatorSetIdProto id : model.getOpsetImportList()) {
            if (id.getDomain().isEmpty() || id.getDomain().equals("ai.onnx")) {
                opset = OptionalLong.of(id.getVersion());
            }
        }
        return new OnnxNodeAttributes(byNode, opset);
    }

    private Optional<AttributeProto> attribute(int nodeId, String name) {
        NodeProto node = byNode.get(nodeId);
        return node == null ? Optional.empty()
                : node.getAttributeList().stream().filter(a -> a.getName().equals(name)).findFirst();
    }

    /** {@return the ONNX node memplan's node {@code nodeId} was matched to, or null} */
    NodeProto proto(int nodeId) {
        return byNode.get(nodeId);
    }

    @Override
    public boolean known(int nodeId) {
        return byNode.containsKey(nodeId);
    }

    @Override
    public OptionalLong integer(int nodeId, String name) {
        return attribute(nodeId, name).filter(a -> a.getType() == INT || a.hasI())
                .map(a -> OptionalLong.of(a.getI())).orElse(OptionalLong.empty());
    }

    @Override
    public Optional<long[]> integers(int nodeId, String name) {
        return attribute(nodeId, name).filter(a -> a.getType() == INTS || a.getIntsCount() > 0)
                .map(a -> a.getIntsList().stream().mapToLong(Long::longValue).toArray());
    }

    @Override
    public Optional<String> string(int nodeId, String name) {
        return attribute(nodeId, name).filter(a -> a.getType() == STRING || a.hasS())
                .map(a -> a.getS().toStringUtf8());
    }

    @Override
    public OptionalLong opset() {
        return opset;
    }
}
