// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/** Direct buffers in native byte order: what crosses to the native engine without a copy. */
final class DirectBuffers {
    private DirectBuffers() {
    }

    static IntBuffer ints(int n) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(n, Integer.BYTES)).order(ByteOrder.nativeOrder())
                .asIntBuffer();
    }

    static LongBuffer longs(int n) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(n, Long.BYTES)).order(ByteOrder.nativeOrder())
                .asLongBuffer();
    }

    /** Bytes aligned to 8, as the native scratch needs. */
    static ByteBuffer aligned(long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("native scratch of " + bytes + " bytes does not fit a direct buffer");
        }
        return ByteBuffer.allocateDirect((int) bytes + 8).alignedSlice(8).order(ByteOrder.nativeOrder());
    }
}
