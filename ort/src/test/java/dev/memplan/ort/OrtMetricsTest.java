// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.internal.OrtCApi;
import dev.memplan.server.MemoryBudget;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Micrometer binder reports the lease cache's and the counting allocator's live figures. */
@EngineIndependent
class OrtMetricsTest {
    @Test
    void metersFollowTheLeaseCacheAndTheAllocator() throws Exception {
        BoundedOrtArena arena = BoundedOrtArena.install();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtModel model = OrtModel.compile(SharedModels.require(SharedModels.MINILM));
        try (OrtSession.SessionOptions options = arena.configure(new OrtSession.SessionOptions());
             OrtSession session = env.createSession(SharedModels.require(SharedModels.MINILM).toString(), options)) {
            BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, model, MemoryBudget.of(1L << 30));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            OrtMetrics.of("minilm", budgeted).bindTo(registry);
            for (int seq : new int[] {8, 8, 16}) {
                Map<String, OnnxTensor> inputs = new HashMap<>();
                for (String name : new String[] {"input_ids", "attention_mask", "token_type_ids"}) {
                    inputs.put(name, OnnxTensor.createTensor(env, LongBuffer.wrap(new long[seq]), new long[] {1, seq}));
                }
                try {
                    assertTrue(budgeted.run(inputs, Duration.ofSeconds(10), r -> r.get(0).getValue()).isPresent());
                } finally {
                    inputs.values().forEach(OnnxTensor::close);
                }
            }
            assertEquals(1.0, registry.get("memplan.ort.lease.cache.requests").tags("session", "minilm", "result", "hit")
                    .functionCounter().count());
            assertEquals(2.0, registry.get("memplan.ort.lease.cache.requests").tag("result", "miss").functionCounter()
                    .count());
            assertEquals(2.0, registry.get("memplan.ort.lease.cache.size").gauge().value());
            assertEquals(0.0, registry.get("memplan.ort.split.requests").tag("session", "minilm").functionCounter()
                    .count(), "these requests fit whole");
            assertEquals(0.0, registry.get("memplan.ort.split.pieces").functionCounter().count());
            long[] counted = OrtCApi.countingStats();
            assertTrue(registry.get("memplan.ort.allocator.peak").gauge().value() >= counted[0]);
            assertTrue(registry.get("memplan.ort.allocator.held").gauge().value() > 0, "the session's weights are held");
        }
    }
}
