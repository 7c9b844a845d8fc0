// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.PackingChecker;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fit phase (greedy by size, first fit) against a plain quadratic first fit written from its
 * definition, and on the instance it exists for: a U-Net, whose skips the sweep cannot foresee.
 * The C++ mirror is held to the same reference by memplan_core_test's
 * test_offsets_fit_matches_naive_first_fit.
 */
@EngineIndependent
class OffsetPlannerFitTest {
    static IntStream seeds() {
        return IntStream.range(0, 200);
    }

    /** Short intervals mostly, some long ones, so that some buffers overlap more than an insertion sort's worth. */
    @ParameterizedTest
    @MethodSource("seeds")
    void firstFitMatchesTheQuadraticDefinition(int seed) {
        Random random = new Random(seed);
        int positions = 1 + random.nextInt(60);
        int n = random.nextInt(150);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            int longest = random.nextInt(8) == 0 ? positions - def[i] : Math.min(3, positions - def[i]);
            useEnd[i] = def[i] + random.nextInt(longest);
            size[i] = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(random.nextBoolean() ? 16 : 5_000);
        }
        int[] bySize = RankOrder.rankOrder(RankOrder.RANK_SIZE, def, useEnd, size);
        long[] offset = new long[n];
        long entries = SearchCost.of(positions, def, useEnd, size).entries();
        long peak = new FirstFit(positions, def, useEnd, size, entries).place(bySize, offset);

        long[] expected = quadraticFirstFit(bySize, def, useEnd, size);
        assertArrayEquals(expected, offset, "seed " + seed);
        long expectedPeak = 0;
        for (int i = 0; i < n; i++) {
            expectedPeak = Math.max(expectedPeak, expected[i] + size[i]);
        }
        assertEquals(expectedPeak, peak, "seed " + seed);
        PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, offset, peak);
    }

    /** A sweep paused at a limit and run on to the end plans exactly as one that never paused. */
    @ParameterizedTest
    @MethodSource("seeds")
    void pausedSweepFinishesAsAnUnpausedOne(int seed) {
        Random random = new Random(seed);
        int positions = 1 + random.nextInt(60);
        int n = random.nextInt(150);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            useEnd[i] = def[i] + random.nextInt(Math.min(6, positions - def[i]));
            size[i] = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(1_000);
        }
        long[] whole = new long[n];
        long peak = new Sweep(positions, def, useEnd, size, whole).run(Sweep.NO_LIMIT);

        long[] paused = new long[n];
        Sweep sweep = new Sweep(positions, def, useEnd, size, paused);
        long limit = peak == 0 ? 0 : random.nextLong(peak);
        int pauses = 0;
        long result;
        while ((result = sweep.run(limit)) == Sweep.STOPPED) {
            pauses++;
            limit += 1 + random.nextInt(500);
        }
        assertEquals(peak, result, "seed " + seed);
        assertArrayEquals(whole, paused, "seed " + seed + ", " + pauses + " pauses");
        assertEquals(peak > 0, pauses > 0, "a limit below the peak pauses the sweep");
    }

    /**
     * Size classes change how the sweep finds the best fit, never which gap it is: the same plan
     * with and without them, on narrow and wide instances alike (memplan_core_test's
     * test_offsets_size_classes_do_not_change_the_sweep holds the C++ mirror to the same).
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void sizeClassesDoNotChangeTheSweep(int seed) {
        Random random = new Random(seed);
        int positions = 1 + random.nextInt(80);
        int n = random.nextInt(400);
        boolean wide = random.nextBoolean();
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            useEnd[i] = def[i] + random.nextInt(wide ? positions - def[i] : Math.min(6, positions - def[i]));
            int bits = random.nextInt(21);
            size[i] = random.nextInt(10) == 0 ? 0 : (1L << bits) + random.nextInt(1 << bits);
        }
        long[][] plans = new long[2][n];
        long[] peaks = new long[2];
        for (int classed = 0; classed < 2; classed++) {
            Sweep sweep = new Sweep(positions, def, useEnd, size, plans[classed]);
            sweep.arena().setClassed(classed == 1);
            peaks[classed] = sweep.run(Sweep.NO_LIMIT);
        }
        assertEquals(peaks[0], peaks[1], "seed " + seed);
        assertArrayEquals(plans[0], plans[1], "seed " + seed);
        PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, plans[1], peaks[1]);
    }

    @Test
    void fitPlacesAUNetAtTheBoundWhereTheSweepCannot() {
        GeneratedGraph unet = GraphKind.UNET.ofOwners(1_000);
        Schedule schedule = unet.compile(PlanOptions.defaults());
        long[] size = unet.ownerSizes(schedule);
        int n = schedule.numOwners();
        int positions = schedule.numPositions();
        int[] def = IntStream.range(0, n).map(schedule::def).toArray();
        int[] useEnd = IntStream.range(0, n).map(schedule::useEnd).toArray();
        long bound = OffsetsPlan.lowerBound(positions, def, useEnd, size);

        long sweep = new Sweep(positions, def, useEnd, size, new long[n]).run(Sweep.NO_LIMIT);
        assertTrue(sweep > bound, "the sweep reaches the bound here; this test lost its point (" + sweep + ")");

        SearchCost cost = SearchCost.of(positions, def, useEnd, size);
        assertTrue(cost.fitRuns(n, PlanOptions.DEFAULT_EFFORT), "the fit phase would not run: " + cost);
        long[] offset = new long[n];
        int[] bySize = RankOrder.rankOrder(RankOrder.RANK_SIZE, def, useEnd, size);
        long fit = new FirstFit(positions, def, useEnd, size, cost.entries()).place(bySize, offset);
        assertEquals(bound, fit);
        PackingChecker.check(def, IntStream.of(useEnd).map(e -> e + 1).toArray(), size, offset, fit);

        long[] planned = new long[n];
        long[] stats = OffsetsPlan.plan(positions, def, useEnd, size, PlanOptions.DEFAULT_EFFORT, planned);
        assertEquals(bound, stats[OffsetsPlan.STAT_PEAK]);
        assertArrayEquals(offset, planned, "the plan is the fit phase's: the sweep missed and fit came first");
    }

    /**
     * Greedy by size, first fit, from the definition: each buffer in turn at the lowest offset where
     * no earlier buffer live at the same time overlaps it, found by scanning all earlier buffers.
     */
    static long[] quadraticFirstFit(int[] bySize, int[] def, int[] useEnd, long[] size) {
        long[] offset = new long[size.length];
        for (int k = 0; k < bySize.length; k++) {
            int b = bySize[k];
            Integer[] placed = Arrays.stream(bySize, 0, k)
                    .filter(y -> def[y] <= useEnd[b] && def[b] <= useEnd[y])
                    .boxed()
                    .sorted(Comparator.comparingLong(y -> offset[y]))
                    .toArray(Integer[]::new);
            long candidate = 0;
            for (int y : placed) {
                if (offset[y] >= candidate + size[b]) {
                    break;
                }
                candidate = Math.max(candidate, offset[y] + size[y]);
            }
            offset[b] = candidate;
        }
        return offset;
    }
}
