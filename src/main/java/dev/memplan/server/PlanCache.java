// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.memplan.onnx.OnnxPlan;
import java.util.Map;

/**
 * A bounded, thread-safe cache of the plans of one {@link CompiledModel}, keyed by the bindings a
 * request is planned at (after {@link Bucketing}). Backed by Caffeine (an optional dependency of
 * memplan: add {@code com.github.ben-manes.caffeine:caffeine} to use this class).
 *
 * <pre>{@code
 * PlanCache cache = PlanCache.of(model, 1_000, Bucketing.none().multipleOf("sequence_length", 64));
 * OnnxPlan plan = cache.planForInputs(Map.of("input_ids", new long[] {4, 500}, ...)); // planned at 512
 * }</pre>
 *
 * <p>A bucketed plan is made at bindings at or above the request's, so it reserves at least what
 * the request needs and its placements are valid for the request (sizes only grow with their
 * symbols). {@link OnnxPlan#bindings()} says which bindings the returned plan was made at.
 */
public final class PlanCache {
    private final CompiledModel model;
    private final Bucketing bucketing;
    private final Cache<Map<String, Long>, OnnxPlan> plans;

    private PlanCache(CompiledModel model, long maxPlans, Bucketing bucketing) {
        this.model = model;
        this.bucketing = bucketing;
        this.plans = Caffeine.newBuilder().maximumSize(maxPlans).recordStats().build();
    }

    /**
     * A cache holding at most {@code maxPlans} plans of {@code model} (least recently and least
     * frequently used go first).
     *
     * @param model     the compiled model
     * @param maxPlans  the bound, >= 1
     * @param bucketing how bindings are rounded up before planning
     * @return the cache, empty
     * @throws IllegalArgumentException when {@code maxPlans} is below 1
     */
    public static PlanCache of(CompiledModel model, long maxPlans, Bucketing bucketing) {
        if (maxPlans < 1) {
            throw new IllegalArgumentException("a plan cache holds at least 1 plan, got maxPlans=" + maxPlans);
        }
        return new PlanCache(java.util.Objects.requireNonNull(model, "model"), maxPlans,
                java.util.Objects.requireNonNull(bucketing, "bucketing"));
    }

    /**
     * The plan for a request at {@code bindings}: cached, or planned at the bucketed bindings and
     * cached. Deferred plans (a symbol unbound) are returned but not cached.
     *
     * @param bindings symbol name to value (>= 0)
     * @return the plan, made at {@code bucketing.apply(bindings)}
     * @throws IllegalArgumentException naming the symbol when a value is negative
     * @throws dev.memplan.InvalidSizeException naming the value when a size overflows
     */
    public OnnxPlan plan(Map<String, Long> bindings) {
        PlanEvent event = new PlanEvent();
        event.begin();
        Map<String, Long> key = bucketing.apply(bindings);
        OnnxPlan plan = plans.getIfPresent(key);
        boolean hit = plan != null;
        if (!hit) {
            plan = model.planUntraced(key);
            if (plan.isComplete()) {
                // two threads missing at once both plan; the plans are identical, either may stay
                plans.put(key, plan);
            }
        }
        PlanEvents.commit(event, model, plan, true, hit);
        return plan;
    }

    /**
     * The plan for a request with these input shapes: {@link CompiledModel#bindingsFor} then
     * {@link #plan(Map)}.
     *
     * @param inputShapes ONNX input name to the request's extents
     * @return the plan, made at the bucketed bindings
     * @throws IllegalArgumentException naming the input and dim when the shapes do not fit the model
     */
    public OnnxPlan planForInputs(Map<String, long[]> inputShapes) {
        return plan(model.bindingsFor(inputShapes));
    }

    /**
     * The model this cache plans.
     *
     * @return the compiled model
     */
    public CompiledModel model() {
        return model;
    }

    /**
     * The bucketing policy.
     *
     * @return the policy
     */
    public Bucketing bucketing() {
        return bucketing;
    }

    /**
     * Plans held now (approximate while other threads write).
     *
     * @return the number of cached plans
     */
    public long size() {
        plans.cleanUp();
        return plans.estimatedSize();
    }

    /**
     * Requests answered from the cache since it was made.
     *
     * @return the hit count
     */
    public long hits() {
        return plans.stats().hitCount();
    }

    /**
     * Requests that had to plan since the cache was made.
     *
     * @return the miss count
     */
    public long misses() {
        return plans.stats().missCount();
    }
}
