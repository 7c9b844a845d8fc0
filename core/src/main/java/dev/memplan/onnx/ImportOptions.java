// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How to import an ONNX model.
 *
 * @param foldConstants  whether outputs of deterministic nodes whose inputs are all weights become
 *                       weights themselves (reported as folded bytes)
 * @param viewPolicy     which node outputs are views
 * @param nchwcBlockSize the channel block of ONNX Runtime's {@code com.microsoft.nchwc} layout in
 *                       graphs it saved at level all: 16 where its CPU has AVX-512, 8 with AVX2
 *                       only (a saved graph's nchwc Conv weights have a multiple of it as first dim)
 * @param inputDims      dims to give graph inputs instead of those the file declares, by input
 *                       name: each a whole number (a fixed extent), {@code ?} (unnamed: inference
 *                       or a fresh symbol fills it) or a symbol name; for exporters that got a
 *                       name wrong, such as one symbol on two dims ONNX Runtime sizes apart
 *                       (see {@link #withInputDims})
 */
public record ImportOptions(boolean foldConstants, ViewPolicy viewPolicy, int nchwcBlockSize,
                            Map<String, List<String>> inputDims) {
    /** ONNX Runtime's NCHWc block on an AVX-512 machine. */
    public static final int DEFAULT_NCHWC_BLOCK = 16;

    /** The dim of {@link #inputDims} that leaves a dim unnamed. */
    public static final String UNNAMED_DIM = "?";

    /**
     * Rejects a null view policy, a block size other than 8 or 16 (or 4, ORT's block on Arm), and
     * an input dim that is blank, negative or null.
     *
     * @param foldConstants  whether constant subgraphs become weights
     * @param viewPolicy     which op outputs become views
     * @param nchwcBlockSize ORT's NCHWc channel block
     * @param inputDims      dims by input name, replacing the declared ones (null: none)
     */
    public ImportOptions {
        if (viewPolicy == null) {
            throw new IllegalArgumentException("viewPolicy must not be null");
        }
        if (nchwcBlockSize != 4 && nchwcBlockSize != 8 && nchwcBlockSize != 16) {
            throw new IllegalArgumentException("nchwcBlockSize must be 4, 8 or 16 (ONNX Runtime's block sizes), got "
                    + nchwcBlockSize);
        }
        inputDims = checkedInputDims(inputDims);
    }

    /**
     * Options that keep the inputs' declared dims.
     *
     * @param foldConstants  whether constant subgraphs become weights
     * @param viewPolicy     which op outputs become views
     * @param nchwcBlockSize ORT's NCHWc channel block
     */
    public ImportOptions(boolean foldConstants, ViewPolicy viewPolicy, int nchwcBlockSize) {
        this(foldConstants, viewPolicy, nchwcBlockSize, Map.of());
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
        return new ImportOptions(fold, viewPolicy, nchwcBlockSize, inputDims);
    }

    /**
     * A copy with another view policy.
     *
     * @param policy which op outputs become views
     * @return the new options
     */
    public ImportOptions withViewPolicy(ViewPolicy policy) {
        return new ImportOptions(foldConstants, policy, nchwcBlockSize, inputDims);
    }

    /**
     * A copy with another NCHWc block size.
     *
     * @param block 16 (AVX-512), 8 (AVX2) or 4 (Arm)
     * @return the new options
     */
    public ImportOptions withNchwcBlockSize(int block) {
        return new ImportOptions(foldConstants, viewPolicy, block, inputDims);
    }

    /**
     * A copy that gives these graph inputs these dims instead of the declared ones, as if the file
     * declared them: {@code input_ids -> [batch, seq]} where an exporter wrote {@code [batch, batch]}.
     * Declarations of intermediate values and outputs that name a symbol the new dims took off an
     * input are dropped, and inference says what those dims are. The import refuses an input the
     * model does not have, or a list whose length is not the input's declared rank
     * ({@link InputDimsException}).
     *
     * @param dims input name to its dims, each a whole number, {@code ?} or a symbol name; replaces
     *             the dims given before
     * @return the new options
     * @throws IllegalArgumentException naming the input when a dim is blank or negative
     */
    public ImportOptions withInputDims(Map<String, List<String>> dims) {
        return new ImportOptions(foldConstants, viewPolicy, nchwcBlockSize, dims);
    }

    /** An unmodifiable copy in the caller's order, every dim checked. */
    private static Map<String, List<String>> checkedInputDims(Map<String, List<String>> dims) {
        if (dims == null || dims.isEmpty()) {
            return Map.of();
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : dims.entrySet()) {
            String input = e.getKey();
            if (input == null || e.getValue() == null) {
                throw new IllegalArgumentException("input dims name a null input or give an input null dims; give"
                        + " each input's name and its list of dims");
            }
            List<String> list = new ArrayList<>();
            for (String d : e.getValue()) {
                list.add(checkedDim(input, d));
            }
            out.put(input, Collections.unmodifiableList(list));
        }
        return Collections.unmodifiableMap(out);
    }

    private static String checkedDim(String input, String dim) {
        if (dim == null || dim.isBlank()) {
            throw new IllegalArgumentException("input '" + input + "' is given a " + (dim == null ? "null" : "blank")
                    + " dim; give a whole number, " + UNNAMED_DIM + " or a symbol name");
        }
        if (isExtent(dim) || dim.startsWith("-") && isExtent(dim.substring(1))) {
            long extent;
            try {
                extent = Long.parseLong(dim);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("input '" + input + "' dim " + dim + " is too large; a fixed"
                        + " extent is a whole number up to " + Long.MAX_VALUE, e);
            }
            if (extent < 0) {
                throw new IllegalArgumentException("input '" + input + "' is given dim " + dim
                        + "; a fixed extent is >= 0 (write " + UNNAMED_DIM + " for a dim of unknown size)");
            }
        }
        return dim;
    }

    /**
     * Whether an input dim of {@link #inputDims} is a fixed extent (all digits) rather than
     * {@code ?} or a symbol name.
     *
     * @param dim a dim as given
     * @return true for a whole number
     */
    public static boolean isExtent(String dim) {
        if (dim.isEmpty()) {
            return false;
        }
        for (int i = 0; i < dim.length(); i++) {
            if (dim.charAt(i) < '0' || dim.charAt(i) > '9') {
                return false;
            }
        }
        return true;
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
