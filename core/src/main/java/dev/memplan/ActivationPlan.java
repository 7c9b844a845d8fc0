// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.engine.Allocation;
import dev.memplan.engine.OffsetAllocation;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * A complete plan for one request. Every owner has a byte offset into one arena of
 * {@link #peakBytes()} bytes: two owners live at the same position never share a byte. A
 * {@link Strategy#SLOTS} plan also has slots (the owner's reusable buffer and each slot's capacity;
 * slot k starts at the sum of the capacities of slots {@code 0..k-1}); a {@link Strategy#OFFSETS}
 * plan has none. Views and weights own nothing. Immutable; the buffers are read-only views of what
 * the engine wrote, not copies.
 */
public final class ActivationPlan {

    /** A reusable buffer the executor allocates once and hands to each owner assigned to it. */
    public record Slot(int id, long capacityBytes) {
    }

    /**
     * The facts of the schedule a plan was made on, which a plan is read against: the graph, the
     * order, the owners and their intervals, views and in-place links. {@code Schedule} is one; a
     * plan holds it as this view, so a plan never reaches back into the planner.
     */
    public interface Layout {
        /** {@return the compiled graph} */
        Graph graph();

        /** {@return the views the graph was compiled with} */
        ViewMap views();

        /** {@return the options every plan of this schedule uses} */
        PlanOptions options();

        /** {@return the engine that compiled this schedule and plans on it: {@code "native"} or {@code "java"}} */
        String engine();

        /** {@return node ids in execution order} */
        int[] order();

        /** {@return positions: one per node, at least one. The last is where graph outputs end} */
        int numPositions();

        /** {@return how many owners (values with their own buffer) the schedule has} */
        int numOwners();

        /** {@return owner value ids in allocation order} */
        int[] owners();

        /**
         * {@return the value id of owner index {@code o}}
         *
         * @param o an owner index
         */
        int ownerValue(int o);

        /**
         * {@return the position where owner index {@code o} is produced}
         *
         * @param o an owner index
         */
        int def(int o);

        /**
         * {@return the last position that reads owner index {@code o} or any view of it}
         *
         * @param o an owner index
         */
        int useEnd(int o);

        /**
         * {@return the owner index of value {@code valueId}, or -1 when it owns no slot}
         *
         * @param valueId a value id
         */
        int ownerIndexOf(int valueId);

        /**
         * {@return the value that owns the bytes of {@code valueId}: itself unless it is a view}
         *
         * @param valueId a value id
         */
        int root(int valueId);

        /**
         * {@return the value that owns the bytes of {@code valueId} once in-place links are followed}
         * Itself for an owner; the view root for a view; for a value placed in place of an input (and
         * a view of one), the owner of the buffer the chain of in-place links started in.
         *
         * @param valueId a value id
         */
        int bufferOf(int valueId);

        /**
         * The input whose buffer {@code valueId} took in place (docs/design.md §3b), or -1 when the
         * value was not placed in place: a view, an owner, an input, a weight.
         *
         * @param valueId a value id
         * @return the value id of its producer's input whose buffer it took, or -1
         */
        int inPlaceSource(int valueId);

        /** {@return how many values took an input's buffer in place (0 when in-place reuse is off)} */
        int numInPlace();

        /**
         * {@return this layout compiled without in-place reuse (itself when no value is placed in place)}
         * Compiled on first use and kept: only reports (the bound without in-place) need it.
         */
        Layout withoutInPlace();
    }

    private final Layout schedule;
    /** The schedule's lower bound without in-place reuse at some owner sizes (a report figure). */
    private final ToLongFunction<LongBuffer> boundWithoutInPlace;
    private final LongBuffer ownerSizes;
    /** The slots of a slots plan; null for an offsets plan. */
    private final Allocation allocation;
    /**
     * Offset of each owner by owner index: the engine's for offsets plans; for slots plans the slot
     * bases, computed on first use so the slots hot path does not pay for them.
     */
    private volatile LongBuffer ownerOffsets;
    private final long peakBytes;
    private final long naiveBytes;
    private final long lowerBoundBytes;
    /** No plan of these sizes needs fewer bytes: the lower bound, or what an exact search proved. */
    private final long provenBoundBytes;
    /** Why the exact search stopped; null for a plan made without it. */
    private final Packing.ExactStatus exactStatus;
    /**
     * The bound without in-place reuse plus one, computed on first use (0 until then, a default
     * value, so making a plan stores nothing here): reports ask, requests do not.
     */
    private volatile long lowerBoundWithoutInPlacePlusOne;

    ActivationPlan(Layout schedule, ToLongFunction<LongBuffer> boundWithoutInPlace, LongBuffer ownerSizes,
            Allocation allocation) {
        this.schedule = schedule;
        this.boundWithoutInPlace = boundWithoutInPlace;
        this.ownerSizes = ownerSizes;
        this.allocation = allocation;
        this.peakBytes = allocation.peakBytes();
        this.naiveBytes = allocation.naiveBytes();
        this.lowerBoundBytes = allocation.lowerBoundBytes();
        this.provenBoundBytes = lowerBoundBytes;
        this.exactStatus = null;
    }

    ActivationPlan(Layout schedule, ToLongFunction<LongBuffer> boundWithoutInPlace, LongBuffer ownerSizes,
            OffsetAllocation offsets) {
        this(schedule, boundWithoutInPlace, ownerSizes, offsets, offsets.lowerBoundBytes(), null);
    }

    /** An offsets plan the exact search made: it proved no plan needs fewer than {@code provenBoundBytes}. */
    ActivationPlan(Layout schedule, ToLongFunction<LongBuffer> boundWithoutInPlace, LongBuffer ownerSizes,
            OffsetAllocation offsets, long provenBoundBytes, Packing.ExactStatus exactStatus) {
        this.schedule = schedule;
        this.boundWithoutInPlace = boundWithoutInPlace;
        this.ownerSizes = ownerSizes;
        this.allocation = null;
        this.ownerOffsets = offsets.ownerOffsets();
        this.peakBytes = offsets.peakBytes();
        this.naiveBytes = offsets.naiveBytes();
        this.lowerBoundBytes = offsets.lowerBoundBytes();
        this.provenBoundBytes = provenBoundBytes;
        this.exactStatus = exactStatus;
    }

    /**
     * Each owner's offset in a slots plan: the base of its slot; -1 for an owner whose slot id is
     * out of range (only a corrupted plan has one, and the validator reports it).
     */
    private static LongBuffer slotBases(Allocation a) {
        long[] base = new long[a.numSlots()];
        LongBuffer caps = a.slotCapacities();
        for (int s = 1; s < base.length; s++) {
            base[s] = base[s - 1] + caps.get(s - 1);
        }
        IntBuffer slots = a.ownerSlots();
        long[] offset = new long[slots.limit()];
        for (int o = 0; o < offset.length; o++) {
            int slot = slots.get(o);
            offset[o] = slot >= 0 && slot < base.length ? base[slot] : -1;
        }
        return LongBuffer.wrap(offset).asReadOnlyBuffer();
    }

    /** {@return which strategy made this plan} */
    public Strategy strategy() {
        return allocation == null ? Strategy.OFFSETS : Strategy.SLOTS;
    }

    /**
     * {@return the byte offset of owner {@code valueId} in the arena, or -1 when the value owns nothing}
     *
     * @param valueId a value id of the planned graph
     */
    public long offsetOf(int valueId) {
        int o = schedule.ownerIndexOf(valueId);
        return o < 0 ? -1 : offsets().get(o);
    }

    /** {@return the offset of each owner by owner index (the order of {@link Layout#owners()}); read-only} */
    public LongBuffer offsetsByOwner() {
        return offsets().duplicate();
    }

    private LongBuffer offsets() {
        LongBuffer o = ownerOffsets;
        if (o == null) {
            o = slotBases(allocation);
            ownerOffsets = o;
        }
        return o;
    }

    /** The slots of a slots plan; fails on an offsets plan, which has none. */
    private Allocation slotsOrFail() {
        if (allocation == null) {
            throw new IllegalStateException("an offsets plan has no slots; use offsetOf, or plan with Strategy.SLOTS");
        }
        return allocation;
    }

    /** {@return the schedule this plan was made on, as its layout: graph, order, owners and intervals} */
    public Layout schedule() {
        return schedule;
    }

    /** {@return the engine that allocated: {@code "native"} or {@code "java"}} */
    public String engine() {
        return schedule.engine();
    }

    /**
     * The slot of owner {@code valueId}, or -1 when the value owns no slot.
     *
     * @param valueId a value id of the planned graph
     * @return the slot id, or -1 when the value owns no slot
     * @throws IllegalStateException on an offsets plan
     */
    public int slotOf(int valueId) {
        Allocation a = slotsOrFail();
        int o = schedule.ownerIndexOf(valueId);
        return o < 0 ? -1 : a.ownerSlots().get(o);
    }

    /**
     * The slot of every value id, -1 for values that own no slot: a new read-only buffer made from
     * {@link #slotsByOwner()} on each call.
     *
     * @return a read-only buffer indexed by value id
     */
    public IntBuffer slotsByValue() {
        int[] byValue = new int[schedule.graph().valueCount()];
        Arrays.fill(byValue, -1);
        IntBuffer byOwner = slotsOrFail().ownerSlots();
        for (int o = 0; o < schedule.numOwners(); o++) {
            byValue[schedule.ownerValue(o)] = byOwner.get(o);
        }
        return IntBuffer.wrap(byValue).asReadOnlyBuffer();
    }

    /**
     * The slot of each owner by owner index (the order of {@link Layout#owners()}); read-only,
     * no copy: on the native engine, the direct buffer the C++ code wrote.
     *
     * @return a read-only buffer indexed by owner index
     */
    public IntBuffer slotsByOwner() {
        return slotsOrFail().ownerSlots().duplicate();
    }

    /** {@return the capacity of each slot by slot id; read-only, no copy} */
    public LongBuffer slotCapacities() {
        return allocation == null ? LongBuffer.allocate(0).asReadOnlyBuffer() : allocation.slotCapacities().duplicate();
    }

    /**
     * {@return the bytes planned for owner {@code valueId} (after alignment), or -1 when it owns no slot}
     *
     * @param valueId a value id of the planned graph
     */
    public long sizeOf(int valueId) {
        int o = schedule.ownerIndexOf(valueId);
        return o < 0 ? -1 : ownerSizes.get(o);
    }

    /**
     * Owner value id to slot id, by ascending value id.
     *
     * @return owner value id to slot id, in ascending value id
     * @throws IllegalStateException on an offsets plan
     */
    public Map<Integer, Integer> assignments() {
        TreeMap<Integer, Integer> out = new TreeMap<>();
        IntBuffer slots = slotsOrFail().ownerSlots();
        for (int o = 0; o < schedule.numOwners(); o++) {
            out.put(schedule.ownerValue(o), slots.get(o));
        }
        return Collections.unmodifiableMap(out);
    }

    /** {@return every slot, by ascending id; empty for an offsets plan} */
    public List<Slot> slots() {
        if (allocation == null) {
            return List.of();
        }
        List<Slot> out = new ArrayList<>(allocation.numSlots());
        LongBuffer caps = allocation.slotCapacities();
        for (int s = 0; s < allocation.numSlots(); s++) {
            out.add(new Slot(s, caps.get(s)));
        }
        return Collections.unmodifiableList(out);
    }

    /** {@return slots of a slots plan; 0 for an offsets plan} */
    public int numSlots() {
        return allocation == null ? 0 : allocation.numSlots();
    }

    /** {@return bytes to reserve: the arena size (for a slots plan, the sum of slot capacities)} */
    public long peakBytes() {
        return peakBytes;
    }

    /** {@return bytes one buffer per owner would take: the sum of owner sizes} */
    public long naiveBytes() {
        return naiveBytes;
    }

    /** {@return {@code 1 - peak / naive}, 0 when naive is 0} */
    public double savingsRatio() {
        long naive = naiveBytes();
        return naive == 0 ? 0.0 : 1.0 - (double) peakBytes() / (double) naive;
    }

    /**
     * The most bytes live at any one position: no plan of these sizes reserves less, so
     * {@code peak / lowerBound} says how far this plan is from the best possible.
     *
     * @return the lower bound, in bytes
     */
    public long lowerBoundBytes() {
        return lowerBoundBytes;
    }

    /**
     * No plan of these sizes on this schedule reserves fewer bytes: {@link #lowerBoundBytes()}, or
     * for a plan the exact search made ({@link PlanOptions#withExact}) that bound raised by every
     * smaller arena the search refuted. Between {@link #lowerBoundBytes()} and {@link #peakBytes()}.
     *
     * @return the proven bound, in bytes
     */
    public long provenBoundBytes() {
        return provenBoundBytes;
    }

    /**
     * Whether no plan of these sizes on this schedule can reserve less: the peak is at
     * {@link #provenBoundBytes()} (for any plan at the lower bound, or an exact plan proven optimal).
     *
     * @return true when the peak is proven optimal
     */
    public boolean provenOptimal() {
        return peakBytes == provenBoundBytes;
    }

    /**
     * Why the exact search that made this plan stopped: {@link Packing.ExactStatus#PROVEN_OPTIMAL},
     * or a limit with the best plan found and the gap to {@link #provenBoundBytes()} open.
     *
     * @return the search's status; empty for a plan made without it
     */
    public Optional<Packing.ExactStatus> exactStatus() {
        return Optional.ofNullable(exactStatus);
    }

    /**
     * The lower bound of these sizes if no value took an input's buffer in place: the bound of
     * docs/design.md §3 alone, each value placed in place counted at its buffer's size (rule (d)
     * makes them equal) over its own interval. Equal to {@link #lowerBoundBytes()} when in-place
     * reuse is off or found nothing; never below it. Computed on first call (a linear pass, and once
     * per schedule a compile without in-place reuse), never on the request path.
     *
     * @return the lower bound without in-place reuse, in bytes
     */
    public long lowerBoundWithoutInPlaceBytes() {
        long b = lowerBoundWithoutInPlacePlusOne - 1;
        if (b < 0) {
            b = schedule.numInPlace() == 0 ? lowerBoundBytes : boundWithoutInPlace.applyAsLong(ownerSizes);
            lowerBoundWithoutInPlacePlusOne = b + 1; // at Long.MAX_VALUE it wraps and the read above wraps back
        }
        return b;
    }

    /**
     * {@return the value whose buffer {@code valueId} took in place, or -1} Shorthand for
     * {@link Layout#inPlaceSource}; the value's bytes are at {@link #offsetOf} of
     * {@link Layout#bufferOf}.
     *
     * @param valueId a value id of the planned graph
     */
    public int inPlaceSource(int valueId) {
        return schedule.inPlaceSource(valueId);
    }

    @Override
    public String toString() {
        return "ActivationPlan{engine=" + engine() + ", strategy=" + strategy() + ", owners=" + schedule.numOwners() + ", slots=" + numSlots()
                + ", peak=" + peakBytes() + ", naive=" + naiveBytes() + ", lowerBound=" + lowerBoundBytes() + "}";
    }
}
