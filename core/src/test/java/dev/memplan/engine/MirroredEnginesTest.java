// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two engines are one program written twice: the constants that cross the boundary agree
 * with memplan_core.h's macros, the free set behaves as a sorted set of (capacity, slot id), and
 * its priorities are the ones the C++ test pins (test_priority_matches_java).
 *
 * <p>Engine-independent: it reads both engines' parts directly, whatever {@code memplan.engine} says.
 */
@EngineIndependent
class MirroredEnginesTest {

    @Test
    void returnCodesAndStatIndicesAreTheHeaderMacros() {
        NativeRequirement.requireNativeEngine();
        assertEquals(MemplanNative.MEMPLAN_OK(), MemplanNative.OK);
        assertEquals(MemplanNative.MEMPLAN_CYCLE(), MemplanNative.CYCLE);
        assertEquals(MemplanNative.MEMPLAN_BAD_ARGUMENT(), MemplanNative.BAD_ARGUMENT);
        assertEquals(MemplanNative.MEMPLAN_OVERFLOW(), MemplanNative.OVERFLOW);
        assertEquals(MemplanNative.MEMPLAN_OUT_OF_MEMORY(), MemplanNative.OUT_OF_MEMORY);
        assertEquals(MemplanNative.MEMPLAN_STAT_NUM_SLOTS(), MemplanNative.STAT_NUM_SLOTS);
        assertEquals(MemplanNative.MEMPLAN_STAT_PEAK_BYTES(), MemplanNative.STAT_PEAK_BYTES);
        assertEquals(MemplanNative.MEMPLAN_STAT_NAIVE_BYTES(), MemplanNative.STAT_NAIVE_BYTES);
        assertEquals(MemplanNative.MEMPLAN_STAT_LOWER_BOUND_BYTES(), MemplanNative.STAT_LOWER_BOUND_BYTES);
        assertEquals(MemplanNative.MEMPLAN_NUM_STATS(), MemplanNative.NUM_STATS);
        assertEquals(MemplanNative.MEMPLAN_OFFSETS_STAT_PEAK_BYTES(), MemplanNative.OFFSETS_STAT_PEAK_BYTES);
        assertEquals(MemplanNative.MEMPLAN_OFFSETS_STAT_NAIVE_BYTES(), MemplanNative.OFFSETS_STAT_NAIVE_BYTES);
        assertEquals(MemplanNative.MEMPLAN_OFFSETS_STAT_LOWER_BOUND_BYTES(),
                MemplanNative.OFFSETS_STAT_LOWER_BOUND_BYTES);
        assertEquals(MemplanNative.MEMPLAN_OFFSETS_STAT_RAN_SEARCH(), MemplanNative.OFFSETS_STAT_RAN_SEARCH);
        assertEquals(MemplanNative.MEMPLAN_EXACT_STAT_HEIGHT_BYTES(), MemplanNative.EXACT_STAT_HEIGHT_BYTES);
        assertEquals(MemplanNative.MEMPLAN_EXACT_STAT_LOWER_BOUND_BYTES(), MemplanNative.EXACT_STAT_LOWER_BOUND_BYTES);
        assertEquals(MemplanNative.MEMPLAN_EXACT_STAT_STATUS(), MemplanNative.EXACT_STAT_STATUS);
        assertEquals(MemplanNative.MEMPLAN_EXACT_STAT_NODES(), MemplanNative.EXACT_STAT_NODES);
        assertEquals(MemplanNative.MEMPLAN_MAX_EFFORT(), OffsetsPlan.MAX_EFFORT);
        assertEquals(MemplanNative.MEMPLAN_COMPILE_NUM_OWNERS(), MemplanNative.COMPILE_NUM_OWNERS);
        assertEquals(MemplanNative.MEMPLAN_COMPILE_ERROR_NODE(), MemplanNative.COMPILE_ERROR_NODE);
        assertEquals(MemplanNative.MEMPLAN_COMPILE_SCHEDULE_LENGTH(), MemplanNative.COMPILE_SCHEDULE_LENGTH);
        assertEquals(MemplanNative.MEMPLAN_COMPILE_NUM_COUNTS(), MemplanNative.COMPILE_NUM_COUNTS);
        assertEquals(dev.memplan.PlanOptions.MAX_EFFORT, OffsetsPlan.MAX_EFFORT);
    }

    @Test
    void treapPrioritiesAreTheOnesTheCppTestPins() {
        assertEquals(0, TreapPriority.priority(0));
        assertEquals(682038363, TreapPriority.priority(1));
        assertEquals(410673539, TreapPriority.priority(2));
        assertEquals(505636078, TreapPriority.priority(12345));
        assertEquals(2095449940, TreapPriority.priority(Integer.MAX_VALUE));
    }

    private record Key(long capacity, int slot) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = Long.compare(capacity, o.capacity);
            return c != 0 ? c : Integer.compare(slot, o.slot);
        }
    }

    /** Every poll takes the smallest capacity >= need, the lowest id among equals, or NONE. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void freeSlotSetIsASortedSetOfCapacityAndId(long seed) {
        RandomGenerator rng = new SplittableRandom(seed);
        int maxSlots = 1 + rng.nextInt(600);
        FreeSlotSet set = new FreeSlotSet(maxSlots);
        TreeSet<Key> expected = new TreeSet<>();
        long[] capacity = new long[maxSlots];
        int opened = 0;
        for (int step = 0; step < 4000; step++) {
            long need = rng.nextInt(41);
            if (rng.nextInt(3) == 0 && opened < maxSlots) {
                int slot = set.open(need);
                assertEquals(opened, slot);
                capacity[opened++] = need;
                set.add(slot);
                expected.add(new Key(need, slot));
            } else {
                Key ceiling = expected.ceiling(new Key(need, Integer.MIN_VALUE));
                int want = ceiling == null ? FreeSlotSet.NONE : ceiling.slot();
                assertEquals(want, set.pollCeiling(need), "seed " + seed + ", step " + step);
                if (ceiling != null) {
                    expected.remove(ceiling);
                    if (rng.nextBoolean()) {
                        set.add(want);
                        expected.add(new Key(capacity[want], want));
                    }
                }
            }
        }
    }
}
