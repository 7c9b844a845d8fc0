// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The Java engine's schedule: plain int arrays, never mutated after construction. {@link #allocate}
 * runs {@link SlotsAllocate} on a pooled free-slot set.
 */
final class JavaCompiledGraph extends BaseCompiledGraph {
    private final int[] ownerDef;
    private final int[] ownerUseEnd;
    private final int[] defOffsets;
    private final int[] freeOffsets;
    private final int[] freeOwners;
    /** Free sets of finished allocations, reused: one per thread planning at the same time. */
    private final ConcurrentLinkedQueue<FreeSlotSet> pool = new ConcurrentLinkedQueue<>();

    JavaCompiledGraph(int numValues, int numPositions, int[] order, int[] ownerValue, int[] ownerDef,
                      int[] ownerUseEnd, int[] defOffsets, int[] freeOffsets, int[] freeOwners, int[] valueBuffer) {
        super("java", numValues, numPositions, IntBuffer.wrap(order), IntBuffer.wrap(ownerValue),
                IntBuffer.wrap(ownerDef), IntBuffer.wrap(ownerUseEnd), IntBuffer.wrap(valueBuffer));
        this.ownerDef = ownerDef;
        this.ownerUseEnd = ownerUseEnd;
        this.defOffsets = defOffsets;
        this.freeOffsets = freeOffsets;
        this.freeOwners = freeOwners;
    }

    @Override
    public LongBuffer newSizeBuffer() {
        return LongBuffer.allocate(numOwners);
    }

    @Override
    public Allocation allocate(LongBuffer ownerSizes) {
        SizeChecks.check(ownerSizes, numOwners);
        long[] size = sizesOf(ownerSizes, numOwners);
        FreeSlotSet free = pool.poll();
        if (free == null) {
            free = new FreeSlotSet(numOwners);
        }
        Allocation allocation = SlotsAllocate.run(numPositions, defOffsets, freeOffsets, freeOwners, size, free);
        free.reset();
        pool.offer(free);
        return allocation;
    }

    /** The sizes as an array: the buffer's own when it is exactly one, else a copy. */
    private static long[] sizesOf(LongBuffer buffer, int n) {
        if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0 && buffer.array().length == n) {
            return buffer.array();
        }
        return readAll(buffer, n);
    }

    private static long[] readAll(LongBuffer buffer, int n) {
        long[] out = new long[n];
        try {
            buffer.duplicate().get(out);
        } catch (InternalError e) {
            throw SizeChecks.faulted(e);
        }
        return out;
    }

    @Override
    public OffsetAllocation allocateOffsets(LongBuffer ownerSizes, int effort) {
        SizeChecks.check(ownerSizes, numOwners);
        IntervalChecks.requireEffort(effort);
        return OffsetsPlan.allocation(numPositions, ownerDef, ownerUseEnd, sizesOf(ownerSizes, numOwners), effort);
    }
}
