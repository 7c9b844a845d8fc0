// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.internal.OrtCApi;
import dev.memplan.server.MemoryBudget;
import dev.memplan.testing.Ci;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A model whose plan reads an input's value, Silero VAD v5 (its sample rate {@code sr} picks the
 * branch of an If, and its LSTM sits inside), served through {@link BudgetedOrtSession}: the
 * session reads {@code sr} from the request's tensor, so each sample rate leases its own branch's
 * prediction, the one {@link OrtModel#planForInputs(Map, Map)} makes, and ORT holds no more
 * meanwhile. Without the value the If stays open and the LSTM inside it is refused. (Both rates
 * predict the same bytes: ORT's peak is the session's start, above either branch's run.)
 */
@EngineIndependent
class BudgetedOrtSessionValuesTest {
    /** Silero VAD v5: fetched by scripts/public-models.sh, which CI runs first. */
    private static final Path SILERO_V5 = Path.of("target", "public-models", "silero_vad_v5.onnx");

    @Test
    void eachSampleRateLeasesItsOwnBranchsPrediction() throws Exception {
        Ci.require(Files.isRegularFile(SILERO_V5), "no public model at " + SILERO_V5.toAbsolutePath()
                + " (run scripts/public-models.sh)", "CI must run it: .ci/run fetches the public models first");
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtModel model = OrtModel.compile(SILERO_V5);
        try (OrtSession.SessionOptions options = BoundedOrtArena.install().configure(new OrtSession.SessionOptions());
             OrtSession session = env.createSession(SILERO_V5.toString(), options)) {
            BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, model, MemoryBudget.of(64L << 20));
            leaseAndRun(env, model, budgeted, 16_000, 512);
            leaseAndRun(env, model, budgeted, 8_000, 256);
            // per rate: leaseBytes decides, run and the int32 request find it; the value is part of the key
            assertEquals(new BudgetedOrtSession.LeaseCacheStats(4, 2, 2), budgeted.leaseCacheStats());
            Map<String, long[]> shapes = Map.of("input", new long[] {1, 512}, "state", new long[] {2, 1, 128},
                    "sr", new long[0]);
            assertThrows(RuntimeException.class, () -> model.planForInputs(shapes).predictedBytes().orElseThrow(),
                    "from the shapes alone the If on sr stays open and its LSTM is refused");
        }
    }

    /** Leases and runs one request of one row at {@code sampleRate}. */
    private static void leaseAndRun(OrtEnvironment env, OrtModel model, BudgetedOrtSession budgeted, long sampleRate,
                                    int samples) throws Exception {
        Map<String, long[]> shapes = Map.of("input", new long[] {1, samples}, "state", new long[] {2, 1, 128},
                "sr", new long[0]);
        OrtModel.Plan plan = model.planForInputs(shapes, Map.of("sr", new long[] {sampleRate}));
        PlanValidator.validate(plan.plan().plan(), plan.plan().bindings());
        assertTrue(plan.plan().bindings().containsValue(sampleRate), "planned at the rate: " + plan.plan().bindings());
        long predicted = plan.boundedArenaBytes().orElseThrow();
        try (OnnxTensor input = OnnxTensor.createTensor(env, FloatBuffer.allocate(samples), new long[] {1, samples});
             OnnxTensor state = OnnxTensor.createTensor(env, FloatBuffer.allocate(256), new long[] {2, 1, 128});
             OnnxTensor sr = OnnxTensor.createTensor(env, LongBuffer.wrap(new long[] {sampleRate}), new long[0])) {
            Map<String, OnnxTensor> inputs = Map.of("input", input, "state", state, "sr", sr);
            assertEquals(predicted, budgeted.leaseBytes(inputs), sampleRate + " Hz: the lease is the branch's prediction");
            long before = OrtCApi.countingStats()[2];
            OrtCApi.restartCountingPeak();
            float[][] probability = budgeted.run(inputs, Duration.ofSeconds(10),
                    r -> (float[][]) r.get("output").orElseThrow().getValue()).orElseThrow();
            long ortPeak = OrtCApi.countingMaxHeld() - before;
            assertEquals(1, probability.length);
            assertTrue(probability[0][0] >= 0 && probability[0][0] <= 1, "a speech probability");
            assertTrue(ortPeak <= predicted, sampleRate + " Hz: ORT held " + ortPeak + " B under a lease of " + predicted);
            try (OnnxTensor intRate = OnnxTensor.createTensor(env, IntBuffer.wrap(new int[] {(int) sampleRate}),
                    new long[0])) {
                Map<String, OnnxTensor> asInt = Map.of("input", input, "state", state, "sr", intRate);
                assertEquals(predicted, budgeted.leaseBytes(asInt), "an int32 value reads as the same rate");
            }
        }
        assertEquals(0, budgeted.budget().stats().inUseBytes(), "the lease is released");
    }
}
