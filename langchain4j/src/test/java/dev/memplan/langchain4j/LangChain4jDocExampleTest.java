// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import dev.langchain4j.data.segment.TextSegment;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/library.md's LangChain4j example is compiled and run as written, the model's files put in
 * for the names it gives and the segments it embeds supplied, so the document cannot drift from
 * the API.
 */
@Tag("engine-independent")
class LangChain4jDocExampleTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("(?s)```java\\n(.*?)```");
    private static final String IMPORTS = String.join("\n", "import dev.memplan.langchain4j.*;",
            "import dev.langchain4j.data.embedding.Embedding;", "import dev.langchain4j.data.segment.TextSegment;",
            "import dev.langchain4j.model.embedding.onnx.PoolingMode;", "import java.nio.file.Path;", "import java.util.*;");

    @Test
    void theLibraryExampleEmbedsEverySegment(@TempDir Path dir) throws Exception {
        String example = example(Path.of(System.getProperty("memplan.root", "."), "docs/library.md"));
        EncoderModel bge = EncoderModel.BGE_INT8;
        example = example.replace("\"bge-small-en-v1.5-q.onnx\"", quoted(bge.model()))
                .replace("\"bge-small-en-v1.5-q-tokenizer.json\"", quoted(bge.tokenizer()))
                .replace("List<Embedding> embeddings = ", "embeddings = ");
        String source = IMPORTS + "\npublic class LibraryLangChain4j {\n"
                + "  public static Object run(List<TextSegment> segments) throws Exception {\n"
                + "    List<Embedding> embeddings;\n" + example + "\n    return embeddings;\n  }\n}\n";
        List<TextSegment> segments = RealTexts.segments(5);
        Object embeddings = compile(dir, source).invoke(null, segments);
        assertEquals(segments.size(), ((List<?>) embeddings).size());
    }

    private static String quoted(Path file) {
        return "\"" + file.toAbsolutePath().toString().replace("\\", "\\\\") + "\"";
    }

    private static String example(Path doc) throws Exception {
        Matcher m = JAVA_BLOCK.matcher(Files.readString(doc));
        while (m.find()) {
            if (m.group(1).contains("MemplanEmbeddingModel")) {
                return m.group(1);
            }
        }
        throw new AssertionError(doc + " shows no MemplanEmbeddingModel example");
    }

    private static Method compile(Path dir, String source) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        JavaFileObject file = new SimpleJavaFileObject(java.net.URI.create("string:///LibraryLangChain4j.java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        StringWriter errors = new StringWriter();
        boolean ok = javac.getTask(errors, null, null, List.of("-classpath", System.getProperty("java.class.path"),
                "-d", dir.toString(), "-proc:none", "-Xlint:none"), null, List.of(file)).call();
        assertTrue(ok, "the example does not compile:\n" + errors + "\n" + source);
        URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                LangChain4jDocExampleTest.class.getClassLoader());
        return loader.loadClass("LibraryLangChain4j").getMethod("run", List.class);
    }
}
