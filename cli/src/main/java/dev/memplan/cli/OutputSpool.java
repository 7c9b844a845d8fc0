// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Holds what {@code memplan plan} will print until every file has planned, so that one bad file
 * still prints nothing, without keeping every file's plan in memory: each file's output is
 * rendered as soon as it is planned and the plan dropped. Up to {@link #MEMORY_CHARS} characters
 * stay in memory; more go to a temporary file, deleted on {@link #close}.
 */
final class OutputSpool implements AutoCloseable {
    /** Output kept in memory before spilling to a temporary file: 1 Mi characters. */
    static final int MEMORY_CHARS = 1 << 20;

    private final StringBuilder memory = new StringBuilder();
    private Path file;
    private Writer fileWriter;
    private final PrintWriter writer = new PrintWriter(new Writer() {
        @Override
        public void write(char[] cbuf, int off, int len) throws IOException {
            if (fileWriter == null && memory.length() + len > MEMORY_CHARS) {
                spill();
            }
            if (fileWriter != null) {
                fileWriter.write(cbuf, off, len);
            } else {
                memory.append(cbuf, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            if (fileWriter != null) {
                fileWriter.flush();
            }
        }

        @Override
        public void close() {
            // the spool closes its file itself
        }
    });

    /** Where to render output; checkError() tells whether writing the spool file failed. */
    PrintWriter writer() {
        return writer;
    }

    private void spill() throws IOException {
        file = Files.createTempFile("memplan-plan-", ".out");
        file.toFile().deleteOnExit();
        fileWriter = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16);
        fileWriter.append(memory);
        memory.setLength(0);
        memory.trimToSize();
    }

    /**
     * Writes everything spooled to {@code out}.
     *
     * @throws UncheckedIOException when the spool file could not be written or read back
     */
    void copyTo(PrintWriter out) {
        writer.flush();
        if (writer.checkError()) {
            throw new UncheckedIOException(new IOException("cannot write the temporary output file " + file));
        }
        if (fileWriter == null) {
            out.append(memory);
            return;
        }
        try {
            fileWriter.close();
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                in.transferTo(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes the temporary file, if there is one. */
    @Override
    public void close() {
        if (fileWriter != null) {
            try {
                fileWriter.close();
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temporary file left behind is deleted at exit
            }
        }
    }
}
