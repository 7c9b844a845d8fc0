package dev.memplan;

import dev.memplan.engine.Allocation;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A complete plan: the slot backing each owner and the capacity of each slot. Views and weights
 * own no slot. Immutable; the slot and capacity buffers are read-only views of what the engine
 * wrote, not copies.
 */
public final class ActivationPlan {

    /** A reusable buffer the executor allocates once and hands to each owner assigned to it. */
    public record Slot(int id, long capacityBytes) {
    }

    private final Schedule schedule;
    private final LongBuffer ownerSizes;
    private final Allocation allocation;

    ActivationPlan(Schedule schedule, LongBuffer ownerSizes, Allocation allocation) {
        this.schedule = schedule;
        this.ownerSizes = ownerSizes;
        this.allocation = allocation;
    }

    /** The schedule this plan was made on: graph, order, owners and intervals. */
    public Schedule schedule() {
        return schedule;
    }

    /** The engine that allocated: {@code "native"} or {@code "java"}. */
    public String engine() {
        return schedule.engine();
    }

    /** The slot of owner {@code valueId}, or -1 when the value owns no slot. */
    public int slotOf(int valueId) {
        int o = schedule.ownerIndexOf(valueId);
        return o < 0 ? -1 : allocation.ownerSlots().get(o);
    }

    /**
     * The slot of every value id, -1 for values that own no slot: a new read-only buffer made from
     * {@link #slotsByOwner()} on each call.
     */
    public IntBuffer slotsByValue() {
        int[] byValue = new int[schedule.graph().valueCount()];
        Arrays.fill(byValue, -1);
        IntBuffer byOwner = allocation.ownerSlots();
        for (int o = 0; o < schedule.numOwners(); o++) {
            byValue[schedule.ownerValue(o)] = byOwner.get(o);
        }
        return IntBuffer.wrap(byValue).asReadOnlyBuffer();
    }

    /**
     * The slot of each owner by owner index (the order of {@link Schedule#owners()}); read-only,
     * no copy: on the native engine, the direct buffer the C++ code wrote.
     */
    public IntBuffer slotsByOwner() {
        return allocation.ownerSlots().duplicate();
    }

    /** The capacity of each slot by slot id; read-only, no copy. */
    public LongBuffer slotCapacities() {
        return allocation.slotCapacities().duplicate();
    }

    /** The bytes planned for owner {@code valueId} (after alignment), or -1 when it owns no slot. */
    public long sizeOf(int valueId) {
        int o = schedule.ownerIndexOf(valueId);
        return o < 0 ? -1 : ownerSizes.get(o);
    }

    /** Owner value id to slot id, by ascending value id. */
    public Map<Integer, Integer> assignments() {
        TreeMap<Integer, Integer> out = new TreeMap<>();
        IntBuffer slots = allocation.ownerSlots();
        for (int o = 0; o < schedule.numOwners(); o++) {
            out.put(schedule.ownerValue(o), slots.get(o));
        }
        return Collections.unmodifiableMap(out);
    }

    /** Every slot, by ascending id. */
    public List<Slot> slots() {
        List<Slot> out = new ArrayList<>(allocation.numSlots());
        LongBuffer caps = allocation.slotCapacities();
        for (int s = 0; s < allocation.numSlots(); s++) {
            out.add(new Slot(s, caps.get(s)));
        }
        return Collections.unmodifiableList(out);
    }

    public int numSlots() {
        return allocation.numSlots();
    }

    /** Bytes to reserve: the sum of slot capacities. */
    public long peakBytes() {
        return allocation.peakBytes();
    }

    /** Bytes one buffer per owner would take: the sum of owner sizes. */
    public long naiveBytes() {
        return allocation.naiveBytes();
    }

    /** {@code 1 - peak / naive}, 0 when naive is 0. */
    public double savingsRatio() {
        long naive = naiveBytes();
        return naive == 0 ? 0.0 : 1.0 - (double) peakBytes() / (double) naive;
    }

    /**
     * The most bytes live at any one position: no plan of these sizes reserves less, so
     * {@code peak / lowerBound} says how far this plan is from the best possible.
     */
    public long lowerBoundBytes() {
        return allocation.lowerBoundBytes();
    }

    @Override
    public String toString() {
        return "ActivationPlan{engine=" + engine() + ", owners=" + schedule.numOwners() + ", slots=" + numSlots()
                + ", peak=" + peakBytes() + ", naive=" + naiveBytes() + ", lowerBound=" + lowerBoundBytes() + "}";
    }
}
