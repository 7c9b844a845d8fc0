// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

/**
 * How to import an ONNX model.
 *
 * @param foldConstants  whether outputs of deterministic nodes whose inputs are all weights become
 *                       weights themselves (reported as folded bytes)
 * @param viewPolicy     which node outputs are views
 * @param nchwcBlockSize the channel block of ONNX Runtime's {@code com.microsoft.nchwc} layout in
 *                       graphs it saved at level all: 16 where its CPU has AVX-512, 8 with AVX2
 *                       only (a saved graph's nchwc Conv weights have a multiple of it as first dim)
 */
public record ImportOptions(boolean foldConstants, ViewPolicy viewPolicy, int nchwcBlockSize) {
    /** ONNX Runtime's NCHWc block on an AVX-512 machine. */
    public static final int DEFAULT_NCHWC_BLOCK = 16;

    /**
     * Rejects a null view policy and a block size other than 8 or 16 (or 4, ORT's block on Arm).
     *
     * @param foldConstants  whether constant subgraphs become weights
     * @param viewPolicy     which op outputs become views
     * @param nchwcBlockSize ORT's NCHWc channel block
     */
    public ImportOptions {
        if (viewPolicy == null) {
            throw new IllegalArgumentException("viewPolicy must not be null");
        }
        if (nchwcBlockSize != 4 && nchwcBlockSize != 8 && nchwcBlockSize != 16) {
            throw new IllegalArgumentException("nchwcBlockSize must be 4, 8 or 16 (ONNX Runtime's block sizes), got "
                    + nchwcBlockSize);
        }
    }

    /**
     * Options with the default NCHWc block size.
     *
     * @param foldConstants whether constant subgraphs become weights
     * @param viewPolicy    which op outputs become views
     */
    public ImportOptions(boolean foldConstants, ViewPolicy viewPolicy) {
        this(foldConstants, viewPolicy, DEFAULT_NCHWC_BLOCK);
    }

    /** {@return fold constants, ONNX Runtime's views, NCHWc block 16} */
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
        return new ImportOptions(fold, viewPolicy, nchwcBlockSize);
    }

    /**
     * A copy with another view policy.
     *
     * @param policy which op outputs become views
     * @return the new options
     */
    public ImportOptions withViewPolicy(ViewPolicy policy) {
        return new ImportOptions(foldConstants, policy, nchwcBlockSize);
    }

    /**
     * A copy with another NCHWc block size.
     *
     * @param block 16 (AVX-512), 8 (AVX2) or 4 (Arm)
     * @return the new options
     */
    public ImportOptions withNchwcBlockSize(int block) {
        return new ImportOptions(foldConstants, viewPolicy, block);
    }

    /**
     * Which node outputs are views of their input 0 (own no buffer), by the view kind of the op's
     * registry entry. The planning core never hard-codes op names; this policy proposes the view map
     * for ONNX graphs.
     */
    public enum ViewPolicy {
        /** What ONNX Runtime aliases: Reshape, Flatten, Squeeze, Unsqueeze, Identity. */
        ORT,
        /** ORT's views plus the strided ones an executor with strides can alias: Slice, Transpose, Expand. */
        STRIDED,
        /** Every node output owns its buffer. */
        NONE;

        /**
         * {@return the policy for a command-line name: {@code ort}, {@code strided} or {@code none}}
         *
         * @param name {@code ort}, {@code strided} or {@code none}
         */
        public static ViewPolicy fromName(String name) {
            for (ViewPolicy p : values()) {
                if (p.name().equalsIgnoreCase(name)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown view policy '" + name + "'; use ort, strided or none");
        }
    }
}
