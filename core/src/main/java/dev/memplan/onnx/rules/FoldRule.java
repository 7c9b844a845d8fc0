// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.read.DenseTensor;
import dev.memplan.onnx.symbols.TensorInfo;

/**
 * The constant fold of one op: output 0 with its values when the node's inputs are small known
 * constants, else null (the importer then keeps what inference said). Registered with the op in
 * {@link OpRegistry}; {@link ConstantFolder} holds the folds and runs the registered one.
 */
@FunctionalInterface
interface FoldRule {
    /**
     * Folds the node.
     *
     * @param c        the node as inference sees it
     * @param inferred what shape inference made of output 0 (gives the shape of pure reshapes)
     * @return output 0 with its values, or null
     */
    TensorInfo fold(InferenceContext c, TensorInfo inferred);

    /** A fold of the node's dense input 0, which must be fully known. */
    @FunctionalInterface
    interface OfInput {
        /** {@return output 0 as a dense tensor, or null} */
        DenseTensor fold(InferenceContext c, DenseTensor x, TensorInfo inferred);
    }

    /** {@return a fold that runs {@code f} when input 0 is fully known} */
    static FoldRule ofInput(OfInput f) {
        return (c, inferred) -> {
            DenseTensor x = DenseTensor.of(c.input(0));
            DenseTensor out = x == null ? null : f.fold(c, x, inferred);
            return out == null ? null : out.toInfo();
        };
    }
}
