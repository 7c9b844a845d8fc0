// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.NaivePlanner;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.PlanChecks;
import dev.memplan.testing.RandomGraphs;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random graphs of every family on the engine of {@code memplan.engine}, with both
 * strategies: each plan passes the validator; the slots plan equals the naive reference planner's
 * result exactly, and the offsets plan agrees with it on order, owners, intervals, sizes and
 * totals.
 */
class RandomPlansTest {
    static final int CASES = 1_000;

    static LongStream seeds() {
        return LongStream.range(0, (long) CASES * PlanAssertions.scale());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void planValidatesAndEqualsTheNaiveReference(long seed) {
        RandomGraphs.Case generated = RandomGraphs.generate(seed);
        NaivePlanner.Result naive = NaivePlanner.plan(generated.graph(), generated.views(), generated.oracle(),
                generated.options());
        for (Strategy strategy : Strategy.values()) {
            RandomGraphs.Case c = generated.withStrategy(strategy);
            PlanResult result = MemPlan.plan(c.graph(), c.views(), c.oracle(), c.options());
            if (result instanceof PlanResult.Complete complete) {
                PlanChecks.validate(complete.plan(), c.bindings()); // sizes from shapes are derived again
            }
            PlanAssertions.assertMatchesNaive(naive, result, c.toString());
        }
    }
}
