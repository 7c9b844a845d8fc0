package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
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
    final IntBuffer ownerSlot;
    final LongBuffer capacity;
    final LongBuffer stats;

    NativeScratch(int numOwners, long treapBytes) {
        this.treapBytes = treapBytes;
        this.treap = DirectBuffers.aligned(treapBytes);
        this.sizes = DirectBuffers.longs(numOwners);
        this.ownerSlot = DirectBuffers.ints(numOwners);
        this.capacity = DirectBuffers.longs(numOwners);
        this.stats = DirectBuffers.longs(4);
    }
}
