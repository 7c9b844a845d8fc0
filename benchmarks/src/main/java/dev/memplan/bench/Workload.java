// SPDX-License-Identifier: Apache-2.0
package dev.memplan.bench;

import dev.memplan.ActivationPlan;
import dev.memplan.EngineMode;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.SizeOracle;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.GraphKind;
import java.util.OptionalLong;

/**
 * One benchmark input, built once per fork: a generated graph, its sizes at the generator's
 * bindings (by owner index for the hot path, by value id for oracles), and a schedule compiled by
 * the Java engine to number the owners.
 */
final class Workload {
    final GeneratedGraph generated;
    final Graph graph;
    final ViewMap views;
    /** Owner sizes by owner index, in the order every engine numbers owners. */
    final long[] ownerSizes;
    /** Sizes by value id (0 for values that own nothing). */
    final long[] sizeByValue;

    Workload(String kind, int owners) {
        generated = GraphKind.parse(kind).ofOwners(owners);
        graph = generated.graph();
        views = generated.views();
        Schedule reference = MemPlan.compile(graph, views, options("java"));
        ownerSizes = generated.ownerSizes(reference);
        sizeByValue = new long[graph.valueCount()];
        for (int o = 0; o < ownerSizes.length; o++) {
            sizeByValue[reference.ownerValue(o)] = ownerSizes[o];
        }
    }

    /** Sizes from {@link #sizeByValue}: an oracle that costs a lookup, so endToEnd measures planning. */
    SizeOracle oracle() {
        long[] sizes = sizeByValue;
        return owner -> OptionalLong.of(sizes[owner.id()]);
    }

    /**
     * Default options on {@code engine} ("native" or "java") with the slots strategy: the seed's
     * planner, which the naive baseline and the slots targets compare against.
     */
    static PlanOptions options(String engine) {
        return options(engine, "slots");
    }

    /** Default options on {@code engine} ("native" or "java") with {@code strategy} ("slots" or "offsets"). */
    static PlanOptions options(String engine, String strategy) {
        return PlanOptions.defaults().withEngine(EngineMode.parse(engine)).withStrategy(Strategy.parse(strategy));
    }

    /** Fails the fork when the engine asked for is not the one that runs (no silent fallback). */
    static void requireEngine(Schedule schedule, String engine) {
        if (!schedule.engine().equals(engine)) {
            throw new IllegalStateException("asked for the " + engine + " engine but got " + schedule.engine());
        }
    }

    /** Fails the fork when a plan was made with another strategy than the one asked for. */
    static void requireStrategy(ActivationPlan plan, String strategy) {
        if (plan.strategy() != Strategy.parse(strategy)) {
            throw new IllegalStateException("asked for the " + strategy + " strategy but got " + plan.strategy());
        }
    }
}
