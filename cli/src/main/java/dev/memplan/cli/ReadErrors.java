// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.InputFiles;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** Says in a few words, without Java class names, why a file could not be read or written. */
final class ReadErrors {
    private ReadErrors() {
    }

    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "cannot read it (permission denied)";
        }
        if (e instanceof InputFiles.NotRegularFileException n) {
            return n.getReason();
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return "cannot read it (" + f.getReason() + ")";
        }
        return "cannot read it (" + (e.getMessage() != null ? e.getMessage() : "an I/O error") + ")";
    }

    /** Why a file could not be written: the reason alone, e.g. "permission denied". */
    static String describeWrite(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "its folder does not exist";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : "an I/O error";
    }
}
