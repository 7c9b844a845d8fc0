// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.GreedyBySizePacker;
import dev.memplan.testing.PackingChecker;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hard packing instances are what they claim: deterministic, tight (a perfect packing exists
 * and reaches the lower bound), varied, and hard for greedy by size.
 */
@EngineIndependent
class HardPackingGeneratorTest {
    /** The seeds the hardness figures are measured over. */
    static LongStream seeds() {
        return LongStream.rangeClosed(1, 20);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aPerfectPackingExistsAndReachesTheBound(long seed) {
        PackingInstance inst = HardPackingGenerator.generate(seed);
        assertTrue(inst.size() >= 150 && inst.size() <= 500, inst::toString);
        PackingChecker.check(inst.lower(), inst.upper(), inst.sizes(), inst.witnessOffsets(),
                inst.witnessArenaBytes());
        assertEquals(HardPackingGenerator.ARENA_BYTES, inst.witnessArenaBytes());
        assertEquals(inst.witnessArenaBytes(), inst.lowerBoundBytes(), "the pieces tile the rectangle: " + inst);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void sizesSpanThreeOrdersOfMagnitudeAndLifetimesInterleave(long seed) {
        PackingInstance inst = HardPackingGenerator.generate(seed);
        long[] sizes = inst.sizes();
        long min = Arrays.stream(sizes).min().orElseThrow();
        long max = Arrays.stream(sizes).max().orElseThrow();
        assertTrue(max >= 100 * min, inst + ": sizes " + min + ".." + max);
        int[] lower = inst.lower();
        int[] upper = inst.upper();
        int longLived = 0;
        int shortLived = 0;
        for (int i = 0; i < sizes.length; i++) {
            int life = upper[i] - lower[i];
            longLived += life >= inst.numPositions() / 4 ? 1 : 0;
            shortLived += life <= inst.numPositions() / 16 ? 1 : 0;
        }
        assertTrue(longLived >= 5 && shortLived >= 20, inst + ": " + longLived + " long-lived, " + shortLived
                + " short-lived buffers");
    }

    /**
     * Greedy by size with best fit (the TFLite arena planner's method) is the yardstick: on
     * MiniMalloc's public tight instances it lands 28-41% above the bound. These
     * instances must be as hard: geomean within 25-45% above the bound over 20 seeds, and no single
     * instance easy (under 20%) or freakish (over 55%). Measured on seeds 1-20: geomean 1.36, range 1.29-1.45.
     */
    @Test
    void greedyBySizeLandsAThirdAboveTheBound() {
        double logSum = 0;
        double lo = Double.MAX_VALUE;
        double hi = 0;
        StringBuilder table = new StringBuilder();
        for (long seed : seeds().toArray()) {
            PackingInstance inst = HardPackingGenerator.generate(seed);
            long[] sizes = inst.sizes();
            long[] offsets = GreedyBySizePacker.pack(inst.lower(), inst.upper(), sizes);
            long arena = GreedyBySizePacker.arenaBytes(offsets, sizes);
            PackingChecker.check(inst.lower(), inst.upper(), sizes, offsets, arena);
            double ratio = (double) arena / inst.lowerBoundBytes();
            table.append(String.format("%s: greedy %.3f%n", inst.description(), ratio));
            logSum += Math.log(ratio);
            lo = Math.min(lo, ratio);
            hi = Math.max(hi, ratio);
        }
        double geomean = Math.exp(logSum / seeds().count());
        System.out.printf("%sgreedy by size: geomean %.3f, range %.3f-%.3f%n", table, geomean, lo, hi);
        assertTrue(geomean >= 1.25 && geomean <= 1.45, "geomean " + geomean + "\n" + table);
        assertTrue(lo >= 1.20 && hi <= 1.55, "range " + lo + "-" + hi + "\n" + table);
    }

    @Test
    void sameSeedSameInstanceOtherSeedOtherInstance() {
        assertEquals(HardPackingGenerator.generate(7), HardPackingGenerator.generate(7));
        assertNotEquals(HardPackingGenerator.generate(7), HardPackingGenerator.generate(8));
        assertEquals(321, HardPackingGenerator.generate(3, 321).size());
    }

    @Test
    void bufferCountOutsideTheRangeIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HardPackingGenerator.generate(1, 0));
        assertTrue(e.getMessage().contains("got 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> HardPackingGenerator.generate(1, HardPackingGenerator.MAX_BUFFERS + 1));
    }

    @Test
    void theCheckerCatchesOverlapsAndOverflow() {
        PackingInstance inst = HardPackingGenerator.generate(2);
        long[] offsets = inst.witnessOffsets();
        int[] lower = inst.lower();
        int[] upper = inst.upper();
        long[] sizes = inst.sizes();
        // move buffer a onto a buffer b that is live with it
        int a = 0;
        int b = -1;
        for (int q = 1; q < sizes.length && b < 0; q++) {
            if (lower[q] < upper[a] && lower[a] < upper[q]) {
                b = q;
            }
        }
        long[] corrupted = offsets.clone();
        corrupted[a] = offsets[b];
        AssertionError overlap = assertThrows(AssertionError.class,
                () -> PackingChecker.check(lower, upper, sizes, corrupted, inst.witnessArenaBytes()));
        assertTrue(overlap.getMessage().contains("share bytes"), overlap.getMessage());
        assertThrows(AssertionError.class,
                () -> PackingChecker.check(lower, upper, sizes, offsets, inst.witnessArenaBytes() - 1));
    }
}
