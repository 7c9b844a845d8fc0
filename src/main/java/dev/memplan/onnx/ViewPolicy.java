// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.Set;

/**
 * Which node outputs are views of their input 0 (own no buffer), by op type. The planning core
 * never hard-codes op names; this policy proposes the view map for ONNX graphs.
 */
public enum ViewPolicy {
    /** What ONNX Runtime aliases: Reshape, Flatten, Squeeze, Unsqueeze, Identity. */
    ORT(Set.of("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity")),
    /** ORT's views plus the strided ones an executor with strides can alias: Slice, Transpose, Expand. */
    STRIDED(Set.of("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Slice", "Transpose", "Expand")),
    /** Every node output owns its buffer. */
    NONE(Set.of());

    private final Set<String> viewOps;

    ViewPolicy(Set<String> viewOps) {
        this.viewOps = viewOps;
    }

    /**
     * {@return whether output 0 of a default-domain {@code opType} node is a view of its input 0}
     *
     * @param domain the op's domain
     * @param opType the op type
     */
    public boolean isView(String domain, String opType) {
        return (domain.isEmpty() || domain.equals("ai.onnx")) && viewOps.contains(opType);
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
