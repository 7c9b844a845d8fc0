// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import dev.memplan.ActivationPlan;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.SizeOracle;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.testing.RandomGraphs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** Pictures of seeded random graphs for the draw tests; every plan made here is validated. */
final class Pictures {
    private Pictures() {
    }

    /**
     * The picture of the random case of {@code seed}, planned with {@code strategies}; owners the
     * case leaves without a size get 64 bytes, so every case can be drawn.
     */
    static PictureData ofSeed(long seed, Strategy... strategies) {
        RandomGraphs.Case c = RandomGraphs.generate(seed);
        SizeOracle sized = v -> {
            OptionalLong b = c.oracle().bytes(v);
            return b.isPresent() ? b : OptionalLong.of(64);
        };
        List<ActivationPlan> plans = new ArrayList<>();
        for (Strategy s : strategies) {
            Schedule schedule = MemPlan.compile(c.graph(), c.views(), c.options().withStrategy(s));
            ActivationPlan plan = schedule.plan(sized).orElseThrow();
            validate(plan);
            plans.add(plan);
        }
        return PictureBuilder.of("seed " + seed, Map.of(), plans);
    }

    /** Validates {@code plan} with {@link PlanValidator} (slots and offsets plans alike). */
    static void validate(ActivationPlan plan) {
        PlanValidator.validate(plan);
    }

    /** Default options with {@code s}. */
    static PlanOptions options(Strategy s) {
        return PlanOptions.defaults().withStrategy(s);
    }
}
