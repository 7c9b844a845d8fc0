// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanValidator;
import dev.memplan.Value;

/** Every plan a generator test makes goes through the independent validator, plus the generator's own facts. */
final class PlanChecks {
    private PlanChecks() {
    }

    static void assertValid(ActivationPlan plan) {
        PlanValidator.validate(plan);
        Graph g = plan.schedule().graph();
        int withSlot = 0;
        for (Value v : g.values()) {
            if (plan.slotOf(v.id()) >= 0) {
                withSlot++;
            }
        }
        assertEquals(plan.schedule().numOwners(), withSlot, "exactly the owners have slots");
        assertTrue(plan.lowerBoundBytes() <= plan.peakBytes(), "lower bound <= peak");
    }
}
