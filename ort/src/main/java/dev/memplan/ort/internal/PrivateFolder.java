// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A new folder only its owner can enter, in a shared one such as {@code /tmp}: what
 * {@code Files.createTempDirectory} makes, without its {@code SecureRandom}. That one's first use
 * costs 0.4-0.5 s in a JVM that is busy loading a model, on the path of every ort compile. An
 * unpredictable name is not needed for safety: making the folder fails where the name is taken
 * (a link included, which is never followed), and the next name is tried.
 */
final class PrivateFolder {
    private static final int ATTEMPTS = 100;

    private PrivateFolder() {
    }

    /**
     * {@return a new folder in {@code parent} named {@code prefix} and a random number, mode 700 where
     * the file system has POSIX permissions}
     *
     * @throws IOException when it cannot be made, or every name tried was taken
     */
    static Path create(Path parent, String prefix) throws IOException {
        boolean posix = Files.getFileStore(parent).supportsFileAttributeView("posix");
        FileAlreadyExistsException taken = null;
        for (int i = 0; i < ATTEMPTS; i++) {
            Path folder = parent.resolve(prefix + Long.toUnsignedString(ThreadLocalRandom.current().nextLong()));
            try {
                return posix ? Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------"))) : Files.createDirectory(folder);
            } catch (FileAlreadyExistsException e) {
                taken = e;
            }
        }
        throw new IOException("every one of " + ATTEMPTS + " names tried for a new folder was taken, the last " + taken.getFile());
    }
}
