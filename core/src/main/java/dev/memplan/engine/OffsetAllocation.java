// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;

/**
 * One request's offsets plan, as an engine computed it: every owner's byte offset in one arena.
 *
 * @param peakBytes       arena size: the highest {@code offset + size} over owners
 * @param naiveBytes      sum of owner sizes
 * @param lowerBoundBytes the most bytes live at any one position
 * @param ownerOffsets    offset of each owner, by owner index; read-only
 */
public record OffsetAllocation(long peakBytes, long naiveBytes, long lowerBoundBytes, LongBuffer ownerOffsets) {
}
