// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.testing.NaivePlanner;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.RandomGraphs;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random graphs of every family on the engine of {@code memplan.engine}: each plan passes
 * the validator and equals the naive reference planner's result exactly.
 */
class RandomPlansTest {
    static final int CASES = 1_000;

    static LongStream seeds() {
        return LongStream.range(0, (long) CASES * PlanAssertions.scale());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void planValidatesAndEqualsTheNaiveReference(long seed) {
        RandomGraphs.Case c = RandomGraphs.generate(seed);
        PlanResult result = MemPlan.plan(c.graph(), c.views(), c.oracle(), c.options());
        if (result instanceof PlanResult.Complete complete) {
            PlanValidator.validate(complete.plan());
        }
        NaivePlanner.Result naive = NaivePlanner.plan(c.graph(), c.views(), c.oracle(), c.options());
        PlanAssertions.assertMatchesNaive(naive, result, c.toString());
    }
}
