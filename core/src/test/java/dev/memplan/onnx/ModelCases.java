// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Per shared model: small symbol bindings and the values ONNX Runtime's inputs need to run. */
public final class ModelCases {
    private ModelCases() {
    }

    /**
     * One model family's bindings: small ones for tests, and the README's (the sizes whose plan
     * quality the README reports).
     */
    private record Bindings(Predicate<String> model, Map<String, Long> test, Map<String, Long> readme) {
    }

    private static final List<Bindings> TABLE = List.of(
            new Bindings(m -> m.startsWith("minilm/"), Map.of("batch_size", 2L, "sequence_length", 7L),
                    Map.of("batch_size", 1L, "sequence_length", 128L)),
            new Bindings(m -> m.startsWith("ort-genai/"),
                    Map.of("batch_size", 2L, "seq_len", 3L, "past_seq_len", 4L, "total_seq_len", 7L),
                    Map.of("batch_size", 4L, "seq_len", 128L, "past_seq_len", 896L, "total_seq_len", 1024L)),
            new Bindings(m -> m.startsWith("silero/"), Map.of("batch", 2L, "sequence", 512L),
                    Map.of("batch", 1L, "sequence", 512L)),
            new Bindings(m -> m.contains("super_resolution"), Map.of("batch_size", 2L), Map.of("batch_size", 1L)),
            // the body slices one element per iteration: x[i:i+1]
            new Bindings(m -> m.contains("test_loop11"), Map.of("slice_out_slice_d0", 1L),
                    Map.of("slice_out_slice_d0", 5L)));

    /** Small bindings for tests of {@code model} (a path relative to the models folder). */
    public static Map<String, Long> bindings(String model) {
        return TABLE.stream().filter(b -> b.model().test(model)).findFirst().map(Bindings::test).orElse(Map.of());
    }

    /** The README's bindings for {@code model}. */
    static Map<String, Long> readmeBindings(String model) {
        return TABLE.stream().filter(b -> b.model().test(model)).findFirst().map(Bindings::readme).orElse(Map.of());
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
