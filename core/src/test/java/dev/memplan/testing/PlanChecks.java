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

    /**
     * {@link #validate(ActivationPlan)}, and where the sizes came from the shapes at
     * {@code bindings} (not null), every owner's bytes derived again by the validator.
     *
     * @param plan     the plan
     * @param bindings the bindings the plan was sized at, or null for sizes from elsewhere
     * @return {@code plan}
     * @throws dev.memplan.validate.PlanValidationException when the plan is wrong
     */
    public static ActivationPlan validate(ActivationPlan plan, java.util.Map<String, Long> bindings) {
        if (bindings == null) {
            PlanValidator.validate(plan);
        } else {
            PlanValidator.validate(plan, bindings);
        }
        return plan;
    }
}
