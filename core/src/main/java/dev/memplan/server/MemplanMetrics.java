// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a {@link MemoryBudget} or a {@link PlanCache} (Micrometer is an optional
 * dependency of memplan: add {@code io.micrometer:micrometer-core} to use this class). Meters read
 * the live figures each time the registry polls; nothing is recorded on the request path.
 *
 * <pre>{@code
 * MemplanMetrics.of(budget).bindTo(registry);           // memplan.budget.* tagged budget=<name>
 * MemplanMetrics.of("minilm", cache).bindTo(registry);  // memplan.plan.cache.* tagged cache=minilm
 * }</pre>
 *
 * <p>Budget meters: gauges {@code memplan.budget.capacity}, {@code .reserve}, {@code .in.use},
 * {@code .peak} (bytes) and {@code .waiting}; counters {@code memplan.budget.admitted},
 * {@code .waited}, {@code .timed.out}, {@code .interrupted}, {@code .rejected}, {@code .refused},
 * {@code .leaked} and {@code memplan.budget.wait} (seconds queued, in total). Cache meters: counter
 * {@code memplan.plan.cache.requests} tagged {@code result=hit|miss}, counters
 * {@code .evictions}, {@code .deferred} and {@code .plan.time} (seconds), gauge {@code .size}.
 */
public final class MemplanMetrics implements MeterBinder {
    private final MemoryBudget budget;
    private final PlanCache cache;
    private final String cacheName;

    private MemplanMetrics(MemoryBudget budget, PlanCache cache, String cacheName) {
        this.budget = budget;
        this.cache = cache;
        this.cacheName = cacheName;
    }

    /**
     * Meters for a budget, tagged with its name.
     *
     * @param budget the budget
     * @return the binder
     */
    public static MemplanMetrics of(MemoryBudget budget) {
        return new MemplanMetrics(Objects.requireNonNull(budget, "budget"), null, null);
    }

    /**
     * Meters for a plan cache, tagged {@code cache=name}.
     *
     * @param name  the tag value, e.g. the model's name
     * @param cache the cache
     * @return the binder
     */
    public static MemplanMetrics of(String name, PlanCache cache) {
        return new MemplanMetrics(null, Objects.requireNonNull(cache, "cache"), Objects.requireNonNull(name, "name"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (budget != null) {
            bindBudget(registry);
        } else {
            bindCache(registry);
        }
    }

    private void bindBudget(MeterRegistry registry) {
        Tags tags = Tags.of("budget", budget.name());
        budgetGauge(registry, tags, "capacity", "bytes", "Bytes the budget holds, reserve included", s -> s.capacityBytes());
        budgetGauge(registry, tags, "reserve", "bytes", "Bytes kept back for the runtime", s -> s.reserveBytes());
        budgetGauge(registry, tags, "in.use", "bytes", "Bytes held by open leases", s -> s.inUseBytes());
        budgetGauge(registry, tags, "peak", "bytes", "Most bytes held by leases at once", s -> s.peakInUseBytes());
        budgetGauge(registry, tags, "waiting", null, "Requests queued now", s -> s.waiting());
        budgetCounter(registry, tags, "admitted", "Leases granted", s -> s.admitted());
        budgetCounter(registry, tags, "waited", "Leases granted after queueing", s -> s.waited());
        budgetCounter(registry, tags, "timed.out", "Requests whose wait timed out", s -> s.timedOut());
        budgetCounter(registry, tags, "interrupted", "Requests interrupted while queued", s -> s.interrupted());
        budgetCounter(registry, tags, "rejected", "Requests larger than the budget", s -> s.rejected());
        budgetCounter(registry, tags, "refused", "tryAcquire calls that found too little free", s -> s.refused());
        budgetCounter(registry, tags, "leaked", "Leases collected without being closed", s -> s.leaked());
        FunctionCounter.builder("memplan.budget.wait", budget, b -> b.stats().totalWait().toNanos() / 1e9)
                .tags(tags).baseUnit("seconds").description("Time requests spent queued, in total").register(registry);
    }

    private void budgetGauge(MeterRegistry registry, Tags tags, String name, String unit, String description,
                             ToDoubleFunction<MemoryBudget.Stats> f) {
        Gauge.builder("memplan.budget." + name, budget, b -> f.applyAsDouble(b.stats())).tags(tags).baseUnit(unit)
                .description(description).register(registry);
    }

    private void budgetCounter(MeterRegistry registry, Tags tags, String name, String description,
                               ToDoubleFunction<MemoryBudget.Stats> f) {
        FunctionCounter.builder("memplan.budget." + name, budget, b -> f.applyAsDouble(b.stats())).tags(tags)
                .description(description).register(registry);
    }

    private void bindCache(MeterRegistry registry) {
        Tags tags = Tags.of("cache", cacheName);
        FunctionCounter.builder("memplan.plan.cache.requests", cache, c -> c.stats().hits()).tags(tags.and("result", "hit"))
                .description("Requests answered with a cached plan").register(registry);
        FunctionCounter.builder("memplan.plan.cache.requests", cache, c -> c.stats().misses())
                .tags(tags.and("result", "miss")).description("Requests that had to plan").register(registry);
        FunctionCounter.builder("memplan.plan.cache.evictions", cache, c -> c.stats().evictions()).tags(tags)
                .description("Plans dropped to stay within the bound").register(registry);
        FunctionCounter.builder("memplan.plan.cache.deferred", cache, c -> c.stats().deferred()).tags(tags)
                .description("Misses whose plan was deferred (not cached)").register(registry);
        FunctionCounter.builder("memplan.plan.cache.plan.time", cache,
                        c -> c.stats().planTime().toNanos() / (double) TimeUnit.SECONDS.toNanos(1))
                .tags(tags).baseUnit("seconds").description("Time spent planning misses, in total").register(registry);
        Gauge.builder("memplan.plan.cache.size", cache, c -> c.stats().size()).tags(tags)
                .description("Plans held").register(registry);
    }
}
