// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * The few node attributes the workspace rules read (a memplan {@code Graph} keeps op types but no
 * attributes): Conv's {@code strides}, {@code pads} and {@code group}, LRN's {@code size},
 * Softmax's {@code axis}, LSTM's {@code direction}, and the model's default-domain opset.
 */
interface NodeAttributes {
    /** {@return whether the node's attributes are known (else an absent attribute may just be unknown)} */
    boolean known(int nodeId);

    /** {@return an integer attribute of node {@code nodeId}, empty when absent} */
    OptionalLong integer(int nodeId, String name);

    /** {@return an integer-list attribute of node {@code nodeId}, empty when absent} */
    Optional<long[]> integers(int nodeId, String name);

    /** {@return a string attribute of node {@code nodeId} (UTF-8), empty when absent or unknown} */
    default Optional<String> string(int nodeId, String name) {
        return Optional.empty();
    }

    /**
     * {@return whether the ONNX node gives its output {@code onnxIndex} (an empty name leaves it out;
     * memplan's node lists only the outputs given, so its indices shift past a left-out one), empty
     * when unknown}
     */
    default Optional<Boolean> givesOutput(int nodeId, int onnxIndex) {
        return Optional.empty();
    }

    /** {@return the model's default-domain opset, or empty when unknown} */
    OptionalLong opset();

    /** {@return attributes nobody knows: every rule that needs one falls back to a bound} */
    static NodeAttributes none() {
        return new NodeAttributes() {
            @Override
            public boolean known(int nodeId) {
                return false;
            }

            @Override
            public OptionalLong integer(int nodeId, String name) {
                return OptionalLong.empty();
            }

            @Override
            public Optional<long[]> integers(int nodeId, String name) {
                return Optional.empty();
            }

            @Override
            public OptionalLong opset() {
                return OptionalLong.empty();
            }
        };
    }
}
