// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * Reads and writes model-sized files without leaving native memory behind on the calling thread.
 *
 * <p>Why: {@code Files.readAllBytes} and {@code Files.newOutputStream} go through NIO channels, which
 * copy a heap array through a temporary direct buffer as large as the single read or write, and
 * keep that buffer cached on the thread for its whole life (unless the JVM runs with
 * {@code -Djdk.nio.maxCachedBufferSize}). One 130 MB model read that way during
 * {@code OrtModel.compile} left 126 MiB resident on the server's thread, counted nowhere. java.io's
 * file streams copy through a native buffer they free at once.
 */
final class UncachedFileIo {
    private UncachedFileIo() {
    }

    /** {@return every byte of {@code file}} */
    static byte[] readAllBytes(Path file) throws IOException {
        try (InputStream in = new FileInputStream(file.toFile())) {
            return in.readAllBytes();
        }
    }

    /** {@return a buffered stream that writes {@code file} from its start, created or truncated} */
    static OutputStream newOutputStream(Path file) throws IOException {
        return new BufferedOutputStream(new FileOutputStream(file.toFile()), 1 << 16);
    }
}
