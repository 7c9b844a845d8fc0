// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import org.bytedeco.javacpp.BytePointer;

/**
 * Arrays carved from one malloc'd block, freed on {@link #close} (or, if never closed, once the
 * block is unreachable). Every JavaCPP allocation reads the process's memory use (its
 * {@code maxPhysicalBytes} check): with one allocation per array that was a fifth of the native
 * compile of a small model. A block pays for it once. Not zeroed. Each array is 8-byte aligned
 * and at least one element long, so no address is null.
 */
final class NativeBlock implements AutoCloseable {
    private final BytePointer memory;
    private final long capacity;
    private long used;

    /** A block of {@code bytes} bytes, summed from {@link #intBytes}, {@link #longBytes} and {@link #byteBytes}. */
    NativeBlock(long bytes) {
        this.capacity = Math.max(bytes, Long.BYTES);
        this.memory = new BytePointer(capacity);
    }

    /** Bytes that {@link #ints}{@code (n)} takes from a block. */
    static long intBytes(int n) {
        return align(Integer.BYTES * (long) Math.max(n, 1));
    }

    /** Bytes that {@link #longs}{@code (n)} takes from a block. */
    static long longBytes(int n) {
        return Long.BYTES * (long) Math.max(n, 1);
    }

    /** Bytes that {@link #bytes}{@code (bytes)} takes from a block. */
    static long byteBytes(long bytes) {
        return align(Math.max(bytes, Long.BYTES));
    }

    /** The next {@code n} ints of the block. */
    IntBuffer ints(int n) {
        return carve(intBytes(n)).asIntBuffer();
    }

    /** The next {@code n} ints of the block, holding a copy of {@code values}. */
    IntBuffer copy(int[] values) {
        IntBuffer out = ints(values.length);
        out.put(values).clear();
        return out;
    }

    /** The next {@code n} longs of the block. */
    LongBuffer longs(int n) {
        return carve(longBytes(n)).asLongBuffer();
    }

    /** The next {@code bytes} bytes of the block. */
    ByteBuffer bytes(long bytes) {
        return carve(byteBytes(bytes));
    }

    private ByteBuffer carve(long bytes) {
        if (bytes > capacity - used) {
            throw new IllegalStateException("a native block of " + capacity + " bytes has " + (capacity - used)
                    + " left, " + bytes + " asked for");
        }
        long start = used;
        used += bytes;
        return memory.position(start).limit(start + bytes).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    private static long align(long bytes) {
        return (bytes + Long.BYTES - 1) & -Long.BYTES;
    }

    @Override
    public void close() {
        memory.close();
    }
}
