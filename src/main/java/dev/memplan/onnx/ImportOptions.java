// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

/**
 * How to import an ONNX model.
 *
 * @param foldConstants whether outputs of deterministic nodes whose inputs are all weights become
 *                      weights themselves (reported as folded bytes)
 *
 * @param viewPolicy    which node outputs are views
 */
public record ImportOptions(boolean foldConstants, ViewPolicy viewPolicy) {
    /**
     * Rejects a null view policy.
     *
     * @param foldConstants whether constant subgraphs become weights
     * @param viewPolicy which op outputs become views
     */
    public ImportOptions {
        if (viewPolicy == null) {
            throw new IllegalArgumentException("viewPolicy must not be null");
        }
    }

    /** {@return fold constants, ONNX Runtime's views} */
    public static ImportOptions defaults() {
        return new ImportOptions(true, ViewPolicy.ORT);
    }

    /**
     * A copy with constant folding on or off.
     *
     * @param fold whether to fold constant subgraphs into weights
     * @return the new options
     */
    public ImportOptions withFoldConstants(boolean fold) {
        return new ImportOptions(fold, viewPolicy);
    }

    /**
     * A copy with another view policy.
     *
     * @param policy which op outputs become views
     * @return the new options
     */
    public ImportOptions withViewPolicy(ViewPolicy policy) {
        return new ImportOptions(foldConstants, policy);
    }
}
