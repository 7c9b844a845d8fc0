// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import java.util.HashMap;
import java.util.Map;

/**
 * The in-place facts of the op registry (docs/design.md §3b, rule (a)): which inputs an op's first
 * output may overwrite, each with where it comes from. The facts sit on the ops' {@link OpRegistry}
 * entries ({@link OpInference#registerAll}); the sources they cite are here. The importer gives every
 * node of a listed op that hint; the planner applies it only where rules (b) to (d) hold (equal
 * byte sizes symbolically, the input's last read, no graph input, weight or output), so a
 * broadcast input or a narrowing Cast never gets overwritten.
 *
 * <p>Sources are ONNX Runtime's CPU kernels ({@code MayInplace(input, output)} in their
 * {@code KernelDefBuilder}, which its {@code allocation_planner.cc} honours when the input's use
 * count is one and the sizes match), or the fusion by which ONNX Runtime removes the op's own
 * buffer; memplan's own entries beyond those say so ("memplan's rule"). Softmax and LayerNormalization are not
 * listed: ONNX Runtime's CPU kernels ({@code cpu/math/softmax.cc}, {@code cpu/nn/layer_norm.cc})
 * declare no {@code MayInplace}.
 */
public final class InPlaceOps {
    private InPlaceOps() {
    }

    static final String ACTIVATIONS = "ORT cpu/activation/activations.cc: MayInplace(0, 0)";
    static final String CLIP = "ORT cpu/math/clip.cc: MayInplace(0, 0)";
    static final String FUSED_SUM = "ORT folds a residual Add/Sum into the Conv before it (optimizer/"
            + "nchwc_transformer.cc, conv_add_fusion.cc), whose Sum input the output overwrites: contrib_ops/cpu/"
            + "fused_conv.cc and nchwc_ops.cc MayInplace(3, 0); ORT's own cpu/math/element_wise_ops.cc kernel"
            + " declares none";
    static final String ELEMENTWISE = "memplan's rule (elementwise unary): each element is read before it is"
            + " written; ORT's cpu/math/element_wise_ops.cc kernel declares no MayInplace";
    static final String BATCH_NORM = "ORT fuses an inference BatchNormalization into the Conv before it"
            + " (optimizer/conv_bn_fusion.cc), so it has no buffer of its own; its cpu/nn/batch_norm.cc kernel"
            + " declares no MayInplace";

    /** One entry: the inputs the first output may overwrite, and where that comes from. */
    public record Entry(int[] inputs, String source) {
    }

    /**
     * {@return the entry of {@code opType} in {@code domain}, or null when its output never overwrites an input}
     * Only the default domain is listed.
     *
     * @param domain the node's domain
     * @param opType the node's op type
     */
    public static Entry of(String domain, String opType) {
        OpRegistry.Entry e = OpRegistry.DEFAULT.entry(domain, opType);
        return e == null ? null : e.inPlace();
    }

    /** {@return every entry by op type, for tests and listings} */
    static Map<String, Entry> all() {
        Map<String, Entry> all = new HashMap<>();
        for (OpRegistry.Entry e : OpRegistry.DEFAULT.entries()) {
            if (e.inPlace() != null) {
                all.put(e.opType(), e.inPlace()); // default domain only: Registration.inPlace refuses others
            }
        }
        return Map.copyOf(all);
    }
}
