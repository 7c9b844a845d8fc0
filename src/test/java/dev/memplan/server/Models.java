// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/** Shared ONNX models the server-path tests plan; tests skip with a message where they are absent. */
final class Models {
    static final String MINILM = "minilm/all-minilm-l6-v2-q.onnx";
    static final String SILERO = "silero/silero_vad_op18_ifless.onnx";

    private Models() {
    }

    static Path path(String model) {
        Path p = Path.of(System.getProperty("memplan.shared.dir", "../shared"), "models", model);
        Assumptions.assumeTrue(Files.isRegularFile(p), "skipped: no shared model at " + p.toAbsolutePath()
                + " (set -Dmemplan.shared.dir to the folder holding models/)");
        return p;
    }

    /** MiniLM's three inputs, all {@code [batch, seq]}. */
    static Map<String, long[]> miniLmInputs(long batch, long seq) {
        return Map.of("input_ids", new long[] {batch, seq}, "attention_mask", new long[] {batch, seq},
                "token_type_ids", new long[] {batch, seq});
    }
}
