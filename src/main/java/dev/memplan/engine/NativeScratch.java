// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.LongBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;

/**
 * What one native allocation needs besides its result, reused across the allocations of a
 * schedule so that a request neither allocates nor zeroes native memory for it: the free-set
 * treap, the checked copy of the sizes (no caller's buffer reaches C++), every slot's capacity
 * (at most one slot per owner), the four totals, and the offsets planner's working memory. The
 * memory is malloc'd by JavaCPP, never zeroed, and freed when the scratch becomes unreachable.
 */
final class NativeScratch {
    final long treapBytes;
    private final BytePointer treap;
    private final LongPointer sizes;
    private final LongPointer capacity;
    private final LongPointer stats;
    /** Only the thread holding this scratch touches it (the pool hands it to one request at a time). */
    private BytePointer offsetsWork;
    /** Views made once: JavaCPP builds each asBuffer() view through JNI. */
    private final LongBuffer sizesView;
    private final LongBuffer capacityView;

    NativeScratch(int numOwners, long treapBytes) {
        this.treapBytes = treapBytes;
        this.treap = new BytePointer(Math.max(treapBytes, 8));
        this.sizes = new LongPointer(Math.max(numOwners, 1));
        this.capacity = new LongPointer(Math.max(numOwners, 1));
        this.stats = new LongPointer(MemplanNative.NUM_STATS);
        this.sizesView = sizes.asBuffer();
        this.capacityView = capacity.asBuffer();
    }

    long treapAddress() {
        return treap.address();
    }

    /** Copies {@code n} sizes from {@code from} (any buffer) and returns their address. */
    long copySizes(LongBuffer from, int n) {
        sizesView.clear();
        try {
            sizesView.put(from.duplicate().limit(from.position() + n));
        } catch (InternalError e) {
            throw SizeChecks.faulted(e);
        }
        return sizes.address();
    }

    /** The first {@code n} sizes last copied, as a read-only view (for checking them in Java). */
    LongBuffer sizes(int n) {
        return sizesView.duplicate().clear().limit(n).asReadOnlyBuffer();
    }

    long capacityAddress() {
        return capacity.address();
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
        return stats.address();
    }

    long stat(int i) {
        return stats.get(i);
    }

    /** The capacities of the first {@code numSlots} slots, as written by the last allocation. */
    LongBuffer capacities(int numSlots) {
        return capacityView.duplicate().limit(numSlots);
    }
}
