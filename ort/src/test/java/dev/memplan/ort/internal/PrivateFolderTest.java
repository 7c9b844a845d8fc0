// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ort runtime's temporary folder is new each time and its owner's alone. */
@EngineIndependent
class PrivateFolderTest {
    @TempDir
    Path dir;

    @Test
    void aFolderIsItsOwnersAloneAndEveryOneIsNew() throws IOException {
        Path a = PrivateFolder.create(dir, "memplan-ort-1-");
        Path b = PrivateFolder.create(dir, "memplan-ort-1-");
        assertNotEquals(a, b);
        assertTrue(Files.isDirectory(a) && Files.isDirectory(b));
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a)));
        }
        assertTrue(a.getFileName().toString().matches("memplan-ort-1-\\d+"), a.toString());
    }
}
