// SPDX-License-Identifier: Apache-2.0
package dev.memplan.inplace;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Graph.Value;
import dev.memplan.testing.ArenaInterpreter;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.RandomGraphs;
import dev.memplan.validate.PlanValidator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No in-place link lets two live values overlap: {@value #CASES} random graphs with in-place hints
 * are planned with in-place reuse on (offsets, and slots every fourth seed) at their shapes' sizes,
 * validated, and executed on one byte arena by {@link ArenaInterpreter}, whose every read checks
 * the stamp it expects.
 */
class InPlaceInterpreterTest {
    static final int CASES = 10_000;
    static final long FIRST_SEED = 7_000_000;
    private static final AtomicLong LINKS = new AtomicLong();

    static LongStream seeds() {
        return LongStream.range(FIRST_SEED, FIRST_SEED + (long) CASES * PlanAssertions.scale());
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyReadFindsItsStamp(long seed) {
        RandomGraphs.Case c = RandomGraphs.generate(seed, true);
        Map<String, Long> bindings = Map.of("batch", 1 + seed % 4, "seq", seed % 9);
        long[] bytes = new long[c.graph().valueCount()];
        for (Value v : c.graph().values()) {
            bytes[v.id()] = v.bytesAt(bindings).orElseThrow();
        }
        Strategy strategy = seed % 4 == 0 ? Strategy.SLOTS : Strategy.OFFSETS;
        PlanOptions options = c.options().withStrategy(strategy).withInPlace(true).withEffort((int) (seed % 3));
        Schedule s = MemPlan.compile(c.graph(), c.views(), options);
        ActivationPlan plan = s.plan(bindings).orElseThrow();
        PlanValidator.validate(plan, bindings);
        assertTrue(plan.lowerBoundWithoutInPlaceBytes() >= plan.lowerBoundBytes(), c.toString());
        LINKS.addAndGet(s.numInPlace());
        assertNull(new ArenaInterpreter(plan, bytes).run(), c.toString());
    }

    @AfterAll
    static void inPlaceWasExercised() {
        // the hints must really link values, or this test would prove nothing
        assertTrue(LINKS.get() > CASES, "only " + LINKS.get() + " in-place links in " + CASES + " graphs");
    }
}
