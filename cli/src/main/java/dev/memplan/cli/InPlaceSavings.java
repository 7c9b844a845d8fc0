// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import java.util.Locale;
import java.util.Map;

/**
 * What in-place reuse saved on one request (docs/design.md §3b): the plan of the same sizes on the
 * schedule compiled without it, for the text reports' {@code in-place} line.
 *
 * @param enabled      whether the plan was made with in-place reuse
 * @param values       how many values took an input's buffer
 * @param peakWithout  the peak of the same request without in-place reuse
 * @param boundWithout the lower bound without in-place reuse
 * @param peak         the plan's peak
 */
record InPlaceSavings(boolean enabled, int values, long peakWithout, long boundWithout, long peak) {

    /** The figures of {@code plan}, made on {@code s}, planning its bindings once more without in-place reuse when it linked any value. */
    static InPlaceSavings of(Schedule s, ActivationPlan plan, Map<String, Long> bindings) {
        if (!s.options().inPlaceEnabled()) {
            return new InPlaceSavings(false, 0, plan.peakBytes(), plan.lowerBoundBytes(), plan.peakBytes());
        }
        long peakWithout = plan.peakBytes();
        if (s.numInPlace() > 0 && s.withoutInPlace().plan(bindings) instanceof PlanResult.Complete c) {
            peakWithout = c.plan().peakBytes(); // same sizes as plan, so complete too
        }
        return new InPlaceSavings(true, s.numInPlace(), peakWithout, plan.lowerBoundWithoutInPlaceBytes(),
                plan.peakBytes());
    }

    /** {@code off}, {@code on, no value could take an input's buffer}, or {@code 27 values in an input's buffer, saved 2,379,776 B (peak 6,308,352 B and bound 6,308,352 B without)}. */
    String line() {
        if (!enabled) {
            return "off";
        }
        if (values == 0) {
            return "on, no value could take an input's buffer";
        }
        return String.format(Locale.ROOT, "%,d value%s in an input's buffer, saved %,d B (peak %,d B and bound %,d B"
                + " without)", values, values == 1 ? "" : "s", peakWithout - peak, peakWithout, boundWithout);
    }
}
