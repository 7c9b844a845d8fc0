// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * The public face stays small: at most {@value #MOST} public top-level types across the packages
 * module-info.java exports. A type only some internal package needs belongs in a package that is
 * not exported; a type a user reaches through another (a stats record, an enum of options) nests
 * in it. docs/library.md says what each public type is for.
 */
@EngineIndependent
class PublicApiSizeTest {
    static final int MOST = 40;
    private static final Path SOURCES = Path.of("core/src/main/java");
    private static final Pattern EXPORT = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    /** A top-level declaration starts at column 0; nested ones are indented. */
    private static final Pattern PUBLIC_TOP_LEVEL = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|static|strictfp)\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    static List<String> exportedPackages() throws IOException {
        String module = Files.readString(SOURCES.resolve("module-info.java")).replaceAll("//.*", "");
        List<String> packages = new ArrayList<>();
        Matcher m = EXPORT.matcher(module);
        while (m.find()) {
            packages.add(m.group(1));
        }
        return packages;
    }

    static List<String> publicTopLevelTypes(String pkg) throws IOException {
        List<String> types = new ArrayList<>();
        try (Stream<Path> files = Files.list(SOURCES.resolve(pkg.replace('.', '/')))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                Matcher m = PUBLIC_TOP_LEVEL.matcher(Files.readString(f));
                while (m.find()) {
                    types.add(pkg + "." + m.group(1));
                }
            }
        }
        return types;
    }

    @Test
    void atMostFortyPublicTopLevelTypesInExportedPackages() throws IOException {
        List<String> packages = exportedPackages();
        assertFalse(packages.isEmpty(), "module-info.java exports nothing, or the pattern no longer reads it");
        List<String> types = new ArrayList<>();
        for (String pkg : packages) {
            types.addAll(publicTopLevelTypes(pkg));
        }
        assertTrue(types.contains("dev.memplan.MemPlan"), "the count must see the API's entry point: " + types);
        assertTrue(types.size() <= MOST, types.size() + " public top-level types in the exported packages "
                + packages + ", at most " + MOST + " allowed; make one internal or nest it in its owner: " + types);
    }
}
