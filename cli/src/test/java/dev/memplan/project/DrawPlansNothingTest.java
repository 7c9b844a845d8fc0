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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Pictures draw the plans they are given: no file of {@code dev.memplan.draw} names a planning entry
 * point (the server path, the engines, {@code MemPlan}, the importer), so a picture cannot disagree
 * with the plan it shows by planning again. It may name {@code server.OnnxPlan}, the plan of a model
 * it is given, and read a plan's parts through {@code ServerAccess}, never compile or plan through it.
 */
@EngineIndependent
class DrawPlansNothingTest {
    private static final Path DRAW = Path.of("core/src/main/java/dev/memplan/draw");
    /** What plans or imports: a reference to any of these in draw is a second planning path. */
    private static final Pattern PLANNING = Pattern.compile(
            "\\bdev\\.memplan\\.(server|engine)\\.(?!OnnxPlan\\b|internal\\.ServerAccess;)|\\bdev\\.memplan\\.MemPlan\\b"
                    + "|\\bOnnxImporter\\b|\\bOnnxPlanner\\b|\\bCompiledModel\\b|\\bMemPlan\\.compile\\b|\\.plan\\([^)]"
                    + "|\\.compile\\(|\\bplanUntraced\\b");

    @Test
    void drawNamesNoPlanningEntryPoint() throws IOException {
        List<String> found = new ArrayList<>();
        int files = 0;
        try (Stream<Path> list = Files.list(DRAW)) {
            for (Path f : list.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                files++;
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String code = lines.get(i).replaceAll("//.*", "");
                    if (code.strip().startsWith("*")) { // javadoc may say where plans come from
                        continue;
                    }
                    Matcher m = PLANNING.matcher(code);
                    if (m.find()) {
                        found.add(f.getFileName() + ":" + (i + 1) + " " + code.strip());
                    }
                }
            }
        }
        assertTrue(files > 5, "found only " + files + " files in " + DRAW.toAbsolutePath());
        assertEquals(List.of(), found);
    }
}
