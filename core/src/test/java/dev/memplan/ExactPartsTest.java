// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PackingChecker;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Packing#packExact} over buffers that fall apart in time: each part is searched alone, the
 * arena and the proven bound are the largest part's, the limits hold for the whole call, and both
 * engines give the same answer. Every answer goes through {@link PackingChecker}.
 */
class ExactPartsTest {

    /** Buffers alive over [lower, upper) with sizes. */
    private record Problem(long[] lower, long[] upper, long[] sizes) {
        static Problem random(Random r, int buffers, int horizon, int maxSize) {
            long[] lower = new long[buffers];
            long[] upper = new long[buffers];
            long[] sizes = new long[buffers];
            for (int i = 0; i < buffers; i++) {
                lower[i] = r.nextInt(horizon);
                upper[i] = lower[i] + 1 + r.nextInt(horizon / 2 + 1);
                sizes[i] = 1 + r.nextInt(maxSize);
            }
            return new Problem(lower, upper, sizes);
        }

        /** This problem, then {@code next} starting {@code gap} after this one's last buffer ends. */
        Problem then(Problem next, long gap) {
            long shift = Arrays.stream(upper).max().orElse(0) + gap - Arrays.stream(next.lower).min().orElse(0);
            int n = sizes.length;
            int m = next.sizes.length;
            long[] l = Arrays.copyOf(lower, n + m);
            long[] u = Arrays.copyOf(upper, n + m);
            long[] s = Arrays.copyOf(sizes, n + m);
            for (int i = 0; i < m; i++) {
                l[n + i] = next.lower[i] + shift;
                u[n + i] = next.upper[i] + shift;
                s[n + i] = next.sizes[i];
            }
            return new Problem(l, u, s);
        }

        Packing.ExactResult exact(long nodes, long capacity, EngineMode engine) {
            return Packing.packExact(lower, upper, sizes, new Packing.ExactLimits(nodes, Duration.ZERO, capacity),
                    engine);
        }

        /** Checks the plan with code that shares nothing with the search. */
        void check(Packing.ExactResult r) {
            int n = sizes.length;
            int[] l = new int[n];
            int[] u = new int[n];
            for (int i = 0; i < n; i++) {
                l[i] = Math.toIntExact(lower[i]);
                u[i] = Math.toIntExact(upper[i]);
            }
            PackingChecker.check(l, u, sizes, r.plan().offsets(), r.plan().arenaBytes());
            assertTrue(r.provenBoundBytes() >= r.plan().lowerBoundBytes(), "the proven bound starts at the live bound");
            assertTrue(r.provenBoundBytes() <= r.plan().arenaBytes());
            assertEquals(r.status() == Packing.ExactStatus.PROVEN_OPTIMAL, r.provenOptimal(), r.toString());
        }
    }

    static LongStream seeds() {
        return LongStream.range(0, 60);
    }

    /** Three random instances one after another in time, with empty time between them or not. */
    private static Problem threeApart(long seed) {
        Random r = new Random(seed);
        Problem a = Problem.random(r, 5 + r.nextInt(25), 30, 100);
        Problem b = Problem.random(r, 5 + r.nextInt(25), 30, 100);
        Problem c = Problem.random(r, 5 + r.nextInt(25), 30, 100);
        return a.then(b, seed % 2).then(c, 0);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theWholeIsProvenAtTheLargestPartsOptimum(long seed) {
        Random random = new Random(seed);
        Problem a = Problem.random(random, 5 + random.nextInt(25), 30, 100);
        Problem b = Problem.random(random, 5 + random.nextInt(25), 30, 100);
        Packing.ExactResult alone = a.exact(Packing.DEFAULT_EXACT_NODES, -1, EngineMode.fromSystemProperty());
        Packing.ExactResult other = b.exact(Packing.DEFAULT_EXACT_NODES, -1, EngineMode.fromSystemProperty());
        Problem both = a.then(b, seed % 3);
        Packing.ExactResult r = both.exact(Packing.DEFAULT_EXACT_NODES, -1, EngineMode.fromSystemProperty());
        both.check(r);
        assertTrue(r.parts() >= alone.parts() + other.parts(), "the seam splits the parts: " + r);
        if (alone.provenOptimal() && other.provenOptimal()) {
            assertTrue(r.provenOptimal(), "both halves proven, so is the whole: " + r);
            assertEquals(Math.max(alone.plan().arenaBytes(), other.plan().arenaBytes()), r.plan().arenaBytes());
        }
        assertTrue(r.nodes() <= Packing.DEFAULT_EXACT_NODES);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void bothEnginesGiveTheSameAnswerOverParts(long seed) {
        NativeRequirement.requireNativeEngine();
        Problem p = threeApart(seed);
        long nodes = 1 + new Random(seed).nextInt(3_000);
        Packing.ExactResult java = p.exact(nodes, -1, EngineMode.JAVA);
        Packing.ExactResult nat = p.exact(nodes, -1, EngineMode.NATIVE);
        p.check(java);
        p.check(nat);
        assertArrayEquals(java.plan().offsets(), nat.plan().offsets(), "seed " + seed);
        assertEquals(java.provenBoundBytes(), nat.provenBoundBytes());
        assertEquals(java.status(), nat.status());
        assertEquals(java.nodes(), nat.nodes());
        assertEquals(java.parts(), nat.parts());
        assertTrue(java.nodes() <= nodes, "the node limit holds for the whole call: " + java);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aCapacityIsAskedOfEveryPart(long seed) {
        Problem p = threeApart(seed);
        Packing.ExactResult best = p.exact(Packing.DEFAULT_EXACT_NODES, -1, EngineMode.fromSystemProperty());
        long capacity = best.plan().arenaBytes() + seed % 7;
        Packing.ExactResult r = p.exact(Packing.DEFAULT_EXACT_NODES, capacity, EngineMode.fromSystemProperty());
        p.check(r);
        assertTrue(r.plan().arenaBytes() <= capacity, r.toString());
        assertTrue(r.status() == Packing.ExactStatus.CAPACITY_REACHED || r.provenOptimal(), r.toString());
    }

    @Test
    void theLaterPartWithTheHigherBoundSetsTheArena() {
        // the first part in time is one 10-byte buffer; the second, three 6-byte buffers alive
        // together (18 bytes): it is searched first, and the first need only fit in its 18
        Problem first = new Problem(new long[] {0}, new long[] {2}, new long[] {10});
        Problem second = new Problem(new long[] {0, 0, 0}, new long[] {3, 3, 3}, new long[] {6, 6, 6});
        Problem p = first.then(second, 0);
        Packing.ExactResult r = p.exact(Packing.DEFAULT_EXACT_NODES, -1, EngineMode.fromSystemProperty());
        p.check(r);
        assertEquals(2, r.parts());
        assertEquals(18, r.plan().arenaBytes());
        assertEquals(18, r.provenBoundBytes());
        assertTrue(r.provenOptimal(), r.toString());
    }

    @Test
    void oneInstanceIsOnePart() {
        Problem p = new Problem(new long[] {0, 1, 2}, new long[] {2, 3, 4}, new long[] {5, 6, 7});
        Packing.ExactResult r = p.exact(Packing.DEFAULT_EXACT_NODES, -1, EngineMode.fromSystemProperty());
        p.check(r);
        assertEquals(1, r.parts());
        assertEquals(13, r.plan().arenaBytes());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSpentClockReturnsThePlanOfPackWithItsGapAndSearchesNothing(long seed) {
        // a clock already run out when the search would start: nothing runs past it, not even the
        // default effort's plan, and the answer is never worse than pack's at effort 1
        dev.memplan.generate.PackingInstance hard = dev.memplan.generate.HardPackingGenerator.generate(seed + 1, 60);
        long[] lower = Arrays.stream(hard.lower()).asLongStream().toArray();
        long[] upper = Arrays.stream(hard.upper()).asLongStream().toArray();
        Problem p = new Problem(lower, upper, hard.sizes());
        Packing.ExactResult r = Packing.packExact(lower, upper, hard.sizes(),
                new Packing.ExactLimits(Packing.DEFAULT_EXACT_NODES, Duration.ofNanos(1), -1),
                EngineMode.fromSystemProperty());
        p.check(r);
        assertEquals(0, r.nodes(), r.toString());
        Packing.Result pack = Packing.pack(lower, upper, hard.sizes(), 1, EngineMode.fromSystemProperty());
        assertTrue(r.plan().arenaBytes() <= pack.arenaBytes(), r + " against pack's " + pack.arenaBytes());
        assertTrue(r.provenOptimal() || r.status() == Packing.ExactStatus.TIME_LIMIT, r.toString());
    }
}
