// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

import java.util.Collection;

/** Peak-over-bound ratios and their geometric mean. */
public final class Ratios {
    private Ratios() {
    }

    /**
     * {@code peak / bound}; 1 when both are 0 (nothing to place, nothing reserved), infinite when
     * only the bound is 0 (bytes reserved for nothing live).
     */
    public static double of(long peak, long bound) {
        if (bound == 0) {
            return peak == 0 ? 1.0 : Double.POSITIVE_INFINITY;
        }
        return (double) peak / bound;
    }

    /** The geometric mean; 1 for no ratios. */
    public static double geomean(Collection<Double> ratios) {
        if (ratios.isEmpty()) {
            return 1.0;
        }
        double logSum = 0;
        for (double r : ratios) {
            logSum += Math.log(r);
        }
        return Math.exp(logSum / ratios.size());
    }

    /** The largest ratio; 1 for no ratios. */
    public static double max(Collection<Double> ratios) {
        return ratios.stream().mapToDouble(Double::doubleValue).max().orElse(1.0);
    }
}
