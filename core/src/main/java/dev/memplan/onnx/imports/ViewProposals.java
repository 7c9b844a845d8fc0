// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.Graph;
import dev.memplan.ViewMap;
import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.rules.OpRegistry;

/** The import step that proposes views: output 0 of an op the {@link ViewPolicy} names lives in input 0's buffer. */
final class ViewProposals {
    private ViewProposals() {
    }

    /**
     * Adds {@code outputs[0] -> inputs[0]} to {@code views} when the policy makes the node a view
     * and both exist and differ.
     *
     * @param inputs  the node's input value ids ({@link Graph#ABSENT} for an absent one)
     * @param outputs the node's output value ids
     */
    static void propose(ViewPolicy policy, NodeProto node, int[] inputs, int[] outputs, ViewMap.Builder views) {
        if (OpRegistry.isView(policy, node.getDomain(), node.getOpType()) && outputs.length > 0 && inputs.length > 0
                && inputs[0] != Graph.ABSENT && inputs[0] != outputs[0]) {
            views.put(outputs[0], inputs[0]);
        }
    }
}
