package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;

/**
 * What one native allocation needs besides its result, reused across the allocations of a
 * schedule so that a request neither allocates nor zeroes native memory for it: the free-set
 * treap, a direct copy of the sizes for callers that pass heap buffers, every slot's capacity (at
 * most one slot per owner) and the four totals.
 */
final class NativeScratch {
    final ByteBuffer treap;
    final long treapBytes;
    final LongBuffer sizes;
    final LongBuffer capacity;
    final LongBuffer stats;
    /** Addresses of the buffers above, taken once: the buffers are fields, so they stay valid. */
    final long treapAddress;
    final long sizesAddress;
    final long capacityAddress;
    final long statsAddress;

    NativeScratch(int numOwners, long treapBytes) {
        this.treapBytes = treapBytes;
        this.treap = DirectBuffers.aligned(treapBytes);
        this.sizes = DirectBuffers.longs(numOwners);
        this.capacity = DirectBuffers.longs(numOwners);
        this.stats = DirectBuffers.longs(4);
        this.treapAddress = MemplanNative.memplan_address(treap);
        this.sizesAddress = MemplanNative.memplan_address(sizes);
        this.capacityAddress = MemplanNative.memplan_address(capacity);
        this.statsAddress = MemplanNative.memplan_address(stats);
    }
}
