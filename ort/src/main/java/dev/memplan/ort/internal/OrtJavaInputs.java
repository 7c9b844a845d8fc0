// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;

/**
 * What ONNX Runtime Java can feed a model: {@code OrtSession.run} takes tensors (dense or sparse)
 * only, and ORT Java has no way to make a sequence or an optional value. A model with such an
 * input runs in ORT's Python or C API, never in a JVM, so its ORT prediction is refused, saying
 * so, rather than for a size memplan cannot give it. The graph ORT saved is checked: it keeps the
 * inputs' types, and it is read anyway.
 */
final class OrtJavaInputs {
    private OrtJavaInputs() {
    }

    /**
     * Refuses a graph that has an input ORT Java cannot feed.
     *
     * @param graph the model's main graph
     * @throws MemplanException naming the first such input and its kind
     */
    static void requireFeedable(GraphProto graph) {
        for (ValueInfoProto input : graph.getInputList()) {
            String kind = unfeedable(input.getType());
            if (kind != null) {
                throw new MemplanException("input '" + input.getName() + "' is " + kind + ", which ONNX Runtime Java"
                        + " cannot feed (OrtSession.run takes tensors only), so no JVM runs this model in ONNX"
                        + " Runtime; use the memplan runtime for it");
            }
        }
    }

    /** {@return what a value of {@code type} is, where ORT Java cannot feed it; else null} */
    private static String unfeedable(TypeProto type) {
        return switch (type.getValueCase()) {
            case SEQUENCE_TYPE -> "a sequence";
            case OPTIONAL_TYPE -> "an optional value";
            default -> null; // a tensor, a sparse tensor, or a type memplan's ONNX schema does not name (a map): ORT decides
        };
    }
}
