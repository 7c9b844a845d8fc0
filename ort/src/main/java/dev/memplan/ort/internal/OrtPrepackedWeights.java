// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The weights ONNX Runtime drops after pre-packing them into their kernels
 * ({@code SessionState::PrepackConstantInitializedTensors}: once every reader, in the main graph
 * and in the subgraphs, has pre-packed an initializer, ORT erases it, from the parent's state too).
 * An If branch that reads one is fed an empty value, and its execution frame then traces no memory
 * pattern ({@link OrtSubgraphReplay}).
 */
final class OrtPrepackedWeights {
    /** TensorProto.DataType FLOAT: the MLAS SGEMM packing. */
    private static final int FLOAT = 1;

    private OrtPrepackedWeights() {
    }

    /**
     * The initializers of {@code model} that ORT pre-packs into a kernel and drops: float matrices
     * every reader of which, in the main graph and in every branch, is a kernel that pre-packs that
     * input (MatMul's and Gemm's B, measured: a branch reading such a weight traces no memory
     * pattern; Conv's and FusedConv's weights, measured on Silero, are kept). Other pre-packing
     * kernels (quantized MatMuls, LSTM, GRU, ...) are not measured and not listed.
     */
    static Set<String> of(GraphProto main) {
        Set<String> initializers = new HashSet<>();
        main.getInitializerList().stream().filter(t -> t.getDataType() == FLOAT && t.getDimsCount() == 2)
                .forEach(t -> initializers.add(t.getName()));
        Map<String, Boolean> allPrepacked = new HashMap<>();
        readers(main, initializers, allPrepacked);
        Set<String> out = new HashSet<>();
        allPrepacked.forEach((name, prepacked) -> {
            if (prepacked) {
                out.add(name);
            }
        });
        return out;
    }

    private static void readers(GraphProto g, Set<String> initializers, Map<String, Boolean> allPrepacked) {
        for (NodeProto node : g.getNodeList()) {
            int at = OrtKernels.prePackedInput(node.getDomain(), node.getOpType());
            for (int i = 0; i < node.getInputCount(); i++) {
                String name = node.getInput(i);
                if (initializers.contains(name)) {
                    allPrepacked.merge(name, at == i, Boolean::logicalAnd);
                }
            }
            for (AttributeProto a : node.getAttributeList()) {
                if (a.hasG()) {
                    readers(a.getG(), initializers, allPrepacked);
                }
                a.getGraphsList().forEach(sub -> readers(sub, initializers, allPrepacked));
            }
        }
    }
}
