// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

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
        ChildMain.endWithParent();
        ChildMain.exitAfter(Path.of(args[0]), reason -> "ONNX Runtime failed loading the model: " + reason
                + "; use the memplan runtime for it",
                () -> OrtOptimizedGraph.saveInThisProcess(Path.of(args[1]), args[2], Path.of(args[3])));
    }
}
