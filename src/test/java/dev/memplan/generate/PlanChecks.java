package dev.memplan.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanValidator;
import dev.memplan.Strategy;
import dev.memplan.Value;

/** Every plan a generator test makes goes through the independent validator, plus the generator's own facts. */
final class PlanChecks {
    private PlanChecks() {
    }

    static void assertValid(ActivationPlan plan) {
        PlanValidator.validate(plan);
        Graph g = plan.schedule().graph();
        int placed = 0;
        boolean slots = plan.strategy() == Strategy.SLOTS;
        for (Value v : g.values()) {
            if (slots ? plan.slotOf(v.id()) >= 0 : plan.offsetOf(v.id()) >= 0) {
                placed++;
            }
        }
        assertEquals(plan.schedule().numOwners(), placed, "exactly the owners have slots (offsets)");
        assertTrue(plan.lowerBoundBytes() <= plan.peakBytes(), "lower bound <= peak");
    }
}
