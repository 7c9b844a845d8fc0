// SPDX-License-Identifier: Apache-2.0
package dev.memplan.validate;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Graph.Value;
import java.math.BigInteger;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * The independent checker of docs/design.md §5b and §7. It recomputes the order, view roots,
 * owners and intervals with its own code ({@link IndependentLiveness}), then checks the plan
 * against them: the schedule's reported order and intervals; for every plan, each owner's offset
 * (aligned, inside the arena of {@code peakBytes}) and that no two owners with overlapping
 * intervals share a byte ({@link ArenaCheck}); for a slots plan, also every owner's slot, slot
 * capacities, that no two overlapping owners share a slot and that offsets are the slot bases;
 * and the reported totals.
 *
 * <p>The arena size: a slots plan reserves the sum of its slot capacities; an offsets plan's
 * {@code peakBytes} must equal its highest {@code offset + size} exactly (not merely cover it), so a
 * planner that reports more bytes than it placed is caught.
 *
 * <pre>{@code
 * PlanValidator.validate(plan); // throws PlanValidationException listing every problem
 * }</pre>
 *
 * {@code O(n log n)}: linear apart from sorting owners by {@code def} within each slot and the
 * arena sweep's tree of live owners, so it checks a 1,000,000-owner plan in about a second.
 */
public final class PlanValidator {
    private PlanValidator() {
    }

    /**
     * Checks {@code plan}.
     *
     * @param plan the plan to check
     * @throws PlanValidationException listing the problems found, each naming the value or slot
     */
    public static void validate(ActivationPlan plan) {
        check(plan, null);
    }

    /**
     * Checks {@code plan} as {@link #validate(ActivationPlan)} does, and also that every owner's
     * planned size is the one its type and shape give at {@code bindings}, rounded up to the
     * plan's alignment: the validator derives these bytes with its own code, so a wrong size rule
     * in the planner is caught. For plans made from bindings ({@code Schedule.plan(Map)},
     * {@code CompiledModel.plan}); a plan made from a custom {@code SizeOracle} has no such sizes.
     *
     * @param plan     the plan to check
     * @param bindings symbol name to value, the bindings the plan was made at
     * @throws PlanValidationException listing the problems found, each naming the value or slot
     */
    public static void validate(ActivationPlan plan, Map<String, Long> bindings) {
        check(plan, Objects.requireNonNull(bindings, "bindings"));
    }

    private static void check(ActivationPlan plan, Map<String, Long> bindings) {
        ActivationPlan.Layout schedule = plan.schedule();
        Graph graph = schedule.graph();
        Problems problems = new Problems();
        IndependentLiveness live = IndependentLiveness.of(graph, schedule.views(),
                schedule.options().includeGraphInputs(), schedule.options().inPlaceEnabled(), problems);
        if (live.order == null) {
            problems.throwIfAny();
        }
        checkSchedule(schedule, live, problems);
        long[] sizeByValue = plannedSizes(plan, live, problems);
        if (bindings != null) {
            checkSizesFromShapes(plan, live, sizeByValue, bindings, problems);
        }
        long highestEnd = ArenaCheck.check(plan, live, sizeByValue, problems);
        if (plan.strategy() == Strategy.SLOTS) {
            int[] slotByValue = checkSlots(plan, live, sizeByValue, problems);
            checkNoOverlapInSlots(graph, live, slotByValue, problems);
            checkOffsetsAreSlotBases(plan, live, slotByValue, problems);
            checkSlotTotals(plan, problems);
        } else {
            checkNoSlots(plan, problems);
            if (plan.peakBytes() != highestEnd) {
                problems.add("peakBytes is " + plan.peakBytes() + " but the owners end at byte " + highestEnd
                        + " at most: an offsets arena is exactly as large as its highest owner end");
            }
        }
        checkTotals(plan, live, sizeByValue, problems);
        problems.throwIfAny();
    }

    /** The schedule's order, roots, owners and intervals must be the recomputed ones. */
    private static void checkSchedule(ActivationPlan.Layout s, IndependentLiveness live, Problems problems) {
        Graph g = s.graph();
        int[] reportedOrder = s.order();
        if (!Arrays.equals(reportedOrder, live.order)) {
            int p = Arrays.mismatch(reportedOrder, live.order);
            problems.add("the schedule's order differs from the recomputed one at position " + p + ": "
                    + (p < reportedOrder.length ? g.node(reportedOrder[p]).describe() : "nothing") + " instead of "
                    + (p < live.order.length ? g.node(live.order[p]).describe() : "nothing"));
        }
        if (s.numOwners() != live.numOwners) {
            problems.add("the schedule has " + s.numOwners() + " owners; recomputed: " + live.numOwners);
        }
        for (int v = 0; v < g.valueCount(); v++) {
            if (s.root(v) != live.root[v]) {
                problems.add("the schedule gives " + g.value(v).describe() + " root " + s.root(v)
                        + "; its view edges lead to " + live.root[v]);
            }
            if (s.bufferOf(v) != live.buffer[v]) {
                problems.add(inPlaceMismatch(s, live, v));
            }
            int o = s.ownerIndexOf(v);
            if ((o >= 0) != live.isOwner[v]) {
                problems.add(g.value(v).describe() + (live.isOwner[v] ? " owns a buffer but the schedule lists it"
                        + " as no owner" : " owns no buffer but the schedule lists it as owner " + o));
            } else if (o >= 0 && (s.def(o) != live.def[v] || s.useEnd(o) != live.useEnd[v])) {
                problems.add("the schedule gives " + g.value(v).describe() + " the interval [" + s.def(o) + ", "
                        + s.useEnd(o) + "]; recomputed: [" + live.def[v] + ", " + live.useEnd[v] + "]");
            }
        }
        checkReadsInsideReportedIntervals(s, live, problems);
    }

    /** Why the schedule's buffer of {@code v} is not the one the in-place rules give. */
    private static String inPlaceMismatch(ActivationPlan.Layout s, IndependentLiveness live, int v) {
        Graph g = s.graph();
        int claimed = s.bufferOf(v);
        int own = live.buffer[v];
        if (claimed != live.root[v]) {
            int link = live.root[v]; // the value whose link the schedule claims
            String why = live.refusal[link];
            return "the schedule places " + g.value(v).describe() + " in place, in the buffer of "
                    + g.value(claimed).describe() + ", but the in-place rules "
                    + (own == live.root[v] ? "refuse it" : "give the buffer of " + g.value(own).describe())
                    + (why == null ? "" : ": " + why);
        }
        return "the schedule gives " + g.value(v).describe() + " a buffer of its own, but the in-place rules place it"
                + " in the buffer of " + g.value(own).describe();
    }

    /**
     * Every read of an owner or of a view folding to it must fall inside the owner's reported
     * interval: a view read after its root's interval ends would read a recycled buffer.
     */
    private static void checkReadsInsideReportedIntervals(ActivationPlan.Layout s, IndependentLiveness live, Problems problems) {
        Graph g = s.graph();
        for (int p = 0; p < live.order.length; p++) {
            Node node = g.node(live.order[p]);
            for (int i = 0; i < node.inputCount(); i++) {
                int u = node.input(i);
                if (u == Graph.ABSENT) {
                    continue;
                }
                int o = s.ownerIndexOf(live.buffer[u]);
                if (o >= 0 && (p < s.def(o) || p > s.useEnd(o))) {
                    problems.add(g.value(u).describe() + " is read by " + node.describe() + " at position " + p
                            + (u == live.buffer[u] ? "" : " (in the buffer of " + g.value(live.buffer[u]).describe() + ")")
                            + ", outside its buffer's reported interval [" + s.def(o) + ", " + s.useEnd(o) + "]");
                }
            }
        }
        for (int out : g.outputs()) {
            int o = s.ownerIndexOf(live.buffer[out]);
            if (o >= 0 && s.useEnd(o) != live.numPositions - 1) {
                problems.add("graph output " + g.value(out).describe() + " must stay live to the last position "
                        + (live.numPositions - 1) + ", but its buffer's reported interval ends at " + s.useEnd(o));
            }
        }
    }

    /** The plan's size of every recomputed owner (0 where it has none, which is reported). */
    private static long[] plannedSizes(ActivationPlan plan, IndependentLiveness live, Problems problems) {
        Graph g = plan.schedule().graph();
        long[] size = new long[g.valueCount()];
        for (int v = 0; v < size.length; v++) {
            if (live.isOwner[v]) {
                long b = plan.sizeOf(v);
                if (b < 0) {
                    problems.add("owner " + g.value(v).describe() + " has no planned size (" + b + ")");
                } else {
                    size[v] = b;
                }
            }
        }
        return size;
    }

    /** Every owner's planned size must be the one {@link IndependentSizes} derives from its shape. */
    private static void checkSizesFromShapes(ActivationPlan plan, IndependentLiveness live, long[] sizeByValue,
                                             Map<String, Long> bindings, Problems problems) {
        ActivationPlan.Layout s = plan.schedule();
        Graph g = s.graph();
        long alignment = s.options().alignment();
        for (int v = 0; v < sizeByValue.length; v++) {
            if (!live.isOwner[v]) {
                continue;
            }
            Value value = g.value(v);
            BigInteger expected = IndependentSizes.bytes(value, bindings, alignment);
            if (expected == null) {
                problems.add("owner " + value.describe() + " has a planned size of " + sizeByValue[v] + " bytes, but its"
                        + " shape " + value.shape() + " of " + value.dataType() + " has no size at the bindings "
                        + bindings + ": a symbol is unbound or the type has no fixed width");
            } else if (!expected.equals(BigInteger.valueOf(sizeByValue[v]))) {
                problems.add("owner " + value.describe() + " has a planned size of " + sizeByValue[v] + " bytes, but its"
                        + " shape " + value.shape() + " of " + value.dataType() + " at the bindings " + bindings
                        + " needs " + expected + " (aligned to " + alignment + ")");
            }
        }
    }

    /**
     * Each owner has a known slot big enough for it, non-owners have none, the per-owner and
     * per-value slot buffers agree and every slot holds some owner. Returns the slot of each
     * value, -1 where it has none or an unknown one.
     */
    private static int[] checkSlots(ActivationPlan plan, IndependentLiveness live, long[] sizeByValue,
                                    Problems problems) {
        ActivationPlan.Layout s = plan.schedule();
        Graph g = s.graph();
        int numSlots = plan.numSlots();
        LongBuffer caps = plan.slotCapacities();
        if (caps.remaining() != numSlots) {
            problems.add("the plan reports " + numSlots + " slots but has " + caps.remaining() + " capacities");
        }
        int knownSlots = Math.min(numSlots, caps.remaining());
        IntBuffer byValue = plan.slotsByValue();
        int[] slotByValue = new int[g.valueCount()];
        Arrays.fill(slotByValue, -1);
        if (byValue.remaining() != g.valueCount()) {
            problems.add("the plan has " + byValue.remaining() + " per-value slots for " + g.valueCount() + " values");
            return slotByValue;
        }
        boolean[] used = new boolean[Math.max(knownSlots, 0)];
        for (int v = 0; v < g.valueCount(); v++) {
            int slot = byValue.get(v);
            if (!live.isOwner[v]) {
                if (slot != -1) {
                    problems.add(g.value(v).describe() + " owns no buffer (" + (live.root[v] != v ? "a view of "
                            + g.value(live.root[v]).describe() : "not an owner") + ") but has slot " + slot);
                }
            } else if (slot == -1) {
                problems.add("owner " + g.value(v).describe() + " has no slot");
            } else if (slot < 0 || slot >= knownSlots) {
                problems.add("owner " + g.value(v).describe() + " is in slot " + slot + ", which does not exist (the plan has "
                        + knownSlots + " slots)");
            } else {
                slotByValue[v] = slot;
                used[slot] = true;
                if (caps.get(slot) < sizeByValue[v]) {
                    problems.add("slot " + slot + " holds " + caps.get(slot) + " bytes, smaller than owner "
                            + g.value(v).describe()
                            + " (" + sizeByValue[v] + " bytes) assigned to it");
                }
            }
        }
        IntBuffer byOwner = plan.slotsByOwner();
        for (int o = 0; o < Math.min(s.numOwners(), byOwner.remaining()); o++) {
            int v = s.ownerValue(o);
            if (byOwner.get(o) != byValue.get(v)) {
                problems.add("owner " + g.value(v).describe() + " is in slot " + byOwner.get(o)
                        + " by owner index but in slot " + byValue.get(v) + " by value id");
            }
        }
        for (int slot = 0; slot < used.length; slot++) {
            if (!used[slot]) {
                problems.add("slot " + slot + " (" + caps.get(slot) + " bytes) holds no owner: its bytes are wasted");
            }
        }
        return slotByValue;
    }

    /**
     * No two owners in one slot may have overlapping intervals. Owners are grouped by slot and
     * sorted by {@code def}; each is compared with the earlier owner of its slot that ends last,
     * which finds every owner that overlaps an earlier one.
     */
    private static void checkNoOverlapInSlots(Graph g, IndependentLiveness live, int[] slotByValue,
                                              Problems problems) {
        int maxSlot = -1;
        for (int slot : slotByValue) {
            maxSlot = Math.max(maxSlot, slot);
        }
        int[] start = new int[maxSlot + 2];
        for (int slot : slotByValue) {
            if (slot >= 0) {
                start[slot + 1]++;
            }
        }
        for (int i = 0; i <= maxSlot; i++) {
            start[i + 1] += start[i];
        }
        // (def, value id) packed in one long: sorting the longs sorts by def, then id.
        long[] byDef = new long[start[maxSlot + 1]];
        int[] fill = Arrays.copyOf(start, maxSlot + 1);
        for (int v = 0; v < slotByValue.length; v++) {
            if (slotByValue[v] >= 0) {
                byDef[fill[slotByValue[v]]++] = ((long) live.def[v] << 32) | v;
            }
        }
        for (int slot = 0; slot <= maxSlot; slot++) {
            Arrays.sort(byDef, start[slot], start[slot + 1]);
            int latest = -1; // the owner so far in this slot whose interval ends last
            for (int k = start[slot]; k < start[slot + 1]; k++) {
                int v = (int) byDef[k];
                if (latest >= 0 && live.def[v] <= live.useEnd[latest]) {
                    problems.add("owners " + g.value(latest).describe() + " [" + live.def[latest] + ", "
                            + live.useEnd[latest] + "] and " + g.value(v).describe() + " [" + live.def[v] + ", "
                            + live.useEnd[v] + "] are live at the same time but share slot " + slot);
                }
                if (latest < 0 || live.useEnd[v] > live.useEnd[latest]) {
                    latest = v;
                }
            }
        }
    }

    /**
     * In a slots plan, an owner's offset is its slot's base: slot k starts at the sum of the
     * capacities of slots {@code 0..k-1}.
     */
    private static void checkOffsetsAreSlotBases(ActivationPlan plan, IndependentLiveness live, int[] slotByValue,
                                                 Problems problems) {
        Graph g = plan.schedule().graph();
        LongBuffer caps = plan.slotCapacities();
        long[] base = new long[caps.remaining()];
        for (int s = 1; s < base.length; s++) {
            base[s] = base[s - 1] + caps.get(s - 1);
        }
        for (int v = 0; v < slotByValue.length; v++) {
            int slot = slotByValue[v];
            if (live.isOwner[v] && slot >= 0 && slot < base.length && plan.offsetOf(v) != base[slot]) {
                problems.add("owner " + g.value(v).describe() + " is at offset " + plan.offsetOf(v) + " but its slot "
                        + slot + " starts at " + base[slot]);
            }
        }
    }

    /** A slots plan reserves the sum of its slot capacities. */
    private static void checkSlotTotals(ActivationPlan plan, Problems problems) {
        LongBuffer caps = plan.slotCapacities();
        long peak = 0;
        for (int s = 0; s < caps.remaining(); s++) {
            peak += caps.get(s);
        }
        if (plan.peakBytes() != peak) {
            problems.add("peakBytes is " + plan.peakBytes() + " but the slot capacities sum to " + peak);
        }
    }

    /** An offsets plan has no slots. */
    private static void checkNoSlots(ActivationPlan plan, Problems problems) {
        if (plan.numSlots() != 0 || !plan.slots().isEmpty() || plan.slotCapacities().hasRemaining()) {
            problems.add("an offsets plan reports slots (" + plan.numSlots() + " slots, "
                    + plan.slotCapacities().remaining() + " capacities); it has none");
        }
    }

    /** naive and the lower bound must be what the sizes give, and no plan may reserve less than the bound. */
    private static void checkTotals(ActivationPlan plan, IndependentLiveness live, long[] sizeByValue,
                                    Problems problems) {
        long peak = plan.peakBytes();
        long naive = 0;
        for (int v = 0; v < sizeByValue.length; v++) {
            if (live.isOwner[v]) {
                naive += sizeByValue[v];
            }
        }
        if (plan.naiveBytes() != naive) {
            problems.add("naiveBytes is " + plan.naiveBytes() + " but the owner sizes sum to " + naive);
        }
        long lowerBound = live.maxLiveBytes(sizeByValue);
        if (plan.lowerBoundBytes() != lowerBound) {
            problems.add("lowerBoundBytes is " + plan.lowerBoundBytes() + " but at most " + lowerBound
                    + " bytes are live at one position");
        }
        if (peak < lowerBound) {
            problems.add("peakBytes " + peak + " is below the " + lowerBound + " bytes live at one position");
        }
    }
}
