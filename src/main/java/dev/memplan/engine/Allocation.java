package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * One request's slot assignment, as an engine computed it. The buffers are read-only and belong
 * to this object; native results stay in the direct buffers the native code wrote.
 *
 * @param numSlots        slots opened
 * @param peakBytes       sum of slot capacities
 * @param naiveBytes      sum of owner sizes
 * @param lowerBoundBytes the most bytes live at any one position
 * @param ownerSlots      slot of each owner, by owner index
 * @param valueSlots      slot of each value id, -1 for values that own no slot
 * @param slotCapacities  capacity of each slot, by slot id ({@code numSlots} entries)
 */
public record Allocation(int numSlots, long peakBytes, long naiveBytes, long lowerBoundBytes,
                         IntBuffer ownerSlots, IntBuffer valueSlots, LongBuffer slotCapacities) {
}
