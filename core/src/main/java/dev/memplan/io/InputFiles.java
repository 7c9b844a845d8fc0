// SPDX-License-Identifier: Apache-2.0
package dev.memplan.io;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;

/**
 * Checks on the files memplan reads. Only regular files are read: opening a FIFO blocks until a
 * writer comes, a device can be endless, and a directory is no graph, so each is refused at once
 * with an error that says what it is. (A path swapped for a FIFO between the check and the open
 * can still block: Java cannot open a file without blocking; nobody does that by accident.)
 */
public final class InputFiles {
    private InputFiles() {
    }

    /**
     * The attributes of {@code file} (following symbolic links), when it is a regular file.
     *
     * @param file the path to check
     * @return its attributes, as {@link Files#readAttributes} reads them
     * @throws java.nio.file.NoSuchFileException when it does not exist
     * @throws NotRegularFileException           when it is a directory, FIFO, device or socket
     * @throws IOException                       when its attributes cannot be read
     */
    public static BasicFileAttributes requireRegularFile(Path file) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
        if (attrs.isDirectory()) {
            throw new NotRegularFileException(file, "is a directory; give the path of a file in it");
        }
        if (!attrs.isRegularFile()) {
            throw new NotRegularFileException(file, "is not a regular file (a FIFO, device or socket); memplan"
                    + " reads only regular files: save the graph to a file first");
        }
        return attrs;
    }

    /** A path that is not a regular file: the message says what it is and what to give instead. */
    public static final class NotRegularFileException extends FileSystemException {
        private static final long serialVersionUID = 1L;

        /**
         * A refusal of {@code file}.
         *
         * @param file   the path
         * @param reason what the path is and what to do, e.g. "is a directory; ..."
         */
        public NotRegularFileException(Path file, String reason) {
            super(file.toString(), null, reason);
        }

        /**
         * The reason alone, without the path (which callers usually print first).
         *
         * @return what the path is and what to do
         */
        @Override
        public String getMessage() {
            return getReason();
        }
    }

    /**
     * What identifies one version of a file: its size, modification time and file key (device and
     * inode where the platform has them). Compared before and after a read, it tells whether the
     * file changed meanwhile, e.g. {@code cp new.onnx model.onnx} while a server reloads it.
     *
     * @param size     bytes
     * @param modified last modification time
     * @param fileKey  the platform's identity of the file, or null
     */
    public record Stamp(long size, FileTime modified, Object fileKey) {

        /**
         * The stamp of {@code file} now.
         *
         * @param file the path
         * @return its size, modification time and file key now
         * @throws IOException when its attributes cannot be read
         */
        public static Stamp of(Path file) throws IOException {
            return of(Files.readAttributes(file, BasicFileAttributes.class));
        }

        /**
         * The stamp of already read attributes.
         *
         * @param attrs the attributes of a file
         * @return their size, modification time and file key
         */
        public static Stamp of(BasicFileAttributes attrs) {
            return new Stamp(attrs.size(), attrs.lastModifiedTime(), attrs.fileKey());
        }

        /**
         * Whether {@code file} still has this stamp.
         *
         * @param file the path the stamp was taken of
         * @return true when size, modification time and file key are unchanged; false when they
         *         changed or the file is gone or unreadable
         */
        public boolean isCurrent(Path file) {
            try {
                Stamp now = of(file);
                return now.size == size && now.modified.equals(modified) && Objects.equals(now.fileKey, fileKey);
            } catch (IOException e) {
                return false;
            }
        }
    }
}
