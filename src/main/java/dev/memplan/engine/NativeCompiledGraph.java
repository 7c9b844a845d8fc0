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

    private NativeCompiledGraph(int numValues, int numPositions, int[] schedule, IntBuffer order,
                                IntBuffer ownerValue, IntBuffer ownerDef, IntBuffer ownerUseEnd,
                                IntBuffer defOffsets, IntBuffer freeOffsets, IntBuffer freeOwners,
                                IntBuffer valueBuffer) {
        super("native", numValues, numPositions, order, ownerValue, ownerDef, ownerUseEnd, valueBuffer);
        this.scratchBytes = MemplanNative.memplan_allocate_scratch_bytes(numOwners);
        this.offsetsSweepBytes = NativeEngine.offsetsScratchBytes(numOwners, Math.max(numPositions, 1), false);
        this.offsetsFullBytes = NativeEngine.offsetsScratchBytes(numOwners, Math.max(numPositions, 1), true);
        this.schedule = schedule;
        this.defOffsetsAt = defOffsets.arrayOffset();
        this.freeOffsetsAt = freeOffsets.arrayOffset();
        this.freeOwnersAt = freeOwners.arrayOffset();
        this.ownerValueAt = ownerValue.arrayOffset();
        this.ownerDefAt = ownerDef.arrayOffset();
        this.ownerUseEndAt = ownerUseEnd.arrayOffset();
    }

    /** Runs the native compile on a graph the caller validated, and checks what comes back. */
    static NativeCompiledGraph compile(FlatGraph g, int[] valueRoot, int[] inPlaceMask, boolean includeGraphInputs) {
        int v = g.numValues();
        int n = g.numNodes();
        int p = g.numPositions();
        // The graph, the owner-sized outputs and the C++ compile's own temporaries live in one
        // block borrowed from the pool and given back as soon as the compile returns: fresh direct
        // buffers would be zeroed, mapped anew and held until a GC, and temporaries malloc'd per
        // call were handed back to the OS and faulted in again by the next compile.
        long temporaries = MemplanNative.memplan_compile_scratch_bytes(v, n, g.inputOffsets()[n],
                inPlaceMask == null ? 0 : 1);
        if (temporaries < 0) {
            throw new IllegalArgumentException("too many values (" + v + ") or nodes (" + n + ") for one native compile");
        }
        long bytes = NativeBlock.intBytes(g.inputOffsets().length) + NativeBlock.intBytes(g.inputs().length)
                + NativeBlock.intBytes(g.outputOffsets().length) + NativeBlock.intBytes(g.outputs().length)
                + NativeBlock.intBytes(valueRoot.length) + NativeBlock.intBytes(g.valueFlags().length)
                + NativeBlock.intBytes(n) + 5 * NativeBlock.intBytes(v) + 2 * NativeBlock.intBytes(p + 1)
                + NativeBlock.intBytes(2) + (inPlaceMask == null ? 0 : NativeBlock.intBytes(v))
                + NativeBlock.byteBytes(temporaries);
        NativeBlock block = NativeBlockPool.SHARED.take(bytes);
        try {
            IntBuffer inputOffsets = block.copy(g.inputOffsets());
            IntBuffer inputs = block.copy(g.inputs());
            IntBuffer outputOffsets = block.copy(g.outputOffsets());
            IntBuffer outputs = block.copy(g.outputs());
            IntBuffer roots = block.copy(valueRoot);
            IntBuffer flags = block.copy(g.valueFlags());
            long mask = inPlaceMask == null ? 0 : address(block.copy(inPlaceMask)); // 0: no in-place reuse
            IntBuffer valueBuffer = block.ints(v);
            IntBuffer order = block.ints(n);
            IntBuffer ownerValue = block.ints(v);
            IntBuffer ownerDef = block.ints(v);
            IntBuffer ownerUseEnd = block.ints(v);
            IntBuffer defOffsets = block.ints(p + 1);
            IntBuffer freeOffsets = block.ints(p + 1);
            IntBuffer freeOwners = block.ints(v);
            IntBuffer counts = block.ints(2);
            long scratchBytes = block.remaining(); // before rest(), which takes it all
            int rc = MemplanNative.memplan_compile(v, n, address(inputOffsets), address(inputs),
                    address(outputOffsets), address(outputs), address(roots), address(flags), mask,
                    includeGraphInputs ? 1 : 0, address(order), address(ownerValue), address(ownerDef),
                    address(ownerUseEnd), address(defOffsets), address(freeOffsets), address(freeOwners),
                    address(valueBuffer), address(counts), address(counts) + Integer.BYTES, block.rest(),
                    scratchBytes);
            if (rc == MemplanNative.CYCLE) {
                throw new GraphCycleException(counts.get(1));
            }
            check(rc, "compile");
            int owners = counts.get(0);
            if (owners < 0 || owners > v) {
                throw new IllegalStateException("native compile reported " + owners + " owners for " + v + " values");
            }
            // What the schedule keeps moves to one right-sized Java array, checked once here.
            Kept kept = new Kept(n + 2 * (p + 1) + 4 * owners + v);
            IntBuffer defs = kept.copy(defOffsets, p + 1);
            IntBuffer frees = kept.copy(freeOffsets, p + 1);
            checkOffsets(defs, p, owners, "def");
            checkOffsets(frees, p, owners, "free");
            IntBuffer values = kept.copy(ownerValue, owners);
            IntBuffer freed = kept.copy(freeOwners, owners);
            for (int i = 0; i < owners; i++) {
                int value = values.get(i);
                int f = freed.get(i);
                if (value < 0 || value >= v || f < 0 || f >= owners) {
                    throw new IllegalStateException("native compile returned an owner id out of range at " + i);
                }
            }
            IntBuffer buffers = kept.copy(valueBuffer, v);
            for (int i = 0; i < v; i++) {
                int b = buffers.get(i);
                if (b < 0 || b >= v || buffers.get(b) != b) {
                    throw new IllegalStateException("native compile returned value buffer " + b + " for value " + i);
                }
            }
            return new NativeCompiledGraph(v, p, kept.array, kept.copy(order, n), values, kept.copy(ownerDef, owners),
                    kept.copy(ownerUseEnd, owners), defs, frees, freed, buffers);
        } finally {
            NativeBlockPool.SHARED.give(block);
        }
    }

    private static long address(IntBuffer buffer) {
        return MemplanNative.memplan_address(buffer);
    }

    /** The arrays a schedule keeps, in one Java array sliced into them. */
    private static final class Kept {
        final int[] array;
        private final IntBuffer memory;
        private int used;

        Kept(int ints) {
            array = new int[ints];
            memory = IntBuffer.wrap(array);
        }

        /** The first {@code n} ints of {@code from}, in the next {@code n} ints of this memory. */
        IntBuffer copy(IntBuffer from, int n) {
            IntBuffer out = memory.slice(used, n);
            used += n;
            out.put(from.duplicate().clear().limit(n)).clear();
            return out;
        }
    }

    /** The allocate loop trusts these offsets, so they are checked once here. */
    private static void checkOffsets(IntBuffer offsets, int positions, int owners, String what) {
        if (offsets.get(0) != 0 || offsets.get(positions) != owners) {
            throw new IllegalStateException("native " + what + " offsets do not span the owners");
        }
        for (int i = 0; i < positions; i++) {
            if (offsets.get(i) > offsets.get(i + 1)) {
                throw new IllegalStateException("native " + what + " offsets decrease at position " + i);
            }
        }
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
            long sizesAddress = scratch.copySizes(ownerSizes);
            int rc = MemplanNative.memplan_schedule_allocate(numValues, numOwners, numPositions, schedule,
                    schedule.length, defOffsetsAt, freeOffsetsAt, freeOwnersAt, ownerValueAt, sizesAddress, ownerSlot,
                    ownerSlot.length, scratch.capacityAddress(), scratch.statsAddress(), scratch.workAddress(),
                    scratch.workBytes());
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
            long sizesAddress = scratch.copySizes(ownerSizes);
            int rc = MemplanNative.memplan_schedule_offsets_plan(numOwners, numPositions, schedule, schedule.length,
                    ownerDefAt, ownerUseEndAt, sizesAddress, effort, ownerOffset, ownerOffset.length,
                    scratch.statsAddress(), scratch.workAddress(), scratch.workBytes());
            if (rc != MemplanNative.OK) {
                refused(rc, "offsets plan", scratch, numOwners);
            }
            return offsets(scratch, ownerOffset);
        }
    }
}
