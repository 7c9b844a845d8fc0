// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each op has one home: an ONNX op type written as a Java string literal appears in
 * {@code src/main/java} only in the op registry and its family files. An op type is whatever
 * {@link OpRegistry} registers, so the check grows with the registry. Comments are not code and
 * are not checked.
 */
@EngineIndependent
class OpLiteralTest {
    /** Every module's main sources (the op registry in memplan, the kernel table in memplan-ort). */
    private static final List<Path> MAINS = List.of(Path.of("core/src/main/java"), Path.of("ort/src/main/java"),
            Path.of("cli/src/main/java"));

    /** The registry's table and the family files that hold the rules and folds it registers. */
    private static final Set<String> REGISTRY_AND_FAMILIES = Set.of(
            "dev/memplan/onnx/rules/OpRegistry.java", "dev/memplan/onnx/rules/OpInference.java",
            "dev/memplan/onnx/rules/ShapeOps.java", "dev/memplan/onnx/rules/SpatialOps.java", "dev/memplan/onnx/rules/NnOps.java",
            "dev/memplan/onnx/rules/ContribOps.java", "dev/memplan/onnx/rules/QuantizedOps.java",
            "dev/memplan/onnx/rules/NchwcOps.java", "dev/memplan/onnx/rules/Elementwise.java");

    /**
     * ONNX Runtime's kernel table: what ORT's CPU kernels do (which alias, which run in place, which
     * take a workspace) is a fact about ORT, not one of memplan's own rules, and this file is the one
     * home of those facts for the {@code dev.memplan.ort} package.
     */
    private static final String ORT_KERNELS = "dev/memplan/ort/internal/OrtKernels.java";

    @Test
    void opTypesAppearOnlyInTheRegistryAndItsFamilyFiles() throws IOException {
        Set<String> ops = registeredOpTypes();
        List<String> found = new ArrayList<>();
        for (Path file : javaFiles()) {
            String rel = relative(file);
            if (REGISTRY_AND_FAMILIES.contains(rel) || rel.equals(ORT_KERNELS)) {
                continue;
            }
            found.addAll(opLiterals(rel, Files.readString(file, StandardCharsets.UTF_8), ops));
        }
        assertEquals(List.of(), found, "op types written outside the registry: give the op's fact to its"
                + " OpRegistry entry (OpInference.registerAll) and read it from there");
    }

    @Test
    void theRegistryFilesDoHoldOpLiterals() throws IOException {
        // the scan sees the literals where they belong: were it blind, the check above would pass vacuously
        Set<String> ops = registeredOpTypes();
        String table = Files.readString(MAINS.get(0).resolve("dev/memplan/onnx/rules/OpInference.java"), StandardCharsets.UTF_8);
        assertTrue(opLiterals("OpInference.java", table, ops).size() > 100);
        for (String rel : REGISTRY_AND_FAMILIES) {
            assertTrue(Files.isRegularFile(MAINS.get(0).resolve(rel)), rel + " is gone: update the list");
        }
        assertTrue(Files.isRegularFile(MAINS.get(1).resolve(ORT_KERNELS)), ORT_KERNELS + " is gone: update the exception");
    }

    @Test
    void theScanFindsLiteralsInCodeButNotInCommentsOrCharacters() {
        Set<String> ops = registeredOpTypes();
        String source = """
                // "Relu" in a line comment
                /* "Softmax" in a block comment */
                class X {
                    char quote = '"'; String relu = "Relu"; String escaped = "say \\"MatMul\\"";
                    String text = \"""
                        "Conv"
                        \""";
                    String name = "If";
                }
                """;
        assertEquals(List.of("X.java:4: \"Relu\"", "X.java:8: \"If\""), opLiterals("X.java", source, ops));
    }

    /** Every op type the registry knows, shape-rule ops and the importer's own (Constant, If...). */
    private static Set<String> registeredOpTypes() {
        Set<String> ops = new TreeSet<>();
        OpRegistry.DEFAULT.entries().forEach(e -> ops.add(e.opType()));
        OpRegistry.DEFAULT.structural().forEach(e -> ops.add(e.opType()));
        assertTrue(ops.contains("Relu") && ops.contains("If") && ops.size() > 150, "registry: " + ops.size());
        return ops;
    }

    private static List<Path> javaFiles() throws IOException {
        List<Path> all = new ArrayList<>();
        for (Path main : MAINS) {
            try (Stream<Path> files = Files.walk(main)) {
                files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(all::add);
            }
        }
        assertFalse(all.size() < 100, "found only " + all.size() + " sources under " + MAINS);
        return all;
    }

    private static String relative(Path file) {
        Path main = MAINS.stream().filter(file::startsWith).findFirst().orElseThrow();
        return main.relativize(file).toString().replace('\\', '/');
    }

    /**
     * The string literals of {@code source} that are an op type, as {@code file:line: "Op"}. A small
     * lexer: skips comments and character literals; a text block's lines are text, not literals.
     */
    static List<String> opLiterals(String file, String source, Set<String> ops) {
        List<String> found = new ArrayList<>();
        int line = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (source.startsWith("//", i)) {
                while (i < n && source.charAt(i) != '\n') {
                    i++;
                }
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += count(source, i, end);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                while (end > 0 && source.charAt(end - 1) == '\\') {
                    end = source.indexOf("\"\"\"", end + 1);
                }
                end = end < 0 ? n : end + 3;
                line += count(source, i, end);
                i = end;
            } else if (c == '\'') {
                i++;
                while (i < n && source.charAt(i) != '\'') {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
            } else if (c == '"') {
                int start = ++i;
                while (i < n && source.charAt(i) != '"' && source.charAt(i) != '\n') {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                String literal = source.substring(start, Math.min(i, n));
                if (ops.contains(literal)) {
                    found.add(file + ":" + line + ": \"" + literal + "\"");
                }
                i++;
            } else {
                i++;
            }
        }
        return found;
    }

    private static int count(String s, int from, int to) {
        int lines = 0;
        for (int k = from; k < to; k++) {
            if (s.charAt(k) == '\n') {
                lines++;
            }
        }
        return lines;
    }
}
