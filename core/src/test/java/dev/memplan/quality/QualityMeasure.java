// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

import dev.memplan.ActivationPlan;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.PackingChecker;
import java.nio.LongBuffer;
import java.util.Optional;

/**
 * Plans a case with both strategies and checks both plans before their figures are believed:
 * {@link PlanValidator} on each, and for the offsets plan also the raw-interval
 * {@link PackingChecker} and alignment.
 */
public final class QualityMeasure {
    private QualityMeasure() {
    }

    /**
     * Both strategies' figures for {@code c}, or empty when its plan is deferred (some size unknown).
     *
     * @throws AssertionError when a plan fails a check or the strategies disagree on what is plannable
     */
    public static Optional<QualityRow> measure(QualityCase c) {
        Optional<ActivationPlan> slots = c.plan(Strategy.SLOTS);
        Optional<ActivationPlan> offsets = c.plan(Strategy.OFFSETS);
        if (slots.isPresent() != offsets.isPresent()) {
            throw new AssertionError(c.family() + " " + c.name() + ": one strategy deferred, the other did not");
        }
        if (slots.isEmpty()) {
            return Optional.empty();
        }
        ActivationPlan s = slots.get();
        ActivationPlan o = offsets.get();
        PlanValidator.validate(s);
        PlanValidator.validate(o);
        checkOffsets(o, c.family() + " " + c.name());
        if (s.lowerBoundBytes() != o.lowerBoundBytes()) {
            throw new AssertionError(c.family() + " " + c.name() + ": the strategies report different bounds, "
                    + s.lowerBoundBytes() + " (slots) and " + o.lowerBoundBytes() + " (offsets)");
        }
        return Optional.of(new QualityRow(c.family(), c.name(), o.schedule().numOwners(), o.lowerBoundBytes(),
                s.peakBytes(), o.peakBytes()));
    }

    /** Offsets inside the arena, aligned, and no two live owners sharing a byte. */
    static void checkOffsets(ActivationPlan plan, String what) {
        if (plan.strategy() != Strategy.OFFSETS) {
            throw new AssertionError(what + ": asked for an offsets plan, got " + plan.strategy());
        }
        Schedule s = (Schedule) plan.schedule();
        int n = s.numOwners();
        int[] lower = new int[n];
        int[] upper = new int[n];
        long[] sizes = new long[n];
        long[] offsets = new long[n];
        LongBuffer byOwner = plan.offsetsByOwner();
        long alignment = s.options().alignment();
        for (int o = 0; o < n; o++) {
            lower[o] = s.def(o);
            upper[o] = s.useEnd(o) + 1;
            sizes[o] = plan.sizeOf(s.ownerValue(o));
            offsets[o] = byOwner.get(o);
            if (offsets[o] % alignment != 0) {
                throw new AssertionError(what + ": owner " + o + " at offset " + offsets[o]
                        + " breaks alignment " + alignment);
            }
        }
        try {
            PackingChecker.check(lower, upper, sizes, offsets, plan.peakBytes());
        } catch (AssertionError e) {
            throw new AssertionError(what + ": " + e.getMessage(), e);
        }
    }
}
