// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The plan cache reuses plans, stays bounded, and a bucketed plan covers the request it answers. */
class PlanCacheTest {
    private static CompiledModel miniLm;

    @BeforeAll
    static void compileOnce() {
        miniLm = CompiledModel.compile(SharedModels.require(SharedModels.MINILM));
    }

    @Test
    void secondRequestIsAHit() {
        PlanCache cache = PlanCache.of(miniLm, 16, Bucketing.none());
        OnnxPlan first = cache.planForInputs(Models.miniLmInputs(2, 100));
        OnnxPlan second = cache.planForInputs(Models.miniLmInputs(2, 100));
        assertSame(first, second);
        assertEquals(1, cache.hits());
        assertEquals(1, cache.misses());
        PlanValidator.validate(second.plan());
        assertEquals(miniLm.planForInputs(Models.miniLmInputs(2, 100)).plan().peakBytes(), second.plan().peakBytes());
    }

    @Test
    void staysBounded() {
        PlanCache cache = PlanCache.of(miniLm, 3, Bucketing.none());
        for (long seq = 1; seq <= 20; seq++) {
            cache.plan(Map.of("batch_size", 1L, "sequence_length", seq));
        }
        assertTrue(cache.size() <= 3, "size " + cache.size());
        assertEquals(20, cache.misses());
    }

    @Test
    void bucketedPlanCoversEveryRequestInItsBucket() {
        PlanCache cache = PlanCache.of(miniLm, 16, Bucketing.none().multipleOf("sequence_length", 64));
        OnnxPlan at512 = cache.plan(Map.of("batch_size", 2L, "sequence_length", 512L));
        for (long seq = 449; seq <= 512; seq += 9) {
            OnnxPlan p = cache.plan(Map.of("batch_size", 2L, "sequence_length", seq));
            assertSame(at512, p, "seq " + seq + " falls in the 512 bucket");
            ActivationPlan exact = miniLm.plan(Map.of("batch_size", 2L, "sequence_length", seq)).plan();
            PlanValidator.validate(exact);
            assertTrue(exact.peakBytes() <= p.plan().peakBytes(), "the bucket's plan reserves enough for seq " + seq);
            for (int v : miniLm.schedule().owners()) {
                assertTrue(exact.sizeOf(v) <= p.plan().sizeOf(v), "value " + v + " fits its bucketed place");
            }
        }
        assertEquals(Map.of("batch_size", 2L, "sequence_length", 512L), at512.bindings());
        assertEquals(1, cache.misses());
    }

    @Test
    void deferredPlansAreNotCached() {
        PlanCache cache = PlanCache.of(miniLm, 16, Bucketing.none());
        assertTrue(!cache.plan(Map.of("batch_size", 1L)).isComplete());
        assertEquals(0, cache.size());
    }

    @Test
    void rejectsAnEmptyBound() {
        assertThrows(IllegalArgumentException.class, () -> PlanCache.of(miniLm, 0, Bucketing.none()));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void bucketingRoundsUpToTheSmallestBucket(long seed) {
        Random random = new Random(seed);
        long step = 1 + random.nextInt(100);
        Bucketing b = Bucketing.none().multipleOf("s", step).powerOfTwo("p");
        for (int i = 0; i < 200; i++) {
            long s = random.nextInt(1 << 20);
            long p = random.nextInt(1 << 20);
            Map<String, Long> out = b.apply(Map.of("s", s, "p", p, "other", 77L));
            long rs = out.get("s");
            long rp = out.get("p");
            assertTrue(rs >= s && rs % step == 0 && rs - s < step, s + " -> " + rs + " (step " + step + ")");
            assertTrue(rp >= p && (rp == 0 || Long.bitCount(rp) == 1) && (p == 0 || rp < 2 * p), p + " -> " + rp);
            assertEquals(77L, out.get("other"));
        }
    }

    @Test
    void bucketingRejectsWhatItCannotRound() {
        assertThrows(IllegalArgumentException.class, () -> Bucketing.none().multipleOf("s", 0));
        assertThrows(IllegalArgumentException.class, () -> Bucketing.none().powerOfTwo("p").apply(Map.of("p", -1L)));
        IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                () -> Bucketing.none().powerOfTwo("p").apply(Map.of("p", Long.MAX_VALUE)));
        assertTrue(huge.getMessage().contains("'p'"), huge.getMessage());
    }
}
