// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Micrometer binder reports the budget's and the cache's live figures. */
class MemplanMetricsTest {

    @Test
    void budgetMetersFollowTheBudget() throws Exception {
        MemoryBudget budget = MemoryBudget.of("test", 1000, 100);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MemplanMetrics.of(budget).bindTo(registry);
        try (MemoryBudget.Lease a = budget.acquire(600)) {
            assertEquals(600.0, registry.get("memplan.budget.in.use").tag("budget", "test").gauge().value());
            budget.tryAcquire(400, Duration.ofMillis(20)); // 300 free: times out
        }
        assertEquals(1000.0, registry.get("memplan.budget.capacity").gauge().value());
        assertEquals(100.0, registry.get("memplan.budget.reserve").gauge().value());
        assertEquals(0.0, registry.get("memplan.budget.in.use").gauge().value());
        assertEquals(600.0, registry.get("memplan.budget.peak").gauge().value());
        assertEquals(1.0, registry.get("memplan.budget.admitted").functionCounter().count());
        assertEquals(1.0, registry.get("memplan.budget.timed.out").functionCounter().count());
        assertEquals(budget.stats().totalWait().toNanos() / 1e9,
                registry.get("memplan.budget.wait").functionCounter().count(), 1e-9);
    }

    @Test
    void cacheMetersFollowTheCache() {
        CompiledModel miniLm = CompiledModel.compile(SharedModels.require(SharedModels.MINILM));
        PlanCache cache = PlanCache.of(miniLm, 8, Bucketing.none());
        for (long seq : new long[] {16, 16, 16, 32}) {
            PlanValidator.validate(cache.plan(Map.of("batch_size", 1L, "sequence_length", seq)).plan());
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MemplanMetrics.of("minilm", cache).bindTo(registry);
        assertEquals(2.0, registry.get("memplan.plan.cache.requests").tags("cache", "minilm", "result", "hit")
                .functionCounter().count());
        assertEquals(2.0, registry.get("memplan.plan.cache.requests").tag("result", "miss").functionCounter().count());
        assertEquals(2.0, registry.get("memplan.plan.cache.size").gauge().value());
        assertEquals(cache.stats().planTime().toNanos() / 1e9,
                registry.get("memplan.plan.cache.plan.time").functionCounter().count(), 1e-9);
    }
}
