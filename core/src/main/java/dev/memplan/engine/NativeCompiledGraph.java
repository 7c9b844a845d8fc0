// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The native engine's schedule: the compile results stay in one Java array, and each allocation
 * runs in C++ on it. A request borrows its scratch from {@link NativeBlockPool#SHARED} (memory
 * already mapped, shared with every other schedule) and allocates only its own results: Java
 * arrays the C++ code writes in place (slot or offset per owner), plus the few slot capacities.
 */
final class NativeCompiledGraph extends BaseCompiledGraph {
    private final long scratchBytes;
    /** The offsets planner's scratch: its sweep's, and with its search phases' (fit, canonical). */
    private final long offsetsSweepBytes;
    private final long offsetsFullBytes;
    /**
     * Set once a request of this schedule needed a search phase past the sweep: from then on its
     * requests borrow scratch large enough for them too, so they stop allocating per request.
     * Schedules whose sweep always reaches the bound never ask for that memory.
     */
    private volatile boolean offsetsNeedSearch;
    /**
     * Every array of the schedule, in one Java array: it crosses pinned for the call with the
     * index of each array in it, checked by the C++ code. On the Java heap, a schedule maps no
     * fresh memory (a direct buffer per schedule did: 68 page faults per 10k-owner compile).
     */
    private final int[] schedule;
    private final int defOffsetsAt;
    private final int freeOffsetsAt;
    private final int freeOwnersAt;
    private final int ownerValueAt;
    private final int ownerDefAt;
    private final int ownerUseEndAt;

    /** A schedule over slices of {@code schedule} (NativeCompile makes them). */
    NativeCompiledGraph(int numValues, int numPositions, int[] schedule, IntBuffer order,
                        IntBuffer ownerValue, IntBuffer ownerDef, IntBuffer ownerUseEnd,
                        IntBuffer defOffsets, IntBuffer freeOffsets, IntBuffer freeOwners,
                        IntBuffer valueBuffer) {
        super("native", numValues, numPositions, order, ownerValue, ownerDef, ownerUseEnd, valueBuffer);
        this.scratchBytes = MemplanNative.memplan_allocate_scratch_bytes(numOwners);
        this.offsetsSweepBytes = NativeScratch.offsetsScratchBytes(numOwners, Math.max(numPositions, 1), false);
        this.offsetsFullBytes = NativeScratch.offsetsScratchBytes(numOwners, Math.max(numPositions, 1), true);
        this.schedule = schedule;
        this.defOffsetsAt = defOffsets.arrayOffset();
        this.freeOffsetsAt = freeOffsets.arrayOffset();
        this.freeOwnersAt = freeOwners.arrayOffset();
        this.ownerValueAt = ownerValue.arrayOffset();
        this.ownerDefAt = ownerDef.arrayOffset();
        this.ownerUseEndAt = ownerUseEnd.arrayOffset();
    }

    static void check(int rc, String call) {
        switch (rc) {
            case MemplanNative.OK:
                return;
            case MemplanNative.OVERFLOW:
                throw new ArithmeticException("native " + call + ": the owner sizes overflow a 64-bit byte count");
            case MemplanNative.BAD_ARGUMENT:
                throw new IllegalArgumentException("native " + call + " rejected its arguments");
            case MemplanNative.OUT_OF_MEMORY:
                throw new OutOfMemoryError("native " + call + ": its temporary arrays could not be allocated");
            case MemplanNative.CYCLE: // only compile reports one, with the node it names
                throw new IllegalStateException("native " + call + " reported a cycle where none can occur");
            default: // memplan_core.h has no other code
                throw new IllegalStateException("native " + call + " returned " + rc
                        + ", which memplan_core.h does not define");
        }
    }

    @Override
    public LongBuffer newSizeBuffer() {
        return DirectBuffers.longs(numOwners);
    }

    /**
     * Reads the sizes C++ refused, to name the one at fault as the Java engine would (a negative
     * size, or the owner where the sum overflows); then reports the code itself.
     */
    private static void refused(int rc, String call, NativeScratch scratch, int numOwners) {
        if (rc == MemplanNative.BAD_ARGUMENT || rc == MemplanNative.OVERFLOW) {
            SizeChecks.check(scratch.sizes(), numOwners);
        }
        check(rc, call);
    }

    @Override
    public Allocation allocate(LongBuffer ownerSizes) {
        SizeChecks.requireCount(ownerSizes, numOwners);
        // The plan keeps the slot of each owner where the C++ code wrote it: a Java array, no copy.
        int[] ownerSlot = new int[numOwners];
        try (NativeScratch scratch = NativeScratch.forSlots(numOwners, scratchBytes)) {
            int rc;
            try {
                long sizesAddress = scratch.copySizes(ownerSizes);
                rc = MemplanNative.memplan_schedule_allocate(numValues, numOwners, numPositions, schedule,
                        schedule.length, defOffsetsAt, freeOffsetsAt, freeOwnersAt, ownerValueAt, sizesAddress,
                        ownerSlot, ownerSlot.length, scratch.capacityAddress(), scratch.statsAddress(),
                        scratch.workAddress(), scratch.workBytes());
            } catch (InternalError e) {
                // A sizes buffer mapping a file truncated after it was mapped faults in the copy, and
                // the JVM may throw its InternalError only at the thread's next safepoint check: past
                // the copy's own catch, at the call into C++ (MappedSizesTest saw it once the library
                // planned at load). The C++ code then read a partial copy in memplan's own scratch,
                // checked like any other, and this plan is dropped.
                throw SizeChecks.faulted(e);
            }
            if (rc != MemplanNative.OK) {
                refused(rc, "allocate", scratch, numOwners);
            }
            return slots(scratch, ownerSlot);
        }
    }

    /**
     * The C++ code checks, rounds and copies the sizes in one pass, reading each once from the
     * caller's array (pinned, not copied); when it refuses one, {@code rules} names it with the
     * size the C++ code read.
     */
    @Override
    public long[] checkedSizes(long[] ownerSizes, SizeRules rules) {
        if (ownerSizes.length != numOwners) {
            throw new IllegalArgumentException("expected " + numOwners + " owner sizes, got " + ownerSizes.length);
        }
        long[] sizes = new long[numOwners];
        int accepted = MemplanNative.memplan_checked_sizes(numOwners, ownerSizes, ownerSizes.length, rules.alignment(),
                sizes, sizes.length);
        if (accepted == numOwners) {
            return sizes;
        }
        if (accepted < 0 || accepted > numOwners) {
            throw new IllegalStateException("native size check returned " + accepted + " for " + numOwners + " owners");
        }
        // The same error as the Java check: a size it cannot round names the owner, else the sum overflowed there.
        rules.checkedSize(accepted, sizes[accepted]);
        throw rules.totalOverflow(accepted);
    }

    @Override
    public Allocation allocateOwned(long[] ownerSizes) {
        if (ownerSizes.length != numOwners) {
            throw new IllegalArgumentException("expected " + numOwners + " owner sizes, got " + ownerSizes.length);
        }
        int[] ownerSlot = new int[numOwners];
        try (NativeScratch scratch = NativeScratch.forOwnedSlots(numOwners, scratchBytes)) {
            int rc = MemplanNative.memplan_schedule_allocate(numValues, numOwners, numPositions, schedule,
                    schedule.length, defOffsetsAt, freeOffsetsAt, freeOwnersAt, ownerValueAt, ownerSizes, ownerSlot,
                    ownerSlot.length, scratch.capacityAddress(), scratch.statsAddress(), scratch.workAddress(),
                    scratch.workBytes());
            if (rc != MemplanNative.OK) {
                refusedOwned(rc, "allocate", ownerSizes);
            }
            return slots(scratch, ownerSlot);
        }
    }

    @Override
    public OffsetAllocation allocateOffsetsOwned(long[] ownerSizes, int effort) {
        if (ownerSizes.length != numOwners) {
            throw new IllegalArgumentException("expected " + numOwners + " owner sizes, got " + ownerSizes.length);
        }
        IntervalChecks.requireEffort(effort);
        long[] ownerOffset = new long[numOwners];
        try (NativeScratch scratch = NativeScratch.forOwnedOffsets(numOwners,
                offsetsNeedSearch ? offsetsFullBytes : offsetsSweepBytes)) {
            int rc = MemplanNative.memplan_schedule_offsets_plan(numOwners, numPositions, schedule, schedule.length,
                    ownerDefAt, ownerUseEndAt, ownerSizes, effort, ownerOffset, ownerOffset.length,
                    scratch.statsAddress(), scratch.workAddress(), scratch.workBytes());
            if (rc != MemplanNative.OK) {
                refusedOwned(rc, "offsets plan", ownerSizes);
            }
            return offsets(scratch, ownerOffset);
        }
    }

    /** {@link #refused} for sizes read in place: the array itself names the size at fault. */
    private void refusedOwned(int rc, String call, long[] ownerSizes) {
        if (rc == MemplanNative.BAD_ARGUMENT || rc == MemplanNative.OVERFLOW) {
            SizeChecks.check(LongBuffer.wrap(ownerSizes), numOwners);
        }
        check(rc, call);
    }

    private static Allocation slots(NativeScratch scratch, int[] ownerSlot) {
        int numSlots = (int) scratch.stat(MemplanNative.STAT_NUM_SLOTS);
        // Capacities are one per slot, usually few: copied out of the scratch sized for the worst case.
        return new Allocation(numSlots, scratch.stat(MemplanNative.STAT_PEAK_BYTES),
                scratch.stat(MemplanNative.STAT_NAIVE_BYTES), scratch.stat(MemplanNative.STAT_LOWER_BOUND_BYTES),
                IntBuffer.wrap(ownerSlot).asReadOnlyBuffer(),
                LongBuffer.wrap(scratch.capacities(numSlots)).asReadOnlyBuffer());
    }

    private OffsetAllocation offsets(NativeScratch scratch, long[] ownerOffset) {
        if (scratch.stat(MemplanNative.OFFSETS_STAT_RAN_SEARCH) == 1) {
            offsetsNeedSearch = true;
        }
        return new OffsetAllocation(scratch.stat(MemplanNative.OFFSETS_STAT_PEAK_BYTES),
                scratch.stat(MemplanNative.OFFSETS_STAT_NAIVE_BYTES),
                scratch.stat(MemplanNative.OFFSETS_STAT_LOWER_BOUND_BYTES),
                LongBuffer.wrap(ownerOffset).asReadOnlyBuffer());
    }

    @Override
    public OffsetAllocation allocateOffsets(LongBuffer ownerSizes, int effort) {
        SizeChecks.requireCount(ownerSizes, numOwners);
        IntervalChecks.requireEffort(effort);
        // The plan keeps each owner's offset where the C++ code wrote it: a Java array, no copy.
        long[] ownerOffset = new long[numOwners];
        try (NativeScratch scratch = NativeScratch.forOffsets(numOwners,
                offsetsNeedSearch ? offsetsFullBytes : offsetsSweepBytes)) {
            int rc;
            try {
                long sizesAddress = scratch.copySizes(ownerSizes);
                rc = MemplanNative.memplan_schedule_offsets_plan(numOwners, numPositions, schedule, schedule.length,
                        ownerDefAt, ownerUseEndAt, sizesAddress, effort, ownerOffset, ownerOffset.length,
                        scratch.statsAddress(), scratch.workAddress(), scratch.workBytes());
            } catch (InternalError e) {
                throw SizeChecks.faulted(e); // a fault in the copy may surface late, as in allocate
            }
            if (rc != MemplanNative.OK) {
                refused(rc, "offsets plan", scratch, numOwners);
            }
            return offsets(scratch, ownerOffset);
        }
    }
}
