// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.HashMap;
import java.util.Map;

/**
 * The in-place table of the op registry (docs/design.md §3b, rule (a)): which inputs an op's first
 * output may overwrite, one entry per op, each with where it comes from. The importer gives every
 * node of a listed op that hint; the planner applies it only where rules (b) to (d) hold (equal
 * byte sizes symbolically, the input's last read, no graph input, weight or output), so a
 * broadcast input or a narrowing Cast never gets overwritten.
 *
 * <p>Sources are ONNX Runtime's CPU kernels ({@code MayInplace(input, output)} in their
 * {@code KernelDefBuilder}, which its {@code allocation_planner.cc} honours when the input's use
 * count is one and the sizes match), or the fusion by which ONNX Runtime removes the op's own
 * buffer; entries the issue asks for beyond those say so. Softmax and LayerNormalization are not
 * listed: ONNX Runtime's CPU kernels ({@code cpu/math/softmax.cc}, {@code cpu/nn/layer_norm.cc})
 * declare no {@code MayInplace}.
 */
final class InPlaceOps {
    private InPlaceOps() {
    }

    private static final String ACTIVATIONS = "ORT cpu/activation/activations.cc: MayInplace(0, 0)";
    private static final String CLIP = "ORT cpu/math/clip.cc: MayInplace(0, 0)";
    private static final String FUSED_SUM = "ORT folds a residual Add/Sum into the Conv before it (optimizer/"
            + "nchwc_transformer.cc, conv_add_fusion.cc), whose Sum input the output overwrites: contrib_ops/cpu/"
            + "fused_conv.cc and nchwc_ops.cc MayInplace(3, 0); ORT's own cpu/math/element_wise_ops.cc kernel"
            + " declares none";
    private static final String ELEMENTWISE = "issue 18 (elementwise unary): each element is read before it is"
            + " written; ORT's cpu/math/element_wise_ops.cc kernel declares no MayInplace";
    private static final String BATCH_NORM = "ORT fuses an inference BatchNormalization into the Conv before it"
            + " (optimizer/conv_bn_fusion.cc), so it has no buffer of its own; its cpu/nn/batch_norm.cc kernel"
            + " declares no MayInplace";

    /** One entry: the inputs the first output may overwrite, and where that comes from. */
    record Entry(int[] inputs, String source) {
    }

    private static final Map<String, Entry> TABLE = new HashMap<>();

    private static void add(String op, String source, int... inputs) {
        if (TABLE.putIfAbsent(op, new Entry(inputs, source)) != null) {
            throw new IllegalStateException(op + " is in the in-place table twice");
        }
    }

    static {
        // the activation family
        add("Elu", ACTIVATIONS, 0);
        add("HardSigmoid", ACTIVATIONS, 0);
        add("LeakyRelu", ACTIVATIONS, 0);
        add("Relu", ACTIVATIONS, 0);
        add("Selu", ACTIVATIONS, 0);
        add("Sigmoid", ACTIVATIONS, 0);
        add("Softplus", ACTIVATIONS, 0);
        add("Softsign", ACTIVATIONS, 0);
        add("Tanh", ACTIVATIONS, 0);
        add("ThresholdedRelu", ACTIVATIONS, 0);
        add("Clip", CLIP, 0);
        // elementwise binary and n-ary: whichever input has the output's bytes (rule (d)) and dies here
        add("Add", FUSED_SUM, 0, 1);
        add("Sum", FUSED_SUM, 0, 1, 2, 3, 4, 5, 6, 7);
        add("Sub", "issue 18 (elementwise binary, as Add)", 0, 1);
        add("Mul", "issue 18 (elementwise binary, as Add)", 0, 1);
        add("Div", "issue 18 (elementwise binary, as Add)", 0, 1);
        // elementwise unary
        add("Abs", ELEMENTWISE, 0);
        add("Neg", ELEMENTWISE, 0);
        add("Exp", ELEMENTWISE, 0);
        add("Log", ELEMENTWISE, 0);
        add("Sqrt", ELEMENTWISE, 0);
        add("Reciprocal", ELEMENTWISE, 0);
        add("Erf", ELEMENTWISE, 0);
        add("Floor", ELEMENTWISE, 0);
        add("Ceil", ELEMENTWISE, 0);
        add("Cast", "issue 18 (Cast between equal element widths; rule (d) refuses any other): ORT's"
                + " cpu/tensor/cast_op.cc declares no MayInplace", 0);
        add("BatchNormalization", BATCH_NORM, 0);
        add("Dropout", "ORT removes an inference Dropout (optimizer/dropout_elimination.cc): its output is its"
                + " input", 0);
    }

    /**
     * {@return the entry of {@code opType} in {@code domain}, or null when its output never overwrites an input}
     * Only the default domain is listed.
     *
     * @param domain the node's domain
     * @param opType the node's op type
     */
    static Entry of(String domain, String opType) {
        return OpRegistry.canonicalDomain(domain).isEmpty() ? TABLE.get(opType) : null;
    }

    /** {@return every entry by op type, for tests and listings} */
    static Map<String, Entry> all() {
        return Map.copyOf(TABLE);
    }
}
