// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The combinations of open If branches the ort runtime replays: a nested If's choice counts only
 * where its enclosing If takes the branch it sits in. Checked against every assignment of the
 * choices' bits with the bits of Ifs that do not run cleared, on seeded random trees of Ifs.
 */
@EngineIndependent
class OrtIfCombinationsTest {

    @Test
    void sileroVadsNineOpenIfsAreThirtyTwoRunsNotFiveHundredTwelve() {
        OrtSubgraphReplay.Choices choices = new OrtSubgraphReplay.Choices();
        int rate = choices.of("sr == 16000", -1, 0);
        for (int branch = 0; branch < 2; branch++) {
            for (int k = 0; k < 4; k++) {
                choices.of("inner " + branch + " " + k, rate, branch);
            }
        }
        assertEquals(9, choices.count());
        assertEquals(32, choices.combinations().length);
    }

    @Test
    void anIfOnAConditionSeenElsewhereRunsInEveryCombination() {
        OrtSubgraphReplay.Choices choices = new OrtSubgraphReplay.Choices();
        int outer = choices.of("a", -1, 0);
        choices.of("b", outer, 1);
        choices.of("b", -1, 0); // the same condition outside: unguarded
        assertEquals(4, choices.combinations().length);
    }

    @Test
    void tooManyCombinationsAreRefusedNotReplayed() {
        OrtSubgraphReplay.Choices choices = new OrtSubgraphReplay.Choices();
        for (int k = 0; k < 9; k++) { // nine independent conditions: 512 combinations
            choices.of("c" + k, -1, 0);
        }
        assertNull(choices.combinations());
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void theCombinationsAreEveryReachableAssignmentOnce(long seed) {
        Random random = new Random(seed);
        OrtSubgraphReplay.Choices choices = new OrtSubgraphReplay.Choices();
        int n = 2 + random.nextInt(9);
        int[] outer = new int[n];
        int[] branch = new int[n];
        for (int i = 0; i < n; i++) {
            // an If of the main graph, or one inside a branch of an If made before it
            outer[i] = i == 0 || random.nextInt(3) == 0 ? -1 : random.nextInt(i);
            branch[i] = random.nextInt(2);
            assertEquals(i, choices.of("c" + i, outer[i], branch[i]));
        }
        TreeSet<Long> expected = new TreeSet<>();
        for (long bits = 0; bits < 1L << n; bits++) {
            long reachable = bits;
            for (int i = 0; i < n; i++) { // parents come first: clear the bit of an If that does not run
                if (outer[i] >= 0 && (reachable >>> outer[i] & 1) != branch[i]) {
                    reachable &= ~(1L << i);
                }
            }
            expected.add(reachable);
        }
        long[] combinations = choices.combinations();
        if (expected.size() > OrtSubgraphReplay.Choices.MAX_COMBINATIONS) {
            assertNull(combinations);
            return;
        }
        assertEquals(expected.size(), combinations.length, "each combination once");
        assertArrayEquals(expected.stream().mapToLong(Long::longValue).toArray(),
                LongStream.of(combinations).sorted().toArray());
        List<Long> again = new ArrayList<>();
        LongStream.of(choices.combinations()).forEach(again::add);
        assertEquals(LongStream.of(combinations).boxed().toList(), again, "the same order every time");
    }
}
