// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;

/**
 * What one native allocation needs besides its result, in a block borrowed from
 * {@link NativeBlockPool#SHARED} for the call and given back after, so a request neither maps nor
 * zeroes native memory: the four totals, the checked copy of the sizes (no caller's buffer
 * reaches C++; none when the plan reads an array of its own in place), every slot's capacity (slots plans: at most one slot per owner), then the C++
 * code's working memory (the free-set treap, or the offsets planner's arrays) to the block's end.
 */
final class NativeScratch implements AutoCloseable {
    private static final int SIZES = MemplanNative.NUM_STATS;

    /**
     * Bytes of the offsets planner's scratch, for its sweep alone or with its search phases (fit,
     * canonical; at least 8, so a pointer is never empty).
     */
    static long offsetsScratchBytes(int numOwners, int numPositions, boolean withSearch) {
        long bytes = MemplanNative.memplan_offsets_scratch_bytes(numOwners, numPositions, withSearch ? 1 : 0);
        if (bytes < 0) {
            throw new IllegalArgumentException(
                    "too many owners (" + numOwners + ") or positions (" + numPositions + ") for one offsets plan");
        }
        return Math.max(bytes, 8);
    }

    private final NativeBlock block;
    private final LongBuffer longs;
    private final int numOwners;
    /** Owners whose sizes this block holds a copy of: numOwners, or 0 when the plan reads its own array. */
    private final int sizesOwners;
    private final long capacityAddress;
    private final long workAddress;
    private final long workBytes;

    private NativeScratch(int numOwners, boolean withSizes, boolean withCapacities, long workBytes) {
        // With no copy of the sizes here (the plan reads its own array in place), the capacities
        // start where the copy would: numOwners stays the offset of neither.
        this.sizesOwners = withSizes ? numOwners : 0;
        // The totals and the sizes as one run of longs: longBytes(0) is not 0 (it rounds up to one).
        long head = NativeBlock.longBytes(SIZES + sizesOwners)
                + (withCapacities ? NativeBlock.longBytes(numOwners) : 0);
        this.block = NativeBlockPool.SHARED.take(head + NativeBlock.byteBytes(workBytes));
        this.numOwners = numOwners;
        this.longs = block.longView();
        if (SIZES + (long) sizesOwners + numOwners > longs.capacity()) {
            NativeBlockPool.SHARED.give(block);
            throw new IllegalArgumentException("too many owners (" + numOwners + ") for one native plan");
        }
        block.skip(NativeBlock.longBytes(SIZES + sizesOwners));
        this.capacityAddress = withCapacities ? block.skip(NativeBlock.longBytes(numOwners)) : 0;
        this.workBytes = block.remaining();
        this.workAddress = block.rest();
    }

    /** Scratch for a slots plan: totals, sizes, capacities, and {@code treapBytes} of treap. */
    static NativeScratch forSlots(int numOwners, long treapBytes) {
        return new NativeScratch(numOwners, true, true, treapBytes);
    }

    /** Scratch for an offsets plan: totals, sizes, and at least {@code workBytes} for the planner. */
    static NativeScratch forOffsets(int numOwners, long workBytes) {
        return new NativeScratch(numOwners, true, false, workBytes);
    }

    /** {@link #forSlots} for a plan that reads its sizes from a Java array in place: no copy of them. */
    static NativeScratch forOwnedSlots(int numOwners, long treapBytes) {
        return new NativeScratch(numOwners, false, true, treapBytes);
    }

    /** {@link #forOffsets} for a plan that reads its sizes from a Java array in place: no copy of them. */
    static NativeScratch forOwnedOffsets(int numOwners, long workBytes) {
        return new NativeScratch(numOwners, false, false, workBytes);
    }

    /**
     * Copies the {@code numOwners} sizes from {@code from}'s position (any buffer: heap, direct,
     * either byte order, read-only, a mapped file) and returns the copy's address. The C++ code
     * checks the copy, which no other thread can change.
     */
    long copySizes(LongBuffer from) {
        if (sizesOwners != numOwners) {
            throw new IllegalStateException("this scratch holds no copy of the sizes");
        }
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
        longs.get(SIZES + sizesOwners, out, 0, numSlots);
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
