// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Direct memory for plan results, carved from per-thread slabs. {@code allocateDirect} costs a
 * Cleaner per buffer, which dominated planning small graphs natively; a carved slice costs a bump
 * of an offset. A slice keeps its slab reachable, so a slab is freed by the garbage collector once
 * no plan carved from it is, as any direct buffer is. Large requests get a buffer of their own.
 */
final class DirectSlabs {
    private static final int SLAB_BYTES = 1 << 20;
    private static final int LARGEST_CARVED = SLAB_BYTES / 8;

    private static final ThreadLocal<DirectSlabs> PER_THREAD = ThreadLocal.withInitial(DirectSlabs::new);

    private ByteBuffer slab;
    private int next;

    private DirectSlabs() {
    }

    /** {@code bytes} of direct memory in native byte order, 8-byte aligned, position 0. */
    static ByteBuffer allocate(int bytes) {
        if (bytes > LARGEST_CARVED) {
            return DirectBuffers.aligned(bytes).limit(bytes).slice().order(ByteOrder.nativeOrder());
        }
        return PER_THREAD.get().carve(bytes);
    }

    private ByteBuffer carve(int bytes) {
        int start = (next + 7) & ~7;
        if (slab == null || start + bytes > slab.capacity()) {
            slab = DirectBuffers.aligned(SLAB_BYTES);
            start = 0;
        }
        next = start + bytes;
        return slab.slice(start, bytes).order(ByteOrder.nativeOrder());
    }
}
