// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code memplan} launcher's first build: one line on stderr, nothing of Maven's (no terminal
 * colour codes), then the command's own output; a failed build shows Maven's last lines without
 * colour codes and exits 5. A stand-in {@code mvn} on the PATH prints coloured noise and "builds"
 * a tiny jar, so the test runs in a second, without a real build.
 */
@EngineIndependent
class LauncherTest {
    private static final String ESC = "\u001b";

    @TempDir
    Path root;

    @Test
    void theFirstBuildPrintsOneLineAndNoColourCodes() throws Exception {
        Path jar = tinyJar();
        Path bin = fakeMaven("printf '\\033[1m[INFO] Scanning\\033[0m\\n'; printf '\\033[0m\\033[0m' >&2\n"
                + "mkdir -p cli/target && cp '" + jar + "' cli/target/memplan-cli-0-all.jar\n");
        Run run = launch(bin, "plan", "x.json");
        assertEquals(0, run.exit(), run.toString());
        assertEquals("ran plan x.json\n", run.out(), run.toString());
        assertEquals(1, run.err().lines().count(), run.toString());
        assertTrue(run.err().startsWith("memplan: building the command line"), run.toString());
        assertFalse(run.out().contains(ESC) || run.err().contains(ESC), run.toString());

        Run again = launch(bin, "ops");
        assertEquals("ran ops\n", again.out(), again.toString());
        assertEquals("", again.err(), "the jar is current: no build, no line");
    }

    @Test
    void aFailedBuildShowsMavensLastLinesWithoutColourCodes() throws Exception {
        Path bin = fakeMaven("printf '\\033[1;31m[ERROR]\\033[m COMPILATION ERROR\\n'; exit 1\n");
        Run run = launch(bin, "plan", "x.json");
        assertEquals(5, run.exit(), run.toString());
        assertEquals("", run.out());
        assertTrue(run.err().contains("memplan: the build failed") && run.err().contains("[ERROR] COMPILATION ERROR"),
                run.toString());
        assertFalse(run.err().contains(ESC), run.toString());
    }

    private record Run(int exit, String out, String err) {
    }

    /** Runs a copy of the launcher in {@link #root}, with {@code bin} first on the PATH. */
    private Run launch(Path bin, String... args) throws IOException, InterruptedException {
        Path launcher = Path.of("memplan").toAbsolutePath();
        assumeTrue(Files.isRegularFile(launcher) && Files.isExecutable(Path.of("/bin/bash")), "no launcher or bash");
        Path copy = root.resolve("memplan");
        if (!Files.exists(copy)) {
            Files.copy(launcher, copy);
            Files.writeString(root.resolve("pom.xml"), "<project/>\n");
            Files.createDirectories(root.resolve("core/src/main"));
        }
        List<String> command = new java.util.ArrayList<>(List.of("/bin/bash", copy.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
        Map<String, String> env = pb.environment();
        env.put("PATH", bin + ":" + Path.of(System.getProperty("java.home"), "bin") + ":" + env.getOrDefault("PATH", ""));
        Path out = root.resolve("out.txt");
        Path err = root.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher did not finish");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** A directory holding an executable {@code mvn} that runs {@code script}. */
    private Path fakeMaven(String script) throws IOException {
        Path bin = Files.createDirectories(root.resolve("fake-bin"));
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, "#!/bin/bash\n" + script);
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    /** A runnable jar whose main prints {@code ran} and its arguments. */
    private Path tinyJar() throws IOException {
        Path src = Files.createDirectories(root.resolve("tiny"));
        Path java = Files.writeString(src.resolve("Tiny.java"),
                "public class Tiny { public static void main(String[] a) {"
                        + " System.out.println(\"ran \" + String.join(\" \", a)); } }");
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", src.toString(), java.toString()));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Tiny");
        Path jar = src.resolve("tiny.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("Tiny.class"));
            out.write(Files.readAllBytes(src.resolve("Tiny.class")));
            out.closeEntry();
        }
        return jar;
    }
}
