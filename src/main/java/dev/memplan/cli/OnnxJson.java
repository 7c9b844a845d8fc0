// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.onnx.OnnxPlan;
import dev.memplan.onnx.OnnxReport;

/**
 * The plan JSON of an ONNX model: the plan object every graph gets, with an {@code "onnx"} field
 * added: per-owner ONNX names, symbolic and bound shapes, weights, symbols, control flow and the
 * admission figure.
 */
final class OnnxJson {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private OnnxJson() {
    }

    static String extend(String planJson, OnnxPlan plan) {
        try {
            ObjectNode root = (ObjectNode) MAPPER.readTree(planJson);
            root.set("onnx", OnnxReport.toJson(plan));
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the plan JSON memplan wrote does not parse", e);
        }
    }
}
