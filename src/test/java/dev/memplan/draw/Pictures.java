package dev.memplan.draw;

import dev.memplan.ActivationPlan;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.SizeOracle;
import dev.memplan.Strategy;
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
    static Picture ofSeed(long seed, Strategy... strategies) {
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

    /**
     * Validates {@code plan} with {@link PlanValidator}. Until the validator learns offsets plans
     * (it does on the offsets-api branch), it refuses them by asking for their slots: then the
     * plan gets this file's own independent check instead, so no plan goes unchecked.
     */
    static void validate(ActivationPlan plan) {
        try {
            PlanValidator.validate(plan);
        } catch (IllegalStateException e) {
            if (plan.strategy() != Strategy.OFFSETS || !e.getMessage().contains("offsets plan has no slots")) {
                throw e;
            }
            checkOffsets(plan);
        }
    }

    /** Inside the arena, and no two owners live at one position sharing a byte. */
    private static void checkOffsets(ActivationPlan plan) {
        Schedule s = plan.schedule();
        int n = s.numOwners();
        for (int a = 0; a < n; a++) {
            long offA = plan.offsetOf(s.ownerValue(a));
            long sizeA = plan.sizeOf(s.ownerValue(a));
            if (offA < 0 || offA + sizeA > plan.peakBytes()) {
                throw new AssertionError("owner " + s.ownerValue(a) + " lies outside the arena of " + plan.peakBytes());
            }
            for (int b = a + 1; b < n; b++) {
                long offB = plan.offsetOf(s.ownerValue(b));
                long sizeB = plan.sizeOf(s.ownerValue(b));
                boolean live = s.def(a) <= s.useEnd(b) && s.def(b) <= s.useEnd(a);
                boolean share = sizeA > 0 && sizeB > 0 && offA < offB + sizeB && offB < offA + sizeA;
                if (live && share) {
                    throw new AssertionError("owners " + s.ownerValue(a) + " and " + s.ownerValue(b)
                            + " are live together and share bytes");
                }
            }
        }
    }

    /** Default options with {@code s}. */
    static PlanOptions options(Strategy s) {
        return PlanOptions.defaults().withStrategy(s);
    }
}
