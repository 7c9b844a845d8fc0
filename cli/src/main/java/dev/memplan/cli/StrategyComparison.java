// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.MemPlan;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import java.util.Locale;
import java.util.Map;

/**
 * Both strategies' figures for one request, side by side: the text formats print them so a reader
 * sees what the other strategy would reserve.
 *
 * @param offsetsPeak bytes an offsets plan reserves
 * @param slotsPeak   bytes a slots plan reserves
 * @param bound       the lower bound: the most bytes live at one position
 */
record StrategyComparison(long offsetsPeak, long slotsPeak, long bound) {

    /**
     * The figures of {@code plan} and of the other strategy's plan of the same request, made on a
     * schedule compiled again with the other strategy (same graph, views, options otherwise).
     */
    static StrategyComparison of(ActivationPlan plan, Map<String, Long> bindings) {
        ActivationPlan.Layout s = plan.schedule();
        Strategy other = plan.strategy() == Strategy.OFFSETS ? Strategy.SLOTS : Strategy.OFFSETS;
        ActivationPlan otherPlan = MemPlan.compile(s.graph(), s.views(), s.options().withStrategy(other))
                .plan(bindings).orElseThrow(); // same sizes as plan, so complete too
        ActivationPlan offsets = other == Strategy.OFFSETS ? otherPlan : plan;
        ActivationPlan slots = other == Strategy.SLOTS ? otherPlan : plan;
        return new StrategyComparison(offsets.peakBytes(), slots.peakBytes(), plan.lowerBoundBytes());
    }

    /** {@code offsets peak 1,024 B, slots peak 1,536 B, bound 1,024 B}. */
    String line() {
        return String.format(Locale.ROOT, "offsets peak %,d B, slots peak %,d B, bound %,d B", offsetsPeak, slotsPeak,
                bound);
    }
}
