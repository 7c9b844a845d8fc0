// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.ort.OrtModel;
import java.nio.file.Path;

/**
 * The main class of {@link OrtEnvironmentStackTest}'s child JVMs: the process's first call into
 * ONNX Runtime, on a thread with a 1 MB stack (a server's worker thread), either through memplan
 * ({@code memplan MODEL}: {@code OrtModel.compile}, the ort runtime's public entry point) or straight
 * into ORT Java ({@code direct}: what crashes ORT Java 1.29 under a long class path). Prints one
 * line and exits 0 when the call returned.
 */
public final class OrtFirstCompileProbe {
    private OrtFirstCompileProbe() {
    }

    public static void main(String[] args) throws Exception {
        Throwable[] failed = new Throwable[1];
        OrtModel[] compiled = new OrtModel[1];
        Runnable call = switch (args[0]) {
            case "memplan" -> () -> compiled[0] = OrtModel.compile(Path.of(args[1]), ImportOptions.defaults(),
                    PlanOptions.defaults(), OrtModel.Level.ALL);
            case "direct" -> () -> ai.onnxruntime.OrtEnvironment.getEnvironment();
            default -> throw new IllegalArgumentException(args[0]);
        };
        Thread worker = new Thread(null, () -> {
            try {
                call.run();
            } catch (Throwable t) {
                failed[0] = t;
            }
        }, "worker-1mb", 1L << 20);
        worker.start();
        worker.join();
        if (failed[0] != null) {
            System.out.println("failed: " + failed[0]);
            System.exit(2);
        }
        System.out.println(args[0].equals("memplan") ? "compiled " + compiled[0].plan(java.util.Map.of("n", 1000L))
                .predictedBytes().orElseThrow() : "environment made");
    }
}
