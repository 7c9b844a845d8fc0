// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every source file of the project names its licence in an SPDX line near the top, and the
 * licence files the pom points to exist. {@code scripts/add-spdx.sh} adds missing lines.
 */
@EngineIndependent
class LicenseHeaderTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final String SPDX = "SPDX-License-Identifier: Apache-2.0";

    @Test
    void everySourceFileHasTheSpdxLine() throws IOException {
        List<Path> files = sourceFiles();
        // guards against walking the wrong folder and passing on nothing
        assertTrue(files.size() > 100, "expected the project's sources under " + ROOT + ", found " + files.size());
        List<String> missing = new ArrayList<>();
        for (Path f : files) {
            if (!hasSpdxLine(f)) {
                missing.add(ROOT.relativize(f).toString());
            }
        }
        assertEquals(List.of(), missing, "files without '" + SPDX + "' in their first 5 lines: run scripts/add-spdx.sh");
    }

    @Test
    void licenceFilesArePresent() throws IOException {
        assertTrue(Files.readString(ROOT.resolve("LICENSE")).contains("Apache License"), "LICENSE must hold Apache-2.0");
        assertTrue(Files.readString(ROOT.resolve("NOTICE")).contains("memplan"), "NOTICE must name the project");
    }

    @Test
    void detectsAFileWithoutTheLine(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path bare = Files.writeString(dir.resolve("Bare.java"), "package x;\nclass Bare {}\n");
        Path script = Files.writeString(dir.resolve("s.sh"), "#!/usr/bin/env bash\n# " + SPDX + "\necho hi\n");
        assertTrue(!hasSpdxLine(bare), "a file without the line must be reported");
        assertTrue(hasSpdxLine(script), "the line after a shebang counts");
    }

    static boolean hasSpdxLine(Path file) throws IOException {
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.limit(5).anyMatch(l -> l.contains(SPDX));
        }
    }

    /** .java, .h, .cpp and shell scripts of the project, outside build output. */
    private static List<Path> sourceFiles() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(ROOT)) {
            s.filter(Files::isRegularFile)
                    .filter(p -> !isBuildOutput(ROOT.relativize(p)))
                    .filter(LicenseHeaderTest::isSource)
                    .forEach(out::add);
        }
        return out;
    }

    private static boolean isBuildOutput(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.equals("target") || name.equals(".git")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSource(Path p) {
        String name = p.getFileName().toString();
        if (name.endsWith(".java") || name.endsWith(".h") || name.endsWith(".cpp") || name.endsWith(".sh")) {
            return true;
        }
        try (Stream<String> lines = Files.lines(p, StandardCharsets.UTF_8)) {
            return lines.limit(1).anyMatch(l -> l.matches("^#!.*\\b(ba)?sh\\b.*"));
        } catch (IOException | java.io.UncheckedIOException e) {
            return false; // binary files (models, jars) are not sources
        }
    }
}
