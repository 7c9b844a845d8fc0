// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan} over several files needs the memory of the largest, not of all:
 * three graphs that main could only plan together with more than 112 MiB of heap plan in 96 MiB,
 * and a heap too small for even one ends in one line per file and exit 4, never a stack trace.
 * Runs {@code memplan} in a child JVM with a small {@code -Xmx} on the Java engine; engine-independent,
 * so it runs once ({@link EngineIndependent}).
 */
@EngineIndependent
class BoundedMemoryTest {
    private static final int NODES = 100_000;
    @TempDir
    static Path dir;
    private static final List<String> FILES = new ArrayList<>();

    @BeforeAll
    static void bigGraphs() throws IOException {
        for (String name : List.of("a.json", "b.json", "c.json")) {
            Path file = dir.resolve(name);
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                chain(w, NODES);
            }
            FILES.add(file.toString());
        }
    }

    /** A chain of Relu nodes, {@code [batch, 64..70]} each: about 11 MB of JSON for 100,000 nodes. */
    private static void chain(Writer w, int n) throws IOException {
        w.write("{\"values\":[\n");
        for (int i = 0; i <= n; i++) {
            w.write((i > 0 ? ",\n" : "") + "{\"name\":\"v" + i + "\",\"dtype\":\"float32\",\"shape\":[\"batch\","
                    + (64 + i % 7) + "]}");
        }
        w.write("],\"inputs\":[\"v0\"],\"outputs\":[\"v" + n + "\"],\"nodes\":[\n");
        for (int i = 0; i < n; i++) {
            w.write((i > 0 ? ",\n" : "") + "{\"op\":\"Relu\",\"inputs\":[\"v" + i + "\"],\"outputs\":[\"v" + (i + 1)
                    + "\"]}");
        }
        w.write("]}\n");
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run memplan(int heapMiB, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heapMiB + "m", "-Dmemplan.engine=java", "-cp", System.getProperty("java.class.path"),
                MemplanCli.class.getName()));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "memplan finished");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void severalLargeFilesPlanInTheHeapOfOne() throws Exception {
        List<String> args = new ArrayList<>(List.of("plan", "--bind", "batch=1"));
        args.addAll(FILES);
        Run run = memplan(96, args.toArray(String[]::new));
        assertEquals(0, run.exit(), run::toString);
        assertEquals("", run.err(), run::toString);
        assertEquals(3, run.out().lines().filter(l -> l.endsWith(": complete plan (engine java)")).count(),
                run::toString);
    }

    @Test
    void runningOutOfHeapIsOneLinePerFile() throws Exception {
        List<String> args = new ArrayList<>(List.of("plan", "--bind", "batch=1"));
        args.addAll(FILES.subList(0, 2));
        Run run = memplan(36, args.toArray(String[]::new));
        assertEquals(ExitCode.OUT_OF_MEMORY, run.exit(), run::toString);
        assertEquals("", run.out(), run::toString);
        assertFalse(run.err().contains("\tat ") || run.err().contains("Exception"), run::toString);
        List<String> lines = run.err().lines().toList();
        assertTrue(lines.get(0).startsWith("memplan: the Java heap (") && lines.get(0).contains("a.json")
                && lines.get(0).contains("-Xmx"), run::toString);
        assertTrue(lines.stream().allMatch(l -> l.startsWith("memplan: ")), run::toString);
    }
}
