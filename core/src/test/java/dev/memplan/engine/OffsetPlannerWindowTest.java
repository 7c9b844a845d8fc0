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
 * The wide fit ({@link WindowFit}) against a plain quadratic first fit, its window swaps on their
 * own, and whole plans on graphs too wide for the fit's per-position lists, where it runs: the two
 * engines agree and the plan is valid and no worse than the sweep's. memplan_core_test's
 * window_fit_test.cpp holds the C++ mirror to the same definitions.
 */
@EngineIndependent
class OffsetPlannerWindowTest {
    static IntStream seeds() {
        return IntStream.range(0, 200);
    }

    static IntStream wideSeeds() {
        return IntStream.range(0, 12);
    }

    private record Instance(int positions, int[] def, int[] useEnd, long[] size) {
        /** Intervals up to {@code maxLength} positions, one in eight up to the end; one in ten empty. */
        static Instance random(Random random, int maxPositions, int maxN, int maxLength) {
            int positions = 1 + random.nextInt(maxPositions);
            int n = random.nextInt(maxN + 1);
            int[] def = new int[n];
            int[] useEnd = new int[n];
            long[] size = new long[n];
            for (int i = 0; i < n; i++) {
                def[i] = random.nextInt(positions);
                int longest = Math.min(random.nextInt(8) == 0 ? positions : maxLength, positions - def[i]);
                useEnd[i] = def[i] + random.nextInt(longest);
                size[i] = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(random.nextBoolean() ? 16 : 5_000);
            }
            return new Instance(positions, def, useEnd, size);
        }

        int[] exclusiveEnds() {
            return IntStream.of(useEnd).map(e -> e + 1).toArray();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void wideFitMatchesTheQuadraticDefinition(int seed) {
        Instance in = Instance.random(new Random(seed), 60, 149, 4);
        int[] bySize = RankOrder.rankOrder(RankOrder.RANK_SIZE, in.def(), in.useEnd(), in.size());
        long[] offset = new long[in.size().length];
        long peak = new WindowFit(in.positions(), in.def(), in.useEnd(), in.size()).place(bySize, offset);

        long[] expected = OffsetPlannerFitTest.quadraticFirstFit(bySize, in.def(), in.useEnd(), in.size());
        assertArrayEquals(expected, offset, "seed " + seed);
        long expectedPeak = 0;
        for (int i = 0; i < expected.length; i++) {
            expectedPeak = Math.max(expectedPeak, expected[i] + in.size()[i]);
        }
        assertEquals(expectedPeak, peak, "seed " + seed);
        PackingChecker.check(in.def(), in.exclusiveEnds(), in.size(), offset, peak);
    }

    /** Thousands of buffers, so a window is a part of them: swaps keep the plan valid and never raise it. */
    @ParameterizedTest
    @MethodSource("wideSeeds")
    void windowSwapsKeepThePlanValidAndNeverRaiseIt(int seed) {
        Instance in = Instance.random(new Random(100 + seed), 3_000, 5_000, 60);
        int[] bySize = RankOrder.rankOrder(RankOrder.RANK_SIZE, in.def(), in.useEnd(), in.size());
        WindowFit wide = new WindowFit(in.positions(), in.def(), in.useEnd(), in.size());
        long[] offset = new long[in.size().length];
        long placed = wide.place(bySize, offset);
        long peak = wide.improve(200, 1L << 40, 0, offset);
        assertTrue(peak <= placed, peak + " after swaps, " + placed + " before");
        long top = 0;
        for (int i = 0; i < offset.length; i++) {
            top = Math.max(top, offset[i] + in.size()[i]);
        }
        assertEquals(top, peak, "seed " + seed);
        PackingChecker.check(in.def(), in.exclusiveEnds(), in.size(), offset, peak);
    }

    /**
     * About fifty buffers live at once over long intervals: the fit's lists are ruled out and the
     * wide fit runs, at effort 1 (before the decodes' samples) and 2 (and the rank swaps after).
     */
    @ParameterizedTest
    @MethodSource("wideSeeds")
    void wideGraphsPlanTheSameOnBothEngines(int seed) {
        NativeRequirement.requireNativeEngine();
        Random random = new Random(3_000 + seed);
        int positions = 20_000 + random.nextInt(5_000);
        int n = 4_000 + random.nextInt(2_000);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            useEnd[i] = Math.min(positions - 1, def[i] + random.nextInt(400));
            size[i] = random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(1 << 20);
        }
        int effort = 1 + seed % 2;
        SearchCost cost = SearchCost.of(positions, def, useEnd, size);
        assertFalse(cost.fitRuns(n, effort), "the fit's lists would run");
        assertTrue(WindowFit.runs(WindowFit.visitsFor(positions, def, useEnd, size), n, effort), "no wide fit");

        OffsetAllocation java = JavaEngine.INSTANCE.packOffsets(positions, def, useEnd, size, effort);
        OffsetAllocation nat = NativeEngine.instance().orElseThrow().packOffsets(positions, def, useEnd, size, effort);
        long[] javaOffsets = offsets(java);
        assertArrayEquals(javaOffsets, offsets(nat), "seed " + seed);
        assertEquals(java.peakBytes(), nat.peakBytes());
        long sweep = JavaEngine.INSTANCE.packOffsets(positions, def, useEnd, size, 0).peakBytes();
        assertTrue(sweep > java.lowerBoundBytes(), "the sweep reaches the bound; this test lost its point");
        assertTrue(java.peakBytes() <= sweep, "effort " + effort + " planned worse than the sweep");
        PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, javaOffsets, java.peakBytes());
    }

    private static long[] offsets(OffsetAllocation a) {
        long[] out = new long[a.ownerOffsets().remaining()];
        a.ownerOffsets().duplicate().get(out);
        return out;
    }
}
