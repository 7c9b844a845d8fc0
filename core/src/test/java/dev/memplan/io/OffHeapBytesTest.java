// SPDX-License-Identifier: Apache-2.0
package dev.memplan.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.DirectMemory;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file's off-heap copy is read whole and given back when closed, not at a later collection. */
@EngineIndependent
class OffHeapBytesTest {
    private static final int SIZE = 3 << 20;

    @TempDir
    Path dir;


    @Test
    void readsTheWholeFileAndFreesItWhenClosed() throws IOException {
        byte[] content = new byte[SIZE];
        new Random(7).nextBytes(content);
        Path file = Files.write(dir.resolve("model.bin"), content);
        assertTrue(OffHeapBytes.freesAtOnce(), "this JDK offers Unsafe.invokeCleaner");
        long before = DirectMemory.bytes();
        OffHeapBytes bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            bytes = OffHeapBytes.read(ch, SIZE);
        }
        ByteBuffer b = bytes.buffer();
        assertTrue(b.isDirect());
        assertEquals(SIZE, b.remaining());
        byte[] read = new byte[SIZE];
        b.duplicate().get(read);
        assertTrue(java.util.Arrays.equals(content, read), "the bytes are the file's");
        assertTrue(DirectMemory.bytes() >= before + SIZE, "the copy is off the heap");

        bytes.close();
        assertEquals(before, DirectMemory.bytes(), "closing gave the copy back without a collection");
        IllegalStateException e = assertThrows(IllegalStateException.class, bytes::buffer);
        assertTrue(e.getMessage().contains("read the file again"), e.getMessage());
        bytes.close(); // idempotent
        assertEquals(before, DirectMemory.bytes());
    }

    @Test
    void aMappedFileIsItsBytesAndIsUnmappedWhenClosed() throws IOException {
        byte[] content = new byte[SIZE];
        new Random(11).nextBytes(content);
        Path file = Files.write(dir.resolve("mapped.bin"), content);
        long before = mappedBytes();
        OffHeapBytes bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            bytes = OffHeapBytes.map(ch, SIZE);
        }
        byte[] read = new byte[SIZE];
        bytes.buffer().duplicate().get(read);
        assertTrue(java.util.Arrays.equals(content, read), "the bytes are the file's");
        assertTrue(bytes.buffer().isReadOnly());
        assertEquals(before + SIZE, mappedBytes(), "mapped, not copied");
        bytes.close();
        assertEquals(before, mappedBytes(), "closing unmapped it without a collection");
        assertThrows(IllegalStateException.class, bytes::buffer);
    }

    private static long mappedBytes() {
        return java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)
                .stream().filter(p -> p.getName().equals("mapped")).mapToLong(
                        java.lang.management.BufferPoolMXBean::getMemoryUsed).sum();
    }

    @Test
    void allocatedBytesAreGivenBackWhenClosed() {
        long before = DirectMemory.bytes();
        OffHeapBytes bytes = OffHeapBytes.allocate(SIZE);
        assertEquals(SIZE, bytes.buffer().remaining());
        assertEquals(java.nio.ByteOrder.nativeOrder(), bytes.buffer().order());
        assertTrue(DirectMemory.bytes() >= before + SIZE);
        bytes.close();
        assertEquals(before, DirectMemory.bytes());
        assertThrows(IllegalArgumentException.class, () -> OffHeapBytes.allocate(-1));
    }

    @Test
    void aFileShorterThanItsSizeLeavesFewerBytes() throws IOException {
        Path file = Files.write(dir.resolve("short.bin"), new byte[100]);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
             OffHeapBytes bytes = OffHeapBytes.read(ch, 150)) {
            assertEquals(100, bytes.buffer().remaining(), "the caller sees the file shrank");
        }
    }

    @Test
    void aSizeNoDirectBufferHoldsIsRefused() throws IOException {
        Path file = Files.write(dir.resolve("any.bin"), new byte[1]);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            assertThrows(IllegalArgumentException.class, () -> OffHeapBytes.read(ch, -1));
            assertThrows(IllegalArgumentException.class, () -> OffHeapBytes.read(ch, 1L << 31));
        }
    }
}
