// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Admission;
import dev.memplan.PlanOptions;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.OnnxModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The compile-once server path gives the plans of the recompiling path, and admission with control flow. */
class CompiledModelTest {
    private static CompiledModel miniLm;

    @BeforeAll
    static void compileOnce() {
        miniLm = CompiledModel.compile(SharedModels.require(SharedModels.MINILM));
    }

    @ParameterizedTest(name = "seq {0}")
    @ValueSource(longs = {1, 7, 128, 512})
    void inputShapesPlanLikeTheRecompilingPlanner(long seq) {
        OnnxPlan served = miniLm.planForInputs(Models.miniLmInputs(4, seq));
        assertEquals(Map.of("batch_size", 4L, "sequence_length", seq), served.bindings());
        assertTrue(served.isComplete(), served.result().toString());
        ActivationPlan p = served.plan();
        PlanValidator.validate(p);

        OnnxPlan reference = OnnxPlanner.plan(miniLm.imported(), served.bindings(), PlanOptions.defaults());
        ActivationPlan r = reference.plan();
        PlanValidator.validate(r);
        assertEquals(r.peakBytes(), p.peakBytes());
        assertEquals(r.lowerBoundBytes(), p.lowerBoundBytes());
        for (int v : miniLm.schedule().owners()) {
            assertEquals(r.offsetOf(v), p.offsetOf(v), "offset of value " + v);
            assertEquals(r.sizeOf(v), p.sizeOf(v), "size of value " + v);
        }
        assertEquals(reference.admissionBytes(), served.admissionBytes());
    }

    @Test
    void sizesGrowWithTheRequest() {
        long small = miniLm.planForInputs(Models.miniLmInputs(1, 64)).plan().peakBytes();
        long large = miniLm.planForInputs(Models.miniLmInputs(4, 512)).plan().peakBytes();
        assertTrue(small > 0 && large > small, small + " then " + large);
    }

    @Test
    void missingSymbolsDeferNeverGuess() {
        OnnxPlan deferred = miniLm.plan(Map.of("batch_size", 2L));
        assertTrue(!deferred.isComplete());
        assertEquals(List.of("sequence_length"), deferred.unboundSymbols());
        assertEquals(OptionalLong.empty(), deferred.admissionBytes());
        assertEquals(OptionalLong.empty(), miniLm.reservationBytes(Map.of("batch_size", 2L)));
    }

    @Test
    void shapesThatDoNotFitTheModelAreRejectedByName() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> miniLm.bindingsFor(Map.of("pixels", new long[] {1, 3})));
        assertTrue(unknown.getMessage().contains("'pixels'") && unknown.getMessage().contains("input_ids"),
                unknown.getMessage());
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class,
                () -> miniLm.bindingsFor(Map.of("input_ids", new long[] {1, 2, 3})));
        assertTrue(rank.getMessage().contains("'input_ids'") && rank.getMessage().contains("rank 2"), rank.getMessage());
        IllegalArgumentException clash = assertThrows(IllegalArgumentException.class, () -> miniLm.bindingsFor(
                Map.of("input_ids", new long[] {1, 8}, "attention_mask", new long[] {1, 9})));
        assertTrue(clash.getMessage().contains("sequence_length"), clash.getMessage());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> miniLm.bindingsFor(Map.of("input_ids", new long[] {-1, 8})));
        assertTrue(negative.getMessage().contains("negative"), negative.getMessage());
    }

    @Test
    void sileroAdmissionCountsTheIfBody() {
        CompiledModel silero = CompiledModel.compile(SharedModels.require(SharedModels.SILERO));
        Map<String, Long> bindings = Map.of("batch", 1L, "sequence", 512L);
        OnnxPlan plan = silero.plan(bindings);
        PlanValidator.validate(plan.plan());
        OnnxPlan reference = OnnxPlanner.plan(
                OnnxImporter.importModel(OnnxModel.read(SharedModels.require(SharedModels.SILERO)), ImportOptions.defaults()),
                bindings, PlanOptions.defaults());
        assertEquals(reference.admissionBytes(), plan.admissionBytes());
        assertEquals(reference.admissionBytes(), silero.reservationBytes(bindings));
        long outerPeak = plan.plan().peakBytes();
        long admission = plan.admissionBytes().getAsLong();
        assertTrue(admission > outerPeak, "the If body needs more than the outer plan: " + admission + " vs " + outerPeak);
        // Admission answers with the transient need, not the outer peak alone
        assertEquals(admission, Admission.peakAt(silero, "sequence", Map.of("batch", 1L), 512));
        // the outer peak alone (what admission reported before control flow counted) admits nothing
        Map<String, Long> seq = Map.of("sequence", 512L);
        assertEquals(OptionalLong.empty(), Admission.largestFitting(silero, "batch", seq, outerPeak, 64));
        long budget = Admission.peakAt(silero, "batch", seq, 8);
        long found = Admission.largestFitting(silero, "batch", seq, budget, 64).getAsLong();
        assertTrue(found >= 8, "batch 8 fits its own figure, found " + found);
        assertTrue(Admission.peakAt(silero, "batch", seq, found + 1) > budget);
    }

    @Test
    void admissionSearchIsExactOnMiniLm() {
        Map<String, Long> batch = Map.of("batch_size", 2L);
        long budget = Admission.peakAt(miniLm, "sequence_length", batch, 300);
        // MiniLM's position embeddings cap sequence_length at 512: larger bindings contradict the model
        long found = Admission.largestFitting(miniLm, "sequence_length", batch, budget, 512).getAsLong();
        assertTrue(found >= 300, "300 fits its own peak, found " + found);
        assertTrue(Admission.peakAt(miniLm, "sequence_length", batch, found) <= budget);
        assertTrue(Admission.peakAt(miniLm, "sequence_length", batch, found + 1) > budget);
    }

    @Test
    void manyThreadsPlanOneModelAlike() throws Exception {
        Map<String, long[]> shapes = Models.miniLmInputs(3, 200);
        ActivationPlan expected = miniLm.planForInputs(shapes).plan();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<ActivationPlan>> futures = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                futures.add(pool.submit(() -> miniLm.planForInputs(shapes).plan()));
            }
            for (Future<ActivationPlan> f : futures) {
                ActivationPlan p = f.get();
                PlanValidator.validate(p);
                assertEquals(expected.peakBytes(), p.peakBytes());
                for (int v : miniLm.schedule().owners()) {
                    assertEquals(expected.offsetOf(v), p.offsetOf(v));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
