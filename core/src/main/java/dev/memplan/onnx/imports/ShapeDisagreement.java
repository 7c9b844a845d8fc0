// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.Shape;

/**
 * A value whose shape in the model's value_info differs from what shape inference derived. The
 * importer uses the declared shape, as the model says; this records the difference.
 *
 * @param valueName the ONNX value name
 * @param declared  the shape from value_info
 * @param inferred  the shape inference derived
 * @param detail    what differs
 */
public record ShapeDisagreement(String valueName, Shape declared, Shape inferred, String detail) {
    @Override
    public String toString() {
        return "'" + valueName + "': value_info says " + declared + ", inference says " + inferred + " (" + detail + ")";
    }
}
