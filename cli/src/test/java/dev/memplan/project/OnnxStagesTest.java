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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The ONNX importer is a house in stages: reading ({@code onnx.read}), symbols ({@code onnx.symbols}),
 * op rules ({@code onnx.rules}) and the import pipeline ({@code onnx.imports}), under the public face
 * {@code dev.memplan.onnx}. The arrows between the packages run one way, so each stage can be read
 * knowing only the stages below it. The arrows are read from the sources: imports, and type names of
 * another package used in code (comments and strings are not code).
 *
 * <p>No type of the face names a stage's type but {@code OnnxModel}, which lends its parsed message to
 * the importer: the stages throw the face's exceptions and read its options, so any other arrow from
 * the face into a stage would close a loop. What a plan of a model holds
 * ({@code OnnxPlan}) lives with the server path that makes it.
 */
@EngineIndependent
class OnnxStagesTest {
    private static final Path MAIN = Path.of("core/src/main/java");
    private static final String ONNX = "dev.memplan.onnx";
    /**
     * The face's types allowed to name a stage's type: {@code OnnxModel} alone, which lends its
     * parsed message to the importer ({@code OnnxModelAccess}) so that no exported signature names
     * the protobuf type.
     */
    private static final Set<String> FACE_TO_STAGE = Set.of("dev.memplan.onnx.OnnxModel");
    private static final int MAX_FILES = 25;
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+);");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+?)(?:\\.\\*)?;");
    private static final Pattern QUALIFIED = Pattern.compile("\\b(dev\\.memplan\\.onnx(?:\\.[a-z]\\w*)*)\\.[A-Z]\\w*");

    /** Every source file of the onnx packages: its package, type name and text without comments. */
    private record Source(String pkg, String type, String code) {
    }

    @Test
    void noPackageHoldsMoreThan25Files() throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        for (Source s : sources()) {
            counts.merge(s.pkg(), 1, Integer::sum);
        }
        counts.forEach((pkg, n) -> assertTrue(n <= MAX_FILES, pkg + " holds " + n + " files"));
        assertTrue(counts.size() >= 5, "the stages: " + counts);
    }

    @Test
    void theArrowsBetweenTheOnnxPackagesRunOneWay() throws IOException {
        Map<String, Map<String, Set<String>>> arrows = arrows(sources());
        Map<String, Set<String>> targets = new TreeMap<>();
        arrows.forEach((from, to) -> targets.put(from, to.keySet()));
        List<List<String>> loops = SourceGraph.loops(targets);
        assertEquals(List.of(), loops, "a cycle among the onnx packages: " + describe(loops, arrows));
    }

    @Test
    void onlyTheNamedFaceTypesPointIntoTheStages() throws IOException {
        List<Source> sources = sources();
        Set<String> pointing = new TreeSet<>();
        for (Source s : sources) {
            if (s.pkg().equals(ONNX) && !targets(s, sources).isEmpty()) {
                pointing.add(s.pkg() + "." + s.type());
            }
        }
        assertEquals(new TreeSet<>(FACE_TO_STAGE), pointing, "face types that name a stage's type");
    }

    /** Package to package, with the type-level references that make each arrow. */
    private static Map<String, Map<String, Set<String>>> arrows(List<Source> sources) {
        Map<String, Map<String, Set<String>>> arrows = new TreeMap<>();
        for (Source s : sources) {
            if (FACE_TO_STAGE.contains(s.pkg() + "." + s.type())) {
                continue; // the one named arrow from the face into a stage
            }
            for (Map.Entry<String, String> t : targets(s, sources).entrySet()) {
                arrows.computeIfAbsent(s.pkg(), k -> new TreeMap<>()).computeIfAbsent(t.getValue(), k -> new TreeSet<>())
                        .add(s.type() + " -> " + t.getKey());
            }
            for (String other : referencedPackages(s)) {
                if (!other.equals(s.pkg())) {
                    arrows.computeIfAbsent(s.pkg(), k -> new TreeMap<>()).computeIfAbsent(other, k -> new TreeSet<>())
                            .add(s.type() + " imports " + other);
                }
            }
        }
        return arrows;
    }

    /** The types of other onnx packages that {@code s} names in code, with their packages. */
    private static Map<String, String> targets(Source s, List<Source> sources) {
        Map<String, String> out = new TreeMap<>();
        for (Source t : sources) {
            if (!t.pkg().equals(s.pkg()) && !t.pkg().startsWith(ONNX + ".proto")
                    && Pattern.compile("\\b" + t.type() + "\\b").matcher(s.code()).find()
                    && visible(s, t)) {
                out.put(t.type(), t.pkg());
            }
        }
        return out;
    }

    /** A simple name resolves to {@code t} only when {@code s} imports it (or its package, or names it fully). */
    private static boolean visible(Source s, Source t) {
        String fqn = t.pkg() + "." + t.type();
        return s.code().contains("import " + fqn + ";") || s.code().contains("import " + t.pkg() + ".*;")
                || s.code().contains("import static " + fqn + ".") || s.code().contains(fqn);
    }

    /** The onnx packages {@code s} imports from or names fully (the generated protobuf package aside). */
    private static Set<String> referencedPackages(Source s) {
        Set<String> out = new TreeSet<>();
        Matcher m = IMPORT.matcher(s.code());
        while (m.find()) {
            String name = m.group(1);
            String pkg = packageOf(name);
            if (pkg != null) {
                out.add(pkg);
            }
        }
        Matcher q = QUALIFIED.matcher(s.code());
        while (q.find()) {
            out.add(q.group(1));
        }
        out.removeIf(p -> !p.equals(ONNX) && !p.startsWith(ONNX + ".") || p.startsWith(ONNX + ".proto"));
        return out;
    }

    /** The package of an imported name: the part before its first capitalised segment. */
    private static String packageOf(String name) {
        String[] parts = name.split("\\.");
        StringBuilder pkg = new StringBuilder();
        for (String p : parts) {
            if (!p.isEmpty() && Character.isUpperCase(p.charAt(0))) {
                return pkg.length() == 0 ? null : pkg.toString();
            }
            pkg.append(pkg.length() == 0 ? "" : ".").append(p);
        }
        return pkg.toString(); // a wildcard import of a package
    }

    /** Each arrow between two packages of a loop, with the references that make it. */
    private static String describe(List<List<String>> loops, Map<String, Map<String, Set<String>>> arrows) {
        StringBuilder out = new StringBuilder();
        for (List<String> loop : loops) {
            for (String from : loop) {
                arrows.getOrDefault(from, Map.of()).forEach((to, why) -> {
                    if (loop.contains(to)) {
                        out.append("\n  ").append(from).append(" -> ").append(to).append(": ").append(why);
                    }
                });
            }
        }
        return out.toString();
    }

    private static List<Source> sources() throws IOException {
        List<Source> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN.resolve(ONNX.replace('.', '/')))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String text = Files.readString(f);
                Matcher pkg = PACKAGE.matcher(text);
                assertTrue(pkg.find(), f + " has no package line");
                String name = f.getFileName().toString();
                out.add(new Source(pkg.group(1), name.substring(0, name.length() - ".java".length()), SourceGraph.code(text)));
            }
        }
        return out;
    }
}
