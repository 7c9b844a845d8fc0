// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.RandomGraphs;
import dev.memplan.validate.PlanValidator;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Planning 100,000 times on one compiled native schedule does not grow native memory: the scratch
 * is pooled and the result buffers are freed with their plans.
 *
 * <p>Why the bound catches a leak: every call hands the native code result buffers of
 * {@code 4 * owners} (slot per owner), {@code 4 * values} (slot per value) and {@code 8 * owners}
 * (capacities) bytes, and scratch proportional to the owners. The graph here has over 500 owners,
 * so leaking even the smallest of those per call leaks over 2 KiB per call, over 200 MiB in
 * 100,000 calls (the test asserts that arithmetic), while only 64 MiB of growth is allowed (room
 * for malloc arenas, JIT code and GC bookkeeping). A leak of a fixed few bytes per call (the
 * 32-byte stats buffer alone) would stay under the bound; the per-owner buffers are the risk.
 *
 * <p>Why the loop collects garbage every {@value #GC_EVERY} calls: a native plan's result buffers
 * are direct buffers owned by the plan and freed only when a GC finds the plan unreachable. Left
 * to itself the JVM may run 70,000 plans (over 500 MiB of dead result buffers) between young
 * collections, and malloc keeps that high-water mark resident after they are freed, so RSS would
 * measure GC timing, not leaks. Collecting every few thousand calls caps what is pending at a
 * few tens of MiB; anything still growing after that is memory nobody frees.
 */
@EngineIndependent
class NativeMemoryTest {
    private static final int WARM_UP = 20_000;
    private static final int GC_EVERY = 2_000;
    private static final int CALLS = 100_000;
    private static final long BOUND = 64L << 20;
    private static final int OFFSETS_CALLS = 20_000;

    @Test
    @Timeout(180)
    void planningInALoopDoesNotGrowNativeMemory() throws Exception {
        NativeRequirement.requireNativeRun();
        RandomGraphs.Case c = RandomGraphs.generateMixed(99, 300);
        // The slots path: the arithmetic below is about its result buffers.
        Schedule s = MemPlan.compile(c.graph(), c.views(), c.options().withEngine(EngineMode.NATIVE)
                .withStrategy(Strategy.SLOTS));
        int owners = s.numOwners();
        long smallestLeakPerCall = 4L * owners;
        assertTrue(smallestLeakPerCall * CALLS > 3 * BOUND,
                "the graph is big enough that a per-call leak would exceed the bound: " + owners + " owners");

        long[] sizes = new long[owners];
        for (int o = 0; o < owners; o++) {
            sizes[o] = 64L * (1 + o % 5);
        }
        ActivationPlan first = s.plan(sizes);
        PlanValidator.validate(first);
        int[] expectedSlots = PlanAssertions.ints(first.slotsByValue());
        long[] expectedCaps = PlanAssertions.longs(first.slotCapacities());

        PlanCheck sameAsFirst = (i, p) -> {
            if (i % 1000 == 0) {
                assertArrayEquals(expectedSlots, PlanAssertions.ints(p.slotsByValue()), "call " + i);
                assertArrayEquals(expectedCaps, PlanAssertions.longs(p.slotCapacities()), "call " + i);
            } else {
                assertEquals(expectedCaps.length, p.numSlots());
            }
        };
        planRepeatedly(s, sizes, WARM_UP, sameAsFirst);
        Snapshot before = Snapshot.take();
        planRepeatedly(s, sizes, CALLS, sameAsFirst);
        Snapshot after = Snapshot.take();
        assertNoGrowth(before, after);
    }

    @Test
    @Timeout(180)
    void offsetsPlanningInALoopDoesNotGrowNativeMemory() throws Exception {
        NativeRequirement.requireNativeRun();
        // The offsets path: one result buffer of 8 bytes per owner per call, and the sweep's scratch
        // pooled with the schedule's. A transformer, whose sweep reaches the bound, keeps each plan
        // cheap enough for tens of thousands of calls.
        GeneratedGraph g = GraphKind.TRANSFORMER.ofOwners(4_000);
        Schedule s = g.compile(PlanOptions.defaults().withEngine(EngineMode.NATIVE).withStrategy(Strategy.OFFSETS));
        int owners = s.numOwners();
        assertTrue(8L * owners * OFFSETS_CALLS > 3 * BOUND,
                "the graph is big enough that a per-call leak would exceed the bound: " + owners + " owners");
        long[] sizes = g.ownerSizes(s);
        ActivationPlan first = s.plan(sizes);
        PlanValidator.validate(first);
        long[] expectedOffsets = PlanAssertions.longs(first.offsetsByOwner());

        PlanCheck sameAsFirst = (i, p) -> {
            if (i % 1000 == 0) {
                assertArrayEquals(expectedOffsets, PlanAssertions.longs(p.offsetsByOwner()), "call " + i);
            }
        };
        planRepeatedly(s, sizes, OFFSETS_CALLS / 4, sameAsFirst);
        Snapshot before = Snapshot.take();
        planRepeatedly(s, sizes, OFFSETS_CALLS, sameAsFirst);
        Snapshot after = Snapshot.take();
        assertNoGrowth(before, after);
    }

    private static void assertNoGrowth(Snapshot before, Snapshot after) {
        long directGrowth = after.direct - before.direct;
        assertTrue(directGrowth < BOUND, "direct buffers grew by " + directGrowth + " bytes: " + before + " -> " + after);
        if (before.rss.isPresent() && after.rss.isPresent()) {
            // RSS also grows when the JVM touches more of its heap; only growth beyond that counts.
            long heapGrowth = Math.max(0, after.committed - before.committed);
            long nativeGrowth = after.rss.getAsLong() - before.rss.getAsLong() - heapGrowth;
            assertTrue(nativeGrowth < BOUND, "resident memory grew by " + nativeGrowth
                    + " bytes beyond the heap: " + before + " -> " + after);
        }
    }

    /** What a test asserts of the plan of call {@code i}: that it equals the first (validated) one. */
    private interface PlanCheck {
        void check(int i, ActivationPlan p);
    }

    /** Plans {@code n} times, checking each plan, and collects garbage every {@value #GC_EVERY} calls. */
    private static void planRepeatedly(Schedule s, long[] sizes, int n, PlanCheck sameAsFirst) {
        for (int i = 0; i < n; i++) {
            sameAsFirst.check(i, s.plan(sizes));
            if (i % GC_EVERY == GC_EVERY - 1) {
                System.gc();
            }
        }
    }

    /** Native memory as seen from inside the JVM, after collecting unreachable direct buffers. */
    private record Snapshot(long direct, OptionalLong rss, long committed) {
        static Snapshot take() throws InterruptedException {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100); // direct buffers are freed by a cleaner thread after the GC
            }
            long direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                    .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            long committed = memory.getHeapMemoryUsage().getCommitted()
                    + memory.getNonHeapMemoryUsage().getCommitted();
            return new Snapshot(direct, residentBytes(), committed);
        }

        private static OptionalLong residentBytes() {
            try {
                return Files.readAllLines(Path.of("/proc/self/status")).stream()
                        .filter(l -> l.startsWith("VmRSS:"))
                        .mapToLong(l -> Long.parseLong(Arrays.stream(l.split("\\s+")).skip(1).findFirst()
                                .orElseThrow()) * 1024)
                        .findFirst();
            } catch (IOException | RuntimeException e) {
                return OptionalLong.empty(); // not Linux: the direct-buffer check still runs
            }
        }
    }
}
