// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Map;
import java.util.OptionalLong;

/**
 * The entry points: compile a graph once, plan many requests on it.
 *
 * <pre>{@code
 * Schedule schedule = MemPlan.compile(graph, views, PlanOptions.defaults());
 * ActivationPlan plan = schedule.plan(Map.of("batch", 8L, "seq", 512L)).orElseThrow();
 * }</pre>
 */
public final class MemPlan {
    private MemPlan() {
    }

    /**
     * Checks the views, orders the nodes and computes owners and intervals.
     *
     * @param graph the graph
     * @param views its views ({@link ViewMap#empty()} for none)
     * @param options engine, strategy, alignment, graph inputs
     * @return the compiled schedule, immutable and thread-safe
     * @throws InvalidGraphException on a cycle or a view that breaks the view rules
     * @throws EngineUnavailableException when {@code options} asks for the native engine and it
     *                                    cannot load
     */
    public static Schedule compile(Graph graph, ViewMap views, PlanOptions options) {
        return Schedule.compile(graph, views, options);
    }

    /**
     * Compiles and plans one request: a convenience for graphs planned once.
     *
     * @param graph the graph
     * @param views its views ({@link ViewMap#empty()} for none)
     * @param oracle the size of each owner
     * @param options engine, strategy, alignment, graph inputs
     * @return the plan, or deferred with the owners of unknown size
     */
    public static PlanResult plan(Graph graph, ViewMap views, SizeOracle oracle, PlanOptions options) {
        return compile(graph, views, options).plan(oracle);
    }

    /**
     * Admission control: the bytes a request needs when each symbol is at its bound, or empty when
     * a symbol is left unbound. Because sizes only grow with their symbols, the plan at the bounds
     * is valid for every binding at or below them.
     *
     * @param graph the graph
     * @param views its views ({@link ViewMap#empty()} for none)
     * @param bounds upper bound of each symbol (symbol name to value)
     * @param options engine, strategy, alignment, graph inputs
     * @return the peak in bytes, or empty (never 0) when a symbol is unbound
     */
    public static OptionalLong peakActivationBytesAtBounds(Graph graph, ViewMap views, Map<String, Long> bounds,
                                                           PlanOptions options) {
        return compile(graph, views, options).peakAtBounds(bounds);
    }

    /**
     * {@return the name of the engine {@code mode} selects on this machine: {@code "native"} or {@code "java"}}
     *
     * @param mode the engine mode
     */
    public static String engineName(EngineMode mode) {
        return EngineSelector.engineFor(mode).name();
    }
}
