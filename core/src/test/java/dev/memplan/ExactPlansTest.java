// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph.Node;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.RandomGraphs;
import dev.memplan.validate.PlanValidator;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Offsets plans made by the exact search ({@link PlanOptions#withExact}) on {@value #CASES} seeded
 * random graphs: the native and Java engines give the same plan owner by owner, with the same proven
 * bound and status; every plan passes the validator; each is at the lower bound or proven optimal
 * within {@value #NODES} search nodes, and never above the heuristic plan it starts from. The seed
 * plan is the effort-0 one, so about half the seeds start above the bound and need the search. Picks its
 * engines itself, so it runs once.
 */
@EngineIndependent
class ExactPlansTest {
    static final int CASES = 200;
    /** Seeds of their own, apart from RandomPlansTest's and EngineEquivalenceTest's. */
    static final long FIRST_SEED = 3_000_000;
    /** Node limit of every search here: deterministic, and enough for every seed to prove its plan. */
    static final long NODES = 20_000;

    static LongStream seeds() {
        return LongStream.range(FIRST_SEED, FIRST_SEED + (long) CASES * PlanAssertions.scale());
    }

    @BeforeAll
    static void requireNativeUnlessJavaRun() {
        NativeRequirement.requireNativeEngine();
    }

    /** Offsets at effort 0 (the weakest seed, so more searches have a gap to close), exact within {@link #NODES}. */
    static PlanOptions exact(PlanOptions options) {
        return options.withStrategy(Strategy.OFFSETS).withEffort(0)
                .withExact(new Packing.ExactLimits(NODES, Duration.ZERO, -1));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void exactPlansAreOptimalValidAndTheSameOnBothEngines(long seed) {
        RandomGraphs.Case c = RandomGraphs.generate(seed, seed % 2 == 0);
        PlanOptions options = exact(c.options());
        Schedule java = MemPlan.compile(c.graph(), c.views(), options.withEngine(EngineMode.JAVA));
        Schedule nat = MemPlan.compile(c.graph(), c.views(), options.withEngine(EngineMode.NATIVE));
        PlanResult expected = java.plan(c.oracle());
        PlanResult actual = nat.plan(c.oracle());
        PlanAssertions.assertSameResult(expected, actual, c.toString());
        if (!(actual instanceof PlanResult.Complete)) {
            return;
        }
        ActivationPlan j = expected.orElseThrow();
        ActivationPlan n = actual.orElseThrow();
        assertEquals(j.provenBoundBytes(), n.provenBoundBytes(), c + ": proven bound");
        assertEquals(j.exactStatus(), n.exactStatus(), c + ": status");
        for (ActivationPlan p : new ActivationPlan[] {j, n}) {
            if (c.bindings() != null) {
                PlanValidator.validate(p, c.bindings());
            } else {
                PlanValidator.validate(p);
            }
            assertTrue(p.exactStatus().isPresent(), c + ": an exact plan says why its search stopped");
            assertTrue(p.lowerBoundBytes() <= p.provenBoundBytes() && p.provenBoundBytes() <= p.peakBytes(),
                    c + ": bound <= proven bound <= peak");
            assertTrue(p.peakBytes() == p.lowerBoundBytes() || p.provenOptimal(),
                    c + ": at the lower bound or proven optimal, got " + p + " status " + p.exactStatus()
                            + " proven bound " + p.provenBoundBytes());
            assertEquals(Optional.of(Packing.ExactStatus.PROVEN_OPTIMAL), p.exactStatus(), c + ": status");
        }
        ActivationPlan heuristic = MemPlan.compile(c.graph(), c.views(), options.withExact(null)).plan(c.oracle())
                .orElseThrow();
        assertTrue(j.peakBytes() <= heuristic.peakBytes(), c + ": never above the heuristic plan");
        assertEquals(Optional.empty(), heuristic.exactStatus(), "a heuristic plan reports no exact status");
    }

    /** The seeds are not all at the bound already: many need the search to close a gap, and it does. */
    @Test
    void manySeedsNeedTheSearch() {
        int searched = 0;
        for (long seed = FIRST_SEED; seed < FIRST_SEED + CASES; seed++) {
            RandomGraphs.Case c = RandomGraphs.generate(seed, seed % 2 == 0);
            PlanOptions options = exact(c.options());
            PlanResult heuristic = MemPlan.compile(c.graph(), c.views(), options.withExact(null)).plan(c.oracle());
            if (heuristic instanceof PlanResult.Complete h && h.plan().peakBytes() > h.plan().lowerBoundBytes()) {
                searched++;
                ActivationPlan p = MemPlan.compile(c.graph(), c.views(), options).plan(c.oracle()).orElseThrow();
                assertTrue(p.provenOptimal(), c.toString());
            }
        }
        System.out.println("info: exact plans: " + searched + " of " + CASES + " seeds started above the bound");
        assertTrue(searched >= MIN_SEARCHED, "only " + searched + " seeds left the heuristic above the bound");
    }

    /** At least this many seeds start above the bound at effort 0 (98 of the 200 did when written). */
    static final int MIN_SEARCHED = 50;

    /** A node limit too small to prove anything: the best plan found, valid, with the gap reported. */
    @Test
    void aNodeLimitGivesTheBestFoundAndTheProvenBound() {
        boolean sawOpenGap = false;
        for (long seed = FIRST_SEED; seed < FIRST_SEED + CASES && !sawOpenGap; seed++) {
            RandomGraphs.Case c = RandomGraphs.generate(seed);
            PlanOptions options = c.options().withStrategy(Strategy.OFFSETS).withEffort(0)
                    .withExact(new Packing.ExactLimits(1, Duration.ZERO, -1));
            PlanResult r = MemPlan.compile(c.graph(), c.views(), options).plan(c.oracle());
            if (!(r instanceof PlanResult.Complete)) {
                continue;
            }
            ActivationPlan p = r.orElseThrow();
            PlanValidator.validate(p);
            if (!p.provenOptimal()) {
                sawOpenGap = true;
                assertEquals(Optional.of(Packing.ExactStatus.NODE_LIMIT), p.exactStatus(), c.toString());
                assertTrue(p.provenBoundBytes() < p.peakBytes(), c.toString());
            }
        }
        assertTrue(sawOpenGap, "some seed leaves a gap after one node");
    }

    @Test
    void exactIsOffByDefaultAndIgnoredBySlotsPlans() {
        assertEquals(null, PlanOptions.defaults().exact());
        PlanOptions on = PlanOptions.defaults().withExact(Packing.ExactLimits.defaults());
        assertTrue(on.exactEnabled());
        assertEquals(Packing.ExactLimits.defaults(), on.exact());
        assertTrue(!on.withStrategy(Strategy.SLOTS).exactEnabled());
        assertTrue(!on.withExact(null).exactEnabled());
        assertEquals(on, on.withEffort(3).withEffort(PlanOptions.DEFAULT_EFFORT));
        assertThrows(IllegalArgumentException.class, () -> new Packing.ExactLimits(0, Duration.ZERO, -1));
        // a limit under a millisecond stays a limit: the engines count whole milliseconds, 0 for none
        assertEquals(0, Packing.ExactLimits.defaults().timeLimitMillis());
        assertEquals(1, new Packing.ExactLimits(1, Duration.ofNanos(1), -1).timeLimitMillis());
        assertEquals(2, new Packing.ExactLimits(1, Duration.ofMillis(2), -1).timeLimitMillis());
        assertEquals(3, new Packing.ExactLimits(1, Duration.ofNanos(2_000_001), -1).timeLimitMillis());
        // a limit past the engines' longest is that longest, not an overflow (toMillis throws past a long)
        long longest = dev.memplan.engine.ExactPacking.MAX_TIME_LIMIT_MILLIS;
        assertEquals(longest, new Packing.ExactLimits(1, Duration.ofSeconds(Long.MAX_VALUE), -1).timeLimitMillis());
        assertEquals(longest, new Packing.ExactLimits(1, Duration.ofMillis(longest + 1), -1).timeLimitMillis());
        assertEquals(longest - 1, new Packing.ExactLimits(1, Duration.ofMillis(longest - 1), -1).timeLimitMillis());
    }
}
