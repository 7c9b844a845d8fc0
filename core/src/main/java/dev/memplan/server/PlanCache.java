// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;

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
    private final Map<String, Long> limits;
    private final LongAdder planNanos = new LongAdder();
    private final LongAdder deferred = new LongAdder();

    private PlanCache(CompiledModel model, long maxPlans, Bucketing bucketing) {
        this.model = model;
        this.bucketing = bucketing;
        this.plans = Caffeine.newBuilder().maximumSize(maxPlans).recordStats().build();
        this.limits = model.limits();
    }

    /**
     * A cache holding at most {@code maxPlans} plans of {@code model} (least recently and least
     * frequently used go first).
     *
     * @param model     the compiled model
     * @param maxPlans  the bound, >= 1
     * @param bucketing how bindings are rounded up before planning
     * @return the cache, empty
     * @throws IllegalArgumentException when {@code maxPlans} is below 1, or naming the symbol when
     *                                  {@code bucketing} has a rule for a symbol the model does not
     *                                  have (a misspelling would otherwise never bucket)
     */
    public static PlanCache of(CompiledModel model, long maxPlans, Bucketing bucketing) {
        if (maxPlans < 1) {
            throw new IllegalArgumentException("a plan cache holds at least 1 plan, got maxPlans=" + maxPlans);
        }
        for (String symbol : new TreeSet<>(bucketing.symbols())) {
            if (!model.symbols().contains(symbol)) {
                throw new IllegalArgumentException("the bucketing has a rule for '" + symbol + "', which the model "
                        + model.name() + " does not have; its symbols are " + model.symbols());
            }
        }
        return new PlanCache(Objects.requireNonNull(model, "model"), maxPlans,
                Objects.requireNonNull(bucketing, "bucketing"));
    }

    /**
     * The plan for a request at {@code bindings}: cached, or planned at the bucketed bindings and
     * cached. Deferred plans (a symbol unbound) are returned but not cached. Bucketing never
     * rounds a symbol past the model's limit ({@link CompiledModel#limits()}): MiniLM's 510 tokens
     * with {@code multipleOf("sequence_length", 100)} plan at 512.
     *
     * @param bindings symbol name to value (>= 0)
     * @return the plan, made at {@code bucketing.apply(bindings)}, capped at the model's limits
     * @throws dev.memplan.InvalidSizeException naming the symbol when a value is negative
     * @throws IllegalArgumentException naming the symbol when the model does not have it
     * @throws NullPointerException naming what is null: the map, a symbol name or a value
     * @throws ModelLimitException naming the symbol when a value is above its limit
     * @throws dev.memplan.onnx.BindingConflictException naming the node when the bindings contradict a
     *                                                   relation of the model
     * @throws dev.memplan.InvalidSizeException naming the value when a size overflows
     */
    public OnnxPlan plan(Map<String, Long> bindings) {
        PlanEvent event = new PlanEvent();
        event.begin();
        model.checkBindings(bindings);
        model.checkLimits(bindings); // name the request's own value, not the bucket it would round to
        Map<String, Long> key = bucketing.apply(bindings, limits);
        OnnxPlan plan = plans.getIfPresent(key);
        boolean hit = plan != null;
        if (!hit) {
            long start = System.nanoTime();
            plan = model.planUntraced(key);
            planNanos.add(System.nanoTime() - start);
            if (plan.isComplete()) {
                // two threads missing at once both plan; the plans are identical, either may stay
                plans.put(key, plan);
            } else {
                deferred.increment();
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
     * @throws IllegalArgumentException naming the input and dim when an input is missing or unknown,
     *                                  or its shape does not match its declaration
     * @throws ModelLimitException naming the symbol when a shape is above the model's limit
     * @throws dev.memplan.onnx.BindingConflictException naming the node when the shapes contradict a
     *                                                   relation of the model
     * @throws dev.memplan.InvalidSizeException naming the value when a size overflows
     */
    public OnnxPlan planForInputs(Map<String, long[]> inputShapes) {
        Map<String, Long> bindings = model.bindingsFor(inputShapes);
        model.requireEveryInput(inputShapes);
        return plan(bindings);
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

    /**
     * The cache's figures: hits, misses, evictions, time spent planning.
     *
     * @return a snapshot
     */
    public Stats stats() {
        plans.cleanUp();
        CacheStats c = plans.stats();
        return new Stats(c.hitCount(), c.missCount(), deferred.sum(), c.evictionCount(),
                plans.estimatedSize(), Duration.ofNanos(planNanos.sum()));
    }

    /**
     * A snapshot of a {@link PlanCache}'s figures since it was made, like Caffeine's {@code CacheStats}.
     * Counters are read one after the other while other threads may plan, so they can be a request
     * apart; each is exact on its own.
     *
     * @param hits      requests answered with a plan the cache held
     * @param misses    requests that had to plan
     * @param deferred  misses whose plan was deferred (a symbol unbound), returned but not cached
     * @param evictions plans dropped to keep the cache within its bound
     * @param size      plans held now
     * @param planTime  time spent planning the misses, in total
     */
    public record Stats(long hits, long misses, long deferred, long evictions, long size, Duration planTime) {

        /** {@return hits plus misses} */
        public long requests() {
            return hits + misses;
        }

        /** {@return hits over requests; 1.0 when there were none, as Caffeine reports it} */
        public double hitRate() {
            long r = requests();
            return r == 0 ? 1.0 : (double) hits / r;
        }

        /** {@return the mean time to plan a miss; zero when there were none} */
        public Duration averagePlanTime() {
            return misses == 0 ? Duration.ZERO : planTime.dividedBy(misses);
        }
    }
}
