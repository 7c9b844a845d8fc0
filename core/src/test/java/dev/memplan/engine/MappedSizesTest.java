// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A changed file, the engine side: a size buffer that maps a file truncated after it was mapped,
 * handed to the public native engine, used to reach C++ and kill the JVM with SIGBUS. Now only
 * memplan's own checked copy reaches C++, and the fault is an {@link IllegalArgumentException}.
 * Runs in a child JVM, so that a crash fails this test instead of the whole test run.
 */
@EngineIndependent
class MappedSizesTest {
    /** 2^17 owners: the sizes span 1 MiB, 256 pages of the mapping. */
    static final int OWNERS = 1 << 17;

    @Test
    void aTruncatedMappingNeverReachesNativeCode(@TempDir Path dir) throws Exception {
        NativeRequirement.requireNativeRun();
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Probe.class.getName(), dir.resolve("sizes.bin").toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the probe finished");
        String output = Files.readString(out);
        assertEquals(0, p.exitValue(), "the JVM survived: " + output);
        assertTrue(output.contains("native refused: java.lang.IllegalArgumentException"), output);
        assertTrue(output.contains("java refused: java.lang.IllegalArgumentException"), output);
    }

    /** The child: maps a file of sizes, truncates it, and plans with the mapping on both engines. */
    static final class Probe {
        public static void main(String[] args) throws IOException {
            Path file = Path.of(args[0]);
            Files.write(file, new byte[OWNERS * Long.BYTES]); // all sizes 0: valid until truncated
            for (PlanningEngine engine : List.of(NativeEngine.instance().orElseThrow(), JavaEngine.INSTANCE)) {
                CompiledGraph g = engine.compile(chain(), roots(), false);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    LongBuffer sizes = ch.map(FileChannel.MapMode.READ_ONLY, 0, (long) OWNERS * Long.BYTES)
                            .order(ByteOrder.nativeOrder()).asLongBuffer();
                    ch.truncate(0);
                    try {
                        g.allocate(sizes);
                        System.out.println(engine.name() + " planned from a truncated mapping");
                    } catch (RuntimeException e) {
                        System.out.println(engine.name() + " refused: " + e);
                    }
                }
                Files.write(file, new byte[OWNERS * Long.BYTES]);
            }
        }

        /** Value 0 is the input; node n makes value n + 1 from value n. */
        private static FlatGraph chain() {
            int[] off = new int[OWNERS + 1];
            int[] ins = new int[OWNERS];
            int[] outs = new int[OWNERS];
            for (int n = 0; n < OWNERS; n++) {
                off[n + 1] = n + 1;
                ins[n] = n;
                outs[n] = n + 1;
            }
            int[] flags = new int[OWNERS + 1];
            flags[0] = FlatGraph.GRAPH_INPUT;
            flags[OWNERS] = FlatGraph.GRAPH_OUTPUT;
            return new FlatGraph(OWNERS + 1, OWNERS, off, ins, off.clone(), outs, flags);
        }

        private static int[] roots() {
            int[] r = new int[OWNERS + 1];
            for (int v = 0; v <= OWNERS; v++) {
                r[v] = v;
            }
            return r;
        }
    }
}
