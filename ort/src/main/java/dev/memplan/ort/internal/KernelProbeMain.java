// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OrtEnvironment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The child JVM of {@link KernelProbes}: runs each probe model of a folder ({@code probe-0.onnx},
 * {@code probe-1.onnx}...) through {@link KernelProbeRun} and writes one result line per probe to
 * {@value #RESULTS}. Arguments: the file for a refusal's message, the folder, the number of probes.
 * Exit codes as {@link IsolatedOrtLoadMain}'s; ends itself when its parent ends.
 */
final class KernelProbeMain {
    static final String RESULTS = "results.txt";

    private KernelProbeMain() {
    }

    static Path probe(Path folder, int i) {
        return folder.resolve("probe-" + i + ".onnx");
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: KernelProbeMain MESSAGE-FILE FOLDER COUNT");
            System.exit(2);
        }
        ChildMain.endWithParent();
        OrtNativeCache.useForOrtJava(); // before ORT loads
        Path folder = Path.of(args[1]);
        int count = Integer.parseInt(args[2]);
        ChildMain.exitAfter(Path.of(args[0]), reason -> "ONNX Runtime failed measuring kernel workspaces: " + reason
                + "; use the memplan runtime for this model", () -> {
                    List<String> lines = BigStack.call("memplan-ort-probe", () -> {
                        OrtEnvironment env = OrtOptimizedGraph.environment();
                        OrtCApi.registerCountingAllocator(env);
                        List<String> out = new ArrayList<>();
                        for (int i = 0; i < count; i++) {
                            out.add(KernelProbeRun.run(env, probe(folder, i)));
                        }
                        return out;
                    });
                    Files.write(folder.resolve(RESULTS), lines, StandardCharsets.UTF_8);
                });
    }
}
