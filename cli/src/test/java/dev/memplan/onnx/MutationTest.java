// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.cli.OnnxPlanJson;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.MemplanException;
import dev.memplan.PlanOptions;
import dev.memplan.server.OnnxPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded corruptions of the shared models (truncations, flipped bytes, inflated varint lengths):
 * each ends in a plan or a clean {@link MemplanException}, within a second, never a crash, a hang
 * or an OutOfMemoryError. Runs with the default surefire heap.
 */
class MutationTest {
    private static final int MUTATIONS = 1200;
    private static final Map<String, byte[]> BYTES = new HashMap<>();
    private static final java.util.concurrent.atomic.AtomicInteger PLANS = new java.util.concurrent.atomic.AtomicInteger();
    private static final java.util.concurrent.atomic.AtomicInteger ERRORS = new java.util.concurrent.atomic.AtomicInteger();

    @org.junit.jupiter.api.AfterAll
    static void summary() {
        System.out.println("MutationTest: " + PLANS.get() + " mutations planned, " + ERRORS.get() + " gave a clean error");
    }

    @BeforeAll
    static void load() throws IOException {
        for (String m : SharedModels.all()) {
            BYTES.put(m, Files.readAllBytes(SharedModels.path(m)));
            // warm the JIT on the unmutated model, so the per-mutation budget measures the work
            planOrCleanError(m, BYTES.get(m));
        }
        PLANS.set(0);
        ERRORS.set(0);
    }

    static Stream<Integer> seeds() {
        return IntStream.range(0, MUTATIONS).boxed();
    }

    /** The mutated bytes for {@code seed}, and a description of the mutation. */
    static Map.Entry<String, byte[]> mutate(int seed) {
        List<String> models = SharedModels.all();
        String model = models.get(seed % models.size());
        byte[] original = BYTES.get(model);
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + 17);
        byte[] b = original.clone();
        String what;
        switch (seed % 3) {
            case 0 -> {
                int len = r.nextInt(b.length);
                b = java.util.Arrays.copyOf(b, len);
                what = "truncated to " + len + " bytes";
            }
            case 1 -> {
                int flips = 1 + r.nextInt(8);
                StringBuilder sb = new StringBuilder("flipped");
                for (int i = 0; i < flips; i++) {
                    int at = r.nextInt(b.length);
                    b[at] ^= (byte) (1 << r.nextInt(8));
                    sb.append(' ').append(at);
                }
                what = sb.toString();
            }
            default -> {
                // after a length-delimited tag, write a 5-byte varint length up to 2^32-1
                int at = 1 + r.nextInt(b.length - 6);
                for (int tries = 0; tries < 64 && (b[at - 1] & 7) != 2; tries++) {
                    at = 1 + r.nextInt(b.length - 6);
                }
                long len = (r.nextLong() >>> 33) | (1L << 20);
                for (int i = 0; i < 5; i++) {
                    b[at + i] = (byte) ((len & 0x7f) | (i < 4 ? 0x80 : 0));
                    len >>>= 7;
                }
                what = "length inflated at " + at;
            }
        }
        return Map.entry(model + " " + what, b);
    }

    @ParameterizedTest(name = "mutation {0}")
    @MethodSource("seeds")
    void endsInAPlanOrACleanError(int seed) {
        SharedModels.requirePresent();
        Map.Entry<String, byte[]> m = mutate(seed);
        try {
            // a hang guard on the wall clock (the machine is shared), and the one-second budget on
            // the CPU time of the thread that did the work
            long cpuNanos = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                long start = mx.getCurrentThreadCpuTime();
                planOrCleanError(m.getKey(), m.getValue());
                return mx.getCurrentThreadCpuTime() - start;
            }, () -> "seed " + seed + ": " + m.getKey() + " hung");
            if (cpuNanos > 1_000_000_000L) {
                fail("seed " + seed + ": " + m.getKey() + " took " + cpuNanos / 1_000_000 + " ms of CPU");
            }
        } catch (OutOfMemoryError | StackOverflowError e) {
            fail("seed " + seed + ": " + m.getKey() + " threw " + e);
        }
    }

    private static void planOrCleanError(String what, byte[] bytes) {
        try {
            OnnxModel model = OnnxModel.read(what, bytes);
            ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
            Map<String, Long> bindings = new HashMap<>();
            imp.symbols().keySet().forEach(s -> bindings.put(s, 4L));
            OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
            if (plan.isComplete()) {
                PlanValidator.validate(plan.plan());
            }
            ObjectNode json = OnnxPlanJson.toJson(plan);
            if (json.get("owners") == null) {
                fail(what + ": report without owners");
            }
            PLANS.incrementAndGet();
        } catch (MemplanException e) {
            ERRORS.incrementAndGet();
            if (e.getMessage() == null || e.getMessage().isBlank()) {
                fail(what + ": an error without a message", e);
            }
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": not a clean error: " + e, e);
        }
    }
}
