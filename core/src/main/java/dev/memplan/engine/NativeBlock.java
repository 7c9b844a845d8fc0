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
 * compile of a small model. A block pays for it once, and a pooled block ({@link NativeBlockPool})
 * not even once per call. Not zeroed. Each array is 8-byte aligned and at least one element long,
 * so no address is null. One thread at a time uses a block.
 */
final class NativeBlock implements AutoCloseable {
    /** The largest view a direct buffer can be: blocks past it carve their far end through JavaCPP. */
    private static final long MAX_VIEW = Integer.MAX_VALUE & -Long.BYTES;

    private final BytePointer memory;
    private final long capacity;
    private final long address;
    /**
     * The block (up to {@link #MAX_VIEW} bytes) as one buffer, made once: carving slices it in
     * Java, where each view made by JavaCPP is a JNI call.
     */
    private final ByteBuffer view;
    private LongBuffer longView;
    private long used;

    /** A block of {@code bytes} bytes, summed from {@link #intBytes}, {@link #longBytes} and {@link #byteBytes}. */
    NativeBlock(long bytes) {
        this.capacity = Math.max(bytes, Long.BYTES);
        this.memory = new BytePointer(capacity);
        this.address = memory.address();
        this.view = memory.limit(Math.min(capacity, MAX_VIEW)).asByteBuffer().order(ByteOrder.nativeOrder());
        memory.limit(capacity);
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

    long capacity() {
        return capacity;
    }

    /** The address of the block's first byte. */
    long address() {
        return address;
    }

    /** Forgets what was carved, for the block's next user (its contents stay as they were). */
    void reset() {
        used = 0;
    }

    /**
     * The whole block as longs from its first byte (up to 2 GiB of it), made once per block: for
     * reading and writing at fixed indexes without carving.
     */
    LongBuffer longView() {
        if (longView == null) {
            longView = view.duplicate().clear().order(ByteOrder.nativeOrder()).asLongBuffer();
        }
        return longView;
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

    /** The address of the next {@code bytes} bytes of the block, without a view of them. */
    long skip(long bytes) {
        return address + take(byteBytes(bytes));
    }

    /** The address of the rest of the block, all of it taken: {@link #capacity} minus what was carved. */
    long rest() {
        long start = take(0);
        used = capacity;
        return address + start;
    }

    /** Bytes not carved yet. */
    long remaining() {
        return capacity - used;
    }

    private ByteBuffer carve(long bytes) {
        long start = take(bytes);
        if (start + bytes <= view.capacity()) {
            return view.slice((int) start, (int) bytes).order(ByteOrder.nativeOrder());
        }
        ByteBuffer far = memory.position(start).limit(start + bytes).asByteBuffer().order(ByteOrder.nativeOrder());
        memory.position(0).limit(capacity);
        return far;
    }

    private long take(long bytes) {
        if (bytes > capacity - used) {
            throw new IllegalStateException("a native block of " + capacity + " bytes has " + (capacity - used)
                    + " left, " + bytes + " asked for");
        }
        long start = used;
        used += bytes;
        return start;
    }

    private static long align(long bytes) {
        return (bytes + Long.BYTES - 1) & -Long.BYTES;
    }

    @Override
    public void close() {
        memory.close();
    }
}
