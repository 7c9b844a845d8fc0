// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import dev.memplan.PlanOptions.Strategy;

/**
 * Where one plan put the owners of a picture: a byte offset each in one arena of
 * {@code peakBytes}; a slots plan also gives each owner its slot, and the slots their capacities.
 * Arrays are indexed like {@link PictureData#owners()}; the record does not copy them, callers must
 * not change them.
 *
 * @param strategy        the strategy that made the plan
 * @param peakBytes       the arena size
 * @param offsets         each owner's byte offset in the arena
 * @param slots           each owner's slot (slots plans), or null (offsets plans)
 * @param slotCapacities  each slot's capacity in bytes by slot id; empty for offsets plans
 */
record Layout(Strategy strategy, long peakBytes, long[] offsets, int[] slots, long[] slotCapacities) {

    /**
     * The name the page and the command line use.
     *
     * @return {@code offsets} or {@code slots}
     */
    public String name() {
        return strategy == Strategy.OFFSETS ? "offsets" : "slots";
    }

    /**
     * Whether the plan has slots.
     *
     * @return true for a slots plan
     */
    public boolean hasSlots() {
        return slots != null;
    }
}
