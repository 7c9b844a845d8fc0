// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.nio.file.Path;

/**
 * The child JVM of {@link IsolatedOrtLoad}: loads one model into ONNX Runtime and saves the graph
 * ORT runs. Arguments: the file for a refusal's message, the model, the level, the saved graph's
 * path. The model {@value #MODEL_ON_STDIN} means: load ONNX Runtime first (and read the model file
 * named last meanwhile), then receive the model on the standard input ({@link ModelHandOver},
 * {@link IsolatedOrtLoad#startSave}); nothing there, and the child ends. Exits 0 when saved; {@link IsolatedOrtLoad#EXIT_REFUSED} or
 * {@link IsolatedOrtLoad#EXIT_UNAVAILABLE} with the message written; ends itself when its parent
 * ends. Anything else is a crash the parent reports.
 */
final class IsolatedOrtLoadMain {
    /** The model argument that says the path comes on the standard input. */
    static final String MODEL_ON_STDIN = "-";

    private IsolatedOrtLoadMain() {
    }

    public static void main(String[] args) {
        if (args.length != 4 && !(args.length == 5 && args[1].equals(MODEL_ON_STDIN))) {
            System.err.println("usage: IsolatedOrtLoadMain MESSAGE-FILE MODEL LEVEL SAVED | MESSAGE-FILE - LEVEL SAVED MODEL");
            System.exit(2);
        }
        ChildMain.endWithParent();
        OrtNativeCache.useForOrtJava(); // before ORT loads
        ChildMain.exitAfter(Path.of(args[0]), reason -> "ONNX Runtime failed loading the model: " + reason
                + "; use the memplan runtime for it", () -> {
                    ModelHandOver.Model model = new ModelHandOver.Model(null, Path.of(args[1]), false);
                    if (args[1].equals(MODEL_ON_STDIN)) {
                        ModelHandOver.PreRead read = args.length == 5 ? ModelHandOver.preRead(Path.of(args[4]))
                                : ModelHandOver.PreRead.NONE;
                        OrtOptimizedGraph.startInThisProcess();
                        model = ModelHandOver.receive(read);
                        if (model == null) {
                            return; // the parent refused the model before ORT saw it
                        }
                    }
                    OrtOptimizedGraph.saveInThisProcess(model, args[2], Path.of(args[3]));
                });
    }
}
