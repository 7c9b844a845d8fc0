// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The two engines are one program written twice, file for file (docs/design.md, "the engines' file
 * pairs"): every C++ header of the core has a Java class of the same name in
 * {@code dev.memplan.engine}, and no engine source file grows past what one reader can hold.
 */
@EngineIndependent
class EngineFilePairsTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final Path CPP = ROOT.resolve("core/src/main/cpp");
    private static final Path JAVA = ROOT.resolve("core/src/main/java/dev/memplan/engine");
    private static final int MAX_LINES = 600;

    /** The umbrella, and the headers whose job only C++ has (design.md says why for each). */
    private static final Set<String> CPP_ONLY = Set.of(
            "memplan_core.h", "abi.h", "buffers.h", "offsets_scratch.h", "packed_schedule.h",
            "request_sizes.h");

    @Test
    void everyCoreHeaderHasAJavaClassOfTheSameName() throws IOException {
        Set<String> missing = new TreeSet<>();
        List<Path> headers = list(CPP, ".h");
        assertTrue(headers.size() > 10, "expected the core's headers under " + CPP + ", found " + headers.size());
        for (Path h : headers) {
            String header = h.getFileName().toString();
            if (!CPP_ONLY.contains(header) && !Files.exists(JAVA.resolve(javaName(header)))) {
                missing.add(header + " -> " + javaName(header));
            }
        }
        assertEquals(Set.of(), missing, "C++ headers without their Java pair; add the class or list the header"
                + " as C++ only here and in docs/design.md");
    }

    @Test
    void theCppOnlyHeadersExist() {
        for (String header : CPP_ONLY) { // a stale exemption would hide a missing pair
            assertTrue(Files.exists(CPP.resolve(header)), header + " is listed as C++ only but does not exist");
        }
    }

    @Test
    void noEngineSourceFileIsOverSixHundredLines() throws IOException {
        Set<String> tooLong = new TreeSet<>();
        for (Path f : Stream.concat(list(CPP, ".h").stream(), list(JAVA, ".java").stream()).toList()) {
            long lines;
            try (Stream<String> s = Files.lines(f)) {
                lines = s.count();
            }
            if (lines > MAX_LINES) {
                tooLong.add(ROOT.relativize(f) + " (" + lines + " lines)");
            }
        }
        assertEquals(Set.of(), tooLong, "engine files over " + MAX_LINES + " lines: split by phase");
    }

    @Test
    void javaNamesFollowTheHeaders() {
        assertEquals("FreeSlotSet.java", javaName("free_slot_set.h"));
        assertEquals("Compile.java", javaName("compile.h"));
    }

    /** {@code free_slot_set.h} -> {@code FreeSlotSet.java}. */
    private static String javaName(String header) {
        StringBuilder out = new StringBuilder();
        for (String part : header.substring(0, header.length() - 2).split("_")) {
            out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return out.append(".java").toString();
    }

    private static List<Path> list(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }
}
