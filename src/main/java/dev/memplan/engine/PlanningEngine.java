package dev.memplan.engine;

/**
 * A planning engine: computes the schedule of a flat graph (order, owners, intervals) and then
 * allocates slots for one request's sizes. Two implementations, {@link JavaEngine} and
 * {@link NativeEngine}, give identical results value for value; {@link Engines} picks one.
 */
public interface PlanningEngine {

    /** {@code "java"} or {@code "native"}: what the plan JSON reports as {@code "engine"}. */
    String name();

    /**
     * Orders the nodes and computes owners and their intervals.
     *
     * @param graph              a validated flat graph
     * @param valueRoot          {@code [numValues]}: the view root of each value, itself when it is
     *                           not a view; acyclic, checked by the caller
     * @param includeGraphInputs whether graph inputs own slots
     * @throws GraphCycleException when the nodes cannot be ordered
     */
    CompiledGraph compile(FlatGraph graph, int[] valueRoot, boolean includeGraphInputs);
}
