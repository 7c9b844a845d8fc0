// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;

/**
 * What one native allocation needs besides its result, in a block borrowed from
 * {@link NativeBlockPool#SHARED} for the call and given back after, so a request neither maps nor
 * zeroes native memory: the four totals, the checked copy of the sizes (no caller's buffer
 * reaches C++), every slot's capacity (slots plans: at most one slot per owner), then the C++
 * code's working memory (the free-set treap, or the offsets planner's arrays) to the block's end.
 */
final class NativeScratch implements AutoCloseable {
    private static final int SIZES = MemplanNative.NUM_STATS;

    private final NativeBlock block;
    private final LongBuffer longs;
    private final int numOwners;
    private final long capacityAddress;
    private final long workAddress;
    private final long workBytes;

    private NativeScratch(int numOwners, boolean withCapacities, long workBytes) {
        long head = NativeBlock.longBytes(SIZES) + NativeBlock.longBytes(numOwners)
                + (withCapacities ? NativeBlock.longBytes(numOwners) : 0);
        this.block = NativeBlockPool.SHARED.take(head + NativeBlock.byteBytes(workBytes));
        this.numOwners = numOwners;
        this.longs = block.longView();
        if (SIZES + 2L * numOwners > longs.capacity()) {
            NativeBlockPool.SHARED.give(block);
            throw new IllegalArgumentException("too many owners (" + numOwners + ") for one native plan");
        }
        block.skip(NativeBlock.longBytes(SIZES) + NativeBlock.longBytes(numOwners));
        this.capacityAddress = withCapacities ? block.skip(NativeBlock.longBytes(numOwners)) : 0;
        this.workBytes = block.remaining();
        this.workAddress = block.rest();
    }

    /** Scratch for a slots plan: totals, sizes, capacities, and {@code treapBytes} of treap. */
    static NativeScratch forSlots(int numOwners, long treapBytes) {
        return new NativeScratch(numOwners, true, treapBytes);
    }

    /** Scratch for an offsets plan: totals, sizes, and at least {@code workBytes} for the planner. */
    static NativeScratch forOffsets(int numOwners, long workBytes) {
        return new NativeScratch(numOwners, false, workBytes);
    }

    /**
     * Copies the {@code numOwners} sizes from {@code from}'s position (any buffer: heap, direct,
     * either byte order, read-only, a mapped file) and returns the copy's address. The C++ code
     * checks the copy, which no other thread can change.
     */
    long copySizes(LongBuffer from) {
        try {
            longs.put(SIZES, from, from.position(), numOwners);
        } catch (InternalError e) {
            throw SizeChecks.faulted(e);
        }
        return block.address() + (long) SIZES * Long.BYTES;
    }

    /** The sizes last copied, as a read-only view (to name the size at fault when C++ refuses them). */
    LongBuffer sizes() {
        return longs.duplicate().limit(SIZES + numOwners).position(SIZES).slice().asReadOnlyBuffer();
    }

    long statsAddress() {
        return block.address();
    }

    long stat(int i) {
        return longs.get(i);
    }

    long capacityAddress() {
        return capacityAddress;
    }

    /** The capacities of the first {@code numSlots} slots, as written by the allocation. */
    long[] capacities(int numSlots) {
        long[] out = new long[numSlots];
        longs.get(SIZES + numOwners, out, 0, numSlots);
        return out;
    }

    /** The C++ code's working memory: the rest of the block, 8-byte aligned. */
    long workAddress() {
        return workAddress;
    }

    long workBytes() {
        return workBytes;
    }

    /** Gives the block back to the pool. */
    @Override
    public void close() {
        NativeBlockPool.SHARED.give(block);
    }
}
