// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Comparisons of plans, value for value, with messages that say where they differ. */
public final class PlanAssertions {
    private PlanAssertions() {
    }

    /** {@code memplan.test.scale} (default 1): multiplies the number of random cases. */
    public static int scale() {
        return Math.max(1, Integer.getInteger("memplan.test.scale", 1));
    }

    /** Two results of the same graph, options and sizes (e.g. from two engines) are identical. */
    public static void assertSameResult(PlanResult expected, PlanResult actual, String context) {
        assertEquals(expected.getClass(), actual.getClass(), context + ": complete vs deferred");
        if (expected instanceof PlanResult.Deferred d) {
            assertEquals(d.unknownSizes(), ((PlanResult.Deferred) actual).unknownSizes(), context + ": unknown sizes");
        } else {
            assertSamePlan(expected.orElseThrow(), actual.orElseThrow(), context);
        }
    }

    /**
     * Order, owners, intervals, strategy, offsets, totals and (slots plans) slot per value and per
     * owner and capacities are identical.
     */
    public static void assertSamePlan(ActivationPlan expected, ActivationPlan actual, String context) {
        Schedule es = (Schedule) expected.schedule();
        Schedule as = (Schedule) actual.schedule();
        assertArrayEquals(es.order(), as.order(), context + ": order");
        assertArrayEquals(es.owners(), as.owners(), context + ": owners");
        for (int o = 0; o < es.numOwners(); o++) {
            assertEquals(es.def(o), as.def(o), context + ": def of owner " + es.ownerValue(o));
            assertEquals(es.useEnd(o), as.useEnd(o), context + ": useEnd of owner " + es.ownerValue(o));
        }
        assertEquals(expected.strategy(), actual.strategy(), context + ": strategy");
        assertArrayEquals(longs(expected.offsetsByOwner()), longs(actual.offsetsByOwner()), context + ": offset per owner");
        if (expected.strategy() == Strategy.SLOTS) {
            assertArrayEquals(ints(expected.slotsByValue()), ints(actual.slotsByValue()), context + ": slot per value");
            assertArrayEquals(ints(expected.slotsByOwner()), ints(actual.slotsByOwner()), context + ": slot per owner");
        }
        assertArrayEquals(longs(expected.slotCapacities()), longs(actual.slotCapacities()), context + ": capacities");
        assertEquals(expected.numSlots(), actual.numSlots(), context + ": numSlots");
        assertEquals(expected.peakBytes(), actual.peakBytes(), context + ": peak");
        assertEquals(expected.naiveBytes(), actual.naiveBytes(), context + ": naive");
        assertEquals(expected.lowerBoundBytes(), actual.lowerBoundBytes(), context + ": lower bound");
    }

    /**
     * A result equals what {@link NaivePlanner} (the seed's slot planner, restated) gives for the
     * same case. For an offsets plan, the parts both strategies share: order, owners, intervals,
     * sizes, naive and lower bound (the offsets themselves are the validator's business).
     */
    public static void assertMatchesNaive(NaivePlanner.Result naive, PlanResult actual, String context) {
        if (naive instanceof NaivePlanner.Deferred d) {
            PlanResult.Deferred deferred = assertInstanceOf(PlanResult.Deferred.class, actual, context);
            assertEquals(d.unknownSizes(), deferred.unknownSizes(), context + ": unknown sizes");
            return;
        }
        NaivePlanner.Plan expected = (NaivePlanner.Plan) naive;
        ActivationPlan plan = assertInstanceOf(PlanResult.Complete.class, actual, context).plan();
        Schedule s = (Schedule) plan.schedule();
        List<Integer> order = new ArrayList<>();
        for (int n : s.order()) {
            order.add(n);
        }
        assertEquals(expected.order(), order, context + ": order");
        Map<Integer, NaivePlanner.Interval> intervals = new HashMap<>();
        Map<Integer, Long> sizes = new HashMap<>();
        for (int o = 0; o < s.numOwners(); o++) {
            intervals.put(s.ownerValue(o), new NaivePlanner.Interval(s.def(o), s.useEnd(o)));
            sizes.put(s.ownerValue(o), plan.sizeOf(s.ownerValue(o)));
        }
        assertEquals(expected.intervals(), intervals, context + ": owners and intervals");
        assertEquals(expected.sizes(), sizes, context + ": sizes");
        assertEquals(expected.naiveBytes(), plan.naiveBytes(), context + ": naive");
        assertEquals(expected.lowerBoundBytes(), plan.lowerBoundBytes(), context + ": lower bound");
        if (plan.strategy() == Strategy.OFFSETS) {
            return;
        }
        assertEquals(expected.assignments(), plan.assignments(), context + ": slot per owner");
        List<Long> caps = new ArrayList<>();
        for (ActivationPlan.Slot slot : plan.slots()) {
            caps.add(slot.capacityBytes());
        }
        assertEquals(expected.capacities(), caps, context + ": capacities");
        assertEquals(expected.capacities().size(), plan.numSlots(), context + ": numSlots");
        assertEquals(expected.peakBytes(), plan.peakBytes(), context + ": peak");
        assertEquals(expected.naiveBytes(), plan.naiveBytes(), context + ": naive");
        assertEquals(expected.lowerBoundBytes(), plan.lowerBoundBytes(), context + ": lower bound");
    }

    public static int[] ints(IntBuffer b) {
        int[] out = new int[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    public static long[] longs(LongBuffer b) {
        long[] out = new long[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
