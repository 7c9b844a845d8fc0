// SPDX-License-Identifier: Apache-2.0
package dev.memplan.project;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java example of README.md and docs/library.md is compiled and run here against the shared
 * models, so the documents cannot drift from the API; the README's Install versions are held equal
 * to pom.xml's.
 *
 * <p>An example is run as written, with two things supplied around it: the model's path (the
 * examples name the file alone) and the request a server would have in hand ({@code shapes},
 * {@code budgetBytes}). Examples of one document run in order as one program, as they read, except
 * a graph built in Java, which stands alone.
 */
class ReadmeExamplesTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("(?s)```java\\n(.*?)```");
    private static final String MODEL_LITERAL = "\"all-minilm-l6-v2-q.onnx\"";
    private static final String IMPORTS = String.join("\n",
            "import ai.onnxruntime.*;", "import dev.memplan.*;", "import dev.memplan.server.*;", "import dev.memplan.onnx.*;", "import dev.memplan.ort.*;",
            "import java.nio.file.Path;", "import java.util.*;", "import java.time.Duration;");

    @Test
    void readmeAdmissionAnswersWithinTheModelLimitAndPrintsNothing(@TempDir Path dir) throws Exception {
        Method serving = compile(dir, "Readme", servingExamples(Path.of("README.md")), "return longest;");
        assertEquals(OptionalLong.of(512), runQuietly(serving, 4L << 30), "4 GB holds MiniLM's longest sequence");
        OptionalLong at64MiB = (OptionalLong) runQuietly(serving, 64L << 20);
        assertTrue(at64MiB.orElseThrow() < 512, "64 MiB holds fewer than 512 tokens at batch 4: " + at64MiB);
    }

    @Test
    void libraryExamplesRun(@TempDir Path dir) throws Exception {
        Path doc = Path.of("docs/library.md");
        Method serving = compile(dir, "LibraryServing", servingExamples(doc), "return longest;");
        assertEquals(OptionalLong.of(512), runQuietly(serving, 4L << 30));
        List<String> graphs = blocks(doc).stream().filter(ReadmeExamplesTest::buildsAGraph).toList();
        assertEquals(1, graphs.size(), "docs/library.md shows one graph built in Java");
        Method graph = compile(dir, "LibraryGraph", graphs, "return plan;");
        ActivationPlan plan = (ActivationPlan) runQuietly(graph, 0);
        PlanValidator.validate(plan);
        assertTrue(plan.peakBytes() > 0);
    }

    @Test
    void installVersionsMatchThePom() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        String pom = Files.readString(Path.of("pom.xml"));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("com.github.ben-manes.caffeine:caffeine", property(pom, "caffeine.version"));
        expected.put("com.fasterxml.jackson.core:jackson-databind", property(pom, "jackson.version"));
        expected.put("io.micrometer:micrometer-core", property(pom, "micrometer.version"));
        expected.put("com.microsoft.onnxruntime:onnxruntime", property(pom, "onnxruntime.version"));
        for (Map.Entry<String, String> e : expected.entrySet()) {
            String coordinates = "`" + e.getKey() + ":" + e.getValue() + "`";
            assertTrue(readme.contains(coordinates), "README Install lists " + coordinates);
        }
        Matcher dep = Pattern.compile("(?s)<dependency>\\s*<groupId>(.*?)</groupId>\\s*<artifactId>(.*?)</artifactId>"
                + "\\s*<version>(.*?)</version>").matcher(readme);
        int seen = 0;
        while (dep.find()) {
            String ga = dep.group(1) + ":" + dep.group(2);
            String want = ga.startsWith("dev.memplan:") ? projectVersion(pom) : expected.get(ga);
            assertNotNull(want, "README's XML names " + ga + ", which this test does not know");
            assertEquals(want, dep.group(3), ga);
            seen++;
        }
        assertTrue(seen >= 3, "README's Install shows memplan and its optional dependencies in XML");
        String example = Files.readString(Path.of("examples/server/pom.xml"));
        assertTrue(example.contains("<onnxruntime.version>" + property(pom, "onnxruntime.version") + "<"),
                "the example server pins the ONNX Runtime the library is tested with");
    }

    private static String property(String pom, String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)<").matcher(pom);
        assertTrue(m.find(), "pom.xml has no property " + name);
        return m.group(1);
    }

    private static String projectVersion(String pom) {
        Matcher m = Pattern.compile("<artifactId>memplan-parent</artifactId>\\s*<version>([^<]+)<").matcher(pom);
        assertTrue(m.find());
        return m.group(1);
    }

    private static boolean buildsAGraph(String block) {
        return block.contains("Graph.builder()");
    }

    /** LangChain4j's examples compile in memplan-langchain4j, beside LangChain4j (LangChain4jDocExampleTest). */
    private static boolean needsLangChain4j(String block) {
        return block.contains("MemplanEmbeddingModel");
    }

    private static List<String> blocks(Path doc) throws Exception {
        List<String> out = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(Files.readString(doc));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The examples that serve a model, in document order, with the shared model's path put in. */
    private static List<String> servingExamples(Path doc) throws Exception {
        List<String> out = new ArrayList<>();
        for (String b : blocks(doc)) {
            if (!buildsAGraph(b) && !needsLangChain4j(b)) {
                out.add(b);
            }
        }
        assertFalse(out.isEmpty(), doc + " shows how to serve a model");
        assertTrue(out.get(0).contains(MODEL_LITERAL), "the first example compiles " + MODEL_LITERAL);
        String model = SharedModels.require(SharedModels.MINILM).toAbsolutePath().toString();
        out.replaceAll(b -> b.replace(MODEL_LITERAL, "\"" + model.replace("\\", "\\\\") + "\""));
        return out;
    }

    /** Compiles {@code static Object run(long budgetBytes)} around the examples. */
    private static Method compile(Path dir, String name, List<String> examples, String trailer) throws Exception {
        String source = IMPORTS + "\npublic class " + name + " {\n"
                + "  public static Object run(long budgetBytes) throws Exception {\n"
                + "    Map<String, long[]> shapes = Map.of(\"input_ids\", new long[] {2, 100},"
                + " \"attention_mask\", new long[] {2, 100}, \"token_type_ids\", new long[] {2, 100});\n"
                + String.join("\n", examples) + "\n" + trailer + "\n  }\n}\n";
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        JavaFileObject file = new SimpleJavaFileObject(java.net.URI.create("string:///" + name + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        Path out = Files.createDirectories(dir.resolve(name));
        StringWriter errors = new StringWriter();
        boolean ok = javac.getTask(errors, null, null, List.of("-classpath", System.getProperty("java.class.path"),
                "-d", out.toString(), "-proc:none", "-Xlint:none"), null, List.of(file)).call();
        assertTrue(ok, "the examples do not compile:\n" + errors + "\n" + source);
        URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()},
                ReadmeExamplesTest.class.getClassLoader());
        return loader.loadClass(name).getMethod("run", long.class);
    }

    /** Runs an example; it must print nothing on stderr (no log lines, no stack traces). */
    private static Object runQuietly(Method example, long budgetBytes) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Object result;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            result = example.invoke(null, budgetBytes);
        } finally {
            System.setErr(err);
        }
        assertEquals("", captured.toString(StandardCharsets.UTF_8), "the example printed on stderr");
        return result;
    }
}
