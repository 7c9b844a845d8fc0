// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import java.util.List;

/**
 * One op whose output shapes the importer infers.
 *
 * @param domain       the op's domain; {@code ""} is the default ONNX domain ({@code ai.onnx})
 * @param opType       the op type, as in a node's {@code op_type}
 * @param sinceVersion the first opset version of the domain the op is listed for; listing-only:
 *                     the importer applies the op's rule at any opset (docs/design.md, the op registry)
 * @param lastVersion  the last opset version it exists in, or {@link #CURRENT} when it still does
 */
public record OnnxOp(String domain, String opType, int sinceVersion, int lastVersion) {
    /** {@link #lastVersion()} of an op the latest opset still has. */
    public static final int CURRENT = Integer.MAX_VALUE;

    /**
     * {@return every op the importer infers shapes for, by domain then op type} Control flow
     * ({@code If}, {@code Loop}, {@code Scan}) and {@code Constant} are imported by the importer
     * itself and are listed by {@link #importedByStructure()}.
     */
    public static List<OnnxOp> supported() {
        return OpRegistry.DEFAULT.entries().stream()
                .map(e -> new OnnxOp(e.domain(), e.opType(), e.sinceVersion(), e.lastVersion())).toList();
    }

    /**
     * {@return the default-domain ops the importer handles itself rather than by a shape rule}
     * Constant becomes a weight; If, Loop and Scan have their bodies imported as graphs.
     */
    public static List<OnnxOp> importedByStructure() {
        return OpRegistry.DEFAULT.structural().stream()
                .map(e -> new OnnxOp(e.domain(), e.opType(), e.sinceVersion(), e.lastVersion())).toList();
    }

    /** {@return the domain as users write it: {@code ai.onnx} for the default domain} */
    public String domainName() {
        return domain.isEmpty() ? "ai.onnx" : domain;
    }

    /** {@return the opset range as text: {@code "1+"}, or {@code "1-9"} for an op since removed} */
    public String versions() {
        return lastVersion == CURRENT ? sinceVersion + "+" : sinceVersion + "-" + lastVersion;
    }
}
