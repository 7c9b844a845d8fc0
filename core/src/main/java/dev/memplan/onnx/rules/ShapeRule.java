// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.symbols.TensorInfo;
import java.util.function.Function;

/**
 * The shape inference of one op: given what {@code c} knows of the node's inputs and attributes,
 * writes what it can of each output into {@code out} (one slot per output of the node, left null
 * when unknown). The one signature every registered op has; see {@link OpRegistry}.
 */
@FunctionalInterface
public interface ShapeRule {
    /**
     * Infers the node's outputs.
     *
     * @param c   the node as inference sees it
     * @param out one slot per node output, all null on entry
     */
    void infer(InferenceContext c, TensorInfo[] out);

    /** A rule for ops whose only inferred output is the first one. */
    static ShapeRule firstOutput(Function<InferenceContext, TensorInfo> f) {
        return (c, out) -> {
            if (out.length > 0) {
                out[0] = f.apply(c);
            }
        };
    }
}
