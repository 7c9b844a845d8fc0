// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No loop between the files of the planning core: the API package {@code dev.memplan} and the
 * engines {@code dev.memplan.engine}. A file depends on another of its package when its code (not
 * its comments or strings) names that file's type; a loop means neither can be read, changed or
 * tested without the other. Javadoc links may point anywhere.
 */
@EngineIndependent
class CoreFileLoopsTest {
    static final List<Path> CORE = List.of(Path.of("core/src/main/java/dev/memplan"),
            Path.of("core/src/main/java/dev/memplan/engine"));

    /** Each file's type name to the same-package type names its code names. */
    static Map<String, TreeSet<String>> references(Path dir) throws IOException {
        Map<String, String> code = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String name = f.getFileName().toString().replace(".java", "");
                if (!name.equals("package-info")) {
                    code.put(name, SourceGraph.code(Files.readString(f)));
                }
            }
        }
        Map<String, TreeSet<String>> refs = new TreeMap<>();
        for (Map.Entry<String, String> e : code.entrySet()) {
            TreeSet<String> to = new TreeSet<>();
            for (String other : code.keySet()) {
                if (!other.equals(e.getKey()) && Pattern.compile("\\b" + other + "\\b").matcher(e.getValue()).find()) {
                    to.add(other);
                }
            }
            refs.put(e.getKey(), to);
        }
        return refs;
    }

    @Test
    void noLoopBetweenTheCoresFiles() throws IOException {
        for (Path dir : CORE) {
            Map<String, TreeSet<String>> refs = references(dir);
            assertTrue(refs.size() > 10, "found only " + refs.size() + " files in " + dir.toAbsolutePath());
            List<String> described = new ArrayList<>();
            for (List<String> loop : SourceGraph.loops(refs)) {
                StringBuilder sb = new StringBuilder(String.join(", ", loop)).append(" (");
                for (String a : loop) {
                    for (String b : refs.get(a)) {
                        if (loop.contains(b)) {
                            sb.append(a).append(" -> ").append(b).append("; ");
                        }
                    }
                }
                described.add(sb.append(")").toString());
            }
            assertEquals(List.of(), described, "files of " + dir + " that name each other in a loop");
        }
    }

    @Test
    void seesALoop() {
        Map<String, TreeSet<String>> refs = new TreeMap<>();
        refs.put("A", new TreeSet<>(List.of("B")));
        refs.put("B", new TreeSet<>(List.of("C")));
        refs.put("C", new TreeSet<>(List.of("A")));
        refs.put("D", new TreeSet<>(List.of("A")));
        assertEquals(List.of(List.of("A", "B", "C")), SourceGraph.loops(refs));
    }
}
