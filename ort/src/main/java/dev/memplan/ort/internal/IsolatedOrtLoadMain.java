// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child JVM of {@link IsolatedOrtLoad}: loads one model into ONNX Runtime and saves the graph
 * ORT runs. Arguments: the file for a refusal's message, the model, the level, the saved graph's
 * path. Exits 0 when saved; {@link IsolatedOrtLoad#EXIT_REFUSED} or
 * {@link IsolatedOrtLoad#EXIT_UNAVAILABLE} with the message written; ends itself when its parent
 * ends. Anything else is a crash the parent reports.
 */
final class IsolatedOrtLoadMain {
    private IsolatedOrtLoadMain() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: IsolatedOrtLoadMain MESSAGE-FILE MODEL LEVEL SAVED");
            System.exit(2);
        }
        // an orphan holds memory and its folder: it goes with the process that started it
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        Path messageFile = Path.of(args[0]);
        int exit;
        try {
            OrtOptimizedGraph.saveInThisProcess(Path.of(args[1]), args[2], Path.of(args[3]));
            exit = 0;
        } catch (OrtUnavailable e) {
            exit = write(messageFile, e.getMessage(), IsolatedOrtLoad.EXIT_UNAVAILABLE);
        } catch (MemplanException e) {
            exit = write(messageFile, e.getMessage(), IsolatedOrtLoad.EXIT_REFUSED);
        } catch (RuntimeException | Error e) {
            exit = write(messageFile, "ONNX Runtime failed loading the model: " + OrtOptimizedGraph.reason(e.toString())
                    + "; use the memplan runtime for it", IsolatedOrtLoad.EXIT_REFUSED);
        }
        System.exit(exit);
    }

    private static int write(Path file, String message, int exit) {
        try {
            Files.writeString(file, message, StandardCharsets.UTF_8);
            return exit;
        } catch (IOException e) {
            return 4; // the parent reports a failure with no message
        }
    }
}
