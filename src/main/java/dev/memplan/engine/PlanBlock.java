package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The results of one native allocation, carved out of a single direct buffer: slot per owner,
 * slot per value, slot capacities and the four totals. The long arrays start at multiples of 8.
 */
final class PlanBlock {
    final IntBuffer ownerSlot;
    final IntBuffer valueSlot;
    final LongBuffer capacity;
    final LongBuffer stats;

    PlanBlock(int numOwners, int numValues) {
        long intBytes = 4L * numOwners + 4L * numValues;
        long longStart = (intBytes + 7) & ~7L;
        long total = longStart + 8L * numOwners + 8L * 4 + 8; // + 8 for alignedSlice
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a plan of " + numOwners + " owners and " + numValues
                    + " values needs " + total + " bytes of results, more than one direct buffer holds");
        }
        ByteBuffer block = ByteBuffer.allocateDirect((int) total).alignedSlice(8).order(ByteOrder.nativeOrder());
        ownerSlot = ints(block, 0, numOwners);
        valueSlot = ints(block, 4 * numOwners, numValues);
        capacity = longs(block, (int) longStart, numOwners);
        stats = longs(block, (int) longStart + 8 * numOwners, 4);
    }

    private static IntBuffer ints(ByteBuffer block, int offset, int count) {
        return block.slice(offset, 4 * count).order(ByteOrder.nativeOrder()).asIntBuffer();
    }

    private static LongBuffer longs(ByteBuffer block, int offset, int count) {
        return block.slice(offset, 8 * count).order(ByteOrder.nativeOrder()).asLongBuffer();
    }
}
