// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.rules.OpRegistry;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.List;
import java.util.Set;

/**
 * The import step that decides whether a node is folded: computed at import time, its outputs
 * become weights and the node leaves the plan. A node folds when it is deterministic, has no
 * bodies, reads only weights and has static output shapes; an op whose registry entry says its
 * value follows from its input's shape (Shape, Size) folds whenever that value is known.
 */
final class FoldDecision {
    /** Ops never folded: their outputs differ run to run. */
    private static final Set<String> NONDETERMINISTIC = Set.of(
            "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli");

    private FoldDecision() {
    }

    /** Whether {@code node}, whose outputs inference found to be {@code outs}, folds. */
    static boolean foldable(NodeProto node, List<TensorInfo> outs, ValueTable values) {
        if (!Nodes.isDefaultDomain(node) || NONDETERMINISTIC.contains(node.getOpType())
                || !Attrs.subgraphs(node).isEmpty() || node.getOutputCount() == 0) {
            return false;
        }
        OpRegistry.Entry entry = OpRegistry.DEFAULT.entry(node.getDomain(), node.getOpType());
        if (entry != null && entry.valueFromShape()) {
            // the output is known from the input's shape alone
            return !outs.isEmpty() && outs.get(0) != null && outs.get(0).ints != null
                    && outs.get(0).constInts() != null;
        }
        boolean any = false;
        for (String in : node.getInputList()) {
            if (in.isEmpty()) {
                continue;
            }
            if (!values.isWeight(in)) {
                return false;
            }
            any = true;
        }
        if (!any) {
            return false;
        }
        for (TensorInfo t : outs) {
            if (t != null && !t.isStaticShape()) {
                return false;
            }
        }
        return true;
    }
}
