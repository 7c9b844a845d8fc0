// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.MemplanException;
import dev.memplan.ort.OrtModel;
import dev.memplan.ort.internal.OrtArenaPrediction;
import dev.memplan.ort.internal.OrtRuntimeProfile;
import dev.memplan.server.internal.ServerAccess;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@code plan --runtime ort}: ONNX Runtime's CPU arena, predicted from the graph ORT runs at the
 * given level, for the request memplan planned. ONNX Runtime's graph of the model is obtained
 * first, so a model ORT cannot load fails here, deferred or not.
 */
final class OrtRuntimeFigures implements RuntimeFigures {
    private static final String MEMORY = "ONNX Runtime's CPU arena";

    private final OrtModel.Level level;
    private final OrtModel.UnmodelledKernels unmodelled;
    private final Map<String, List<String>> inputDims;

    OrtRuntimeFigures(OrtModel.Level level, OrtModel.UnmodelledKernels unmodelled, Map<String, List<String>> inputDims) {
        this.level = level;
        this.unmodelled = unmodelled;
        this.inputDims = inputDims;
    }

    @Override
    public String unavailable() {
        return OrtRuntimeProfile.ortJavaPresent() ? null
                : OrtRuntimeProfile.ORT_MISSING + " (the command line reads it from lib/ beside its jar: mvn package"
                        + " puts it there)";
    }

    /**
     * Loads ORT's graph of an ONNX model on its own thread while memplan plans the file: ORT's load
     * and save run in a child JVM started at once, so on two cores the plan hides part of it (bge-small
     * fp32: a plain plan 1.6 s, with ORT's figure 3.0-3.5 s; docs/performance.md). The previous
     * file's load is waited for first: one at a time.
     */
    @Override
    public void start(Path file) {
        finishPending();
        if (GraphLoader.isOnnx(file)) {
            CompletableFuture<OrtRuntimeProfile> loading = new CompletableFuture<>();
            Thread loader = new Thread(null, () -> {
                try {
                    loading.complete(load(file));
                } catch (Throwable t) {
                    loading.completeExceptionally(t);
                }
            }, "memplan-ort-profile", LOADER_STACK_BYTES); // ORT may load in process: not on a small stack
            loader.setDaemon(true);
            loader.start();
            pending = new Pending(file, loading);
        }
    }

    /** The stack of the loading thread: ORT Java's first environment needs more than 1 MB on some JVMs. */
    private static final long LOADER_STACK_BYTES = 64L << 20;

    private record Pending(Path file, CompletableFuture<OrtRuntimeProfile> profile) {
    }

    /** The load {@link #start} began, or null. */
    private Pending pending;

    /** Waits for a load nobody asked the figure of (its file failed to plan), its outcome dropped. */
    private void finishPending() {
        if (pending != null) {
            pending.profile().handle((p, t) -> null).join();
            pending = null;
        }
    }

    private OrtRuntimeProfile load(Path file) {
        return OrtRuntimeProfile.load(file, level.ortName(), unmodelled == OrtModel.UnmodelledKernels.ALLOWANCE,
                "--ort-unmodelled allowance", inputDims);
    }

    /** The profile of {@code file}: the load {@link #start} began, else one now. */
    private OrtRuntimeProfile profile(Path file) {
        if (pending == null || !pending.file().equals(file)) {
            finishPending();
            return load(file);
        }
        Pending started = pending;
        pending = null;
        try {
            return started.profile().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r; // the load's own exception, as when loaded here
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    @Override
    public RuntimeFigure figure(PlannedFile planned, Path file) {
        if (planned.onnx() == null) {
            finishPending();
            throw new MemplanException("--runtime ort predicts ONNX Runtime's arena for ONNX models, and this is a"
                    + " graph file; plan it with --runtime memplan");
        }
        OrtRuntimeProfile profile = profile(file);
        if (!planned.onnx().isComplete()) { // deferred, the outer plan or a body's: so is the figure (as OrtModel)
            return new RuntimeFigure(RuntimeOption.ORT.label(), MEMORY, level.toString(), OptionalLong.empty(), Set.of(),
                    profile.measuredOps());
        }
        OrtArenaPrediction prediction = profile.predict(ServerAccess.access().imported(planned.onnx()),
                planned.onnx().bindings());
        return new RuntimeFigure(RuntimeOption.ORT.label(), MEMORY, level.toString(),
                OptionalLong.of(prediction.activationBytes()), prediction.unmodelledOps(), profile.measuredOps());
    }
}
