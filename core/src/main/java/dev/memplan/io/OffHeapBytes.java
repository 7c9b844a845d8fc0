// SPDX-License-Identifier: Apache-2.0
package dev.memplan.io;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * Bytes off the JVM heap (a file's copy or mapping, or a buffer's to fill), given back to the system when closed. A direct buffer is
 * otherwise freed only once a garbage collection finds it unreachable and its cleaner runs: a
 * server that compiles a 130 MB model and then allocates little on its heap keeps the copy
 * resident for as long as no collection comes. Closing frees it at once, through the JDK's
 * {@code Unsafe.invokeCleaner} (as Netty and Lucene free theirs); where that is not reachable,
 * the collector frees it as before. Whoever closes must know that nothing reads the buffer or a
 * view of it any more. Not thread-safe.
 */
public final class OffHeapBytes implements AutoCloseable {
    private static final MethodHandle INVOKE_CLEANER = invokeCleaner();

    private ByteBuffer buffer;

    private OffHeapBytes(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /**
     * Allocates zeroed bytes, in the platform's byte order.
     *
     * @param size how many, 0 to 2 GiB
     * @return the bytes, position 0 and limit {@code size}
     * @throws IllegalArgumentException when {@code size} is negative or above 2 GiB
     */
    public static OffHeapBytes allocate(long size) {
        return new OffHeapBytes(ByteBuffer.allocateDirect(directSize(size)).order(ByteOrder.nativeOrder()));
    }

    /**
     * Reads a channel from its position to its end.
     *
     * @param channel the open file
     * @param size    its size: the bytes to read
     * @return the bytes, flipped for reading; fewer than {@code size} when the file shrank meanwhile
     * @throws IOException              when the read fails (the buffer is freed first)
     * @throws IllegalArgumentException when {@code size} is negative or above 2 GiB
     */
    public static OffHeapBytes read(FileChannel channel, long size) throws IOException {
        // the JDK's default byte order, not allocate's: protobuf reads the file as it is
        OffHeapBytes bytes = new OffHeapBytes(ByteBuffer.allocateDirect(directSize(size)));
        try {
            ByteBuffer b = bytes.buffer;
            while (b.hasRemaining() && channel.read(b) >= 0) {
                // read it all, or up to where the file ends now
            }
            b.flip();
            return bytes;
        } catch (IOException | RuntimeException e) {
            bytes.close();
            throw e;
        }
    }

    /**
     * Maps a file read-only, from its start: its pages are the system's file cache, read as they are
     * touched, with nothing zeroed or copied (reading 130 MB into a buffer costs 0.5 s on a VM).
     * Closing unmaps it. Reading it after the file shrank fails with an {@link InternalError} (the
     * JDK's answer to the fault), which the caller turns into its own message.
     *
     * @param channel the open file
     * @param size    the bytes to map: the file's size
     * @return the bytes, position 0 and limit {@code size}
     * @throws IOException              when the mapping fails
     * @throws IllegalArgumentException when {@code size} is negative or above 2 GiB
     */
    public static OffHeapBytes map(FileChannel channel, long size) throws IOException {
        return new OffHeapBytes(channel.map(FileChannel.MapMode.READ_ONLY, 0, directSize(size)));
    }

    private static int directSize(long size) {
        if (size < 0 || size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a direct buffer holds 0 to 2 GiB, not " + size + " bytes");
        }
        return (int) size;
    }

    /**
     * {@return the bytes (the buffer itself: position and limit are the caller's)}
     *
     * @throws IllegalStateException once closed
     */
    public ByteBuffer buffer() {
        if (buffer == null) {
            throw new IllegalStateException("these bytes were given back to the system already; read the file again");
        }
        return buffer;
    }

    /** {@return whether {@link #close} frees the bytes at once in this JVM (else the collector does)} */
    public static boolean freesAtOnce() {
        return INVOKE_CLEANER != null;
    }

    /** Frees the bytes now where the JDK allows it; no view of them may be read after this. Idempotent. */
    @Override
    public void close() {
        ByteBuffer b = buffer;
        buffer = null;
        if (b == null || INVOKE_CLEANER == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invokeExact(b);
        } catch (Throwable e) { // a JDK that refuses: the collector frees it instead
            if (e instanceof Error && !(e instanceof LinkageError)) {
                throw (Error) e;
            }
        }
    }

    private static MethodHandle invokeCleaner() {
        try {
            Class<?> unsafe = Class.forName("sun.misc.Unsafe");
            Field the = unsafe.getDeclaredField("theUnsafe");
            the.setAccessible(true);
            return MethodHandles.lookup()
                    .findVirtual(unsafe, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(the.get(null));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // no jdk.unsupported here: the collector frees direct buffers
        }
    }
}
