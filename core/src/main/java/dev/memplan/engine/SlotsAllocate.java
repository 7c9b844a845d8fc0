// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The slots plan of one request in the Java engine: {@code memplan_allocate} in slots_allocate.h,
 * step for step. Each position first places its new owners (best fit among the free slots, else a
 * new slot), then frees the owners whose last use it is.
 */
final class SlotsAllocate {
    private SlotsAllocate() {
    }

    /**
     * Plans one request. {@code free} must be empty; it is left holding the plan's slots, for the
     * caller to reset and reuse. {@code size} has been checked (no negative size, no sum overflows).
     */
    static Allocation run(int numPositions, int[] defOffsets, int[] freeOffsets, int[] freeOwners, long[] size,
                          FreeSlotSet free) {
        int[] ownerSlot = new int[size.length];
        long live = 0;
        long lowerBound = 0;
        long naive = 0;
        long peak = 0;
        for (int p = 0; p < numPositions; p++) {
            for (int o = defOffsets[p]; o < defOffsets[p + 1]; o++) {
                long need = size[o];
                naive += need; // SizeChecks: no sum overflows
                int slot = free.pollCeiling(need);
                if (slot == FreeSlotSet.NONE) {
                    slot = free.open(need);
                    peak += need;
                }
                ownerSlot[o] = slot;
                live += need;
            }
            if (live > lowerBound) {
                lowerBound = live;
            }
            // Free after allocating: a node's outputs never land on its own inputs.
            for (int k = freeOffsets[p]; k < freeOffsets[p + 1]; k++) {
                int o = freeOwners[k];
                free.add(ownerSlot[o]);
                live -= size[o];
            }
        }
        long[] capacity = free.capacities();
        return new Allocation(capacity.length, peak, naive, lowerBound,
                IntBuffer.wrap(ownerSlot).asReadOnlyBuffer(), LongBuffer.wrap(capacity).asReadOnlyBuffer());
    }
}
