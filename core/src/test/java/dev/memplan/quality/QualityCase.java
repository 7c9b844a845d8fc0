// SPDX-License-Identifier: Apache-2.0
package dev.memplan.quality;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.SizeOracle;
import dev.memplan.ViewMap;
import java.util.Optional;

/**
 * One graph whose plan quality is measured: what to plan, how to size it, and the options (other
 * than the strategy) to plan with.
 *
 * @param family  where it comes from: {@code model}, a generator kind, {@code random}
 * @param name    the case within its family, e.g. the model file or the generator's size
 * @param graph   the graph
 * @param views   its view map
 * @param oracle  the owners' sizes
 * @param options alignment, graph inputs and engine; the strategy is set per plan
 */
public record QualityCase(String family, String name, Graph graph, ViewMap views, SizeOracle oracle,
                          PlanOptions options) {

    /** The same case planned with {@code other} options. */
    public QualityCase withOptions(PlanOptions other) {
        return new QualityCase(family, name, graph, views, oracle, other);
    }

    /** The plan with {@code strategy}, or empty when some owner has no size (a deferred plan). */
    public Optional<ActivationPlan> plan(Strategy strategy) {
        // both strategies on one liveness: the in-place decision of the case's own options
        // (on for its default offsets), so their bounds stay comparable
        return MemPlan.plan(graph, views, oracle, options.withStrategy(strategy).withInPlace(options.inPlaceEnabled()))
                .asComplete();
    }
}
