// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import java.util.Map;

/** Inputs of the shared models the server-path tests plan (found with {@link dev.memplan.testing.SharedModels}). */
public final class Models {
    private Models() {
    }

    /** MiniLM's three inputs, all {@code [batch, seq]}. */
    public static Map<String, long[]> miniLmInputs(long batch, long seq) {
        return Map.of("input_ids", new long[] {batch, seq}, "attention_mask", new long[] {batch, seq},
                "token_type_ids", new long[] {batch, seq});
    }
}
