// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.Map;

/** Per shared model: small symbol bindings and the values ONNX Runtime's inputs need to run. */
final class ModelCases {
    private ModelCases() {
    }

    static Map<String, Long> bindings(String model) {
        if (model.startsWith("minilm/")) {
            return Map.of("batch_size", 2L, "sequence_length", 7L);
        }
        if (model.startsWith("ort-genai/")) {
            return Map.of("batch_size", 2L, "seq_len", 3L, "past_seq_len", 4L, "total_seq_len", 7L);
        }
        if (model.startsWith("silero/")) {
            return Map.of("batch", 2L, "sequence", 512L);
        }
        if (model.contains("super_resolution")) {
            return Map.of("batch_size", 2L);
        }
        if (model.contains("test_loop11")) {
            // the body slices one element per iteration: x[i:i+1]
            return Map.of("slice_out_slice_d0", 1L);
        }
        return Map.of();
    }

    /** The value every element of graph input {@code name} gets when ONNX Runtime runs the model. */
    static double inputFill(String model, String input) {
        if (model.startsWith("silero/") && input.equals("sr")) {
            return 16000;
        }
        if (model.contains("test_loop11") && input.equals("trip_count")) {
            return 5;
        }
        return 1;
    }
}
