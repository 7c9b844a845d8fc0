package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/** One plan's results in a single direct buffer: slot per owner, then capacity per slot (8-aligned). */
final class ResultBlock {
    final IntBuffer ownerSlot;
    final LongBuffer capacity;

    ResultBlock(int numOwners, int numSlots) {
        long longStart = (4L * numOwners + 7) & ~7L;
        long total = longStart + 8L * numSlots + 8; // + 8 for alignedSlice
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a plan of " + numOwners + " owners and " + numSlots
                    + " slots needs " + total + " bytes of results, more than one direct buffer holds");
        }
        ByteBuffer block = ByteBuffer.allocateDirect((int) total).alignedSlice(8);
        ownerSlot = block.slice(0, 4 * numOwners).order(ByteOrder.nativeOrder()).asIntBuffer();
        capacity = block.slice((int) longStart, 8 * numSlots).order(ByteOrder.nativeOrder()).asLongBuffer();
    }
}
