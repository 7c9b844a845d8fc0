// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ONNX Runtime Java 1.29.0 kills the JVM (SIGSEGV) when its environment is first made on a thread
 * with a 1 MB stack and the command line is long (its telemetry runs a recursive regular expression
 * over it). A server compiling a model on a worker thread does exactly that. Here a child JVM with
 * ORT Java 1.29.0 and a class path over 9 KB makes its first ORT call on a 1 MB thread: straight
 * into ORT Java it crashes (the scenario is the real one), through memplan it completes
 * ({@link BigStack}), with ORT's load in this JVM and in a child JVM of its own. The 1.29.0 jar is copied by the build into target/ort-crash/ (pom.xml,
 * {@code onnxruntime.crash.version}), whatever ORT the rest of the suite uses.
 */
@EngineIndependent
class OrtEnvironmentStackTest {
    @TempDir
    Path dir;

    /** The test class path with ORT Java replaced by the crashing release, padded over 9 KB. */
    private String childClassPath() {
        String jar = System.getProperty("memplan.ort.crash.jar", "");
        Ci.require(Files.isRegularFile(Path.of(jar)), "no ORT Java " + jar + " (mvn's generate-test-resources copies it)",
                "CI runs every ORT test");
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> entries = new ArrayList<>();
        entries.add(jar);
        for (String e : cp.split(File.pathSeparator)) {
            if (!e.isEmpty() && !Path.of(e).getFileName().toString().startsWith("onnxruntime-")) {
                entries.add(e);
            }
        }
        for (int i = 0; String.join(File.pathSeparator, entries).length() < 10_000; i++) {
            entries.add(dir.resolve("absent-" + i + "-padding-the-command-line-as-a-large-server-does.jar").toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    private record Run(int exit, String output) {
    }

    private Run child(String loadMode, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xss1m", "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                "-Djava.io.tmpdir=" + dir, "-D" + OrtLoadSettings.MODE + "=" + loadMode,
                "-cp", childClassPath(), OrtFirstCompileProbe.class.getName()));
        command.addAll(List.of(args));
        assertTrue(String.join(" ", command).length() > 9_000, "the command line is not long enough to matter");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("ORT_DISABLE_TELEMETRY"); // the crash needs ORT's telemetry
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child did not end");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8).strip());
    }

    @Test
    void theFirstCompileOnAOneMegabyteThreadDoesNotCrashOrtJava129() throws Exception {
        Path model = OrtIfBranchTest.resource("if-out-16000.onnx");
        // The control: ORT Java straight on a 1 MB thread. Whether 1.29's telemetry regex overflows
        // depends on the exact command line (it crashed on worktree paths and not on a CI clone's),
        // so the control is reported, and the assertion is on memplan's own path.
        Run direct = child(OrtLoadSettings.IN_PROCESS, "direct");
        System.out.println("info: ORT Java 1.29.0 straight on a 1 MB thread with this class path: exit "
                + direct.exit() + (direct.exit() == 0 ? " (no crash this time)" : " (crashed, the scenario is real)"));
        long larger = Math.max(OrtIfBranchTest.ort("if-out-16000.onnx", "n=1000"), // sr left open: either branch
                OrtIfBranchTest.ort("if-out-8000.onnx", "n=1000"));
        // in-process ORT runs in this JVM (BigStack); in a child JVM (the default), in the child's
        for (String mode : List.of(OrtLoadSettings.IN_PROCESS, OrtLoadSettings.CHILD_PROCESS)) {
            Run memplan = child(mode, "memplan", model.toString());
            assertEquals(0, memplan.exit(), "memplan's first ORT compile on a 1 MB thread, " + mode + ": " + memplan.output());
            assertEquals("compiled " + larger, memplan.output(), "the compile's prediction on ORT Java 1.29.0, " + mode);
        }
    }
}
