// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/** The Java engine's schedule: plain int arrays, never mutated after construction. */
final class JavaCompiledGraph implements CompiledGraph {
    private final int numValues;
    private final int numPositions;
    private final int[] order;
    private final int[] ownerValue;
    private final int[] ownerDef;
    private final int[] ownerUseEnd;
    private final int[] defOffsets;
    private final int[] freeOffsets;
    private final int[] freeOwners;
    private final SkipTowers towers;
    /** Free sets of finished allocations, reused: one per thread planning at the same time. */
    private final ConcurrentLinkedQueue<FreeSlotSet> pool = new ConcurrentLinkedQueue<>();

    JavaCompiledGraph(int numValues, int numPositions, int[] order, int[] ownerValue, int[] ownerDef,
                      int[] ownerUseEnd, int[] defOffsets, int[] freeOffsets, int[] freeOwners) {
        this.numValues = numValues;
        this.numPositions = numPositions;
        this.order = order;
        this.ownerValue = ownerValue;
        this.ownerDef = ownerDef;
        this.ownerUseEnd = ownerUseEnd;
        this.defOffsets = defOffsets;
        this.freeOffsets = freeOffsets;
        this.freeOwners = freeOwners;
        this.towers = new SkipTowers(ownerValue.length);
    }

    @Override
    public String engineName() {
        return "java";
    }

    @Override
    public int numValues() {
        return numValues;
    }

    @Override
    public int numOwners() {
        return ownerValue.length;
    }

    @Override
    public int numPositions() {
        return numPositions;
    }

    @Override
    public IntBuffer order() {
        return IntBuffer.wrap(order).asReadOnlyBuffer();
    }

    @Override
    public IntBuffer ownerValues() {
        return IntBuffer.wrap(ownerValue).asReadOnlyBuffer();
    }

    @Override
    public IntBuffer ownerDefs() {
        return IntBuffer.wrap(ownerDef).asReadOnlyBuffer();
    }

    @Override
    public IntBuffer ownerUseEnds() {
        return IntBuffer.wrap(ownerUseEnd).asReadOnlyBuffer();
    }

    @Override
    public LongBuffer newSizeBuffer() {
        return LongBuffer.allocate(ownerValue.length);
    }

    @Override
    public Allocation allocate(LongBuffer ownerSizes) {
        int numOwners = ownerValue.length;
        SizeChecks.check(ownerSizes, numOwners);
        long[] size = sizesOf(ownerSizes, numOwners);
        int[] ownerSlot = new int[numOwners];
        FreeSlotSet free = pool.poll();
        if (free == null) {
            free = new FreeSlotSet(towers, numOwners);
        }
        long live = 0;
        long lowerBound = 0;
        long naive = 0;
        for (int p = 0; p < numPositions; p++) {
            for (int o = defOffsets[p]; o < defOffsets[p + 1]; o++) {
                long need = size[o];
                int slot = free.pollCeiling(need);
                if (slot < 0) {
                    slot = free.open(need);
                }
                ownerSlot[o] = slot;
                live += need;
                naive += need;
            }
            if (live > lowerBound) {
                lowerBound = live;
            }
            for (int k = freeOffsets[p]; k < freeOffsets[p + 1]; k++) {
                int o = freeOwners[k];
                free.add(ownerSlot[o]);
                live -= size[o];
            }
        }
        long[] capacity = free.capacities();
        free.reset();
        pool.offer(free);
        long peak = 0;
        for (long c : capacity) {
            peak += c;
        }
        return new Allocation(capacity.length, peak, naive, lowerBound,
                IntBuffer.wrap(ownerSlot).asReadOnlyBuffer(), LongBuffer.wrap(capacity).asReadOnlyBuffer());
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
        int numOwners = ownerValue.length;
        SizeChecks.check(ownerSizes, numOwners);
        long[] size = sizesOf(ownerSizes, numOwners);
        long[] offset = new long[numOwners];
        long[] stats = OffsetPlanner.plan(numPositions, ownerDef, ownerUseEnd, size, effort, offset);
        return new OffsetAllocation(stats[0], stats[1], stats[2], LongBuffer.wrap(offset).asReadOnlyBuffer());
    }
}
