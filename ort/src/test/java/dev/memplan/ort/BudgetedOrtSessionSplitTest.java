// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.internal.OrtCApi;
import dev.memplan.server.BudgetExceededException;
import dev.memplan.server.MemoryBudget;
import dev.memplan.testing.Ci;
import dev.memplan.testing.DirectMemory;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * A request whose whole needs more than the budget leases, but whose rows fit a few at a time, is
 * run in pieces of its rows inside {@link BudgetedOrtSession#run} and answered as one result: the
 * same embeddings, bit for bit, as ORT's own runs of the same pieces, and for bge-small fp32 the same
 * as its run of the whole up to the order of float sums; ORT's memory stays within the lease
 * meanwhile. Only a request one row
 * of which does not fit is refused, naming both figures.
 */
@EngineIndependent
class BudgetedOrtSessionSplitTest {
    /** bge-small-en-v1.5 fp32: fetched by scripts/public-models.sh, which CI runs first. */
    private static final Path BGE = Path.of("target", "public-models", "bge-small-en-v1.5.onnx");
    private static OrtEnvironment env;
    private static final Map<String, OrtSession> SESSIONS = new HashMap<>();
    private static final Map<String, OrtModel> MODELS = new HashMap<>();

    @BeforeAll
    static void open() {
        SharedModels.requirePresent();
        env = OrtEnvironment.getEnvironment();
    }

    @AfterAll
    static void close() throws Exception {
        for (OrtSession s : SESSIONS.values()) {
            s.close();
        }
    }

    /** The model's session under the budget's allocator and its compile, once per model. */
    private static OrtSession session(String name) throws Exception {
        if (!SESSIONS.containsKey(name)) {
            Path file = name.equals("minilm-int8") ? SharedModels.require(SharedModels.MINILM) : BGE;
            Ci.require(Files.isRegularFile(file), "no public model at " + file.toAbsolutePath()
                    + " (run scripts/public-models.sh)", "CI must run it: .ci/run fetches the public models first");
            try (OrtSession.SessionOptions options = BoundedOrtArena.install().configure(new OrtSession.SessionOptions())) {
                options.setIntraOpNumThreads(1);
                SESSIONS.put(name, env.createSession(file.toString(), options));
            }
            MODELS.put(name, OrtModel.compile(file));
        }
        return SESSIONS.get(name);
    }

    @ParameterizedTest(name = "{0}: {1} rows x {2} tokens, budget for {3} rows, seed {4}")
    @CsvSource({"minilm-int8, 6, 96, 2, 1", "minilm-int8, 7, 40, 3, 2", "minilm-int8, 5, 128, 1, 3",
            "bge-fp32, 8, 64, 3, 4", "bge-fp32, 5, 200, 1, 5"})
    void aRequestLargerThanTheBudgetRunsInPiecesOfItsRows(String name, int rows, int tokens, int rowsThatFit,
                                                          long seed) throws Exception {
        OrtSession session = session(name);
        OrtModel model = MODELS.get(name);
        Map<String, OnnxTensor> inputs = inputs(rows, tokens, new Random(seed));
        try {
            long outputBytes = joinedBytes(rows, tokens);
            long pieceLease = lease(model, rowsThatFit, tokens);
            long capacity = pieceLease + outputBytes;
            assertTrue(lease(model, rows, tokens) > capacity, "the whole must not fit, or nothing is split");
            assertTrue(lease(model, rowsThatFit + 1, tokens) + outputBytes > capacity, "pieces of " + rowsThatFit
                    + " rows");
            BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, model, MemoryBudget.of(capacity));

            long before = OrtCApi.countingStats()[2]; // held from the system
            long directBefore = DirectMemory.bytes();
            OrtCApi.restartCountingPeak();
            Optional<float[][][]> split = budgeted.run(inputs, Duration.ofSeconds(30),
                    r -> (float[][][]) r.get("last_hidden_state").orElseThrow().getValue());
            long ortPeak = OrtCApi.countingMaxHeld() - before;
            long directAfter = DirectMemory.bytes(); // a collection meanwhile may free others' buffers: at most before
            assertTrue(directAfter <= directBefore, "the pieces' copies of inputs and outputs were given back with"
                    + " the lease, not left to a garbage collection: " + directBefore + " B before, " + directAfter);
            float[][][] whole;
            try (OrtSession.Result r = session.run(inputs)) {
                whole = (float[][][]) r.get("last_hidden_state").orElseThrow().getValue();
            }

            assertTrue(split.isPresent(), "the request was answered");
            long pieceCount = (rows + rowsThatFit - 1) / rowsThatFit;
            assertEquals(new BudgetedOrtSession.SplitStats(1, pieceCount), budgeted.splitStats());
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            OrtMetrics.of(name, budgeted).bindTo(registry);
            assertEquals(1.0, registry.get("memplan.ort.split.requests").functionCounter().count());
            assertEquals(pieceCount, registry.get("memplan.ort.split.pieces").functionCounter().count());
            assertEquals(rows, split.get().length);
            float[][][] pieces = ortRunsOfPieces(session, inputs, rows, tokens, rowsThatFit);
            long[][] mask = (long[][]) inputs.get("attention_mask").getValue();
            double least = 1;
            for (int b = 0; b < rows; b++) {
                for (int t = 0; t < tokens; t++) {
                    assertArrayEquals(pieces[b][t], split.get()[b][t], "row " + b + ", token " + t
                            + ": not what ORT answers for the piece holding the row");
                    if (mask[b][t] == 1) { // padding's states are not compared: no pooling reads them
                        least = Math.min(least, cosine(whole[b][t], split.get()[b][t]));
                    }
                }
            }
            // int8 dynamic quantization takes one scale over the rows a run holds: close, not equal
            System.out.printf("info: %s %d x %d in pieces of %d: least cosine of a token to the whole run %.6f%n",
                    name, rows, tokens, rowsThatFit, least);
            // fp32 rows are apart: the whole run agrees but for the order of float sums. int8's dynamic
            // quantization takes one scale over the rows a run holds (cosines down to 0.9 measured), as
            // any two batchings of the same rows differ in ORT: its pieces are held to ORT's own above.
            assertTrue(name.contains("int8") || least > 0.9999, "a token's cosine to ORT's run of the whole"
                    + " request fell to " + least);
            assertTrue(ortPeak <= capacity, "the allocator held " + ortPeak + " B for the pieces and the joined"
                    + " outputs while the lease was " + capacity);
            assertEquals(0, budgeted.budget().stats().inUseBytes(), "the lease is released");
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    @ParameterizedTest(name = "{0}: {1} rows x {2} tokens, seed {3}")
    @CsvSource({"minilm-int8, 6, 64, 6", "bge-fp32, 5, 96, 7"})
    void aRequestPastItsShareOfTheBudgetRunsInPiecesWithinTheShare(String name, int rows, int tokens, long seed)
            throws Exception {
        OrtSession session = session(name);
        OrtModel model = MODELS.get(name);
        Map<String, OnnxTensor> inputs = inputs(rows, tokens, new Random(seed));
        try {
            long outputBytes = joinedBytes(rows, tokens);
            long capacity = lease(model, rows, tokens) + outputBytes; // the whole fits the budget
            long share = capacity / 2;
            int perPiece = 0;
            while (perPiece < rows && lease(model, perPiece + 1, tokens) + outputBytes <= share) {
                perPiece++;
            }
            assertTrue(perPiece >= 1 && perPiece < rows, "one row must fit half the budget and the whole not: "
                    + perPiece);
            BudgetedOrtSession whole = BudgetedOrtSession.of(session, model, MemoryBudget.of(capacity));
            BudgetedOrtSession shared = whole.withRunsInFlight(2);
            ResultReaderOfStates reader = new ResultReaderOfStates();

            assertEquals(rows, whole.run(inputs, Duration.ofSeconds(30), reader).orElseThrow().length);
            assertEquals(new BudgetedOrtSession.SplitStats(0, 0), whole.splitStats(), "one run holds it all");
            float[][][] split = shared.run(inputs, Duration.ofSeconds(30), reader).orElseThrow();
            long pieceCount = (rows + perPiece - 1) / perPiece;
            assertEquals(new BudgetedOrtSession.SplitStats(1, pieceCount), shared.splitStats(),
                    "pieces of " + perPiece + " rows, each within half the budget");
            assertRowsMatchOrtsRunsOfPieces(session, inputs, rows, tokens, perPiece, split);
            assertEquals(0, shared.budget().stats().inUseBytes(), "the lease is released");
            assertTrue(shared.budget().stats().peakInUseBytes() <= capacity);
            assertThrows(IllegalArgumentException.class, () -> whole.withRunsInFlight(0));
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    @ParameterizedTest(name = "{0}: {1} rows x {2} tokens, {3} per run")
    @CsvSource({"minilm-int8, 5, 32, 1", "bge-fp32, 7, 24, 3"})
    void aRequestWithMoreRowsThanARunTakesRunsInPiecesOfThatMany(String name, int rows, int tokens, int perRun)
            throws Exception {
        OrtSession session = session(name);
        OrtModel model = MODELS.get(name);
        Map<String, OnnxTensor> inputs = inputs(rows, tokens, new Random(rows * 31L + tokens));
        try {
            long outputBytes = joinedBytes(rows, tokens);
            long capacity = 4 * (lease(model, rows, tokens) + outputBytes); // the whole fits with room to spare
            BudgetedOrtSession capped = BudgetedOrtSession.of(session, model, MemoryBudget.of(capacity))
                    .withRowsPerRun(perRun);
            float[][][] split = capped.run(inputs, Duration.ofSeconds(30), new ResultReaderOfStates()).orElseThrow();
            long pieceCount = (rows + perRun - 1) / perRun;
            assertEquals(new BudgetedOrtSession.SplitStats(1, pieceCount), capped.splitStats());
            assertRowsMatchOrtsRunsOfPieces(session, inputs, rows, tokens, perRun, split);
            float[][][] again = capped.run(inputs, Duration.ofSeconds(30), new ResultReaderOfStates()).orElseThrow();
            assertEquals(new BudgetedOrtSession.SplitStats(2, 2 * pieceCount), capped.splitStats(),
                    "the shape's cached decision splits it as before");
            assertEquals(new BudgetedOrtSession.LeaseCacheStats(1, 1, 1), capped.leaseCacheStats(),
                    "decided once, then found");
            for (int b = 0; b < rows; b++) {
                assertArrayEquals(split[b][0], again[b][0], "row " + b);
            }
            long pieceLease = lease(model, perRun, tokens) + outputBytes;
            assertEquals(pieceLease, capped.leaseBytes(inputs), "what run leases: the largest piece and the outputs");
            assertTrue(capped.budget().stats().peakInUseBytes() <= pieceLease, "one lease of the largest piece and"
                    + " the joined outputs, not the whole: " + capped.budget().stats().peakInUseBytes());
            assertEquals(0, capped.budget().stats().inUseBytes(), "the lease is released");
            assertThrows(IllegalArgumentException.class, () -> capped.withRowsPerRun(0));
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** Reads the last hidden states. */
    private static final class ResultReaderOfStates implements BudgetedOrtSession.ResultReader<float[][][]> {
        @Override
        public float[][][] read(OrtSession.Result result) throws ai.onnxruntime.OrtException {
            return (float[][][]) result.get("last_hidden_state").orElseThrow().getValue();
        }
    }

    @Test
    void aRequestOneRowOfWhichDoesNotFitIsRefusedNamingBothFigures() throws Exception {
        OrtSession session = session("minilm-int8");
        OrtModel model = MODELS.get("minilm-int8");
        Map<String, OnnxTensor> inputs = inputs(4, 64, new Random(5));
        try {
            long oneRow = lease(model, 1, 64);
            BudgetedOrtSession small = BudgetedOrtSession.of(session, model, MemoryBudget.of(oneRow));
            BudgetExceededException e = assertThrows(BudgetExceededException.class,
                    () -> small.run(inputs, Duration.ofSeconds(1), r -> r.get(0).getValue()));
            assertTrue(e.getMessage().contains("one row of the request needs " + oneRow + " bytes")
                    && e.getMessage().contains(Long.toString(oneRow)), e.getMessage());
            assertEquals(new BudgetedOrtSession.SplitStats(0, 0), small.splitStats());
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** Every token's state of the split request is what ORT answers for the piece of {@code per} rows holding it. */
    private static void assertRowsMatchOrtsRunsOfPieces(OrtSession session, Map<String, OnnxTensor> inputs, int rows,
                                                       int tokens, int per, float[][][] split) throws Exception {
        float[][][] pieces = ortRunsOfPieces(session, inputs, rows, tokens, per);
        for (int b = 0; b < rows; b++) {
            for (int t = 0; t < tokens; t++) {
                assertArrayEquals(pieces[b][t], split[b][t], "row " + b + ", token " + t);
            }
        }
    }

    /** ORT's own runs of the request's rows, {@code per} at a time, joined: what the split must answer. */
    private static float[][][] ortRunsOfPieces(OrtSession session, Map<String, OnnxTensor> inputs, int rows,
                                               int tokens, int per)
            throws Exception {
        long[][] ids = (long[][]) inputs.get("input_ids").getValue();
        long[][] mask = (long[][]) inputs.get("attention_mask").getValue();
        float[][][] joined = new float[rows][][];
        for (int first = 0; first < rows; first += per) {
            int count = Math.min(per, rows - first);
            long[][] pieceIds = java.util.Arrays.copyOfRange(ids, first, first + count);
            long[][] pieceMask = java.util.Arrays.copyOfRange(mask, first, first + count);
            try (OnnxTensor i = OnnxTensor.createTensor(env, pieceIds);
                 OnnxTensor m = OnnxTensor.createTensor(env, pieceMask);
                 OnnxTensor z = OnnxTensor.createTensor(env, new long[count][tokens]);
                 OrtSession.Result r = session.run(Map.of("input_ids", i, "attention_mask", m, "token_type_ids", z))) {
                float[][][] out = (float[][][]) r.get("last_hidden_state").orElseThrow().getValue();
                System.arraycopy(out, 0, joined, first, count);
            }
        }
        return joined;
    }

    @Test
    void atMostTheRunsInFlightRunAtOnceTheRestWaitInTurn() throws Exception {
        OrtSession session = session("minilm-int8");
        OrtModel model = MODELS.get("minilm-int8");
        Map<String, OnnxTensor> inputs = inputs(1, 16, new Random(7));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            MemoryBudget budget = MemoryBudget.of(64L << 20); // room for many such requests
            assertTrue(lease(model, 1, 16) * 4 < budget.leasableBytes());
            BudgetedOrtSession one = BudgetedOrtSession.of(session, model, budget).withRunsInFlight(1);
            BudgetedOrtSession oneRowEach = one.withRowsPerRun(1); // shares the run slot
            BudgetedOrtSession byBudgetAlone = BudgetedOrtSession.of(session, model, budget);
            CountDownLatch reading = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Future<Optional<Integer>> first = pool.submit(() -> one.run(inputs, Duration.ofSeconds(30), r -> {
                reading.countDown();
                awaitQuietly(done);
                return 1;
            }));
            assertTrue(reading.await(30, TimeUnit.SECONDS), "the first request runs");
            assertEquals(Optional.empty(), one.run(inputs, Duration.ofMillis(50), r -> 2),
                    "the one slot is taken: no run within the timeout, though the budget has room");
            assertEquals(Optional.empty(), oneRowEach.run(inputs, Duration.ofMillis(50), r -> 3));
            assertEquals(Optional.of(4), byBudgetAlone.run(inputs, Duration.ofSeconds(30), r -> 4),
                    "the session of() returns admits by the budget alone");
            done.countDown();
            assertEquals(Optional.of(1), first.get(30, TimeUnit.SECONDS));
            assertEquals(Optional.of(5), one.run(inputs, Duration.ofSeconds(30), r -> 5), "the slot is free again");
            assertEquals(0, budget.stats().inUseBytes(), "every lease released");
        } finally {
            pool.shutdownNow();
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the counting allocator holds for a split request's joined output (last_hidden_state,
     * float) and its copies of the three inputs (int64), each a block of its own.
     */
    private static long joinedBytes(int rows, int tokens) {
        return OrtCApi.countedBytes(4L * rows * tokens * 384) + 3 * OrtCApi.countedBytes(8L * rows * tokens);
    }

    /** What ORT is predicted to hold for a request under the bounded arena, its plan checked by the validator. */
    private static long lease(OrtModel model, int rows, int tokens) {
        OrtModel.Plan plan = model.planForInputs(Map.of("input_ids", new long[] {rows, tokens},
                "attention_mask", new long[] {rows, tokens}, "token_type_ids", new long[] {rows, tokens}));
        PlanValidator.validate(plan.plan().plan(), plan.plan().bindings());
        return plan.boundedArenaBytes().orElseThrow();
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return dot / Math.sqrt(na * nb);
    }

    /** Random token ids, each row its own length of real tokens, the rest masked padding. */
    private static Map<String, OnnxTensor> inputs(int rows, int tokens, Random random) throws Exception {
        long[] shape = {rows, tokens};
        LongBuffer ids = LongBuffer.allocate(rows * tokens);
        LongBuffer mask = LongBuffer.allocate(rows * tokens);
        for (int b = 0; b < rows; b++) {
            int real = 2 + random.nextInt(tokens - 1);
            for (int t = 0; t < tokens; t++) {
                ids.put(t < real ? 1000 + random.nextInt(20000) : 0);
                mask.put(t < real ? 1 : 0);
            }
        }
        return Map.of("input_ids", OnnxTensor.createTensor(env, ids.flip(), shape),
                "attention_mask", OnnxTensor.createTensor(env, mask.flip(), shape),
                "token_type_ids", OnnxTensor.createTensor(env, LongBuffer.allocate(rows * tokens), shape));
    }

}
