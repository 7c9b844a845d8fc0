// SPDX-License-Identifier: Apache-2.0
package dev.memplan.json;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanValidator;

/** Every plan these tests make goes through the independent validator; this returns it for chaining. */
public final class PlanChecks {
    private PlanChecks() {
    }

    /**
     * Validates {@code plan} with {@link PlanValidator} and returns it.
     *
     * @throws dev.memplan.PlanValidationException when the plan is wrong
     */
    public static ActivationPlan validate(ActivationPlan plan) {
        PlanValidator.validate(plan);
        return plan;
    }
}
