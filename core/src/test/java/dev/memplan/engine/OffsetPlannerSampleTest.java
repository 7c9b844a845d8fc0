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
import org.junit.jupiter.api.Test;

/**
 * The rank decodes' sample ({@link CanonicalDecoder#sampleFits}): on a slice of a large instance
 * the decoder pops about as often per buffer as on the whole, so the slice tells whether a decode
 * fits its budget before the budget is spent. offsets_plan_test.cpp's test_offsets_decode_sample
 * holds the C++ mirror to the same.
 */
@EngineIndependent
class OffsetPlannerSampleTest {
    private static final int N = CanonicalDecoder.SAMPLE_MIN_BUFFERS + 1_000;
    private static final int POSITIONS = 2 * N;
    private static final long EFFORT_ONE_BUDGET = OffsetsPlan.POPS_PER_BUFFER * N + OffsetsPlan.POPS_ALLOWANCE;

    /** Random rows: starts uniform, lengths uniform in [1, 2 * meanLength - 1], sizes in [1, 2^20]. */
    private record Rows(int[] def, int[] useEnd, long[] size) {
        static Rows random(long seed, int meanLength) {
            Random random = new Random(seed);
            int[] def = new int[N];
            int[] useEnd = new int[N];
            long[] size = new long[N];
            for (int i = 0; i < N; i++) {
                def[i] = random.nextInt(POSITIONS);
                useEnd[i] = Math.min(POSITIONS - 1, def[i] + random.nextInt(2 * meanLength - 1));
                size[i] = 1 + random.nextInt(1 << 20);
            }
            return new Rows(def, useEnd, size);
        }

        int[] bySize() {
            return RankOrder.rankOrder(RankOrder.RANK_SIZE, def, useEnd, size);
        }

        boolean flat() {
            return SkylineTree.isFlat(def, useEnd, size);
        }
    }

    /** About 100 buffers live at once: the whole decode runs out of effort 1's pops, and the sample says so first. */
    @Test
    void aDenseSampleRefusesTheDecodeThatWouldRunOut() {
        Rows rows = Rows.random(1, 200);
        int[] bySize = rows.bySize();
        assertFalse(CanonicalDecoder.sampleFits(POSITIONS, rows.def(), rows.useEnd(), rows.size(), rows.flat(), bySize,
                EFFORT_ONE_BUDGET));
        CanonicalDecoder whole = new CanonicalDecoder(rows.def(), rows.useEnd(), rows.size(),
                new SkylineTree(POSITIONS, rows.flat()));
        assertEquals(-1, whole.decode(bySize, EFFORT_ONE_BUDGET, new long[N]), "the decode fits: the sample was wrong");
    }

    /** About 10 buffers live at once: the sample fits, and so does the decode. */
    @Test
    void aSparseSampleLetsTheDecodeRun() {
        Rows rows = Rows.random(2, 20);
        int[] bySize = rows.bySize();
        assertTrue(CanonicalDecoder.sampleFits(POSITIONS, rows.def(), rows.useEnd(), rows.size(), rows.flat(), bySize,
                EFFORT_ONE_BUDGET));
        CanonicalDecoder whole = new CanonicalDecoder(rows.def(), rows.useEnd(), rows.size(),
                new SkylineTree(POSITIONS, rows.flat()));
        assertTrue(whole.decode(bySize, EFFORT_ONE_BUDGET, new long[N]) > 0);
    }

    /** Below the threshold there is no sample: the decode always runs. */
    @Test
    void smallInstancesAreNotSampled() {
        Rows rows = Rows.random(3, 200);
        int[] fewer = java.util.Arrays.copyOf(rows.bySize(), CanonicalDecoder.SAMPLE_MIN_BUFFERS - 1);
        assertTrue(CanonicalDecoder.sampleFits(POSITIONS, rows.def(), rows.useEnd(), rows.size(), rows.flat(), fewer, 0));
    }

    /**
     * Dense at effort 1: every decode is skipped on both engines, and the plan is the wide fit's
     * improved by window swaps ({@link WindowFit}), byte for byte, below the sweep's.
     */
    @Test
    void bothEnginesTakeTheWideFitWhenEveryDecodeIsSkipped() {
        NativeRequirement.requireNativeEngine();
        Rows rows = Rows.random(4, 200);
        OffsetAllocation java = JavaEngine.INSTANCE.packOffsets(POSITIONS, rows.def(), rows.useEnd(), rows.size(), 1);
        OffsetAllocation nat = NativeEngine.instance().orElseThrow()
                .packOffsets(POSITIONS, rows.def(), rows.useEnd(), rows.size(), 1);
        OffsetAllocation sweep = JavaEngine.INSTANCE.packOffsets(POSITIONS, rows.def(), rows.useEnd(), rows.size(), 0);
        long[] javaOffsets = offsets(java);
        assertArrayEquals(javaOffsets, offsets(nat));
        assertEquals(java.peakBytes(), nat.peakBytes());
        assertTrue(java.peakBytes() < sweep.peakBytes(), java.peakBytes() + " vs the sweep's " + sweep.peakBytes());

        assertTrue(WindowFit.runs(WindowFit.visitsFor(POSITIONS, rows.def(), rows.useEnd(), rows.size()), N, 1));
        WindowFit wide = new WindowFit(POSITIONS, rows.def(), rows.useEnd(), rows.size());
        long[] expected = new long[N];
        wide.place(rows.bySize(), expected);
        long peak = wide.improve(WindowFit.SWAP_STEPS_PER_EFFORT, WindowFit.SWAP_VISITS_PER_BUFFER * N,
                java.lowerBoundBytes(), expected);
        assertEquals(peak, java.peakBytes());
        assertArrayEquals(expected, javaOffsets);
        PackingChecker.check(rows.def(), IntStream.of(rows.useEnd()).map(e -> e + 1).toArray(), rows.size(),
                javaOffsets, java.peakBytes());
    }

    private static long[] offsets(OffsetAllocation a) {
        long[] out = new long[a.ownerOffsets().remaining()];
        a.ownerOffsets().duplicate().get(out);
        return out;
    }
}
