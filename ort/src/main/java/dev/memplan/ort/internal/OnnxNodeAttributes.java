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
            String key = key(node);
            if (key != null) {
                byFirstOutput.put(key, node);
            }
        }
        Map<Integer, NodeProto> byNode = new HashMap<>();
        for (Node node : graph.nodes()) {
            String key = key(graph, node);
            if (key != null) {
                NodeProto proto = byFirstOutput.get(key);
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

    /**
     * {@return the name a node is known by across imports of one model: its first output that is
     * there (a GRU may leave its output Y out and give only Y_h), or null when it has none}
     */
    static String key(Graph graph, Node node) {
        for (int i = 0; i < node.outputCount(); i++) {
            if (node.output(i) != Graph.ABSENT) {
                return graph.value(node.output(i)).name();
            }
        }
        return null;
    }

    /** {@return the ONNX node's first output that is there, its key as {@link #key(Graph, Node)}, or null} */
    static String key(NodeProto node) {
        return node.getOutputList().stream().filter(o -> !o.isEmpty()).findFirst().orElse(null);
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
    public Optional<Boolean> givesOutput(int nodeId, int onnxIndex) {
        NodeProto node = byNode.get(nodeId);
        return node == null ? Optional.empty()
                : Optional.of(onnxIndex < node.getOutputCount() && !node.getOutput(onnxIndex).isEmpty());
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
