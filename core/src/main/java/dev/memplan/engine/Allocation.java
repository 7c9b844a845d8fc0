// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * One request's slot assignment, as an engine computed it. The buffers are read-only and belong
 * to this object; the native engine's slot per owner stays in the direct buffer its C++ code wrote.
 *
 * @param numSlots        slots opened
 * @param peakBytes       sum of slot capacities
 * @param naiveBytes      sum of owner sizes
 * @param lowerBoundBytes the most bytes live at any one position
 * @param ownerSlots      slot of each owner, by owner index
 * @param slotCapacities  capacity of each slot, by slot id ({@code numSlots} entries)
 */
public record Allocation(int numSlots, long peakBytes, long naiveBytes, long lowerBoundBytes,
                         IntBuffer ownerSlots, LongBuffer slotCapacities) {
}
