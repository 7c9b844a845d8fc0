// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.json.GraphJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The demo's model: GPT-2 small as a graph file inside the jar. The synthetic generators are test
 * code (the test-jar), not API; this file is what {@code TransformerGenerator.gpt2Small()} builds,
 * written once, and {@code DemoCommandTest} holds the two equal.
 */
final class DemoDecoder {
    /** The resource, beside this class. */
    static final String RESOURCE = "gpt2-small-decoder.json";
    /** The dimensions, as the table's title names them. */
    static final String DESCRIPTION = "layers=12, hidden=768, heads=12, mlpRatio=4, vocab=50257";
    /** The symbols a request binds. */
    static final String BATCH = "batch";
    static final String SEQUENCE = "seq";

    private DemoDecoder() {
    }

    /** {@return the graph and its views} */
    static GraphJson.GraphFile load() {
        try (InputStream in = DemoDecoder.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the demo model " + RESOURCE + " is missing from the jar; rebuild it");
            }
            try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                return GraphJson.read(reader);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the demo model " + RESOURCE + ": " + e.getMessage(), e);
        }
    }

    /** {@return the bindings of one request} */
    static Map<String, Long> bindings(long batch, long seq) {
        return Map.of(BATCH, batch, SEQUENCE, seq);
    }
}
