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
 * @param measuredOps    op types without a rule whose workspace was measured in the runtime itself
 */
record RuntimeFigure(String runtime, String memory, String level, OptionalLong predictedBytes,
                     Set<String> unmodelledOps, Set<String> measuredOps) {

    /** {@return the unmodelled op types, escaped for a terminal, in a stable order} */
    List<String> escapedUnmodelledOps() {
        return escaped(unmodelledOps);
    }

    /** {@return the measured op types, escaped for a terminal, in a stable order} */
    List<String> escapedMeasuredOps() {
        return escaped(measuredOps);
    }

    private static List<String> escaped(Set<String> names) {
        List<String> ops = new ArrayList<>();
        names.stream().sorted().forEach(op -> ops.add(TerminalText.escape(op)));
        return ops;
    }
}
