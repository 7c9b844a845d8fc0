// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineProbe;
import dev.memplan.testing.NativeRequirement;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the native library cannot load, {@code auto} falls back to Java and {@code native} fails
 * with a message that names the platform and says to use the Java engine. Each case runs
 * {@link EngineProbe} in a child JVM, because a JVM loads the library (or fails to) once.
 *
 * <p>Two ways to make loading fail: {@code -Dorg.bytedeco.javacpp.platform=windows-arm64} makes
 * JavaCPP look for a library of a platform that ships none; a class path without the JavaCPP jar
 * makes the loader itself missing.
 */
class FallbackTest {
    private static final String UNSUPPORTED = "-Dorg.bytedeco.javacpp.platform=windows-arm64";

    private record Run(int exitCode, String stdout, String stderr) {
    }

    private static Run probe(String classPath, String... jvmArgs) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(jvmArgs));
        command.add("-cp");
        command.add(classPath);
        command.add(EngineProbe.class.getName());
        Path out = Files.createTempFile("memplan-probe", ".out");
        Path err = Files.createTempFile("memplan-probe", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe JVM did not finish");
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8).trim(),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String testClassPath() {
        return System.getProperty("java.class.path");
    }

    @Test
    @Timeout(120)
    void autoFallsBackToJavaOnAnUnsupportedPlatform() throws Exception {
        Run run = probe(testClassPath(), UNSUPPORTED, "-Dmemplan.engine=auto");
        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("engine=java slots=2", run.stdout(), run.toString());
        assertEquals("", run.stderr(), "a library is quiet by default: the choice is logged at debug level");
    }

    /** The choice is logged through the platform logger, at debug level: visible when logging asks for it. */
    @Test
    @Timeout(120)
    void autoLogsItsChoiceAtDebugLevel(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("logging.properties");
        Files.writeString(config, "handlers=java.util.logging.ConsoleHandler\n"
                + "java.util.logging.ConsoleHandler.level=ALL\ndev.memplan.level=FINE\n");
        Run run = probe(testClassPath(), UNSUPPORTED, "-Dmemplan.engine=auto",
                "-Djava.util.logging.config.file=" + config);
        assertEquals("engine=java slots=2", run.stdout(), run.toString());
        assertEquals(1, run.stderr().split("memplan engine auto: using the Java engine \\(no native library for"
                + " platform windows-arm64", -1).length - 1, "auto says once which engine it chose and why: "
                + run.stderr());
    }

    @Test
    @Timeout(120)
    void nativeFailsWithTheDocumentedMessageOnAnUnsupportedPlatform() throws Exception {
        Run run = probe(testClassPath(), UNSUPPORTED, "-Dmemplan.engine=native");
        assertEquals(EngineProbe.UNAVAILABLE, run.exitCode(), run.toString());
        assertTrue(run.stdout().startsWith("unavailable=the native engine cannot load: no native library for"
                + " platform windows-arm64"), run.stdout());
        assertTrue(run.stdout().contains("use --engine java (or -Dmemplan.engine=java)"), run.stdout());
        assertFalse(run.stdout().contains("Error") || run.stdout().contains("Exception"),
                "the reason is said in words, without a Java class name: " + run.stdout());
    }

    @Test
    @Timeout(120)
    void withoutJavacppAutoFallsBackAndNativeFails() throws Exception {
        String[] entries = testClassPath().split(File.pathSeparator);
        String withoutJavacpp = Arrays.stream(entries).filter(e -> !new File(e).getName().startsWith("javacpp"))
                .collect(Collectors.joining(File.pathSeparator));
        assertTrue(withoutJavacpp.split(File.pathSeparator).length < entries.length,
                "the test class path lists the JavaCPP jar: " + testClassPath());

        Run auto = probe(withoutJavacpp, "-Dmemplan.engine=auto");
        assertEquals("engine=java slots=2", auto.stdout(), auto.toString());
        Run nat = probe(withoutJavacpp, "-Dmemplan.engine=native");
        assertEquals(EngineProbe.UNAVAILABLE, nat.exitCode(), nat.toString());
        assertTrue(nat.stdout().contains("the JavaCPP jar is not on the class path")
                && nat.stdout().contains("use --engine java"), nat.stdout());
        assertFalse(nat.stdout().contains("Error") || nat.stdout().contains("org/bytedeco"),
                "the reason is said in words, without a Java class name: " + nat.stdout());
    }

    /** The control: on this platform (in the native run) the same probe plans natively. */
    @Test
    @Timeout(120)
    void autoUsesNativeWhereTheLibraryLoads() throws Exception {
        NativeRequirement.requireNativeEngine();
        Run run = probe(testClassPath(), "-Dmemplan.engine=auto");
        assertEquals("engine=native slots=2", run.stdout(), run.toString());
        assertEquals("", run.stderr(), "nothing on stderr: the choice is logged at debug level");
    }
}
