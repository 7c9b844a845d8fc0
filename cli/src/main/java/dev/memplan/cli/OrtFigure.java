// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.TerminalText;
import dev.memplan.ort.OrtModel;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What {@code plan --runtime ort} adds to an ONNX model's report: ONNX Runtime's predicted arena
 * bytes for the request, beside memplan's own plan, never instead of it.
 *
 * @param level          the optimization level predicted for
 * @param predictedBytes the predicted arena bytes; empty while the plan is deferred
 * @param unmodelledOps  op types whose ORT kernel workspace has no known rule (an allowance stands in)
 */
record OrtFigure(OrtModel.Level level, OptionalLong predictedBytes, Set<String> unmodelledOps) {

    /** {@return the unmodelled op types, escaped for a terminal, in a stable order} */
    List<String> escapedUnmodelledOps() {
        List<String> ops = new ArrayList<>();
        unmodelledOps.stream().sorted().forEach(op -> ops.add(TerminalText.escape(op)));
        return ops;
    }
}
