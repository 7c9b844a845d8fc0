// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** The real ONNX models of ../shared/models; tests skip with a message where the folder is absent. */
final class SharedModels {
    private SharedModels() {
    }

    static Path dir() {
        String shared = System.getProperty("memplan.shared.dir", "../shared");
        return Path.of(shared, "models");
    }

    static boolean present() {
        return Files.isDirectory(dir());
    }

    static void assumePresent() {
        Assumptions.assumeTrue(present(), "skipped: no shared models at " + dir().toAbsolutePath()
                + " (set -Dmemplan.shared.dir to the folder holding models/)");
    }

    /** Every .onnx file, as a path relative to the models folder, sorted; empty when absent. */
    static List<String> all() {
        if (!present()) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(dir())) {
            return s.filter(p -> p.toString().endsWith(".onnx")).map(p -> dir().relativize(p).toString())
                    .sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The models as test parameters: when the folder is absent, one placeholder, so a
     * parameterized test runs once and skips with {@link #assumePresent()}'s message instead of
     * failing for want of arguments.
     */
    static List<String> forParameters() {
        return present() ? all() : List.of("(no shared models)");
    }

    static Path path(String relative) {
        return dir().resolve(relative);
    }
}
