// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.onnx.OnnxPlan;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One request's plan from an {@link OrtModel}: memplan's own plan, and the bytes ONNX Runtime's CPU
 * arena is predicted to hold for it, which is what a {@link MemoryBudget} leases.
 *
 * @param plan           memplan's plan of the request (offsets, peak, admission figure)
 * @param predictedBytes ORT's predicted arena bytes for the request; empty while the plan is deferred
 * @param unmodelledOps  op types whose ORT kernel workspace has no known rule, so an allowance stands
 *                       in for it in the prediction; empty when every part is derived
 */
public record OrtPlan(OnnxPlan plan, OptionalLong predictedBytes, Set<String> unmodelledOps) {

    /**
     * Checks the parts.
     *
     * @param plan           memplan's plan
     * @param predictedBytes the prediction, empty exactly when the plan is deferred
     * @param unmodelledOps  op types the prediction has no rule for
     */
    public OrtPlan {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(predictedBytes, "predictedBytes");
        unmodelledOps = Set.copyOf(unmodelledOps);
        if (predictedBytes.isPresent() != plan.isComplete()) {
            throw new IllegalArgumentException("a prediction is present exactly when the plan is complete");
        }
    }
}
