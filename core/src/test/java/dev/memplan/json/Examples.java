// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The graphs kept in {@code examples/} (tests run from the project directory). */
public final class Examples {
    public static final Path DIR = Path.of("examples");
    /** Binds every symbol the examples use. */
    public static final Map<String, Long> BINDINGS = Map.of("batch", 2L, "seq", 128L);

    private Examples() {
    }

    public static List<Path> all() {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path get(String name) {
        return DIR.resolve(name);
    }
}
