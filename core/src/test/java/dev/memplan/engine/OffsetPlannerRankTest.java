// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.memplan.testing.EngineIndependent;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The size and length ranks are radix sorts; they must give exactly the order of the comparison
 * merge sort under {@code rankBefore} (a total order), which is what the C++ mirror is tested
 * against too. Keys share high bytes and differ in low ones, and some buffers have no size.
 */
@EngineIndependent
class OffsetPlannerRankTest {
    static IntStream seeds() {
        return IntStream.range(0, 200);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void radixRanksMatchTheComparisonSort(int seed) {
        Random random = new Random(seed);
        int positions = 1 + random.nextInt(300);
        int n = random.nextInt(400);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        long[] size = new long[n];
        for (int i = 0; i < n; i++) {
            def[i] = random.nextInt(positions);
            useEnd[i] = def[i] + random.nextInt(positions - def[i]);
            int shape = random.nextInt(4);
            size[i] = shape == 0 ? 0
                    : shape == 1 ? (1L + random.nextInt(4)) << 20
                    : ((long) random.nextInt(70_001) << 24) + 1 + random.nextInt(255);
        }
        for (int rank : new int[] {RankOrder.RANK_SIZE, RankOrder.RANK_LENGTH}) {
            int[] radix = RankOrder.rankOrder(rank, def, useEnd, size);
            int[] expected = IntStream.range(0, n).filter(i -> size[i] != 0).toArray();
            RankOrder.mergeSortByRank(rank, expected, expected.length, def, useEnd, size, new int[expected.length]);
            assertArrayEquals(expected, radix, "rank " + rank + ", seed " + seed);
        }
    }
}
