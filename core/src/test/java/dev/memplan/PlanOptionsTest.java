// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions.InPlace;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.EngineIndependent;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Each wither of {@link PlanOptions} changes its own field, keeps every other, and checks its value. */
@EngineIndependent
class PlanOptionsTest {

    private static PlanOptions random(Random r) {
        return new PlanOptions(r.nextBoolean(), 1 + r.nextInt(64), EngineMode.values()[r.nextInt(EngineMode.values().length)],
                Strategy.values()[r.nextInt(Strategy.values().length)], r.nextInt(PlanOptions.MAX_EFFORT + 1),
                InPlace.values()[r.nextInt(InPlace.values().length)]);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void eachWitherChangesOneFieldOnly(long seed) {
        Random r = new Random(seed);
        PlanOptions o = random(r);
        PlanOptions other = random(r);
        assertEquals(new PlanOptions(other.includeGraphInputs(), o.alignment(), o.engine(), o.strategy(), o.effort(),
                o.inPlace()), o.withIncludeGraphInputs(other.includeGraphInputs()));
        assertEquals(new PlanOptions(o.includeGraphInputs(), other.alignment(), o.engine(), o.strategy(), o.effort(),
                o.inPlace()), o.withAlignment(other.alignment()));
        assertEquals(new PlanOptions(o.includeGraphInputs(), o.alignment(), other.engine(), o.strategy(), o.effort(),
                o.inPlace()), o.withEngine(other.engine()));
        assertEquals(new PlanOptions(o.includeGraphInputs(), o.alignment(), o.engine(), other.strategy(), o.effort(),
                o.inPlace()), o.withStrategy(other.strategy()));
        assertEquals(new PlanOptions(o.includeGraphInputs(), o.alignment(), o.engine(), o.strategy(), other.effort(),
                o.inPlace()), o.withEffort(other.effort()));
        assertEquals(new PlanOptions(o.includeGraphInputs(), o.alignment(), o.engine(), o.strategy(), o.effort(),
                other.inPlace()), o.withInPlace(other.inPlace()));
        assertEquals(InPlace.ON, o.withInPlace(true).inPlace());
        assertEquals(InPlace.OFF, o.withInPlace(false).inPlace());
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void withersCheckTheirValue(long seed) {
        PlanOptions o = random(new Random(seed));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withAlignment(0)).getMessage()
                .contains("alignment must be >= 1, got 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withEffort(-1)).getMessage()
                .contains("effort must be in [0, " + PlanOptions.MAX_EFFORT + "], got -1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withEngine(null)).getMessage()
                .contains("engine must not be null"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withStrategy(null)).getMessage()
                .contains("strategy must not be null"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> o.withInPlace((InPlace) null)).getMessage()
                .contains("inPlace must not be null"));
    }
}
