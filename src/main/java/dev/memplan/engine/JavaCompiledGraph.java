package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;

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
        long[] size = ownerSizes.hasArray() && ownerSizes.arrayOffset() == 0 && ownerSizes.position() == 0
                ? ownerSizes.array() : readAll(ownerSizes, numOwners);
        int[] ownerSlot = new int[numOwners];
        int[] valueSlot = new int[numValues];
        Arrays.fill(valueSlot, -1);
        long[] capacity = new long[numOwners];
        FreeSlotSet free = new FreeSlotSet(towers, capacity);
        int numSlots = 0;
        long live = 0;
        long lowerBound = 0;
        long naive = 0;
        for (int p = 0; p < numPositions; p++) {
            for (int o = defOffsets[p]; o < defOffsets[p + 1]; o++) {
                long need = size[o];
                int slot = free.pollCeiling(need);
                if (slot < 0) {
                    slot = numSlots++;
                    capacity[slot] = need;
                }
                ownerSlot[o] = slot;
                valueSlot[ownerValue[o]] = slot;
                live += need;
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
        long peak = 0;
        for (int s = 0; s < numSlots; s++) {
            peak += capacity[s];
        }
        for (int o = 0; o < numOwners; o++) {
            naive += size[o];
        }
        return new Allocation(numSlots, peak, naive, lowerBound,
                IntBuffer.wrap(ownerSlot).asReadOnlyBuffer(), IntBuffer.wrap(valueSlot).asReadOnlyBuffer(),
                LongBuffer.wrap(capacity, 0, numSlots).slice().asReadOnlyBuffer());
    }

    private static long[] readAll(LongBuffer buffer, int n) {
        long[] out = new long[n];
        buffer.duplicate().get(out);
        return out;
    }
}
