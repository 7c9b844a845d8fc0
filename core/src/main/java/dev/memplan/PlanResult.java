// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of planning one request: {@link Complete} with a plan, or {@link Deferred} when
 * some owner's size is not known yet (a symbolic shape with no binding). Nothing is guessed.
 */
public sealed interface PlanResult permits PlanResult.Complete, PlanResult.Deferred {

    /** Every owner had a size: the plan. */
    record Complete(ActivationPlan plan) implements PlanResult {
    }

    /**
     * Some owners have no known size.
     *
     * @param unknownSizes their value ids, ascending
     */
    record Deferred(List<Integer> unknownSizes) implements PlanResult {
        /**
         * Copies the list.
         *
         * @param unknownSizes value ids of the owners of unknown size, ascending
         */
        public Deferred {
            unknownSizes = List.copyOf(unknownSizes);
        }
    }

    /** {@return true for a complete plan} */
    default boolean isComplete() {
        return this instanceof Complete;
    }

    /** {@return the plan when complete} */
    default Optional<ActivationPlan> asComplete() {
        return this instanceof Complete c ? Optional.of(c.plan()) : Optional.empty();
    }

    /**
     * The plan.
     *
     * @return the plan
     * @throws IllegalStateException naming the owners without a size when deferred
     */
    default ActivationPlan orElseThrow() {
        if (this instanceof Complete c) {
            return c.plan();
        }
        throw new IllegalStateException("the plan is deferred: no size is known for value ids "
                + ((Deferred) this).unknownSizes() + "; bind their symbols or supply their sizes");
    }
}
