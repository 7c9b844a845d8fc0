// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

import dev.memplan.PlanOptions;
import dev.memplan.SizeOracle;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import dev.memplan.onnx.DocumentedModels;
import dev.memplan.testing.RandomGraphs;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The case sets the offsets planner's plan-quality targets are measured over. */
public final class QualityCases {
    /** Owner counts each generator is measured at. */
    public static final int[] GENERATOR_OWNERS = {100, 1_000, 10_000};
    /** Seeded random graphs measured: seeds 1..RANDOM_SEEDS (the deferred ones are skipped). */
    public static final int RANDOM_SEEDS = 1_000;

    private QualityCases() {
    }

    /** The shared models at the bindings of docs/onnx.md's model table; empty when ../shared/models is absent. */
    public static List<QualityCase> sharedModels() {
        return DocumentedModels.cases();
    }

    /** Every generator at every size of {@link #GENERATOR_OWNERS}, sized at its typical request. */
    public static List<QualityCase> generators() {
        List<QualityCase> out = new ArrayList<>();
        for (GraphKind kind : GraphKind.values()) {
            for (int owners : GENERATOR_OWNERS) {
                GeneratedGraph g = kind.ofOwners(owners);
                out.add(new QualityCase(kind.name().toLowerCase(Locale.ROOT), g.description(), g.graph(), g.views(),
                        SizeOracle.bounded(g.bindings()), PlanOptions.defaults()));
            }
        }
        return out;
    }

    /** The seeded random graphs of seeds 1..{@link #RANDOM_SEEDS}, each with its own options and sizes. */
    public static List<QualityCase> randomGraphs() {
        List<QualityCase> out = new ArrayList<>();
        for (long seed = 1; seed <= RANDOM_SEEDS; seed++) {
            RandomGraphs.Case c = RandomGraphs.generate(seed);
            out.add(new QualityCase("random", "seed " + seed, c.graph(), c.views(), c.oracle(), c.options()));
        }
        return out;
    }
}
