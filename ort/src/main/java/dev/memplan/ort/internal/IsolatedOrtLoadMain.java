// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child JVM of {@link IsolatedOrtLoad}: loads one model into ONNX Runtime and saves the graph
 * ORT runs. Arguments: the file for a refusal's message, the model, the level, the saved graph's
 * path. The model {@value #MODEL_ON_STDIN} means: load ONNX Runtime first, then read the model's
 * path from the standard input ({@link IsolatedOrtLoad#startSave}); nothing there, and the child
 * ends. Exits 0 when saved; {@link IsolatedOrtLoad#EXIT_REFUSED} or
 * {@link IsolatedOrtLoad#EXIT_UNAVAILABLE} with the message written; ends itself when its parent
 * ends. Anything else is a crash the parent reports.
 */
final class IsolatedOrtLoadMain {
    /** The model argument that says the path comes on the standard input. */
    static final String MODEL_ON_STDIN = "-";

    private IsolatedOrtLoadMain() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: IsolatedOrtLoadMain MESSAGE-FILE MODEL|- LEVEL SAVED");
            System.exit(2);
        }
        ChildMain.endWithParent();
        ChildMain.exitAfter(Path.of(args[0]), reason -> "ONNX Runtime failed loading the model: " + reason
                + "; use the memplan runtime for it", () -> {
                    String model = args[1];
                    if (model.equals(MODEL_ON_STDIN)) {
                        OrtOptimizedGraph.startInThisProcess();
                        model = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                        if (model == null || model.isEmpty()) {
                            return; // the parent refused the model before ORT saw it
                        }
                    }
                    OrtOptimizedGraph.saveInThisProcess(Path.of(model), args[2], Path.of(args[3]));
                });
    }
}
