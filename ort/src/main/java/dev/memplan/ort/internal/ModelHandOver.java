// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.zip.CRC32C;

/**
 * How a started child ({@link IsolatedOrtLoad#startSave}) receives the model to load, on its standard
 * input: one line, then bytes when the line says so. ORT loads the bytes memplan checked, with
 * memplan's declarations appended: no copy of the model is written to disk and read back.
 * <ul>
 *   <li>{@code append CRC N}: the child read the model file itself while its JVM and ORT started
 *       ({@link #preRead}); its bytes must have the CRC-32C of the bytes memplan checked (else the file
 *       changed in between, and the load is refused), and N more bytes follow.</li>
 *   <li>{@code bytes N}: the whole model's N bytes follow (written anew, or its appendix too large
 *       for the room {@link #preRead} leaves).</li>
 *   <li>{@code file PATH}: ORT loads the file itself (a model with external data, whose relative
 *       locations resolve only beside it).</li>
 *   <li>nothing: the model was refused before ORT saw it.</li>
 * </ul>
 * A line {@value #WEIGHTS_APART} before them asks the child to save the weights beside the graph
 * ({@link SavedWeights}).
 */
final class ModelHandOver {
    static final String WEIGHTS_APART = "weights apart";
    private static final String APPEND = "append ";
    private static final String BYTES = "bytes ";
    private static final String FILE = "file ";

    private ModelHandOver() {
    }

    /** A model's bytes: how many, and what writes them. */
    record ModelBytes(long size, BytesWriter writer) {
    }

    @FunctionalInterface
    interface BytesWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * What the child received: a model's bytes in a direct buffer, or a file to load; and whether to
     * save the weights of the graph ORT runs beside it.
     */
    record Model(ByteBuffer bytes, Path file, boolean weightsApart) {
    }

    /** Asks the child to save the weights beside the graph: call first. */
    static void askWeightsApart(OutputStream out) throws IOException {
        out.write((WEIGHTS_APART + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static void sendFile(OutputStream out, Path file) throws IOException {
        out.write((FILE + file.toAbsolutePath() + "\n").getBytes(StandardCharsets.UTF_8)); // the child runs in its own folder
        out.flush();
    }

    /**
     * Sends {@code appended} to follow the model file the child pre-read, whose bytes memplan checked
     * had the CRC-32C {@code checkedCrc}.
     */
    static void sendAppended(OutputStream out, long checkedCrc, ModelBytes appended) throws IOException {
        out.write((APPEND + checkedCrc + " " + appended.size() + "\n").getBytes(StandardCharsets.UTF_8));
        appended.writer().writeTo(out);
        out.flush();
    }

    /**
     * {@return whether {@code appendedBytes} fit the room a pre-read of a {@code fileBytes} file
     * leaves}: never for a file so close to 2 GiB that the file and its room pass a buffer's limit
     * (the child's pre-read gives up; the whole model is sent instead)
     */
    static boolean fitsAfterPreRead(long fileBytes, long appendedBytes) {
        return fileBytes >= 0 && fileBytes + room(fileBytes) <= Integer.MAX_VALUE && appendedBytes <= room(fileBytes);
    }

    private static long room(long fileBytes) {
        return fileBytes / 16 + (1 << 20);
    }

    static void sendBytes(OutputStream out, ModelBytes model) throws IOException {
        out.write((BYTES + model.size() + "\n").getBytes(StandardCharsets.UTF_8));
        model.writer().writeTo(out);
        out.flush();
    }

    /**
     * Starts reading {@code file} on its own thread, with room after it for what the parent appends.
     *
     * @return the read under way
     */
    static PreRead preRead(Path file) {
        CompletableFuture<ByteBuffer> read = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = ch.size();
                if (!fitsAfterPreRead(size, 0)) {
                    throw new IOException("the model is " + size + " bytes; at most 2 GiB can be passed");
                }
                ByteBuffer bytes = ByteBuffer.allocateDirect((int) (size + room(size)));
                bytes.limit((int) size);
                while (bytes.hasRemaining() && ch.read(bytes) >= 0) {
                    // read it all: a shorter file shows as a different checksum
                }
                read.complete(bytes.flip());
            } catch (IOException | RuntimeException | OutOfMemoryError e) {
                read.completeExceptionally(e);
            }
        }, "memplan-model-read");
        reader.setDaemon(true);
        reader.start();
        return new PreRead(read);
    }

    /** A model file being read by {@link #preRead}. */
    record PreRead(CompletableFuture<ByteBuffer> read) {
        static final PreRead NONE = new PreRead(CompletableFuture.failedFuture(new IOException("no model file was named")));

        ByteBuffer bytes() throws IOException {
            try {
                return read.get();
            } catch (ExecutionException e) {
                throw new IOException("cannot read the model file: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted reading the model file", e);
            }
        }
    }

    /** {@return the model on this process's standard input, or null when none came} */
    static Model receive(PreRead preRead) throws IOException {
        @SuppressWarnings("resource") // the standard input stays open for the process's life
        FileInputStream in = new FileInputStream(FileDescriptor.in);
        return receive(in, in.getChannel(), preRead);
    }

    /**
     * {@return the model {@code in} carries, or null when none came}; the bytes are read through
     * {@code channel} (the same stream) into a direct buffer, which ORT reads without a copy.
     *
     * @throws IOException      when the line is not one {@link #sendAppended}, {@link #sendBytes} or
     *                          {@link #sendFile} wrote, the bytes end early, or the pre-read failed
     * @throws MemplanException when the pre-read file is not the one memplan checked
     */
    static Model receive(InputStream in, ReadableByteChannel channel, PreRead preRead) throws IOException {
        String line = line(in);
        boolean weightsApart = WEIGHTS_APART.equals(line);
        if (weightsApart) {
            line = line(in);
        }
        if (line == null || line.isEmpty()) {
            return null;
        }
        if (line.startsWith(FILE)) {
            return new Model(null, Path.of(line.substring(FILE.length())), weightsApart);
        }
        if (line.startsWith(BYTES)) {
            long size = number(line, line.substring(BYTES.length()));
            if (size > Integer.MAX_VALUE) {
                throw new IOException("the parent sent a model of " + size + " bytes; at most 2 GiB can be passed");
            }
            return new Model(readFully(channel, ByteBuffer.allocateDirect((int) size)).flip(), null, weightsApart);
        }
        if (!line.startsWith(APPEND)) {
            throw new IOException("the parent sent no model, but: " + line);
        }
        String[] words = line.substring(APPEND.length()).split(" ", -1);
        if (words.length != 2) {
            throw new IOException("the parent sent no model, but: " + line);
        }
        long checked = number(line, words[0]);
        long appended = number(line, words[1]);
        ByteBuffer bytes = preRead.bytes();
        if (crc(bytes) != checked) {
            throw new MemplanException("the model file changed while memplan read it; compile the model again once"
                    + " it is completely written");
        }
        if (appended > bytes.capacity() - bytes.limit()) {
            throw new IOException("the parent appends " + appended + " bytes where " + (bytes.capacity() - bytes.limit())
                    + " are left");
        }
        int fileEnd = bytes.limit();
        bytes.position(fileEnd).limit(fileEnd + (int) appended);
        readFully(channel, bytes);
        return new Model(bytes.flip(), null, weightsApart);
    }

    private static ByteBuffer readFully(ReadableByteChannel channel, ByteBuffer into) throws IOException {
        int start = into.position();
        while (into.hasRemaining()) {
            if (channel.read(into) < 0) {
                throw new IOException("the parent's model ended after " + (into.position() - start) + " of "
                        + (into.limit() - start) + " bytes");
            }
        }
        return into;
    }

    private static long number(String line, String word) throws IOException {
        try {
            long n = Long.parseLong(word);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IOException("the parent sent a size that is no count of bytes: " + line);
    }

    /** How much of a mapped file {@link #crc} copies to the heap at a time. */
    private static final int CRC_CHUNK = 1 << 20;

    /**
     * {@return the CRC-32C of {@code bytes}' remaining bytes}, taken through a heap copy a chunk at a
     * time: on a mapped file that shrank, the copy fails with the JDK's {@link InternalError}, where
     * the CRC's own routine reading the mapping would crash the JVM.
     */
    static long crc(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        ByteBuffer rest = bytes.duplicate();
        byte[] chunk = new byte[Math.min(CRC_CHUNK, rest.remaining())];
        while (rest.hasRemaining()) {
            int n = Math.min(chunk.length, rest.remaining());
            rest.get(chunk, 0, n);
            crc.update(chunk, 0, n);
        }
        return crc.getValue();
    }

    /** The line up to its newline, read a byte at a time: nothing after it is consumed. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
