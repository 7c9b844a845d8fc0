// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.ort.internal.OrtCApi;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a {@link BudgetedOrtSession} and the counting allocator
 * {@link BoundedOrtArena} installs (Micrometer is optional: add {@code io.micrometer:micrometer-core}
 * to use this class). The budget's own meters (waits, time-outs, refusals) come from
 * {@code MemplanMetrics.of(budgeted.budget())}. Meters read the live figures when the registry
 * polls; nothing is recorded on the request path.
 *
 * <pre>{@code
 * OrtMetrics.of("minilm", budgeted).bindTo(registry);
 * }</pre>
 *
 * <p>Counter {@code memplan.ort.lease.cache.requests} tagged {@code session=<name>} and
 * {@code result=hit|miss}, gauge {@code memplan.ort.lease.cache.size}; counters
 * {@code memplan.ort.split.requests} and {@code .pieces} (requests run in pieces of their rows, and
 * the runs they took); gauges of the process's
 * counting allocator (every configured session's): {@code memplan.ort.allocator.in.use},
 * {@code .peak} and {@code .held} (bytes held from the system, kept blocks included).
 */
public final class OrtMetrics implements MeterBinder {
    private final String name;
    private final BudgetedOrtSession session;

    private OrtMetrics(String name, BudgetedOrtSession session) {
        this.name = name;
        this.session = session;
    }

    /**
     * Meters for a budgeted session, tagged {@code session=name}.
     *
     * @param name    the tag value, e.g. the model's name
     * @param session the budgeted session
     * @return the binder
     */
    public static OrtMetrics of(String name, BudgetedOrtSession session) {
        return new OrtMetrics(Objects.requireNonNull(name, "name"), Objects.requireNonNull(session, "session"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Tags tags = Tags.of("session", name);
        FunctionCounter.builder("memplan.ort.lease.cache.requests", session, s -> s.leaseCacheStats().hits())
                .tags(tags).tag("result", "hit").description("Leases found cached").register(registry);
        FunctionCounter.builder("memplan.ort.lease.cache.requests", session, s -> s.leaseCacheStats().misses())
                .tags(tags).tag("result", "miss").description("Leases planned and predicted").register(registry);
        Gauge.builder("memplan.ort.lease.cache.size", session, s -> s.leaseCacheStats().shapes()).tags(tags)
                .description("Request shapes whose lease is cached").register(registry);
        FunctionCounter.builder("memplan.ort.split.requests", session, s -> s.splitStats().requests()).tags(tags)
                .description("Requests larger than the budget run in pieces of their rows").register(registry);
        FunctionCounter.builder("memplan.ort.split.pieces", session, s -> s.splitStats().pieces()).tags(tags)
                .description("ORT runs the split requests took").register(registry);
        allocator(registry, "in.use", "Bytes ORT holds now", s -> s[0]);
        allocator(registry, "peak", "Most bytes ORT held at once", s -> s[1]);
        allocator(registry, "held", "Bytes held from the system, kept blocks included", s -> s[2]);
    }

    private static void allocator(MeterRegistry registry, String meter, String description, ToDoubleFunction<long[]> f) {
        Gauge.builder("memplan.ort.allocator." + meter, OrtMetrics.class, c -> f.applyAsDouble(OrtCApi.countingStats()))
                .baseUnit("bytes").description(description).register(registry);
    }
}
