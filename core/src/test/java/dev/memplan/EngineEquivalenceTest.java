// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.RandomGraphs;
import dev.memplan.validate.PlanValidator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The native and Java engines agree value for value on seeded random graphs, for both strategies:
 * order, owners, view roots, in-place links (the buffer of every value), intervals, the size of
 * every owner, offsets per owner, totals, and for slots the slot per value and the capacities;
 * every plan passes the validator, which also derives every owner's bytes from its shape where the
 * sizes come from shapes and bindings. Each seed plans offsets (at effort 0, 1 or 2, by seed) and
 * slots, each with in-place reuse on and off, on a graph that carries in-place hints (even seeds;
 * some that rule (d) refuses) or none (odd seeds), so the {@value #CASES} seeds are {@value #CASES}
 * offsets cases of each.
 */
@EngineIndependent
class EngineEquivalenceTest {
    static final int CASES = 2_000;
    /** Seeds of their own, so these cases differ from RandomPlansTest's. */
    static final long FIRST_SEED = 1_000_000;

    static LongStream seeds() {
        return LongStream.range(FIRST_SEED, FIRST_SEED + (long) CASES * PlanAssertions.scale());
    }

    @BeforeAll
    static void requireNativeUnlessJavaRun() {
        NativeRequirement.requireNativeEngine();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void nativeAndJavaGiveTheSamePlan(long seed) {
        // Half the seeds carry in-place hints (some that rule (d) refuses), half none.
        RandomGraphs.Case generated = RandomGraphs.generate(seed, seed % 2 == 0);
        for (Strategy strategy : Strategy.values()) {
            for (boolean inPlace : new boolean[] {true, false}) {
                compare(seed, generated.withStrategy(strategy), strategy, inPlace);
            }
        }
    }

    private static void compare(long seed, RandomGraphs.Case c, Strategy strategy, boolean inPlace) {
        {
            PlanOptions options = c.options().withEffort((int) (seed % 3)).withInPlace(inPlace);
            Schedule java = MemPlan.compile(c.graph(), c.views(), options.withEngine(EngineMode.JAVA));
            Schedule nat = MemPlan.compile(c.graph(), c.views(), options.withEngine(EngineMode.NATIVE));
            assertEquals("java", java.engine());
            assertEquals("native", nat.engine());
            PlanResult expected = java.plan(c.oracle());
            PlanResult actual = nat.plan(c.oracle());
            PlanAssertions.assertSameResult(expected, actual, c.toString());
            if (actual instanceof PlanResult.Complete complete) {
                assertEquals(strategy, complete.plan().strategy(), c.toString());
                ActivationPlan javaPlan = expected.orElseThrow();
                for (int o = 0; o < java.numOwners(); o++) {
                    int v = java.ownerValue(o);
                    assertEquals(javaPlan.sizeOf(v), complete.plan().sizeOf(v), c + ": size of owner " + v);
                }
                if (c.bindings() != null) { // sizes from shapes: the validator derives each owner's bytes again
                    PlanValidator.validate(complete.plan(), c.bindings());
                    PlanValidator.validate(javaPlan, c.bindings());
                } else {
                    PlanValidator.validate(complete.plan());
                    PlanValidator.validate(javaPlan);
                }
            }
            // The order and intervals must agree even when the sizes defer the plan.
            assertArrayEquals(java.order(), nat.order(), c + ": order");
            assertArrayEquals(java.owners(), nat.owners(), c + ": owners");
            for (int o = 0; o < java.numOwners(); o++) {
                assertEquals(java.def(o), nat.def(o), c + ": def of owner " + java.ownerValue(o));
                assertEquals(java.useEnd(o), nat.useEnd(o), c + ": useEnd of owner " + java.ownerValue(o));
            }
            assertEquals(java.numInPlace(), nat.numInPlace(), c + ": in-place links");
            for (int v = 0; v < c.graph().valueCount(); v++) {
                assertEquals(java.root(v), nat.root(v), c + ": view root of value " + v);
                assertEquals(java.bufferOf(v), nat.bufferOf(v), c + ": buffer of value " + v);
                assertEquals(java.ownerIndexOf(v), nat.ownerIndexOf(v), c + ": owner index of value " + v);
            }
            if (!inPlace) {
                assertEquals(0, java.numInPlace(), c + ": in-place off links nothing");
            }
        }
    }
}
