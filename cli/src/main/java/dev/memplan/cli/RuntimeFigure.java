// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.io.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What a runtime adds to an ONNX model's report: its own figure for the request, beside memplan's
 * plan, never instead of it.
 *
 * @param runtime        the runtime's name, as {@code --runtime} says it (the report's label)
 * @param memory         what the figure is of, in words ("ONNX Runtime's CPU arena")
 * @param level          the runtime's setting the figure is for (ONNX Runtime's optimization level)
 * @param predictedBytes the predicted bytes; empty while the plan is deferred
 * @param unmodelledOps  op types whose workspace has no known rule (an allowance stands in)
 */
record RuntimeFigure(String runtime, String memory, String level, OptionalLong predictedBytes,
                     Set<String> unmodelledOps) {

    /** {@return the unmodelled op types, escaped for a terminal, in a stable order} */
    List<String> escapedUnmodelledOps() {
        List<String> ops = new ArrayList<>();
        unmodelledOps.stream().sorted().forEach(op -> ops.add(TerminalText.escape(op)));
        return ops;
    }
}
