// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.Set;

/**
 * Which node outputs are views of their input 0 (own no buffer), by the view kind of the op's
 * registry entry. The planning core never hard-codes op names; this policy proposes the view map
 * for ONNX graphs.
 */
public enum ViewPolicy {
    /** What ONNX Runtime aliases: Reshape, Flatten, Squeeze, Unsqueeze, Identity. */
    ORT(Set.of(OpRegistry.ViewKind.ALIAS)),
    /** ORT's views plus the strided ones an executor with strides can alias: Slice, Transpose, Expand. */
    STRIDED(Set.of(OpRegistry.ViewKind.ALIAS, OpRegistry.ViewKind.STRIDED)),
    /** Every node output owns its buffer. */
    NONE(Set.of());

    private final Set<OpRegistry.ViewKind> kinds;

    ViewPolicy(Set<OpRegistry.ViewKind> kinds) {
        this.kinds = kinds;
    }

    /**
     * {@return whether output 0 of an {@code opType} node is a view of its input 0} Only
     * default-domain ops are views.
     *
     * @param domain the op's domain
     * @param opType the op type
     */
    public boolean isView(String domain, String opType) {
        OpRegistry.Entry e = OpRegistry.DEFAULT.entry(domain, opType);
        return e != null && kinds.contains(e.view());
    }

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
