// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * What the child JVMs {@link IsolatedOrtLoad} starts share ({@link IsolatedOrtLoadMain},
 * {@link KernelProbeMain}, {@link ResidentProbeMain}): they end with the process that started them,
 * and answer it through their exit code and a message file.
 */
final class ChildMain {
    /** A child's work. */
    interface Work {
        void run() throws Exception;
    }

    private ChildMain() {
    }

    /** An orphan holds memory and its folder: this process goes with the one that started it. */
    static void endWithParent() {
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
    }

    /**
     * Runs {@code work} and exits: 0 when it returns; {@link IsolatedOrtLoad#EXIT_UNAVAILABLE} or
     * {@link IsolatedOrtLoad#EXIT_REFUSED} with the message written to {@code messageFile}; 4 when
     * that file cannot be written (the parent reports a failure with no message).
     *
     * @param unexpected the message for any other failure, given its reason on one line
     */
    static void exitAfter(Path messageFile, UnaryOperator<String> unexpected, Work work) {
        int exit;
        try {
            work.run();
            exit = 0;
        } catch (OrtUnavailable e) {
            exit = write(messageFile, e.getMessage(), IsolatedOrtLoad.EXIT_UNAVAILABLE);
        } catch (MemplanException e) {
            exit = write(messageFile, e.getMessage(), IsolatedOrtLoad.EXIT_REFUSED);
        } catch (Exception | Error e) {
            exit = write(messageFile, unexpected.apply(OrtOptimizedGraph.reason(e.toString())),
                    IsolatedOrtLoad.EXIT_REFUSED);
        }
        System.exit(exit);
    }

    private static int write(Path file, String message, int exit) {
        try {
            Files.writeString(file, message, StandardCharsets.UTF_8);
            return exit;
        } catch (IOException | UncheckedIOException e) {
            return 4;
        }
    }
}
