// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.PlanOptions;
import dev.memplan.ort.internal.ResidentProbe;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerSize}: each part is the difference of two of the probe's steps, the total their sum
 * with the requests in flight at the budget; two models add as one process does. One test measures
 * a small model in ONNX Runtime (a child JVM, about two seconds).
 */
@EngineIndependent
class ServerSizeTest {

    /** Probe figures that rise step by step, as resident memory does, from a seeded random walk. */
    private static ResidentProbe.Figures figures(Random r) {
        long jvm = (50L << 20) + r.nextInt(1 << 26);
        long memplan = jvm + r.nextInt(1 << 24);
        long runtime = memplan + r.nextInt(1 << 25);
        long session = runtime + r.nextInt(1 << 27);
        long warmup = session + r.nextInt(1 << 22);
        long allocator = r.nextInt(1 << 28);
        long longest = warmup + allocator + r.nextInt(1 << 24);
        long fresh = longest + r.nextInt(1 << 23);
        return new ResidentProbe.Figures(jvm, memplan, runtime, session, warmup, longest, allocator, fresh);
    }

    @Test
    void partsAreStepsAndTheTotalTheirSum() {
        Random r = new Random(20_260_601);
        for (int i = 0; i < 200; i++) {
            ResidentProbe.Figures f = figures(r);
            long lease = f.allocatorGrowth() + r.nextInt(1 << 20);
            int k = 1 + r.nextInt(64);
            ServerSize s = ServerSize.of(f, lease, k, 1 + r.nextInt(4));
            assertEquals(f.runtime() - f.memplan(), s.runtimeBytes());
            assertEquals(f.warmup() - f.runtime(), s.sessionBytes(), "the session counts its warm-up run");
            assertEquals(f.memplan() - f.jvm(), s.memplanBytes());
            assertEquals(f.freshThread() - f.longest(), s.requestThreadBytes());
            assertEquals(Math.max(0, f.longest() - f.warmup() - f.allocatorGrowth() - s.requestThreadBytes()),
                    s.poolThreadBytes());
            assertEquals((long) k * lease, s.budgetBytes());
            assertEquals(s.runtimeBytes() + s.sessionBytes() + s.memplanBytes() + s.budgetBytes()
                    + (long) k * s.requestThreadBytes() + s.poolThreadBytes(), s.residentBytes());
        }
    }

    @Test
    void aStepThatFellCountsZeroNotANegativePart() {
        ResidentProbe.Figures f = new ResidentProbe.Figures(100, 90, 200, 300, 290, 500, 400, 450);
        ServerSize s = ServerSize.of(f, 1_000, 2, 1);
        assertEquals(0, s.memplanBytes());
        assertEquals(0, s.requestThreadBytes());
        assertEquals(0, s.poolThreadBytes());
    }

    @Test
    void twoModelsShareTheRuntimeAndTheRequestThreads() {
        Random r = new Random(7);
        for (int i = 0; i < 100; i++) {
            int k = 1 + r.nextInt(16);
            ServerSize a = ServerSize.of(figures(r), 1 + r.nextInt(1 << 28), k, 2);
            ServerSize b = ServerSize.of(figures(r), 1 + r.nextInt(1 << 28), k, 2);
            ServerSize both = a.and(b);
            assertEquals(both, b.and(a), "the order of the models does not matter");
            assertEquals(Math.max(a.runtimeBytes(), b.runtimeBytes()), both.runtimeBytes(), "one environment");
            assertEquals(a.sessionBytes() + b.sessionBytes(), both.sessionBytes());
            assertEquals((long) k * Math.max(a.requestBytes(), b.requestBytes()), both.budgetBytes());
            assertTrue(both.residentBytes() <= a.residentBytes() + b.residentBytes());
            assertTrue(both.residentBytes() >= Math.max(a.residentBytes(), b.residentBytes()));
        }
    }

    @Test
    void refusalsNameTheValueAtFault() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ServerSize(1, 1, 0, -5, 0, 0, 0, 0));
        assertTrue(e.getMessage().contains("sessionBytes") && e.getMessage().contains("-5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ServerSize(0, 1, 0, 0, 0, 0, 0, 0));
        assertTrue(e.getMessage().contains("concurrency"), e.getMessage());
        ServerSize one = new ServerSize(2, 1, 0, 0, 0, 0, 0, 0);
        e = assertThrows(IllegalArgumentException.class, () -> one.and(new ServerSize(3, 1, 0, 0, 0, 0, 0, 0)));
        assertTrue(e.getMessage().contains("same counts"), e.getMessage());
    }

    /** The one test that runs ORT: a small model measured in a child JVM. */
    @Test
    void measuresASmallModelInOnnxRuntime() {
        SharedModels.requirePresent();
        OrtModel model = OrtModel.compile(SharedModels.require("ort-ext/pytorch_super_resolution.onnx"),
                ImportOptions.defaults(), PlanOptions.defaults(), OrtModel.Level.ALL);
        Map<String, Long> longest = Map.of("batch_size", 2L);
        ServerSize s = ServerSize.measure(model, longest, 3, 1);
        assertEquals(model.plan(longest).boundedArenaBytes().orElseThrow(), s.requestBytes(), "the lease is the prediction");
        assertEquals(3 * s.requestBytes(), s.budgetBytes());
        assertTrue(s.runtimeBytes() > 1 << 20, "ORT's library is resident: " + s);
        assertTrue(s.residentBytes() > s.budgetBytes() + s.runtimeBytes(), s.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerSize.measure(model, Map.of(), 3, 1));
        assertTrue(e.getMessage().contains("batch_size"), e.getMessage());
    }
}
