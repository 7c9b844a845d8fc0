// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.ActivationPlan;
import dev.memplan.validate.PlanValidator;

/**
 * Every plan a test makes goes through the independent validator; {@link #validate} returns the
 * plan, so a test can check and use it in one expression.
 */
public final class PlanChecks {
    private PlanChecks() {
    }

    /**
     * Validates {@code plan} with {@link PlanValidator} and returns it.
     *
     * @throws dev.memplan.validate.PlanValidationException when the plan is wrong
     */
    public static ActivationPlan validate(ActivationPlan plan) {
        PlanValidator.validate(plan);
        return plan;
    }
}
