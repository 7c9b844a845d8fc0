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

    @Override
    public RuntimeFigure figure(PlannedFile planned, Path file) {
        if (planned.onnx() == null) {
            throw new MemplanException("--runtime ort predicts ONNX Runtime's arena for ONNX models, and this is a"
                    + " graph file; plan it with --runtime memplan");
        }
        OrtRuntimeProfile profile = OrtRuntimeProfile.load(file, level.ortName(),
                unmodelled == OrtModel.UnmodelledKernels.ALLOWANCE, "--ort-unmodelled allowance", inputDims);
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
