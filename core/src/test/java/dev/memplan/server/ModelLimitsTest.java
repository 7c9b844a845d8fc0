// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Admission;
import dev.memplan.onnx.BindingConflictException;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Model limits as API, admission within them, and the request path's fail-fast checks (misspelled
 * bucketing symbols, missing inputs, deferred plans naming their symbols), on the shared models.
 */
class ModelLimitsTest {
    private static CompiledModel miniLm;

    @BeforeAll
    static void compileOnce() {
        miniLm = CompiledModel.compile(SharedModels.require(SharedModels.MINILM));
    }

    @Test
    void miniLmReportsItsSequenceLimit() {
        assertEquals(Map.of("sequence_length", 512L), miniLm.limits());
        assertEquals(OptionalLong.of(512), miniLm.limit("sequence_length"));
        assertEquals(OptionalLong.empty(), miniLm.limit("batch_size"));
        CompiledModel gpt2 = CompiledModel.compile(SharedModels.require(SharedModels.GPT2));
        assertEquals(Map.of(), gpt2.limits());
    }

    @Test
    void aRequestAboveTheLimitFailsNamingIt() {
        PlanValidator.validate(miniLm.plan(Map.of("batch_size", 1L, "sequence_length", 512L)).plan());
        ModelLimitException e = assertThrows(ModelLimitException.class,
                () -> miniLm.planForInputs(Models.miniLmInputs(1, 513)));
        assertEquals("sequence_length = 513 is above 512, the largest value the model accepts (node 162 "
                + "'/embeddings/Add_1' (Add) needs sequence_length <= 512); split the request or bind "
                + "sequence_length <= 512", e.getMessage());
        assertEquals(513, e.value());
        assertEquals(512, e.limit());
        assertTrue(e instanceof BindingConflictException, "one family for requests the model cannot take");
    }

    @Test
    void bucketingNeverRoundsPastTheLimit() {
        PlanCache cache = PlanCache.of(miniLm, 16, Bucketing.none().multipleOf("sequence_length", 100));
        OnnxPlan p = cache.planForInputs(Models.miniLmInputs(2, 510));
        assertEquals(Map.of("batch_size", 2L, "sequence_length", 512L), p.bindings());
        PlanValidator.validate(p.plan());
        OnnxPlan below = cache.planForInputs(Models.miniLmInputs(2, 410));
        assertEquals(500L, below.bindings().get("sequence_length"), "below the limit, buckets are unchanged");
        PlanValidator.validate(below.plan());
        ModelLimitException e = assertThrows(ModelLimitException.class, () -> cache.planForInputs(Models.miniLmInputs(2, 602)));
        assertEquals(602, e.value(), "the request's own length, not the bucket's 700: " + e.getMessage());
    }

    @Test
    void readmeAdmissionExampleAnswersWithinTheLimit() {
        Admission.Answer large = Admission.search(miniLm, "sequence_length", Map.of("batch_size", 4L), 4L << 30, 4096);
        assertEquals(OptionalLong.of(512), large.largest());
        assertTrue(large.limitedByModel(), large.toString());
        assertEquals("largest fitting 512 of at most 512 (the model's limit)", large.toString());

        long budget = 64L << 20;
        OptionalLong small = Admission.largestFitting(miniLm, "sequence_length", Map.of("batch_size", 4L), budget, 4096);
        long n = small.orElseThrow();
        assertTrue(n < 512, "64 MiB holds fewer than 512 tokens at batch 4: " + n);
        long at = Admission.peakAt(miniLm, "sequence_length", Map.of("batch_size", 4L), n);
        long next = Admission.peakAt(miniLm, "sequence_length", Map.of("batch_size", 4L), n + 1);
        assertTrue(at <= budget && next > budget, n + ": " + at + ", " + (n + 1) + ": " + next);
        PlanValidator.validate(miniLm.plan(Map.of("batch_size", 4L, "sequence_length", n)).plan());
    }

    @Test
    void admissionTreatsACandidateTheModelRejectsAsNotFitting() {
        // a model whose limit the search does not know: answers only values it accepts, never throws
        dev.memplan.Admission.Reservation unknownLimit = new dev.memplan.Admission.Reservation() {
            @Override
            public OptionalLong reservationBytes(Map<String, Long> bounds) {
                return miniLm.reservationBytes(bounds);
            }

            @Override
            public java.util.Set<String> symbolNames() {
                return miniLm.symbolNames();
            }
        };
        OptionalLong n = Admission.largestFitting(unknownLimit, "sequence_length", Map.of("batch_size", 1L),
                Long.MAX_VALUE, 4096);
        assertTrue(n.orElseThrow() <= 512, "answered " + n);
    }

    @Test
    void misspelledBucketingSymbolIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PlanCache.of(miniLm, 16, Bucketing.none().multipleOf("seq_len", 64)));
        assertEquals("the bucketing has a rule for 'seq_len', which the model " + miniLm.name()
                + " does not have; its symbols are [batch_size, sequence_length]", e.getMessage());
    }

    @Test
    void missingGraphInputIsRejected() {
        Map<String, long[]> shapes = new HashMap<>(Models.miniLmInputs(1, 8));
        shapes.remove("token_type_ids");
        String expected = "the request gives no shape for input 'token_type_ids'; the model needs every one of "
                + "[input_ids, attention_mask, token_type_ids] to run";
        assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> miniLm.planForInputs(shapes))
                .getMessage());
        PlanCache cache = PlanCache.of(miniLm, 4, Bucketing.none());
        assertEquals(expected, assertThrows(IllegalArgumentException.class, () -> cache.planForInputs(shapes))
                .getMessage());
    }

    @Test
    void deferredPlanNamesTheSymbolsToBind() {
        OnnxPlan p = miniLm.plan(Map.of("batch_size", 8L));
        assertFalse(p.isComplete());
        IllegalStateException e = assertThrows(IllegalStateException.class, p::plan);
        assertEquals("the plan is deferred: bind sequence_length (planned at {batch_size=8})", e.getMessage());
    }

    @Test
    void planCacheStatsCountHitsMissesEvictionsAndPlanTime() {
        PlanCache cache = PlanCache.of(miniLm, 2, Bucketing.none());
        for (long seq : new long[] {8, 8, 16, 24, 32}) {
            PlanValidator.validate(cache.plan(Map.of("batch_size", 1L, "sequence_length", seq)).plan());
        }
        cache.plan(Map.of("batch_size", 1L)); // deferred: a miss, not cached
        PlanCache.Stats s = cache.stats();
        assertEquals(1, s.hits());
        assertEquals(5, s.misses());
        assertEquals(6, s.requests());
        assertEquals(1, s.deferred());
        assertTrue(s.evictions() >= 2 && s.size() <= 2, s.toString()); // 4 plans made, at most 2 kept
        assertEquals(1.0 / 6, s.hitRate(), 1e-12);
        assertTrue(s.planTime().toNanos() > 0 && s.averagePlanTime().compareTo(s.planTime()) <= 0, s.toString());
    }
}
