// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.Node;
import java.util.Map;
import java.util.Set;

/**
 * What ONNX Runtime's CPU kernels declare to its allocation planner: which output must share an
 * input ({@code Alias}) and which may overwrite one ({@code MayInplace}). The in-place list is the
 * one {@code benchmarks/ort/inplace-probe.py} measured (docs/ort-runtime.md, section 1); every
 * other kernel gets its own buffer or one from the freelist.
 */
final class OrtKernels {
    /** {@code MayInplace(0, 0)} kernels of the default domain (activations.cc, Softmax, Cast). */
    private static final Set<String> IN_PLACE = Set.of("Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "HardSigmoid",
            "Softplus", "Clip", "Cast", "Softmax", "LogSoftmax");
    /** Output 0 must share input 0. */
    private static final Set<String> ALIAS = Set.of("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity");
    /** {@code MayInplace(3, 0)}: the NCHWc / fused Conv's residual Sum input (level all graphs). */
    private static final Map<String, Integer> IN_PLACE_INPUT = Map.of("com.microsoft.nchwc/Conv", 3,
            "com.microsoft/FusedConv", 3);

    private OrtKernels() {
    }

    /** {@return whether the node's outputs alias its first input} */
    static boolean isAlias(Node node) {
        return ALIAS.contains(node.opType()) && isDefaultDomain(node);
    }

    /** {@return the input position the node may overwrite with its output, or -1} */
    static int inPlaceInput(Node node) {
        Integer at = IN_PLACE_INPUT.get(node.domain() + "/" + node.opType());
        if (at != null) {
            return at;
        }
        return IN_PLACE.contains(node.opType()) && isDefaultDomain(node) ? 0 : -1;
    }

    static boolean isDefaultDomain(Node node) {
        return node.domain() == null || node.domain().isEmpty() || node.domain().equals("ai.onnx");
    }
}
