// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A synthetic graph, ready to plan: the graph, the views its executor would alias, and the symbol
 * bindings of a typical request.
 *
 * @param description what was built, e.g. {@code transformer(layers=62, hidden=768, heads=12)}
 * @param graph       the graph
 * @param views       view -> source edges (reshapes, transposes, flattens)
 * @param bindings    symbol name -> value for a typical request; empty for a fully static graph
 */
public record GeneratedGraph(String description, Graph graph, ViewMap views, Map<String, Long> bindings) {

    /**
     * Rejects null fields.
     *
     * @param description what was generated, for reports
     * @param graph the graph
     * @param views its views
     * @param bindings the typical request's symbol bindings
     */
    public GeneratedGraph {
        bindings = Map.copyOf(bindings);
    }

    /**
     * Compiles the graph with {@code options}.
     *
     * @param options the plan options
     * @return the schedule
     */
    public Schedule compile(PlanOptions options) {
        return MemPlan.compile(graph, views, options);
    }

    /**
     * Plans the typical request: compile, then plan at {@link #bindings()}.
     *
     * @param options the plan options
     * @return the plan at the typical bindings
     */
    public PlanResult plan(PlanOptions options) {
        return compile(options).plan(bindings);
    }

    /**
     * The byte size of every owner of {@code schedule} at {@link #bindings()}, by owner index: what
     * {@link Schedule#plan(long[])} takes on the hot path.
     *
     * @param schedule a schedule compiled from this graph
     * @return bytes per owner index
     * @throws IllegalStateException naming the value when a size is unknown under the bindings
     */
    public long[] ownerSizes(Schedule schedule) {
        long[] sizes = new long[schedule.numOwners()];
        for (int o = 0; o < sizes.length; o++) {
            Value owner = graph.value(schedule.ownerValue(o));
            OptionalLong bytes = owner.bytesAt(bindings);
            if (bytes.isEmpty()) {
                throw new IllegalStateException(owner.describe() + " has no size under the bindings " + bindings
                        + "; bind every symbol of its shape " + owner.shape());
            }
            sizes[o] = bytes.getAsLong();
        }
        return sizes;
    }

    /** {@return owners under default options (graph inputs excluded): values produced by a node that are no view} */
    public int ownerCount() {
        int owners = 0;
        for (Value v : graph.values()) {
            if (v.producer() >= 0 && !views.isView(v.id()) && !graph.isInitializer(v.id())) {
                owners++;
            }
        }
        return owners;
    }
}
