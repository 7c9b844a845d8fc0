// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;

/** Direct buffers in native byte order: the size buffers the native engine hands its callers. */
final class DirectBuffers {
    private DirectBuffers() {
    }

    static LongBuffer longs(int n) {
        return ByteBuffer.allocateDirect(Math.multiplyExact(n, Long.BYTES)).order(ByteOrder.nativeOrder())
                .asLongBuffer();
    }
}
