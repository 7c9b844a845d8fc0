// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;
import org.bytedeco.javacpp.BytePointer;

/**
 * What one native allocation needs besides its result, reused across the allocations of a
 * schedule so that a request neither allocates nor zeroes native memory for it: the free-set
 * treap, the checked copy of the sizes (no caller's buffer reaches C++), every slot's capacity
 * (at most one slot per owner), the four totals, and the offsets planner's working memory. The
 * memory is malloc'd by JavaCPP, never zeroed, and freed when the scratch becomes unreachable.
 */
final class NativeScratch {
    final long treapBytes;
    /**
     * Sizes, capacities, totals and treap in one malloc'd block: one JavaCPP allocation. Held
     * here because the views below do not keep it alive.
     */
    private final NativeBlock block;
    private final long treapAddress;
    private final long sizesAddress;
    private final long capacityAddress;
    private final long statsAddress;
    /** Only the thread holding this scratch touches it (the pool hands it to one request at a time). */
    private BytePointer offsetsWork;
    private final LongBuffer sizesView;
    private final LongBuffer capacityView;
    private final LongBuffer statsView;

    NativeScratch(int numOwners, long treapBytes) {
        this.treapBytes = treapBytes;
        this.block = new NativeBlock(2 * NativeBlock.longBytes(numOwners)
                + NativeBlock.longBytes(MemplanNative.NUM_STATS) + NativeBlock.byteBytes(treapBytes));
        this.sizesView = block.longs(numOwners);
        this.capacityView = block.longs(numOwners);
        this.statsView = block.longs(MemplanNative.NUM_STATS);
        this.sizesAddress = MemplanNative.memplan_address(sizesView);
        this.capacityAddress = MemplanNative.memplan_address(capacityView);
        this.statsAddress = MemplanNative.memplan_address(statsView);
        this.treapAddress = MemplanNative.memplan_address(block.bytes(treapBytes));
    }

    long treapAddress() {
        return treapAddress;
    }

    /** Copies {@code n} sizes from {@code from} (any buffer) and returns their address. */
    long copySizes(LongBuffer from, int n) {
        sizesView.clear();
        try {
            sizesView.put(from.duplicate().limit(from.position() + n));
        } catch (InternalError e) {
            throw SizeChecks.faulted(e);
        }
        return sizesAddress;
    }

    /** The first {@code n} sizes last copied, as a read-only view (for checking them in Java). */
    LongBuffer sizes(int n) {
        return sizesView.duplicate().clear().limit(n).asReadOnlyBuffer();
    }

    long capacityAddress() {
        return capacityAddress;
    }

    /**
     * The offsets planner's scratch of at least {@code bytes} bytes, made on the first offsets plan
     * (a schedule planned only as slots never pays for it), replaced when a larger one is asked
     * for, and reused otherwise.
     */
    long offsetsScratchAddress(long bytes) {
        if (offsetsWork == null || offsetsWork.capacity() < bytes) {
            if (offsetsWork != null) {
                offsetsWork.close();
            }
            offsetsWork = new BytePointer(bytes);
        }
        return offsetsWork.address();
    }

    long offsetsScratchBytes() {
        return offsetsWork.capacity();
    }

    long statsAddress() {
        return statsAddress;
    }

    long stat(int i) {
        return statsView.get(i);
    }

    /** The capacities of the first {@code numSlots} slots, as written by the last allocation. */
    LongBuffer capacities(int numSlots) {
        return capacityView.duplicate().limit(numSlots);
    }
}
