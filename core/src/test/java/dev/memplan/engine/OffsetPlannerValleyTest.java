// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PackingChecker;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The valley decoder against the canonical decoder it replaces on wide graphs: the same offset for
 * every buffer, for every rank (memplan_core_test's test_offsets_valley_matches_canonical holds the
 * C++ mirror to the same). Then whole plans at effort 2 on graphs too wide for the lazy heap,
 * where the valley decoder runs: the two engines agree and the plan is no worse than effort 1's.
 */
@EngineIndependent
class OffsetPlannerValleyTest {
    static IntStream seeds() {
        return IntStream.range(0, 300);
    }

    /** Few distinct sizes and one-step buffers make ties in heights and ranks common. */
    @ParameterizedTest
    @MethodSource("seeds")
    void valleyDecoderMatchesTheCanonicalDecoder(int seed) {
        Random random = new Random(seed);
        int positions = 1 + random.nextInt(60);
        int n = random.nextInt(150);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        int kinds = 1 + random.nextInt(4);
        int sized = 0;
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            int longest = random.nextInt(3) == 0 ? 3 : positions - def[i];
            useEnd[i] = Math.min(positions - 1, def[i] + random.nextInt(longest));
            size[i] = random.nextInt(10) == 0 ? 0 : (1 + random.nextInt(kinds)) * (random.nextBoolean() ? 8L : 16L);
            sized += size[i] != 0 ? 1 : 0;
        }
        CanonicalDecoder canonical = new CanonicalDecoder(def, useEnd, size,
                new SkylineTree(positions, SkylineTree.isFlat(def, useEnd, size)));
        ValleyDecoder valley = new ValleyDecoder(positions, def, useEnd, size, sized);
        for (int rank = 0; rank < RankOrder.NUM_RANKS; rank++) {
            int[] byRank = RankOrder.rankOrder(rank, def, useEnd, size);
            long[] expected = new long[n];
            long expectedPeak = canonical.decode(byRank, Long.MAX_VALUE / 4, expected);
            long[] offset = new long[n];
            long peak = valley.decode(byRank, offset);
            assertEquals(expectedPeak, peak, "seed " + seed + ", rank " + rank);
            assertArrayEquals(expected, offset, "seed " + seed + ", rank " + rank);
            PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, offset, peak);
        }
    }

    static IntStream wideSeeds() {
        return IntStream.range(0, 12);
    }

    /**
     * Hundreds of long-lived buffers live at once: the lazy heap's forecast rules it out, so at
     * effort 2 the valley decoder runs (checked from the same cost figures the planner uses).
     */
    @ParameterizedTest
    @MethodSource("wideSeeds")
    void wideGraphsAtEffortTwoPlanTheSameOnBothEngines(int seed) {
        NativeRequirement.requireNativeEngine();
        Random random = new Random(1_000 + seed);
        int positions = 200 + random.nextInt(200);
        int n = 3_000 + random.nextInt(1_000);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            useEnd[i] = Math.min(positions - 1, def[i] + random.nextInt(positions));
            size[i] = random.nextInt(20) == 0 ? 0 : 64L << random.nextInt(10);
        }
        SearchCost cost = SearchCost.of(positions, def, useEnd, size);
        int effort = OffsetsPlan.VALLEY_MIN_EFFORT;
        long budget = effort * (OffsetsPlan.POPS_PER_BUFFER * n + OffsetsPlan.POPS_ALLOWANCE);
        assertTrue(cost.expectedPops(positions) > budget, "not wide enough for the valley decoder to run");
        assertFalse(cost.fitRuns(n, effort), "the fit would run too");
        assertTrue(ValleyDecoder.entriesFor(cost.sized(), positions) <= budget);

        OffsetAllocation java = JavaEngine.INSTANCE.packOffsets(positions, def, useEnd, size, effort);
        OffsetAllocation nat = NativeEngine.instance().orElseThrow().packOffsets(positions, def, useEnd, size, effort);
        long[] javaOffsets = offsets(java);
        assertArrayEquals(javaOffsets, offsets(nat), "seed " + seed);
        assertEquals(java.peakBytes(), nat.peakBytes());
        // The sweep's plan (effort 1 on such a graph), improved by the three decodes the budget affords.
        long expected = JavaEngine.INSTANCE.packOffsets(positions, def, useEnd, size, 1).peakBytes();
        assertTrue(3 * ValleyDecoder.entriesFor(cost.sized(), positions) <= budget);
        ValleyDecoder valley = new ValleyDecoder(positions, def, useEnd, size, (int) cost.sized());
        for (int rank = 0; rank < RankOrder.NUM_RANKS; rank++) {
            expected = Math.min(expected, valley.decode(RankOrder.rankOrder(rank, def, useEnd, size), new long[n]));
        }
        assertEquals(expected, java.peakBytes(), "seed " + seed);
        PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, javaOffsets, java.peakBytes());
    }

    /**
     * About a hundred buffers live at once: the lazy heap fits the budget at effort 8, but valley
     * filling is forecast cheaper, so it takes the rank decodes and the heap the rank swaps after.
     */
    @ParameterizedTest
    @MethodSource("wideSeeds")
    void middlingGraphsAtEffortEightPlanTheSameOnBothEngines(int seed) {
        NativeRequirement.requireNativeEngine();
        Random random = new Random(2_000 + seed);
        int positions = 80 + random.nextInt(40);
        int n = 300 + random.nextInt(200);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            useEnd[i] = Math.min(positions - 1, def[i] + random.nextInt(positions / 2));
            size[i] = random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(random.nextBoolean() ? 64 : 4_096);
        }
        SearchCost cost = SearchCost.of(positions, def, useEnd, size);
        int effort = 8;
        long budget = effort * (OffsetsPlan.POPS_PER_BUFFER * n + OffsetsPlan.POPS_ALLOWANCE);
        long valleyCost = ValleyDecoder.entriesFor(cost.sized(), positions);
        assertTrue(cost.expectedPops(positions) <= budget, "the lazy heap should fit the budget");
        assertTrue(valleyCost < cost.expectedPops(positions), "valley filling should be forecast cheaper");
        assertFalse(cost.fitRuns(n, effort), "the fit would run too");

        OffsetAllocation java = JavaEngine.INSTANCE.packOffsets(positions, def, useEnd, size, effort);
        OffsetAllocation nat = NativeEngine.instance().orElseThrow().packOffsets(positions, def, useEnd, size, effort);
        long[] javaOffsets = offsets(java);
        assertArrayEquals(javaOffsets, offsets(nat), "seed " + seed);
        assertEquals(java.peakBytes(), nat.peakBytes());
        long effortOne = JavaEngine.INSTANCE.packOffsets(positions, def, useEnd, size, 1).peakBytes();
        assertTrue(java.peakBytes() <= effortOne, "effort 8 planned worse than effort 1");
        PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, javaOffsets, java.peakBytes());
    }

    private static long[] offsets(OffsetAllocation a) {
        long[] out = new long[a.ownerOffsets().remaining()];
        a.ownerOffsets().duplicate().get(out);
        return out;
    }
}
