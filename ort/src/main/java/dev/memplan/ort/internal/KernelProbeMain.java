// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OrtEnvironment;
import dev.memplan.MemplanException;
import java.io.IOException;
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
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        Path messageFile = Path.of(args[0]);
        Path folder = Path.of(args[1]);
        int count = Integer.parseInt(args[2]);
        int exit;
        try {
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
            exit = 0;
        } catch (OrtUnavailable e) {
            exit = write(messageFile, e.getMessage(), IsolatedOrtLoad.EXIT_UNAVAILABLE);
        } catch (MemplanException e) {
            exit = write(messageFile, e.getMessage(), IsolatedOrtLoad.EXIT_REFUSED);
        } catch (IOException | RuntimeException | Error e) {
            exit = write(messageFile, "ONNX Runtime failed measuring kernel workspaces: "
                    + OrtOptimizedGraph.reason(e.toString()) + "; use the memplan runtime for this model",
                    IsolatedOrtLoad.EXIT_REFUSED);
        }
        System.exit(exit);
    }

    private static int write(Path file, String message, int exit) {
        try {
            Files.writeString(file, message, StandardCharsets.UTF_8);
            return exit;
        } catch (IOException e) {
            return 4;
        }
    }
}
